package move

import (
	"testing"

	"github.com/zk-claims/zk/vault"
)

func TestLinkText(t *testing.T) {
	r := vault.NewResolver([]string{
		"Unique.md",
		"A/Dup.md", "B/C/Dup.md",
		"A/Sib.md", "A/Sub/Deep.md",
		"Sub/Deep.md", // shadows a relative "Sub/Deep" from A/
		"img/pic.png", "other/pic.png", "solo.pdf",
		"Case.md", "CASE.md", // differ only by case: links reach CASE.md (byte order)
	})
	tests := []struct {
		target, source, format string
		want                   string
		ok                     bool
	}{
		{"Unique.md", "A/Sib.md", Shortest, "Unique", true},
		{"A/Dup.md", "Unique.md", Shortest, "A/Dup", true},
		{"B/C/Dup.md", "A/Sib.md", Shortest, "B/C/Dup", true},
		{"solo.pdf", "A/Sib.md", Shortest, "solo.pdf", true},
		{"img/pic.png", "A/Sib.md", Shortest, "img/pic.png", true},
		{"Unique.md", "A/Sib.md", Absolute, "Unique", true},
		{"A/Dup.md", "A/Sib.md", Absolute, "A/Dup", true},
		{"A/Dup.md", "A/Sib.md", Relative, "Dup", true},
		{"B/C/Dup.md", "A/Sib.md", Relative, "../B/C/Dup", true},
		{"Unique.md", "A/Sub/Deep.md", Relative, "../../Unique", true},
		{"A/Sub/Deep.md", "Unique.md", Relative, "A/Sub/Deep", true},
		// "Sub/Deep" from A/ is the vault path Sub/Deep.md: the full
		// path is written instead.
		{"A/Sub/Deep.md", "A/Sib.md", Relative, "A/Sub/Deep", true},
		{"CASE.md", "Unique.md", Shortest, "CASE", true},
		{"Case.md", "Unique.md", Shortest, "Case", false},
	}
	for _, tt := range tests {
		got, ok := LinkText(r, tt.target, tt.source, tt.format)
		if got != tt.want || ok != tt.ok {
			t.Errorf("LinkText(%s from %s, %s) = %q, %v; want %q, %v", tt.target, tt.source, tt.format, got, ok, tt.want, tt.ok)
		}
	}
}

func TestEncodeMarkdownPath(t *testing.T) {
	for in, want := range map[string]string{
		"Plain":              "Plain",
		"My Note.md":         "My%20Note.md",
		"Folder/A (b).md":    "Folder/A%20%28b%29.md",
		"Café":               "Caf%C3%A9",
		"100% sure":          "100%25%20sure",
		"a#b":                "a%23b",
		"x_y-z.~!$&'*+,;=:@": "x_y-z.~!$&'*+,;=:@",
	} {
		if got := EncodeMarkdownPath(in); got != want {
			t.Errorf("EncodeMarkdownPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIndexFold(t *testing.T) {
	for _, tt := range []struct {
		src, needle string
		want        int
	}{
		{"hello World", "world", 6},
		{"WORLD", "world", 0},
		{"wor", "world", -1},
		{"aaaaAAAAb", "ab", 7},
		{"1-2-3", "3", 4},
		{"", "x", -1},
	} {
		if got := indexFold([]byte(tt.src), []byte(tt.needle)); got != tt.want {
			t.Errorf("indexFold(%q, %q) = %d, want %d", tt.src, tt.needle, got, tt.want)
		}
	}
}
