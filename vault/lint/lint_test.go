package lint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
)

func TestHeadingPath(t *testing.T) {
	n := vault.NewParser().Parse("T.md", []byte("# T\n## Can I link? Yes: `code`\n### Deep [[Other]]\n## Property\n"))
	tests := []struct {
		sub  string
		want bool
	}{
		{"#Can I link? Yes: `code`", true},
		{"#can i link yes code", true},
		{"#property", true},
		{"#Deep Other", true},
		{"#T#Property", true},
		{"#Property#Deep Other", false}, // Deep comes before Property
		{"#Missing", false},
	}
	for _, tt := range tests {
		if got := hasHeadingPath(summarize(n).headings, tt.sub); got != tt.want {
			t.Errorf("hasHeadingPath(%q) = %v, want %v", tt.sub, got, tt.want)
		}
	}
	if best, _ := closestHeading(summarize(n).headings, "#Proprety"); best != "Property" {
		t.Errorf("closest to #Proprety = %q", best)
	}
}

func TestRuleListed(t *testing.T) {
	tests := []struct {
		rules []string
		rule  string
		want  bool
	}{
		{nil, "links/broken", true},
		{[]string{"links/broken"}, "links/broken", true},
		{[]string{"links"}, "links/untyped", true},
		{[]string{"links/*"}, "links/untyped", true},
		{[]string{"all"}, "maintenance/stale", true},
		{[]string{"links/broken"}, "links/untyped", false},
		{[]string{"link"}, "links/broken", false},
	}
	for _, tt := range tests {
		if got := ruleListed(tt.rules, tt.rule); got != tt.want {
			t.Errorf("ruleListed(%q, %s) = %v, want %v", tt.rules, tt.rule, got, tt.want)
		}
	}
}

// FuzzCheck runs every rule over any note: nothing panics, and every
// finding has a position inside the note.
func FuzzCheck(f *testing.F) {
	for _, seed := range []string{
		"# A\n## Claim\n\nx\n\n## Links\n\n- [[B#H]] — extends: y\n- [[A#^id]]\n\n## Maintenance\n- Last tended: 2026-02-30\n",
		"# A ## Claim x ## Evidence y ## Links ## Maintenance - Last tended: 2026-01-01",
		"---\nzk-ignore: [links]\naliases: x\n---\n<!-- zk-ignore -->\n[[#Nowhere]] %% zk-ignore links/broken %%\n",
		"---\ntype: permanent\n---\n\n## Tests / falsifiers\n\nprose\n",
		"",
	} {
		f.Add(seed)
	}
	schema, err := vault.ParseSchema([]byte("# {{title}}\n## Claim\n## Scope & conditions\n## Evidence\n## Links\n## Tests / falsifiers\n## Maintenance\n- Last tended: {{date}}\n"))
	if err != nil {
		f.Fatal(err)
	}
	opts := Options{
		Today: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC),
		Types: []*vault.NoteType{{Name: "permanent", Schema: schema, Paths: vault.DefaultTypePaths, Property: "type", Value: "permanent"}},
	}
	f.Fuzz(func(t *testing.T, src string) {
		n := vault.NewParser().Parse("Permanent Notes/A.md", []byte(src))
		c := newChecker(vault.NewResolver([]string{n.Path, "B.md"}), opts)
		lines := strings.Count(src, "\n") + 1
		for _, fd := range c.finish(nil, []noteResult{c.note(n)}) {
			if fd.Line < 1 || fd.Line > lines || fd.Column < 1 {
				t.Errorf("finding %+v outside the note's %d lines", fd, lines)
			}
		}
	})
}

func TestCommentSpans(t *testing.T) {
	tests := []struct {
		src  string
		want spans
	}{
		{"no comments [[A]]", nil},
		{"a %% [[B]] %% c", spans{{2, 13}}},
		{"%%x%% and %%y%%", spans{{0, 5}, {10, 15}}},
		{"open %% to the end", spans{{5, 18}}},
		{"```\n%%\n```\n[[A]] %%x%%", spans{{17, 22}}},
		// A "%%" in a code span is code, as the parser reads it: the help
		// vault's "Internal links" names one before twenty links.
		{"`# | %% [[ ]]` [[A]]\n[[B]]", nil},
		{"``a ` %%`` %%c%%", spans{{11, 16}}},
		{"\\%% [[A]]", nil},
		{"$a %% b$ [[A]]", nil},
		{"---\nx: '%%'\n---\n[[A]]", nil},
	}
	for _, tt := range tests {
		n := vault.NewParser().Parse("n.md", []byte(tt.src))
		nc := &noteCheck{c: newChecker(vault.NewResolver(nil), Options{}), n: n}
		if got := nc.commentSpans(); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("commentSpans(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
	s := spans{{2, 5}, {8, 9}}
	for off, want := range map[int]bool{0: false, 2: true, 4: true, 5: false, 8: true, 9: false} {
		if s.covers(off) != want {
			t.Errorf("covers(%d) = %v, want %v", off, !want, want)
		}
	}
	nc := &noteCheck{c: newChecker(vault.NewResolver(nil), Options{Comments: true}), n: vault.NewParser().Parse("n.md", []byte("%%x%%"))}
	if got := nc.commentSpans(); got != nil {
		t.Errorf("with Comments set, commentSpans = %v, want none", got)
	}
}

// TestFrontmatterLinkLines: a frontmatter link is reported at its
// property's line, also for a quoted key and a list item.
func TestFrontmatterLinkLines(t *testing.T) {
	src := "---\ntitle: x\n\"up\": \"[[Nope]]\"\ncast:\n  - \"[[Gone]]\"\n  - [\"[[Deep]]\"]\n---\n# T\n"
	c := newChecker(vault.NewResolver([]string{"n.md"}), Options{})
	var got []string
	for _, f := range c.finish(nil, []noteResult{c.note(vault.NewParser().Parse("n.md", []byte(src)))}) {
		if f.Rule == RuleBrokenLink {
			got = append(got, strconv.Itoa(f.Line)+" "+f.Message[strings.LastIndex(f.Message, "("):])
		}
	}
	want := []string{"3 (frontmatter up)", "4 (frontmatter cast.0)", "4 (frontmatter cast.1.0)"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
