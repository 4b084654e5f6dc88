package vault

import (
	"slices"
	"testing"
)

// TestAllTags: the frontmatter's tags as Obsidian 1.9.2+ reads them (a
// list, or one string of one tag; `tags: a, b` and `tag:` give none), then
// the inline tags, each once ignoring case, in its first spelling.
func TestAllTags(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"list", "---\ntags: [a, \"#B\"]\n---\n", []string{"a", "B"}},
		{"one string", "---\ntags: single\n---\n", []string{"single"}},
		{"a string of several", "---\ntags: a, b\n---\n", nil},
		{"a string with a space", "---\ntags: a b\n---\n", nil},
		{"tag is not read", "---\ntag: x\n---\n", nil},
		{"null items", "---\ntags:\n- \n- x\n---\n", []string{"x"}},
		{"frontmatter first, then inline, case ignored", "---\ntags: [Rates]\n---\n#bench #rates #Bench\n", []string{"Rates", "bench"}},
		{"inline only", "text #project/zk\n", []string{"project/zk"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := NewParser().Parse("n.md", []byte(tc.src)).AllTags()
			if !slices.Equal(got, tc.want) {
				t.Errorf("AllTags() = %q, want %q", got, tc.want)
			}
		})
	}
}
