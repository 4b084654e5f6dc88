package vault

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzParse checks what every parse must keep, for any input: no panic,
// every position inside the file and consistent with its line and column,
// and every link's Original equal to the bytes at its position.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"# T\n[[a]] ![[b|100]] [c](d.md) #tag ^id\n",
		"---\na: \"[[x]]\"\n---\n%%\n[[y]]\n%%\n`[[z]]`\n",
		"| [[N\\|a]] | x |\n|---|---|\n",
		"[[a [[b]] c]] [[|x]] [[]] [[Sq]uare]] $[[m]]$",
		"> [!note] [[q]]\n> - [ ] #t\n\n^blk\n",
		"caf\xc3\xa9 [[\xff]] #\xc3\xbcber\r\n## h ##\r\n",
		"- [x](<a b.md>) [y](a%20b.md#H%20x)\n",
		// Footnotes: not links (issue 13).
		"a[^1] b^[inline [[x]]] c^[w]\n\n[^1]: meaningful!\n[w]: y\n",
		// Hostile shapes (issue 12): an alias bomb, one level of aliases
		// squaring a string of links, a long line of links, a deep tag.
		aliasBomb(),
		aliasSquare(300),
		strings.Repeat("[[Target]]", 20_000) + "\n",
		strings.Repeat("[[T#^nob]] é ", 5_000),
		"#a" + strings.Repeat("/a", 5_000) + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		n := NewParser().ParseWithBudget("x.md", src, time.Second)
		// Aliases may not expand frontmatter past its budget: the links
		// found in it are bounded by the note's size.
		if len(n.FrontmatterLinks) > expansionBudget(len(src)) {
			t.Fatalf("%d frontmatter links from %d bytes", len(n.FrontmatterLinks), len(src))
		}
		lines := newLineIndex(src)
		checkSpan := func(what string, s Span) {
			for _, p := range []Pos{s.Start, s.End} {
				if p.Offset < 0 || p.Offset > len(src) {
					t.Fatalf("%s: offset %d outside the file (%d bytes)", what, p.Offset, len(src))
				}
				if lines.pos(p.Offset) != p {
					t.Fatalf("%s: position %+v disagrees with offset (%+v)", what, p, lines.pos(p.Offset))
				}
			}
			if s.End.Offset < s.Start.Offset {
				t.Fatalf("%s: span ends before it starts: %+v", what, s)
			}
		}
		for _, l := range n.AllLinks() {
			checkSpan("link "+l.Original, l.Span)
			if got := string(src[l.Span.Start.Offset:l.Span.End.Offset]); got != l.Original {
				t.Fatalf("link original %q, but the bytes at its position are %q", l.Original, got)
			}
		}
		for _, h := range n.Headings {
			checkSpan("heading", h.Span)
		}
		for _, tg := range n.Tags {
			checkSpan("tag", tg.Span)
			if got := string(src[tg.Span.Start.Offset:tg.Span.End.Offset]); got != tg.Tag {
				t.Fatalf("tag %q, but the bytes at its position are %q", tg.Tag, got)
			}
		}
		for _, b := range n.BlockIDs {
			checkSpan("block id", b.Span)
		}
		for _, s := range n.Sections {
			if s.Start > s.Body || s.Body > s.End || s.End > len(src) {
				t.Fatalf("section %q: bad offsets %d %d %d (size %d)", s.Title, s.Start, s.Body, s.End, len(src))
			}
		}
		if utf8.Valid(src) {
			// The Obsidian view must not panic either.
			_ = n.Obsidian(NewResolver([]string{"x.md"}))
		}
	})
}
