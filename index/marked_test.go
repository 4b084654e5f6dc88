package index

import (
	"strings"
	"testing"
)

// Marked puts open and close around each match and escapes the text
// between; a mark out of order or past the text is dropped, not a panic.
func TestFragmentMarked(t *testing.T) {
	upper := strings.ToUpper
	for _, tc := range []struct {
		f    Fragment
		esc  func(string) string
		want string
	}{
		{Fragment{Text: "no match"}, nil, "no match"},
		{Fragment{Text: "a rate and its base", Marks: [][2]int{{2, 6}, {15, 19}}}, nil, "a <rate> and its <base>"},
		{Fragment{Text: "a rate", Marks: [][2]int{{2, 6}}}, upper, "A <RATE>"},
		{Fragment{Text: "abc", Marks: [][2]int{{1, 2}, {0, 1}, {2, 9}}}, nil, "a<b>c"},
	} {
		if got := tc.f.Marked("<", ">", tc.esc); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.f, got, tc.want)
		}
	}
}
