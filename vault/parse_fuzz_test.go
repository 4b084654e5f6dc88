package vault

import (
	"bytes"
	"reflect"
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

// FuzzBlockIDAt holds blockIDAt, which reads the ID back from the line's
// end, to the search for the line's last '^' it replaced (blockIDRef).
func FuzzBlockIDAt(f *testing.F) {
	for _, s := range []string{"a ^id", "a ^id \r\n", "^x", "a^x", "a ^", "a ^b^c", "a ^b c", "x\n ^a-B9\t", "^^a", " ^\u00e9"} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, src []byte, at uint8) {
		lastStart := int(at) % (len(src) + 1)
		w := walker{n: &Note{}, src: src, masked: src, lines: newLineIndex(src)}
		ref := walker{n: &Note{}, src: src, masked: src, lines: newLineIndex(src)}
		w.blockIDAt(0, lastStart, len(src))
		blockIDRef(&ref, 0, lastStart, len(src))
		if !reflect.DeepEqual(w.n.BlockIDs, ref.n.BlockIDs) {
			t.Errorf("blockIDAt(%q, %d) = %+v, want %+v", src, lastStart, w.n.BlockIDs, ref.n.BlockIDs)
		}
	})
}

// blockIDRef is blockIDAt as it was, by a search for the last '^'.
func blockIDRef(w *walker, first, lastStart, lastStop int) {
	line := bytes.TrimRight(w.masked[lastStart:lastStop], " \t\r\n")
	i := bytes.LastIndexByte(line, '^')
	if i < 0 {
		return
	}
	id := line[i+1:]
	if len(id) == 0 || len(bytes.TrimLeft(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")) != 0 {
		return
	}
	w.addBlockID(first, lastStart, line, i)
}
