package printable

import "testing"

// TestOf: what could move the cursor, recolour or rewrite the terminal,
// split a line or reorder what is shown comes out as a Go escape; the
// rest, plain or not ASCII, as it is.
func TestOf(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain note.md", "plain note.md"},
		{"sh run.sh", "sh run.sh"},
		{"Café 日本 — ok ✓", "Café 日本 — ok ✓"},
		{"tab\tsplits columns", `tab\tsplits columns`},
		{"two\nlines\r\nhere", `two\nlines\r\nhere`},
		{"esc \x1b[2J cleared", `esc \x1b[2J cleared`},
		{"\x1b[2K\rsh safe.sh", `\x1b[2K\rsh safe.sh`},
		{"bell\a del\x7f", `bell\a del\x7f`},
		{"c1 \u009b2J", `c1 \u009b2J`},
		{"bidi \u202egnp.exe", `bidi \u202egnp.exe`},
		{"isolate \u2066x\u2069, mark \u200e", `isolate \u2066x\u2069, mark \u200e`},
		{"bad\xffbyte", `bad\xffbyte`},
	} {
		if got := Of(tc.in); got != tc.want {
			t.Errorf("Of(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestLines: as Of, but a message's own line breaks and tabs stay.
func TestLines(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"two\nlines\tand a tab", "two\nlines\tand a tab"},
		{"cr\r\nesc \x1b[2J\n", `cr\r` + "\n" + `esc \x1b[2J` + "\n"},
		{"bidi \u202e\nbad\xff", `bidi \u202e` + "\n" + `bad\xff`},
	} {
		if got := Lines(tc.in); got != tc.want {
			t.Errorf("Lines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
