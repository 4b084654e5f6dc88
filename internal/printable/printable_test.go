package printable

import (
	"encoding/json"
	"strings"
	"testing"
)

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

// TestJSON: what Of escapes and encoding/json leaves raw is written as a
// \uXXXX escape that decodes to the same string; other text, and a text
// with nothing to escape (returned as it is), is untouched.
func TestJSON(t *testing.T) {
	for _, s := range []string{"plain", "日本語 ✓", "csi \u009b2J", "\u202eevil\u202c", "\u2066iso\u2069", "nel\u0085", "lrm\u200e alm\u061c", "\ufffd", "\u2028"} {
		b, err := json.Marshal(map[string]string{"k": s})
		if err != nil {
			t.Fatal(err)
		}
		got := JSON(b)
		var back map[string]string
		if err := json.Unmarshal(got, &back); err != nil || back["k"] != s {
			t.Errorf("JSON(%s) = %s: decodes to %q (%v)", b, got, back["k"], err)
		}
		for _, r := range string(got) {
			if r >= 0x80 && r != 0xfffd && Unsafe(r) {
				t.Errorf("JSON(%s) = %s: %U left raw", b, got, r)
			}
		}
		if strings.Contains(string(got), `\u`) != strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 && r != 0xfffd && Unsafe(r) }) && s != "\u2028" {
			t.Errorf("JSON(%s) = %s", b, got)
		}
	}
}
