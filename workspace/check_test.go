package workspace

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zk-claims/zk/templates"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// A check through the cache finds, after each edit, what a check without
// it finds; an edit of notes, or a note added, removed or renamed, reads
// only the notes it can change, while another config or types.json reads
// every note.
func TestCachedCheckAfterEdits(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	tmpl, _ := templates.Default("permanent")
	w, _ := open(t, map[string]string{
		".obsidian/app.json":         "{}",
		".zk/config.toml":            "[claims.types.permanent]\nfolder = \"Notes\"\n",
		".zk/templates/permanent.md": string(tmpl),
		"Notes/A.md":                 "# A\n\nSee [[B#Why]] and [[B#^blk]] and [[Bee]].\n\n## Links\n\n- [[B]] — extends: A builds on B.\n",
		"Notes/B.md":                 "---\nrating: 3\n---\n# B\n\n## Why\n\nBecause. ^blk\n\n## Links\n\n- [[C]] — evidence-for: B's data is C's.\n",
		"Notes/C.md":                 "# C\n\n## Tests / falsifiers\n\n- The suite fails.\n",
		"Notes/D.md":                 "# D\n\nAlone, linking [[E]].\n",
		"Notes/E.md":                 "# E\n",
		"Other/F.md":                 "# F\n\n[[D]]\n",
	}, Reading)
	ctx := context.Background()
	write := func(p, text string) {
		full := filepath.Join(w.Vault.Dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	remove := func(p string) {
		if err := os.Remove(filepath.Join(w.Vault.Dir, filepath.FromSlash(p))); err != nil {
			t.Fatal(err)
		}
	}
	const all = -1
	steps := []struct {
		name string
		edit func()
		read int // notes read: all, or the notes the edit can change
	}{
		{"first check", func() {}, all},
		{"unchanged", func() {}, 0},
		{"rename a heading others link to", func() {
			write("Notes/B.md", "---\nrating: 3\n---\n# B\n\n## Why not\n\nBecause. ^blk\n\n## Links\n\n- [[C]] — evidence-for: B's data is C's.\n")
		}, 2}, // B, and A linking to it
		{"remove a block id", func() {
			write("Notes/B.md", "---\nrating: 3\n---\n# B\n\n## Why not\n\nBecause.\n\n## Links\n\n- [[C]] — evidence-for: B's data is C's.\n")
		}, 2},
		{"add an alias", func() {
			write("Notes/B.md", "---\nrating: 3\naliases: [Bee]\n---\n# B\n\n## Why\n\nBecause. ^blk\n\n## Links\n\n- [[C]] — evidence-for: B's data is C's.\n")
		}, 2},
		{"refute a note others rest on", func() { write("Notes/C.md", vaulttest.RefutedC) }, 3}, // C, B on it, A on B
		{"change its falsifier", func() {
			write("Notes/C.md", strings.Replace(vaulttest.RefutedC, "The suite fails.", "The suite fails twice.", 1))
		}, 3},
		{"edit a note nothing links to", func() { write("Other/F.md", "# F\n\n[[D]] and [[D#Nowhere]]\n") }, 1},
		{"edit two notes at once", func() {
			write("Notes/D.md", "# D\n\nAlone, linking [[E#Gone]].\n")
			write("Notes/E.md", "# E\n\n## Here\n")
		}, 3}, // D, E, and F linking to D
		{"add a note", func() { write("Notes/G.md", "# G\n\n[[A]]\n") }, 1},
		{"add a note a broken link names", func() { write("Other/Bee.md", "# Bee\n") }, 2}, // it, and A
		{"remove a note", func() { remove("Notes/E.md") }, 1},                              // D, linking to it
		{"rename a note", func() {
			remove("Notes/G.md")
			write("Notes/H.md", "# G\n\n[[A]]\n")
		}, 1},
		{"add a note of a name another has", func() { write("Other/D.md", "# D again\n") }, 2}, // it, and F linking to D
		{"change types.json", func() { write(".obsidian/types.json", `{"types":{"rating":"text"}}`) }, all},
		{"change the config", func() {
			write(".zk/config.toml", "[claims.types.permanent]\nfolder = \"Notes\"\n[claims.rules]\n\"links/broken-heading\" = \"warning\"\n")
		}, all},
		{"unchanged again", func() {}, 0},
	}
	for _, st := range steps {
		st.edit()
		got, err := w.Check(ctx, CheckRequest{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := w.Check(ctx, CheckRequest{NoCache: true})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Findings, want.Findings) || got.Notes != want.Notes {
			t.Errorf("%s: through the cache\n%+v\nwithout\n%+v", st.name, got.Findings, want.Findings)
		}
		read := st.read
		if read == all {
			read = want.Read
		}
		if got.Read != read {
			t.Errorf("%s: %d notes read, want %d", st.name, got.Read, read)
		}
	}
}
