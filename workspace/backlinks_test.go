package workspace

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
)

// zk backlinks looks through the model file's details a piece at a time
// (inbound) whenever the file can answer, and answers what reading every
// note answers: from the file, from a delta's entry in place of the
// file's, from a later delta's in place of an earlier one's, after a
// touch that changed no byte; a note added changes what every link
// resolves to, and the file cannot answer until it is written anew.
func TestBacklinksFromTheModelFile(t *testing.T) {
	notes := map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "---\naliases: [Alpha]\nup: \"[[B]]\"\n---\n# A\n## Part\n",
		"sub/B.md":           "# B\n[[A]] [[A#Part|the part]] ![[A]]\n## Links\n- [[C]] — supports: because\n",
		"sub/C.md":           "[[A]] [[B]] ![[pic.png]] [[ghost#x]]\n",
		"D.md":               "# D\nnothing links here\n",
		"pic.png":            "png",
	}
	// Notes enough that a few edits are deltas, not the file written
	// anew (checkcache.Model.Appendable).
	for i := range 40 {
		notes[fmt.Sprintf("more/M%02d.md", i)] = fmt.Sprintf("# M%02d\n[[M%02d]] [[sub/C]]\n", i, (i+1)%40)
	}
	w, _ := open(t, notes, Reading)
	ctx := context.Background()
	write := func(name, text string) func() {
		return func() {
			p := filepath.Join(w.Vault.Dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-time.Hour)
			os.Chtimes(p, old, old)
		}
	}
	for _, step := range []struct {
		name   string
		change func()
		// fromFile: inbound answers (false: there is no file it can
		// answer from, and Backlinks reads the details whole).
		fromFile bool
	}{
		{"cold", nil, false},
		{"cached", nil, true},
		{"a linking note edited", write("sub/B.md", "# B\n[[A#Part]]\n[[pic.png]] [[D]] [[Ghost|a ghost]]\n"), true},
		{"from the delta", nil, true},
		{"edited again", write("sub/B.md", "# B\n![[A]] [[Alpha]]\n"), true},
		{"from the later delta", nil, true},
		{"touched, the same bytes", func() {
			at := time.Now().Add(-30 * time.Minute)
			os.Chtimes(filepath.Join(w.Vault.Dir, "sub/C.md"), at, at)
		}, true},
		{"another note edited", write("D.md", "[[A]] [[pic.png]]\n"), true},
		{"a note added", write("E.md", "[[A|alias]] [[D]]\n"), false},
		{"cached after the note added", nil, true},
	} {
		if step.change != nil {
			step.change()
		}
		files, _, err := w.Vault.Files(ctx)
		if err != nil {
			t.Fatal(err)
		}
		graph, _, err := vault.GraphVault(ctx, w.Vault, files)
		if err != nil {
			t.Fatal(err)
		}
		// The first look after a change reads the notes changed again.
		in, ok, err := w.inbound(ctx, files, "A.md")
		if err != nil || ok != step.fromFile {
			t.Errorf("%s: inbound answered %v (%v), want %v", step.name, ok, err, step.fromFile)
		}
		slices.SortStableFunc(in, func(a, b vault.Edge) int { return cmp.Or(strings.Compare(a.From, b.From), a.Line-b.Line) })
		if want := graph.In("A.md"); ok && !reflect.DeepEqual(in, want) {
			t.Errorf("%s: inbound = %+v, want %+v", step.name, in, want)
		}
		for _, to := range []string{"A.md", "sub/B.md", "sub/C.md", "D.md", "more/M00.md"} {
			want := graph.In(to)
			got, err := w.Backlinks(ctx, to)
			if err != nil || got.Note != to || got.Unwritten || !reflect.DeepEqual(got.Edges, want) {
				t.Errorf("%s: backlinks of %s = %+v (%v), want %+v", step.name, to, got, err, want)
			}
		}
		// A note not written yet: the unresolved links to its name, as
		// the graph has them, whichever note gained or lost one.
		var ghost []vault.Edge
		for _, e := range graph.Edges {
			if !e.Resolved() && strings.EqualFold(e.Path, "ghost") {
				ghost = append(ghost, e)
			}
		}
		slices.SortStableFunc(ghost, func(a, b vault.Edge) int { return cmp.Or(strings.Compare(a.From, b.From), a.Line-b.Line) })
		got, err := w.Backlinks(ctx, "Ghost")
		if err != nil || got.Note != "Ghost" || !got.Unwritten || !reflect.DeepEqual(got.Edges, ghost) {
			t.Errorf("%s: backlinks of Ghost = %+v (%v), want %+v", step.name, got, err, ghost)
		}
	}
}
