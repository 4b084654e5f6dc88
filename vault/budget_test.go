package vault

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
	"go.abhg.dev/goldmark/wikilink"
)

// TestCloserSearch: the "]]" each "[[" of a line finds is the first at or
// after it, as bytes.Index finds it, for the starts goldmark asks in order
// along a line and across lines; and a line of "[[" without "]]" is
// searched once, from its first "[[", not once per "[[" (quadratic: 400 KB
// of "[[a]" took 1.9 s).
func TestCloserSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	source := make([]byte, 1)
	for round := range 500 {
		var c closerSearch
		// Lines of one source: each ends where it ends in the source,
		// and may be read from a padded start (PeekLine).
		end := 0
		for range 1 + rng.IntN(4) {
			b := make([]byte, rng.IntN(40))
			for i := range b {
				b[i] = "[]a "[rng.IntN(4)]
			}
			end += len(b) + 1
			pad := rng.IntN(3)
			line := append(bytes.Repeat([]byte(" "), pad), b...)
			for start := 0; start <= len(line); start += 1 + rng.IntN(3) {
				want := bytes.Index(line[start:], []byte("]]"))
				if want >= 0 {
					want += start
				}
				if got := c.index(source, line, end, start); got != want {
					t.Fatalf("round %d: %q from %d: %d, want %d", round, line, start, got, want)
				}
			}
		}
	}

	line := []byte(strings.Repeat("[[a]", 10_000))
	var c closerSearch
	for start := 0; start < len(line); start += 4 {
		if c.index(line, line, 1<<20, start+2) >= 0 {
			t.Fatal("found a \"]]\" in a line without one")
		}
		if c.from != len(line)-2 {
			t.Fatalf("the line was searched again from byte %d", len(line)-c.from)
		}
	}
	// The wikilink parser searches so: the last search of the note's one
	// line was its first.
	p := NewParser()
	src := append(line, '\n')
	if n := p.parseGoldmark("x.md", src, readHead(src)); len(n.Links) != 0 {
		t.Fatalf("read %d links in a line without a closed one", len(n.Links))
	}
	if p.wiki.closer.from < len(line)-2 {
		t.Errorf("the wikilink parser last searched from byte %d, not the first \"[[\"", len(src)-p.wiki.closer.from)
	}
}

// TestDestinationWork counts, at the least, what goldmark's link parser
// reads for a note's link destinations: linear for links as written,
// quadratic for a line of "[x](" (each read to the line's end).
func TestDestinationWork(t *testing.T) {
	for _, tc := range []struct {
		src      string
		min, max int
	}{
		{"no links at all", 0, 0},
		{"[a](b) and [c](dd)", 5, 5},
		{"[a](b c)", 2, 2},
		{"[a](b\n)", 2, 2},
		{"[a](", 1, 1},
		{"![img](" + strings.Repeat("x", 1000) + ")", 1001, 1001},
		{strings.Repeat("[a](https://example.com/x) ", 1000), 1000 * 22, 1000 * 22},
		{strings.Repeat("[x](", 1000), 1000 * 1000 * 19 / 10, 1000 * 1000 * 2},
	} {
		got := destinationWork([]byte(tc.src), 1<<40)
		if got < tc.min || got > tc.max {
			t.Errorf("destinationWork(%.30q…) = %d, want %d to %d", tc.src, got, tc.min, tc.max)
		}
	}
	// Past its limit the count stops, a little past it.
	if got := destinationWork([]byte(strings.Repeat("[x](", 100_000)), 1000); got <= 1000 || got > 1000+400_000 {
		t.Errorf("destinationWork with limit 1000 = %d, want past 1000 by at most a line", got)
	}
}

// TestParseSkipsQuadraticDestinations: a note whose link destinations
// goldmark would read quadratically goes to the line scanner before
// goldmark is asked, from Parse as from ParseWithBudget (Parse had no
// budget: zk runs read 400 KB of "[x](" for 39 s). Its wikilinks stay.
func TestParseSkipsQuadraticDestinations(t *testing.T) {
	src := []byte("# Hostile\n\n[[Kept]]\n\n" + strings.Repeat("[x](", 25_000) + "\n")
	for name, n := range map[string]*Note{
		"Parse":           NewParser().Parse("hostile.md", src),
		"ParseWithBudget": NewParser().ParseWithBudget("hostile.md", src, time.Hour),
	} {
		if !n.Fallback || len(n.Links) != 1 || n.Links[0].Link != "Kept" {
			t.Errorf("%s: fallback %v, links %v; want the line scanner's one link", name, n.Fallback, n.Links)
		}
	}
}

func TestDefinitionWork(t *testing.T) {
	defs := func(n int, prefix string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s[a%d]: b\n", prefix, i)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name string
		src  string
		want int
	}{
		{"no definitions", "# Title\n\nSome text.\n[[link]] and [x](y)\n", 0},
		{"one definition", "text\n\n[a]: b\n", 1},
		{"a definition in a paragraph of three lines", "one\n[a]: b\nthree\n", 3},
		{"blocks counted apart", defs(3, "") + "\n" + defs(2, ""), 9 + 4},
		{"a quote's blank line ends a block", defs(3, "> ") + ">\n" + defs(3, "> "), 9 + 9},
		{"under quote and list markers", defs(4, "> - 1. "), 16},
		{"wikilinks are not definitions", strings.Repeat("[[a]] and [b]\n", 100), 0},
		{"a marker needs its space", defs(3, "-"), 0},
		{"no newline at the end", "[a]: b\n[c]: d", 4},
		{"CRLF blank lines end blocks", "[a]: b\r\n[c]: d\r\n\r\n[e]: f\r\n", 4 + 1},
	} {
		if got := definitionWork([]byte(tc.src), 1<<40); got != tc.want {
			t.Errorf("%s: definitionWork = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestOpenBrackets(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want int
	}{
		{"none", "# Title\n\ntext\n", 0},
		{"closed links", "[[a]] and [b](c) and [d]\n", 2},
		{"left open", "[ [ [ x ] \n", 3},
		{"a close before any open", "] ] [\n", 1},
		{"a blank line ends a block", "[[[\n\n[\n", 3},
		{"a quote's blank line too", "> [[[\n>\n> [\n", 3},
		{"open over lines of one block", "[\n[\n[\n", 3},
		{"a CRLF blank line ends a block", "[[[\r\n\r\n[\r\n", 3},
	} {
		if got := openBrackets([]byte(tc.src)); got != tc.want {
			t.Errorf("%s: openBrackets = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestParseSkipsOpenBrackets: a paragraph of more "[" left open than
// maxOpenBrackets goes to the line scanner before goldmark (2 MB of "["
// took it 570 MB and its whole budget); one of a few thousand, closed
// or not, is goldmark's.
func TestParseSkipsOpenBrackets(t *testing.T) {
	src := []byte("# Brackets\n\n[[Kept]]\n\n" + strings.Repeat("[", maxOpenBrackets+1) + "\n")
	if n := NewParser().ParseWithBudget("brackets.md", src, time.Hour); !n.Fallback || len(n.Links) != 1 || n.Links[0].Link != "Kept" {
		t.Errorf("fallback %v, links %v; want the line scanner's one link", n.Fallback, n.Links)
	}
	src = []byte("# Brackets\n\n[[Kept]]\n\n" + strings.Repeat("[", 5000) + strings.Repeat("[[x]] [y](z) ", 2000) + "\n")
	if n := NewParser().ParseWithBudget("brackets.md", src, time.Hour); n.Fallback {
		t.Errorf("a note of 5,000 open brackets fell back")
	}
}

// TestParseSkipsQuadraticDefinitions: a paragraph of many reference
// definitions goes to the line scanner before goldmark, whose
// transformer reads it in time d×l and, abandoned, ran on to its end;
// a note of a few hundred is still goldmark's.
func TestParseSkipsQuadraticDefinitions(t *testing.T) {
	many := "# Hostile\n\n[[Kept]]\n\n" + strings.Repeat("[^a]: b\n", 50_000)
	for name, n := range map[string]*Note{
		"Parse":           NewParser().Parse("hostile.md", []byte(many)),
		"ParseWithBudget": NewParser().ParseWithBudget("hostile.md", []byte(many), time.Hour),
	} {
		if !n.Fallback || len(n.Links) != 1 || n.Links[0].Link != "Kept" {
			t.Errorf("%s: fallback %v, links %v; want the line scanner's one link", name, n.Fallback, n.Links)
		}
	}
	var b strings.Builder
	b.WriteString("# Ordinary\n\nSee [the source][s0] and [[Kept]].\n\n")
	for i := range 500 {
		fmt.Fprintf(&b, "[s%d]: https://example.com/a/long/enough/path/%d \"Title\"\n", i, i)
	}
	if n := NewParser().Parse("ordinary.md", []byte(b.String())); n.Fallback {
		t.Errorf("a note of 500 reference definitions fell back")
	}
}

// TestAbandonedParseStops: once its flag is set, a goldmark parse that
// has run past its budget ends at its next link trigger rather than
// running to its end in the background (seconds here; hours for 4 MB).
func TestAbandonedParseStops(t *testing.T) {
	src := []byte(strings.Repeat("[x](", 50_000)) // 200 KB: seconds of goldmark
	p := NewParser()
	own := *p
	h := readHead(src)
	ended := make(chan any, 1)
	_, ok := budgeted(10*time.Millisecond, nil, func() *Note {
		var n *Note
		defer func() {
			r := recover()
			ended <- r
			if r != nil {
				panic(r)
			}
		}()
		n = own.parseGoldmark("slow.md", src, h)
		return n
	})
	if ok {
		t.Fatal("200 KB of \"[x](\" parsed within 10 ms")
	}
	own.wiki.stop.Store(true)
	if r := <-ended; r != errAbandoned {
		t.Errorf("the abandoned parse ended with %v, want the panic errAbandoned", r)
	}
}

// TestNewNoteReservesClosedLinks: a note's link list is made for the
// links its source can hold, counting only brackets that close: a
// megabyte of "[" reserved 100 MB for no link.
func TestNewNoteReservesClosedLinks(t *testing.T) {
	for _, tc := range []struct {
		src      string
		min, max int
	}{
		{strings.Repeat("[", 100_000), 0, 0},
		{strings.Repeat("[[a]", 10_000), 0, 0},
		{strings.Repeat("[x](", 10_000), 0, 0},
		{strings.Repeat("[[a]] ", 1000), 1000, 1000},
		{strings.Repeat("[a](b) ", 1000), 1000, 1000},
		{strings.Repeat("![[a]] [b](https://x) ", 1000), 0, 0},
	} {
		if got := cap(newNote("x.md", []byte(tc.src)).Links); got < tc.min || got > tc.max {
			t.Errorf("newNote(%.20q…) reserved %d links, want %d to %d", tc.src, got, tc.min, tc.max)
		}
	}
}

// TestWikiParserMatchesTheExtension: the wikilinks zk's parser makes are
// the wikilink extension's, target, fragment, embed and label, for every
// shape but "[[|alias]]" (which Obsidian reads and the extension does
// not); zk's reads each target from its line, where the extension's
// block.Value was quadratic in a paragraph's lines.
func TestWikiParserMatchesTheExtension(t *testing.T) {
	ext := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, &wikilink.Extender{}))
	ours := NewParser()
	for _, src := range []string{
		"[[a]]", "![[a]]", "[[a|b]]", "[[a#h]]", "[[a#h|b]]", "[[a#h#i|b|c]]", "![[a.png|100]]",
		"[[]]", "[[a|]]", "[[#h]]", "[[ a ]]", "x [[a]] y [[b|c]] z", "[[a]]]", "[[[a]]", "[[a] ]]",
		"![[", "[[a", "a]]", "[[a]\n]]", "- [[a]]\n- ![[b#^c]]\n", "> [[a]]\n> x [[b]]\n",
		"| [[a\\|b]] | c |\n|---|---|\n| [[d]] | [[e|f]] |\n", "*[[a]]* **[[b]]**", "`[[a]]` [[b]]",
		strings.Repeat("[[x]]\n", 50), strings.Repeat("[[x|y]] ", 50),
	} {
		want := wikiNodes(t, ext.Parser().Parse(text.NewReader([]byte(src))), []byte(src))
		got := wikiNodes(t, ours.md.Parser().Parse(text.NewReader([]byte(src))), []byte(src))
		if !slices.Equal(got, want) {
			t.Errorf("%q: zk's wikilinks %q, the extension's %q", src, got, want)
		}
	}
	// The one difference: Obsidian's "[[|alias]]".
	src := []byte("[[|]] [[|b]]")
	if got := wikiNodes(t, ours.md.Parser().Parse(text.NewReader(src)), src); !slices.Equal(got, []string{"|#||!false", "|b#||b!false"}) {
		t.Errorf("%q: zk's wikilinks %q", src, got)
	}
}

// wikiNodes lists a document's wikilinks as "target#fragment|label!".
func wikiNodes(t *testing.T, doc ast.Node, src []byte) []string {
	t.Helper()
	var out []string
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if w, ok := n.(*wikilink.Node); ok && entering {
			var label []byte
			for c := w.FirstChild(); c != nil; c = c.NextSibling() {
				if s, ok := c.(*ast.Text); ok {
					label = append(label, s.Segment.Value(src)...)
				}
			}
			out = append(out, fmt.Sprintf("%s#%s|%s!%v", w.Target, w.Fragment, label, w.Embed))
		}
		return ast.WalkContinue, nil
	})
	return out
}

// BenchmarkParseLinkLines parses a paragraph of 40,000 lines of one
// wikilink each: the shape the extension's block.Value made quadratic
// (80,000 lines took 2.4 s).
func BenchmarkParseLinkLines(b *testing.B) {
	src := []byte("*a list of links:*\n" + strings.Repeat("[[x]]\n", 40_000))
	p := NewParser()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if n := p.parseGoldmark("x.md", src, readHead(src)); len(n.Links) != 40_000 {
			b.Fatalf("%d links, want 40000", len(n.Links))
		}
	}
}

// TestParseGivesUpWhenStopped: once its stop channel is closed, a parse
// gives up on goldmark whatever budget is left, and the note is read by
// the line scanner (a command stopped by a signal waited out each
// parse's 2 s budget).
func TestParseGivesUpWhenStopped(t *testing.T) {
	src := []byte("# Brackets\n\n[[Kept]]\n\n" + strings.Repeat("[", 1<<20) + "\n")
	stop := make(chan struct{})
	close(stop)
	n := NewParser().parseWithin(stop, "brackets.md", src, time.Hour)
	if !n.Fallback || len(n.Links) != 1 || n.Links[0].Link != "Kept" {
		t.Errorf("fallback %v, links %v; want the line scanner's one link", n.Fallback, n.Links)
	}
}

func TestNestingDepth(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want int
	}{
		{"none", "# Title\n\ntext\n", 0},
		{"a list", "- a\n  - b\n", 1},
		{"quotes", "> > > x\n", 3},
		{"lists on one line", "- - - x\n", 3},
		{"mixed", "> 1. - > * x\n", 5},
		{"a dash that is not a marker", "-x - y\n", 0},
		{"a thematic break's dashes", "- - -\n", 2},
		{"the deepest line", "> x\n- - - - x\n> > y\n", 4},
		{"counts stop past the bound", strings.Repeat("- ", 1000) + "x\n", maxQuoteDepth + 1},
	} {
		if got := nestingDepth([]byte(tc.src)); got != tc.want {
			t.Errorf("%s: nestingDepth = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestParseSkipsDeepLists: list items nested on one line past
// maxQuoteDepth go to the line scanner before goldmark, as quotes do:
// 100,000 "- " took goldmark its whole 2 s budget in each of a command's
// parses. A note nested a few deep is goldmark's.
func TestParseSkipsDeepLists(t *testing.T) {
	for _, deep := range []string{strings.Repeat("- ", 5000), strings.Repeat("> - 1. ", 2000)} {
		src := []byte("# Deep\n\n[[Kept]]\n\n" + deep + "x\n")
		if n := NewParser().ParseWithBudget("deep.md", src, time.Hour); !n.Fallback || len(n.Links) != 1 || n.Links[0].Link != "Kept" {
			t.Errorf("%.12q…: fallback %v, links %v; want the line scanner's one link", deep, n.Fallback, n.Links)
		}
	}
	if n := NewParser().Parse("ok.md", []byte("# Ok\n\n- a\n  - b\n- - - c [[Kept]]\n> - quoted\n")); n.Fallback {
		t.Errorf("a note of ordinary lists fell back")
	}
}
