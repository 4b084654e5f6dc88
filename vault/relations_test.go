package vault

import (
	"strings"
	"testing"
)

func TestLinkEntries(t *testing.T) {
	src := "# N\n## Links\n" +
		"- [[A]] — contrasts on mechanism: that note is about X.\n" +
		"- [[B|Bee]] -- extends: both count output.\n" +
		"- [[C]]\n" +
		"- [[D]] — evidence-for a case\n" +
		"- plain item without a link\n" +
		"- [[E]] – **Refines**: en dash and bold.\n" +
		"- ![[G.png]] then [[H]] — supports: an embed first\n" +
		"- text, then [[I]] and ![[J.png]] — part-of: a link first\n" +
		"- [[K]]\n  [[L]] — extends: a second line is not the entry's\n" +
		"## Other\n- [[F]] — extends: not in Links\n"
	got := LinkEntries(parse(src))
	want := []struct {
		link, rel, qual, just string
		typed                 bool
	}{
		{"A", "contrasts", "on mechanism", "that note is about X.", true},
		{"B", "extends", "", "both count output.", true},
		{"C", "", "", "", false},
		{"D", "", "", "", false},
		{"E", "refines", "", "en dash and bold.", true},
		{"G.png", "", "", "", false},
		{"I", "", "", "", false},
		{"K", "", "", "", false},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Link.Path != w.link || g.Relation != w.rel || g.Qualifier != w.qual || g.Justification != w.just || g.Typed() != w.typed {
			t.Errorf("entry %d = %q %q %q %q typed=%v, want %+v", i, g.Link.Path, g.Relation, g.Qualifier, g.Justification, g.Typed(), w)
		}
	}
	if got[0].Line != 2 {
		t.Errorf("first entry on line %d, want 2", got[0].Line)
	}
}

func TestSplitRelationIsFieldsAndJoin(t *testing.T) {
	for _, rel := range []string{"", " ", "extends", " extends ", "contrasts on mechanism", "contrasts  on\tmechanism ",
		"\u00a0refines\u2003in  part", "a\xffb c", "x \xff  y", "supports\n", " evidence-for  "} {
		words := strings.Fields(rel)
		var word, qualifier string
		if len(words) > 0 {
			word, qualifier = words[0], strings.Join(words[1:], " ")
		}
		if w, q := splitRelation(rel); w != word || q != qualifier {
			t.Errorf("splitRelation(%q) = %q, %q; want %q, %q", rel, w, q, word, qualifier)
		}
	}
}
