package lint

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault"
)

// TestCheckKeepsOnlyLinksThatWait holds what a note's check keeps of its
// links until every note is read to the links the link rules still look
// at: one naming nothing, one naming a heading or block. A first check
// of a million notes held every link, 6.6 GB at its peak. Its state still
// names every target and broken path, each once.
func TestCheckKeepsOnlyLinksThatWait(t *testing.T) {
	var body strings.Builder
	body.WriteString("---\nup: \"[[B]]\"\nbad: \"[[Nowhere]]\"\n---\n# A\n")
	for i := range 50 {
		fmt.Fprintf(&body, "- [[B]] and [[C]] and [[T%d]] ![[C]]\n", i)
	}
	body.WriteString("[[B#H]] [[Gone]] [[Gone]] [[#Own]] [[C#^id]]\n## Own\n")
	paths := []string{"A.md", "B.md", "C.md"}
	for i := range 50 {
		paths = append(paths, fmt.Sprintf("T%d.md", i))
	}
	c := newChecker(vault.NewResolver(paths), Options{})
	r := c.note(vault.NewParser().Parse("A.md", []byte(body.String())))
	var kept []string
	for _, u := range r.links {
		kept = append(kept, u.Original)
	}
	if want := []string{"[[B#H]]", "[[Gone]]", "[[Gone]]", "[[#Own]]", "[[C#^id]]", "[[Nowhere]]"}; !slices.Equal(kept, want) {
		t.Errorf("kept links %q, want %q", kept, want)
	}
	st := stateOf(&r)
	if len(st.Targets) != 52 || st.Targets[0] != "B.md" || st.Targets[1] != "C.md" || st.Targets[51] != "T49.md" {
		t.Errorf("targets %q, want B.md, C.md, T0.md ... T49.md", st.Targets)
	}
	if want := []string{"Gone", "Nowhere"}; !slices.Equal(st.Broken, want) {
		t.Errorf("broken %q, want %q", st.Broken, want)
	}
}
