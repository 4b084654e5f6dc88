package move

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/bench/vaultgen"
	"github.com/zk-claims/zk/vault"
)

// edge is an edge of the link graph as a move must keep it: where it is
// (source note, kind, line) and the file it reaches ("" for none).
type edge struct {
	Kind vault.EdgeKind
	Line int
	To   string
}

// graphOf resolves every link of the vault at dir.
func graphOf(t testing.TB, dir string) map[string][]edge {
	t.Helper()
	v, fs := open(t, dir)
	g, _, err := vault.GraphVault(context.Background(), v, fs)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]edge{}
	for _, e := range g.Edges {
		out[e.From] = append(out[e.From], edge{e.Kind, e.Line, e.To})
	}
	return out
}

// moveKeepsGraph moves oldP to newP in the vault at dir and checks that
// the link graph after is the graph before with the moved paths renamed,
// edge for edge, but for the links the plan reports as captured.
func moveKeepsGraph(t *testing.T, dir, oldP, newP string, f Format) *Plan {
	t.Helper()
	before := graphOf(t, dir)
	v, fs := open(t, dir)
	p, err := Move(context.Background(), v, fs, oldP, newP, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Unwritable) > 0 {
		t.Errorf("unwritable links: %q", p.Unwritable)
	}
	if err := Apply(context.Background(), v, p, ApplyOptions{Key: testKey}); err != nil {
		t.Fatal(err)
	}
	rename := func(s string) string {
		if s == oldP {
			return newP
		}
		if len(s) > len(oldP) && s[:len(oldP)+1] == oldP+"/" {
			return newP + s[len(oldP):]
		}
		return s
	}
	want := map[string][]edge{}
	for from, es := range before {
		for _, e := range es {
			e.To = rename(e.To)
			want[rename(from)] = append(want[rename(from)], e)
		}
	}
	got := graphOf(t, dir)
	captured := 0
	for from, es := range want {
		if !reflect.DeepEqual(got[from], es) {
			if len(got[from]) == len(es) {
				for i := range es {
					if es[i] != got[from][i] && es[i].To == "" {
						captured++ // reported by the plan
						continue
					}
					if es[i] != got[from][i] {
						t.Errorf("%s: edge %d: %+v, want %+v", from, i, got[from][i], es[i])
					}
				}
				continue
			}
			t.Errorf("%s: edges\n%+v\nwant\n%+v", from, got[from], es)
		}
	}
	if captured != len(p.Captured) {
		t.Errorf("%d edges captured, the plan reports %d", captured, len(p.Captured))
	}
	if len(got) != len(want) {
		t.Errorf("%d notes with links, want %d", len(got), len(want))
	}
	return p
}

// copyDir copies the folder src to dst, every file an hour old.
func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	ageAll(t, dst)
}

func ageAll(t testing.TB, dir string) {
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

func TestGraphKeptExamples(t *testing.T) {
	src, err := filepath.Abs("../../examples/vault")
	if err != nil {
		t.Fatal(err)
	}
	v, fs := open(t, src)
	g, _, err := vault.GraphVault(context.Background(), v, fs)
	if err != nil {
		t.Fatal(err)
	}
	// The examples' most linked note, an attachment and a folder, and a
	// format of each kind.
	most, n := "", 0
	for _, f := range fs {
		if b := g.Backlinks(f.Path); f.IsNote() && b > n {
			most, n = f.Path, b
		}
	}
	var attachment string
	for _, f := range fs {
		if !f.IsNote() && g.Backlinks(f.Path) > 0 {
			attachment = f.Path
			break
		}
	}
	if n < 2 || attachment == "" {
		t.Fatalf("examples: most linked %s (%d), attachment %q", most, n, attachment)
	}
	for _, tt := range []struct{ old, new, format string }{
		{most, "Elsewhere/Renamed Claim.md", Shortest},
		{most, "Deep/er/" + filepath.Base(most), Relative},
		{most, "x.md", Absolute},
		{attachment, "media/renamed" + filepath.Ext(attachment), Shortest},
		{"3. Resources", "Archive/Resources", Shortest},
	} {
		t.Run(fmt.Sprintf("%s→%s/%s", tt.old, tt.new, tt.format), func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, src, dir)
			p := moveKeepsGraph(t, dir, tt.old, tt.new, Format{NewLinkFormat: tt.format})
			if tt.old == most && filepath.Base(tt.new) != filepath.Base(most) && p.Links < n {
				t.Errorf("%d links rewritten; %s has %d backlinks", p.Links, most, n)
			}
		})
	}
}

func TestGraphKeptGenerated(t *testing.T) {
	notes := 10_000
	if testing.Short() {
		notes = 1_000
	}
	dir := t.TempDir()
	if err := vaultgen.Generate(dir, notes, 7); err != nil {
		t.Fatal(err)
	}
	ageAll(t, dir)
	// A note renamed into another folder, then a whole folder moved.
	p := moveKeepsGraph(t, dir, vaultgen.Path(1), "Archive/Renamed claim.md", Format{})
	if p.Links == 0 {
		t.Errorf("no link rewritten")
	}
	moveKeepsGraph(t, dir, "Permanent Notes/07", "Archive/07", Format{})
}

// headingEdges is each link with a #heading, as "target#i": the index
// of the heading it reaches in its target (-1 for none), in source order.
func headingEdges(t *testing.T, dir string) map[string][]string {
	t.Helper()
	v, fs := open(t, dir)
	r := vault.ResolverOf(fs)
	_, notes := vault.SplitFiles(fs)
	out := map[string][]string{}
	for _, f := range notes {
		n, err := v.ReadNote(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range n.AllLinks() {
			if l.Subpath == "" || l.IsBlockRef() {
				continue
			}
			to, ok := r.Resolve(l.Path, n.Path)
			if !ok {
				to = n.Path
			}
			idx := -1
			if target, err := v.ReadNote(to); err == nil {
				parts := strings.Split(l.Subpath[1:], "#")
				for i, h := range target.Headings {
					if vault.NormHeading(h.Text) == vault.NormHeading(parts[len(parts)-1]) {
						idx = i
						break
					}
				}
			}
			out[n.Path] = append(out[n.Path], fmt.Sprintf("%s#%d", to, idx))
		}
	}
	return out
}

// A heading rename keeps every heading link reaching the same heading,
// and the file graph as it was.
func TestGraphKeptHeadingExamples(t *testing.T) {
	src, _ := filepath.Abs("../../examples/vault")
	dir := t.TempDir()
	copyDir(t, src, dir)
	const note = "3. Resources/Permanent Notes/A Mean Latency Hides the Tail a User Waits On.md"
	before, files := headingEdges(t, dir), graphOf(t, dir)
	v, fs := open(t, dir)
	p, err := Heading(context.Background(), v, fs, note, "Evidence", "What Was Measured")
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(context.Background(), v, p, ApplyOptions{Key: testKey}); err != nil {
		t.Fatal(err)
	}
	if got := headingEdges(t, dir); !reflect.DeepEqual(got, before) {
		t.Errorf("heading links:\n%v\nwant\n%v", got, before)
	}
	if got := graphOf(t, dir); !reflect.DeepEqual(got, files) {
		t.Errorf("the file graph changed")
	}
	if p.Links != 1 {
		t.Errorf("%d links rewritten, want 1 (the other names a heading that is not there)", p.Links)
	}
}
