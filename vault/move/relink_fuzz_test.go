package move

import (
	"sort"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
)

// FuzzRelink plans the link edits of one note for a move of Target.md to
// "Moved/New Name.md" and checks them: edits in bounds and apart, and
// after them the note has the same links, each reaching the file it
// reached before (renamed) or, if it reached nothing, what it reaches
// unedited.
func FuzzRelink(f *testing.F) {
	for _, s := range []string{
		"[[Target]] [[Target#H|x]] ![[Target#^b]] [[target.md]]",
		"[a](Target.md#H%20b) [b](<Target.md>) [c](Target \"t\") ![i](Dir/Target.png)",
		"---\nup: \"[[Target]]\"\nl:\n  - '[[Target|x]]'\n---\n# S\n[[Dir/Other]]",
		"| [[Target\\|x]] |\n|---|\n",
		"%%\n[[Target]]\n%%\n`[[Target]]` $[[Target]]$",
		"[ref][1]\n\n[1]: Target.md\n",
		"[[Target]]]] [[[[Target]] [x]([[Target]])",
		"[[Target#H#I]] [[#H]] [[]] [[|Target]]",
	} {
		f.Add(s)
	}
	paths := []string{"S.md", "Target.md", "Dir/Other.md", "Dir/Target.png"}
	moves := map[string]string{"Target.md": "Moved/New Name.md"}
	after := []string{"S.md", "Moved/New Name.md", "Dir/Other.md", "Dir/Target.png"}
	rl := &relinker{rOld: vault.NewResolver(paths), rNew: vault.NewResolver(after), moves: moves, format: Shortest}
	f.Fuzz(func(t *testing.T, src string) {
		n := vault.NewParser().ParseWithBudget("S.md", []byte(src), time.Second)
		fe, _, unwritable := rl.note(n)
		es := fe.Edits
		sort.Slice(es, func(i, j int) bool { return es[i].Start < es[j].Start })
		out := []byte{}
		last := 0
		for _, e := range es {
			if e.Start < last || e.End < e.Start || e.End > len(src) || src[e.Start:e.End] != e.Old {
				t.Fatalf("bad edit %+v of %q", e, src)
			}
			out = append(out, src[last:e.Start]...)
			out = append(out, e.New...)
			last = e.End
		}
		out = append(out, src[last:]...)
		if len(unwritable) > 0 {
			return
		}
		m := vault.NewParser().ParseWithBudget("S.md", out, time.Second)
		before, now := n.AllLinks(), m.AllLinks()
		if len(before) != len(now) || len(n.FrontmatterLinks) != len(m.FrontmatterLinks) {
			t.Fatalf("%d links, %d frontmatter links became %d, %d:\n%q\n→\n%q", len(before), len(n.FrontmatterLinks), len(now), len(m.FrontmatterLinks), src, out)
		}
		check := func(old, new string) {
			was, ok := rl.rOld.Resolve(old, "S.md")
			got, okNow := rl.rNew.Resolve(new, "S.md")
			if ok && (!okNow || got != mapped(moves, was)) {
				t.Fatalf("link %q reached %s; as %q it reaches %q\n%q\n→\n%q", old, was, new, got, src, out)
			}
		}
		for i := range before {
			check(before[i].Path, now[i].Path)
		}
		for i := range n.FrontmatterLinks {
			check(n.FrontmatterLinks[i].Path, m.FrontmatterLinks[i].Path)
		}
	})
}
