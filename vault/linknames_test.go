package vault

import (
	"fmt"
	"slices"
	"testing"
)

// A file added whose name no link of a note names (LinkNames against
// NamingKeys) changes what none of its links resolves to: every link,
// written in notes at the root and in a folder, against every set of
// files one file more than a smaller set.
func TestLinkNamesCoverWhatAFileCanChange(t *testing.T) {
	names := []string{"a.md", "A.md", "b.md", "a.pdf", "a.pdf.md", "a.md.md", "c/a.md", "c/b.md", "d/c/a.md", "Café.md", "Cafe\u0301.md", "c.md", "x/c.md"}
	src := "---\nup: \"[[c/b]]\"\nnested: {k: [\"[[ a.pdf |x]]\"]}\n---\n[[a]] [[a.pdf]] [[a.md]] [[./b]] [[../c/a]] [[c/a]] ![[Café]] [text](a.pdf.md) [[c#h]]\n"
	for _, source := range []string{"n.md", "c/n.md", "d/c/n.md"} {
		n := NewParser().Parse(source, []byte(src))
		held := LinkNames(n)
		var links []string
		for l := range n.LinksAndEmbeds() {
			links = append(links, l.Path)
		}
		for _, l := range n.FrontmatterLinks {
			links = append(links, l.Path)
		}
		links = append(links, " a.pdf ") // the nested one, as a base reads it
		for mask := range 1 << len(names) {
			if mask%7 != 0 { // a sample of the sets, every file in some
				continue
			}
			var before []string
			for i, p := range names {
				if mask&(1<<i) != 0 {
					before = append(before, p)
				}
			}
			for _, added := range names {
				if slices.Contains(before, added) {
					continue
				}
				named := false
				for k := range NamingKeys([]string{added}) {
					named = named || slices.Contains(held, k)
				}
				if named {
					continue
				}
				r1, r2 := NewResolver(before), NewResolver(append(slices.Clone(before), added))
				for _, l := range links {
					p1, ok1 := r1.Resolve(l, source)
					p2, ok2 := r2.Resolve(l, source)
					if p1 != p2 || ok1 != ok2 {
						t.Fatalf("%s in %s: %s with %v, %s with %s added, which no name of %v names", l, source,
							fmt.Sprint(p1, ok1), before, fmt.Sprint(p2, ok2), added, held)
					}
				}
			}
		}
	}
}
