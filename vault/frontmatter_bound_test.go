package vault

import (
	"slices"
	"strings"
	"testing"
)

// aliasBomb is nine anchors, each a list of nine references to the one
// before: 444 bytes of YAML that expand to 9^9 values.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, c := range "bcdefghi" {
		refs := strings.TrimSuffix(strings.Repeat("*"+prev+",", 9), ",")
		b.WriteString(string(c) + ": &" + string(c) + " [" + refs + "]\n")
		prev = string(c)
	}
	b.WriteString("---\n# Bomb\n")
	return b.String()
}

// aliasSquare is one level of aliases: a string of n links, and a list of
// n references to it, n^2 links from about 10n bytes.
func aliasSquare(n int) string {
	return "---\na0: &a0 \"" + strings.Repeat("[[Nope]] ", n) + "\"\na1: [" +
		strings.TrimSuffix(strings.Repeat("*a0, ", n), ", ") + "]\n---\n# Square\n"
}

func TestFrontmatterAliasesBounded(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		errLine   int // 0-based note line of the error; -1 for none
		keys      []string
	}{
		{"bomb", aliasBomb(), 5, nil},
		{"square 500", aliasSquare(500), 2, nil},
		{"square 1000", aliasSquare(1000), 2, nil},
		// Aliases that repeat a little are YAML's purpose: kept.
		{"small", "---\nbase: &b [\"[[A]]\", \"[[B]]\"]\nmore: *b\nnest: [*b, *b]\n---\n", -1, []string{"base", "more", "nest"}},
		{"square 20", aliasSquare(20), -1, []string{"a0", "a1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := NewParser().Parse("n.md", []byte(tt.src))
			fm := n.Frontmatter
			if fm == nil {
				t.Fatal("no frontmatter")
			}
			if tt.errLine < 0 {
				if fm.Err != nil {
					t.Fatalf("Err = %v", fm.Err)
				}
				if !slices.Equal(fm.Keys, tt.keys) {
					t.Errorf("Keys = %q, want %q", fm.Keys, tt.keys)
				}
				return
			}
			if fm.Err == nil || !strings.Contains(fm.Err.Error(), "alias") {
				t.Fatalf("Err = %v, want an alias expansion error", fm.Err)
			}
			if fm.ErrLine != tt.errLine {
				t.Errorf("ErrLine = %d, want %d (%v)", fm.ErrLine, tt.errLine, fm.Err)
			}
			if fm.Values != nil || fm.Keys != nil || len(n.FrontmatterLinks) != 0 {
				t.Errorf("kept %d values, %d keys, %d links of a block that expands past its budget",
					len(fm.Values), len(fm.Keys), len(n.FrontmatterLinks))
			}
		})
	}
}
