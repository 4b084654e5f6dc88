package moment

import (
	"testing"
	"time"
)

// TestFormat: every token, brackets as literal text, longest token first.
func TestFormat(t *testing.T) {
	at := time.Date(2026, 12, 3, 15, 4, 5, 678e6, time.FixedZone("", 90*60))
	midnight := time.Date(2026, 1, 11, 0, 7, 0, 0, time.UTC)
	for _, tc := range []struct {
		t           time.Time
		format, out string
	}{
		{at, "YYYY-MM-DD HH:mm:ss.SSS", "2026-12-03 15:04:05.678"},
		{at, "YY M D H m s", "26 12 3 15 4 5"},
		{at, "dddd ddd MMMM MMM Do", "Thursday Thu December Dec 3rd"},
		{at, "hh:mm A / h a", "03:04 PM / 3 pm"},
		{midnight, "h A Do", "12 AM 11th"},
		{at, "Z ZZ", "+01:30 +0130"},
		{at, "X x", "1796304845 1796304845678"},
		{at, "[Week of] YYYY [YYYY]", "Week of 2026 YYYY"},
		{at, "YYYY/MM, q!", "2026/12, q!"},
		{at, "[unclo", "[unclo"}, // no closing bracket: the "[" is text
	} {
		if got := Format(tc.t, tc.format); got != tc.out {
			t.Errorf("Format(%q) = %q, want %q", tc.format, got, tc.out)
		}
	}
}

// TestUnsupported: a token Format prints as Moment.js does is not
// reported; one it would print as text (or split, as DDDD into DD DD) is.
func TestUnsupported(t *testing.T) {
	for _, tc := range []struct{ format, want string }{
		{"YYYY-MM-DD HH:mm:ss", ""},
		{"dddd, MMMM Do YYYY, h:mm:ss a", ""},
		{"[Week] YYYY", ""},
		{"[Q]Q YYYY", "Q"},
		{"DDDD", "DDDD"},
		{"Mo", "Mo"},
		{"LL", "LL"},
		{"gggg-[W]ww", "gggg"},
		{"HH:mm:ss.SS", "SS"},
		{"kk:mm", "kk"},
	} {
		if got := Unsupported(tc.format); got != tc.want {
			t.Errorf("Unsupported(%q) = %q, want %q", tc.format, got, tc.want)
		}
	}
}
