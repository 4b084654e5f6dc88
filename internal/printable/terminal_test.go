package printable

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// terminalOf writes the chunks to a Terminal, flushes it, and returns
// what reached the terminal.
func terminalOf(t *testing.T, chunks ...string) string {
	t.Helper()
	var b bytes.Buffer
	term := NewTerminal(&b)
	for _, c := range chunks {
		if n, err := term.Write([]byte(c)); n != len(c) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", c, n, err)
		}
	}
	if err := term.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestTerminal: a falsifier's live output reaches the terminal with what
// Lines escapes escaped (OSC 52 clipboard writes, title sets, hyperlinks,
// C1 controls as UTF-8 and as raw bytes, bidi overrides, NUL), line
// breaks and tabs as they are, a carriage return as a line break, however
// the stream is cut into writes.
func TestTerminal(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks []string
		want   string
	}{
		{"plain", []string{"p99: 12 ms\n", "ok\tdone\n"}, "p99: 12 ms\nok\tdone\n"},
		{"utf-8 text", []string{"Café 日本 ✓\n"}, "Café 日本 ✓\n"},
		{"osc 52 clipboard", []string{"\x1b]52;c;aGk=\a"}, `\x1b]52;c;aGk=\a`},
		{"title and colour", []string{"\x1b]0;pwned\a\x1b[31mred\x1b[0m"}, `\x1b]0;pwned\a\x1b[31mred\x1b[0m`},
		{"hyperlink", []string{"\x1b]8;;http://x\x1b\\click\x1b]8;;\x1b\\"}, `\x1b]8;;http://x\x1b\click\x1b]8;;\x1b\`},
		{"c1 csi as utf-8", []string{"a\u009b2Jb"}, `a\u009b2Jb`},
		{"c1 csi raw byte", []string{"a\x9b2Jb"}, `a\x9b2Jb`},
		{"bidi override", []string{"x\u202etxt.exe"}, `x\u202etxt.exe`},
		{"nul and del", []string{"a\x00b\x7f"}, `a\x00b\x7f`},
		{"lone cr is a line break", []string{"rm -rf ~\rall fine\n"}, "rm -rf ~\nall fine\n"},
		{"crlf is one line break", []string{"a\r\nb\r\n"}, "a\nb\n"},
		{"crlf split between writes", []string{"a\r", "\nb"}, "a\nb"},
		{"progress meter", []string{"10%\r", "20%\r", "done\n"}, "10%\n20%\ndone\n"},
		{"c1 split between writes", []string{"a\xc2", "\x9b2J"}, `a\u009b2J`},
		{"rune split three ways", []string{"\xe2", "\x80", "\xaeRTL ✓"}, `\u202eRTL ✓`},
		{"ok rune split", []string{"日"[:1], "日"[1:2], "日"[2:] + "!"}, "日!"},
		{"invalid byte ends a rune", []string{"\xe2\x80", "A"}, `\xe2\x80A`},
		{"incomplete at the end", []string{"ok \xe2\x80"}, `ok \xe2\x80`},
	} {
		if got := terminalOf(t, tc.chunks...); got != tc.want {
			t.Errorf("%s: %q gives %q, want %q", tc.name, tc.chunks, got, tc.want)
		}
	}
}

// FuzzTerminal: whatever the bytes and wherever the stream is cut, the
// terminal gets the same text, and none of it is a control but a line
// break or a tab, a C1 control, a bidi control or invalid UTF-8.
func FuzzTerminal(f *testing.F) {
	f.Add([]byte("\x1b]52;c;aGk=\a\u009b\x9b\r\n\u202e"), 3)
	f.Add([]byte("日本\xe2\x80"), 1)
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		whole := terminalOf(t, string(b))
		if cut < 0 {
			cut = -cut
		}
		if len(b) > 0 {
			cut %= len(b) + 1
			if got := terminalOf(t, string(b[:cut]), string(b[cut:])); got != whole {
				t.Fatalf("cut at %d: %q, whole: %q", cut, got, whole)
			}
		}
		if !utf8.ValidString(whole) {
			t.Fatalf("%q: invalid UTF-8 out: %q", b, whole)
		}
		for _, r := range whole {
			if r != '\n' && r != '\t' && unsafeRune(r) {
				t.Fatalf("%q: %U reached the terminal raw: %q", b, r, whole)
			}
		}
	})
}
