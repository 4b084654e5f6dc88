package vault

import (
	"bytes"
	"errors"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.abhg.dev/goldmark/wikilink"
)

// Parser parses notes. It holds a goldmark parser, which is not safe for
// concurrent use: give each goroutine its own (NewParser is cheap).
type Parser struct {
	md   goldmark.Markdown
	wiki *wikiParser
	link *linkParser
}

// NewParser returns a parser for Obsidian-flavoured markdown: CommonMark,
// GFM tables and strikethrough, and wikilinks, with the corrections around
// the wikilink extension that Obsidian's behaviour needs.
func NewParser() *Parser {
	stop := new(atomic.Bool)
	w := &wikiParser{stop: stop}
	l := &linkParser{inner: parser.NewLinkParser(), ends: map[ast.Node]int{}, stop: stop}
	inlines := []util.PrioritizedValue{}
	for _, v := range parser.DefaultInlineParsers() {
		if _, ok := v.Value.(parser.CloseBlocker); ok && isLinkParser(v.Value) {
			v.Value = l
		}
		inlines = append(inlines, v)
	}
	// The wikilink extension registers at 199, just ahead of goldmark's
	// link parser at 200, so that "[[" is seen as a wikilink first.
	inlines = append(inlines, util.Prioritized(w, 199))
	// goldmark.New would register the default inline parsers too; build
	// the parser by hand so that the wrapped link parser replaces the
	// original instead of running beside it.
	base := parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(inlines...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
	md := goldmark.New(
		goldmark.WithParser(base),
		goldmark.WithExtensions(extension.Table, extension.Strikethrough),
	)
	return &Parser{md: md, wiki: w, link: l}
}

func isLinkParser(v any) bool {
	t, ok := v.(parser.InlineParser)
	if !ok {
		return false
	}
	tr := string(t.Trigger())
	return len(tr) == 3 && strings.ContainsRune(tr, '[') && strings.ContainsRune(tr, ']') && strings.ContainsRune(tr, '!')
}

// wikiParser is the wikilink extension's parser (go.abhg.dev/goldmark/
// wikilink), making its nodes, in linear time. The extension looks for "]]"
// on the whole rest of the line before it checks for "[[", which is
// quadratic on a line with many '[' or '!', and reads each target through
// block.Value, quadratic in a paragraph's lines; here the prefix is checked
// first, a line searched once, and the target sliced from its line. It
// also accepts "[[|alias]]", which Obsidian records as a link to "|alias"
// but the extension rejects.
type wikiParser struct {
	// closer is the last search for "]]", kept for the next "[[" on the
	// same line. Without it a line of n "[[" and no "]]" was searched to
	// its end n times: 400 KB of "[[a]" took 1.9 s.
	closer closerSearch
	// stop, shared with the link parser, ends an abandoned parse at its
	// next "[" or "!" (stopped): ParseWithBudget sets it on the parse it
	// abandons.
	stop *atomic.Bool
}

// closerSearch remembers where the first "]]" was found on the line of
// source src that ends at offset lineEnd, searching from from bytes
// before that end: at found bytes before it, or nowhere (found < 0).
// Positions count back from the line's end, which a line read from a
// later position shares (PeekLine's start may carry padding, its end
// never does).
type closerSearch struct {
	src                  *byte // the source's first byte: one document's
	lineEnd, from, found int
}

// index is the offset in line, which ends at offset lineEnd of source
// src, of the first "]]" at or after start, or -1: searched anew only
// past the last search's answer, so the searches of one line read it
// once.
func (c *closerSearch) index(src, line []byte, lineEnd, start int) int {
	first := &src[0] // src holds line
	rest := len(line) - start
	if c.src == first && c.lineEnd == lineEnd && rest <= c.from && c.found <= rest {
		if c.found < 0 {
			return -1
		}
		return len(line) - c.found
	}
	c.src, c.lineEnd, c.from, c.found = first, lineEnd, rest, -1
	i := bytes.Index(line[start:], []byte("]]"))
	if i < 0 {
		return -1
	}
	c.found = rest - i
	return start + i
}

func (w *wikiParser) Trigger() []byte { return []byte{'!', '['} }

func (w *wikiParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	stopped(w.stop)
	line, seg := block.PeekLine()
	start := 2
	switch {
	case bytes.HasPrefix(line, []byte("[[")):
	case bytes.HasPrefix(line, []byte("![[")):
		start = 3
	default:
		return nil
	}
	stop := w.closer.index(block.Source(), line, seg.Stop, start)
	if stop < 0 {
		return nil
	}
	// The extension's own Parse, but for its target: it read that with
	// block.Value, which looks for the target's line from the paragraph's
	// last line back, so a paragraph of n lines of links was quadratic
	// (80,000 lines of "[[x]]": 2.4 s). The target is on this line.
	inner := line[start:stop]
	n := &wikilink.Node{Target: append([]byte(nil), inner...), Embed: start == 3}
	label := text.NewSegment(seg.Start+start, seg.Start+stop)
	if len(inner) >= 1 && inner[0] == '|' {
		// "[[|alias]]": Obsidian does not split when nothing precedes the
		// pipe, so the whole inner text is the target (the extension
		// refuses an empty target).
	} else {
		if i := bytes.IndexByte(n.Target, '|'); i >= 0 {
			n.Target = n.Target[:i]
			label = label.WithStart(label.Start + i + 1)
		}
		if len(n.Target) == 0 || label.Len() == 0 {
			return nil // target and label must not be empty
		}
		if i := bytes.LastIndexByte(n.Target, '#'); i >= 0 {
			n.Fragment = n.Target[i+1:]
			n.Target = n.Target[:i]
		}
	}
	n.AppendChild(n, ast.NewTextSegment(label))
	block.Advance(stop + 2)
	return n
}

// linkParser wraps goldmark's link parser to record where each markdown
// link ends; goldmark records only where it starts.
type linkParser struct {
	inner parser.InlineParser
	ends  map[ast.Node]int
	stop  *atomic.Bool
}

func (l *linkParser) Trigger() []byte { return l.inner.Trigger() }

func (l *linkParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	stopped(l.stop)
	n := l.inner.Parse(parent, block, pc)
	switch n.(type) {
	case *ast.Link, *ast.Image:
		_, seg := block.Position()
		l.ends[n] = seg.Start
	}
	return n
}

func (l *linkParser) CloseBlock(parent ast.Node, block text.Reader, pc parser.Context) {
	stopped(l.stop)
	l.inner.(parser.CloseBlocker).CloseBlock(parent, block, pc)
}

// errAbandoned is the panic that ends an abandoned parse (stopped).
var errAbandoned = errors.New("parse abandoned")

// stopped ends the goldmark parse it is called from, once its flag is
// set: goldmark cannot be cancelled, and a parse past its budget went on
// in the background until it finished, hours for 4 MB of "[x](" (its
// link destinations are read to the end of the line at each one). The
// shapes goldmark was found slow on are runs of link brackets, each of
// which calls the link parsers here, but for reference definitions,
// which its paragraph transformer reads: a paragraph of enough of them
// to be slow goes to the line scanner first (definitionWork).
// budgeted recovers the panic.
func stopped(flag *atomic.Bool) {
	if flag.Load() {
		panic(errAbandoned)
	}
}

// Parse parses a note's source. notePath is its vault-relative path. Parse
// does no I/O and never fails: what it cannot read it leaves out, and a
// frontmatter error is recorded in Note.Frontmatter.Err. It is
// ParseWithBudget with DefaultParseBudget: a note goldmark cannot read in
// that time is read by the line scanner (Note.Fallback), for every caller
// (the language server, zk run and runs once parsed hostile notes for
// minutes without one).
func (p *Parser) Parse(notePath string, src []byte) *Note {
	return p.ParseWithBudget(notePath, src, DefaultParseBudget)
}

// head is what both parsers read first: the line index and the
// frontmatter, read once for a note the fast path gives up on (its YAML
// was a seventh of a cold check of the help vault when read twice).
type head struct {
	lines   *lineIndex
	fm      *Frontmatter
	fmEnd   int // 0 without frontmatter
	fmLinks []FrontmatterLink
}

func readHead(src []byte) head {
	h := head{lines: newLineIndex(src)}
	if fm, end := parseFrontmatter(src, h.lines); fm != nil {
		h.fm, h.fmEnd = fm, end
		h.fmLinks = frontmatterLinks(fm.Values, fm.Keys)
	}
	return h
}

// parseGoldmark is Parse through goldmark, for every note the fast path
// does not take.
func (p *Parser) parseGoldmark(notePath string, src []byte, h head) *Note {
	n := newNote(notePath, src)
	lines := h.lines
	n.lines = lines

	body := src
	fmEnd := h.fmEnd
	if h.fm != nil {
		n.Frontmatter = h.fm
		n.FrontmatterLinks = h.fmLinks
	}
	// goldmark sees a copy in which frontmatter, %% block comments and math
	// are blanked out (every byte but newlines turned into a space), so that
	// offsets in its AST are offsets in the note.
	masked, comments := maskedSource(src, fmEnd)
	body = masked

	// ParseWithBudget runs this on a copy of the parser, so that it may
	// swap in a fresh one while an abandoned parse still uses this one.
	md, link := p.md, p.link
	link.ends = map[ast.Node]int{}
	p.wiki.closer = closerSearch{} // the last note's source may be reused
	doc := md.Parser().Parse(text.NewReader(body))
	w := walker{n: n, src: src, masked: masked, lines: lines, ends: link.ends}
	w.walk(doc)
	// Obsidian hides links in a %% block comment but still records its
	// tags (GT comments_markdown_style).
	for _, c := range comments {
		w.tags(src, c[0], c[1])
	}
	sortTags(n.Tags)
	n.Sections = sections(n.Headings, len(src))
	if fmEnd > 0 {
		n.Blocks = append([]Block{{Kind: "yaml", Span: n.Frontmatter.Span}}, n.Blocks...)
	}
	n.fitLinks()
	return n
}

// newNote is an empty note for src, its link list sized for the links
// src can hold. Grown by append, a 1 MB note of 200,000 links allocated
// 190 MB for a 34 MB list (slices of large structs grow by a quarter at
// a time), and a command's peak memory followed.
func newNote(notePath string, src []byte) *Note {
	n := &Note{Path: notePath, Name: noteName(notePath), Src: src, Size: int64(len(src))}
	// Every wikilink holds "[[" and "]]", and every markdown link "]("
	// and ")": an upper bound but for those in code, and no more than the
	// shortest link, "[[a]]", fits in src. An embed ("![[") and a web link
	// ("](http") are no Link: counted, they made obsidian-hub's notes
	// (badges, GitHub links) reserve four times their links, and fitLinks
	// copy 6,277 of its 6,571 notes' lists. The closers count too: a
	// hostile megabyte of "[" reserved 100 MB for no link.
	hint := 0
	if wiki := bytes.Count(src, []byte("[[")) - bytes.Count(src, []byte("![[")); wiki > 0 {
		hint = min(wiki, bytes.Count(src, []byte("]]")))
	}
	if md := bytes.Count(src, []byte("](")); md > 0 {
		hint += min(md-bytes.Count(src, []byte("](http")), bytes.Count(src, []byte(")")))
	}
	if hint > 0 {
		n.Links = make([]Link, 0, min(hint, len(src)/5))
	}
	return n
}

// fitLinks gives back the room newNote reserved for links that were not
// links (in code, or embeds), so that a note kept in memory holds no more
// than its links.
func (n *Note) fitLinks() {
	switch {
	case len(n.Links) == 0:
		n.Links = nil // as a note without links always had
	case cap(n.Links)-len(n.Links) > len(n.Links)/4+4:
		n.Links = append([]Link(nil), n.Links...)
	}
}

func noteName(p string) string {
	base := path.Base(p)
	if ext := path.Ext(base); strings.EqualFold(ext, ".md") {
		return base[:len(base)-len(ext)]
	}
	return base
}

// maskedSource blanks the frontmatter, multi-line %% comments and math so
// that goldmark finds no links, tags or headings in them. A %% comment that
// opens and closes on one line is kept: Obsidian indexes links and tags
// inside inline comments.
func maskedSource(src []byte, fmEnd int) ([]byte, [][2]int) {
	if fmEnd == 0 && !bytes.ContainsAny(src, "%$") {
		// Nothing to blank: most notes have no comments, math or
		// frontmatter, and need no copy.
		return src, nil
	}
	out, comments := maskSource(src, fmEnd, nil)
	if fmEnd > 0 {
		if &out[0] == &src[0] { // maskSource blanked nothing: src itself
			out = append([]byte(nil), src...)
		}
		blank(out, 0, fmEnd)
	}
	return out, comments
}

// CommentSpans are the note's %% comments as the parser reads them, each
// from its opening "%%" to past its closing one (an unclosed one runs to
// the end): a "%%" in fenced code, a code span, math or after a backslash
// opens none. fmEnd is where the body starts (0 without frontmatter).
// zk check skips the links inside them, so that it reads a note's
// comments as zk's parser does.
func CommentSpans(src []byte, fmEnd int) [][2]int {
	if !bytes.Contains(src[fmEnd:], []byte("%%")) {
		return nil
	}
	var all [][2]int
	maskSource(src, fmEnd, &all)
	return all
}

// maskSource is maskedSource but for the frontmatter, which it leaves as
// it is (nothing here reads before fmEnd); with all non-nil it also
// appends every comment's whole span, one line or many, to *all. It
// copies src at its first blank, and returns src itself when it blanks
// nothing: most notes it reads (each note with a "%%" or "$" is read
// here twice, by the parse and by zk check) have only a one-line comment
// or a "$" that opens no math, and the copy of every such note was a
// tenth of a cold check of obsidian-hub.
func maskSource(src []byte, fmEnd int, all *[][2]int) ([]byte, [][2]int) {
	var comments [][2]int
	out := src
	copied := false
	blankOut := func(from, to int) {
		if !copied {
			out, copied = append([]byte(nil), src...), true
		}
		blank(out, from, to)
	}
	inFence := false
	var fence []byte
	commentStart := -1
	for i := fmEnd; i < len(out); {
		j := bytes.IndexByte(out[i:], '\n')
		end := len(out)
		if j >= 0 {
			end = i + j + 1
		}
		line := out[i:end]
		// Read by hand, not by TrimLeft, fenceMarker and ContainsAny:
		// every line of most notes is read here twice in a check.
		t := i
		for t < end && (out[t] == ' ' || out[t] == '\t' || out[t] == '>') {
			t++
		}
		trimmed := out[t:end]
		if commentStart < 0 && len(trimmed) >= 3 && (trimmed[0] == '`' || trimmed[0] == '~') {
			if f := fenceMarker(trimmed); f != nil {
				if !inFence {
					inFence, fence = true, f
				} else if bytes.HasPrefix(trimmed, fence) && len(bytes.TrimSpace(bytes.TrimLeft(trimmed, string(fence[:1])))) == 0 {
					inFence = false
				}
				i = end
				continue
			}
		}
		if inFence || (commentStart < 0 && bytes.IndexByte(line, '%') < 0 && bytes.IndexByte(line, '$') < 0) {
			i = end
			continue
		}
		// Scan the line for %% and $$ delimiters.
		for k := i; k < end; k++ {
			c := out[k]
			if c == '\\' {
				k++
				continue
			}
			if commentStart >= 0 {
				if c == '%' && k+1 < end && out[k+1] == '%' {
					if bytes.IndexByte(out[commentStart:k], '\n') >= 0 {
						blankOut(commentStart, k+2)
						comments = append(comments, [2]int{commentStart + 2, k})
					}
					if all != nil {
						*all = append(*all, [2]int{commentStart, k + 2})
					}
					commentStart = -1
					k++
				}
				continue
			}
			if c == '`' {
				// Skip a code span on this line.
				run := k
				for run < end && out[run] == '`' {
					run++
				}
				if close := bytes.Index(out[run:end], out[k:run]); close >= 0 {
					k = run + close + (run - k) - 1
				} else {
					k = run - 1
				}
				continue
			}
			if c == '%' && k+1 < end && out[k+1] == '%' {
				commentStart = k
				k++
				continue
			}
			if c == '$' {
				if e := mathEnd(out, k); e > k {
					blankOut(k, e)
					k = e - 1
				}
			}
		}
		i = end
	}
	if commentStart >= 0 {
		// An unclosed %% hides the rest of the note, as in Obsidian.
		blankOut(commentStart, len(out))
		comments = append(comments, [2]int{commentStart + 2, len(out)})
		if all != nil {
			*all = append(*all, [2]int{commentStart, len(out)})
		}
	}
	return out, comments
}

// mathEnd returns the end of a $...$ or $$...$$ span starting at i, or -1.
// Inline math must not start or end with a space, as in Obsidian.
func mathEnd(b []byte, i int) int {
	if i+1 < len(b) && b[i+1] == '$' {
		if e := bytes.Index(b[i+2:], []byte("$$")); e >= 0 {
			return i + 2 + e + 2
		}
		return -1
	}
	if i+1 >= len(b) || b[i+1] == ' ' || b[i+1] == '\n' {
		return -1
	}
	for k := i + 1; k < len(b) && b[k] != '\n'; k++ {
		if b[k] == '\\' {
			k++
			continue
		}
		if b[k] == '$' {
			if b[k-1] == ' ' || k == i+1 {
				return -1
			}
			if k+1 < len(b) && b[k+1] >= '0' && b[k+1] <= '9' {
				return -1 // "$5 and $6" is prose about money
			}
			return k + 1
		}
	}
	return -1
}

func fenceMarker(line []byte) []byte {
	for _, c := range []byte{'`', '~'} {
		k := 0
		for k < len(line) && line[k] == c {
			k++
		}
		if k >= 3 {
			if c == '`' && bytes.IndexByte(line[k:], '`') >= 0 {
				return nil
			}
			return line[:k]
		}
	}
	return nil
}

func blank(b []byte, from, to int) {
	for i := from; i < to && i < len(b); i++ {
		if b[i] != '\n' && b[i] != '\r' {
			b[i] = ' '
		}
	}
}

type walker struct {
	n      *Note
	src    []byte
	masked []byte
	lines  *lineIndex
	ends   map[ast.Node]int
	list   []int // stack of enclosing list item indexes
	line   int   // the line of the last position made (lineIndex.posNear)
}

func (w *walker) span(from, to int) Span {
	start := w.lines.posNear(from, &w.line)
	return Span{Start: start, End: w.lines.posNear(to, &w.line)}
}

// pos is the position of off, its line looked for near the last.
func (w *walker) pos(off int) Pos { return w.lines.posNear(off, &w.line) }

func (w *walker) walk(doc ast.Node) {
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		if b, ok := w.topBlock(c); ok {
			w.n.Blocks = append(w.n.Blocks, b)
		}
	}
	_ = ast.Walk(doc, func(node ast.Node, entering bool) (ast.WalkStatus, error) {
		switch x := node.(type) {
		case *ast.ListItem:
			if entering {
				w.listItem(x)
			} else {
				w.list = w.list[:len(w.list)-1]
			}
		case *ast.Heading:
			if entering {
				w.heading(x)
			}
		case *ast.CodeSpan, *ast.CodeBlock, *ast.FencedCodeBlock, *ast.HTMLBlock, *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		case *wikilink.Node:
			if entering {
				w.wikilink(x)
			}
			return ast.WalkSkipChildren, nil
		case *ast.Link:
			if entering {
				w.mdLink(x, false)
			}
		case *ast.Image:
			if entering {
				w.mdLink(x, true)
			}
		case *ast.Text:
			if entering {
				w.text(x)
			}
		case *ast.Paragraph, *ast.TextBlock:
			if entering {
				w.blockID(node)
			}
		}
		return ast.WalkContinue, nil
	})
}

// topBlock classifies a top-level block as Obsidian's sections do.
func (w *walker) topBlock(c ast.Node) (Block, bool) {
	start, end, ok := w.blockRange(c)
	if !ok {
		return Block{}, false
	}
	kind := ""
	switch x := c.(type) {
	case *ast.Heading:
		kind = "heading"
	case *ast.Paragraph:
		kind = "paragraph"
		if blankRange(w.masked, start, end) {
			kind = "comment"
		}
	case *ast.List:
		kind = "list"
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		kind = "code"
	case *ast.HTMLBlock:
		kind = "html"
	case *ast.ThematicBreak:
		kind = "thematicBreak"
	case *ast.Blockquote:
		kind = "blockquote"
		if isCallout(w.src[start:end]) {
			kind = "callout"
		}
	case *extast.Table:
		kind = "table"
	default:
		_ = x
		kind = strings.ToLower(c.Kind().String())
	}
	return Block{Kind: kind, Span: w.span(start, end)}, true
}

func isCallout(b []byte) bool {
	b = bytes.TrimLeft(b, "> \t")
	return bytes.HasPrefix(b, []byte("[!"))
}

func blankRange(b []byte, from, to int) bool {
	return len(bytes.TrimSpace(b[from:to])) == 0
}

// blockRange returns the byte range of a block node: from the start of its
// first line to the end of its last line (without the newline).
func (w *walker) blockRange(n ast.Node) (int, int, bool) {
	first, last := -1, -1
	var visit func(ast.Node)
	visit = func(x ast.Node) {
		lines := x.Lines()
		if lines != nil && lines.Len() > 0 {
			s, e := lines.At(0).Start, lines.At(lines.Len()-1).Stop
			if first < 0 || s < first {
				first = s
			}
			if e > last {
				last = e
			}
		}
		if p := x.Pos(); p >= 0 && (first < 0 || p < first) {
			first = p
		}
		// Only blocks carry lines; inline children would only cost time.
		for c := x.FirstChild(); c != nil; c = c.NextSibling() {
			if c.Type() == ast.TypeBlock {
				visit(c)
			}
		}
	}
	visit(n)
	if first < 0 {
		return 0, 0, false
	}
	// Widen to whole lines, as Obsidian's positions do.
	first = w.lines.lineStart(first)
	last = w.lines.lineEnd(max(last-1, first))
	switch n.(type) {
	case *ast.FencedCodeBlock:
		// The closing fence is not among the lines; take it if present.
		next := last + 1
		if next < len(w.src) {
			e := w.lines.lineEnd(next)
			if fenceMarker(bytes.TrimSpace(w.src[next:e])) != nil {
				last = e
			}
		}
	}
	return first, last, true
}

func (w *walker) heading(h *ast.Heading) {
	start := h.Pos()
	if lines := h.Lines(); lines.Len() > 0 && (start < 0 || lines.At(0).Start < start) {
		start = lines.At(0).Start
	}
	if start < 0 {
		return
	}
	ls := w.lines.lineStart(start)
	le := w.lines.lineEnd(ls)
	line := w.src[ls:le]
	txt := headingText(line)
	if txt == "" && h.Lines().Len() > 0 {
		// Setext heading: the text is on the lines, the underline below.
		txt = string(bytes.TrimSpace(h.Lines().Value(w.src)))
		last := h.Lines().At(h.Lines().Len() - 1)
		le = w.lines.lineEnd(w.lines.lineEnd(last.Start) + 1)
	}
	w.n.Headings = append(w.n.Headings, Heading{Level: h.Level, Text: txt, Span: w.span(ls, le)})
}

// headingText is an ATX heading line's raw text: without the opening #s,
// the closing #s and the surrounding space.
func headingText(line []byte) string {
	s := bytes.TrimLeft(line, " ")
	k := 0
	for k < len(s) && s[k] == '#' {
		k++
	}
	if k == 0 {
		return ""
	}
	s = bytes.TrimSpace(s[k:])
	// A closing sequence of #s preceded by a space is not part of the text.
	t := bytes.TrimRight(s, "#")
	if len(t) < len(s) && (len(t) == 0 || t[len(t)-1] == ' ' || t[len(t)-1] == '\t') {
		s = bytes.TrimSpace(t)
	}
	return string(s)
}

func (w *walker) listItem(li *ast.ListItem) {
	parent := -1
	if len(w.list) > 0 {
		parent = w.list[len(w.list)-1]
	}
	start := li.Pos()
	if start < 0 {
		if c := li.FirstChild(); c != nil && c.Lines().Len() > 0 {
			start = c.Lines().At(0).Start
		}
	}
	item := ListItem{Parent: parent}
	if start >= 0 {
		ls := w.lines.lineStart(start)
		le := w.lines.lineEnd(ls)
		_, end, ok := w.blockRange(li)
		if !ok || end < le {
			end = le
		}
		item.Span = w.span(ls, end)
		item.Text, item.Task = listItemText(w.src[ls:le])
	}
	w.n.ListItems = append(w.n.ListItems, item)
	w.list = append(w.list, len(w.n.ListItems)-1)
}

// listItemText strips a list marker and a task box from an item's line.
func listItemText(line []byte) (string, rune) {
	s := bytes.TrimLeft(line, " \t>")
	switch {
	case len(s) > 0 && (s[0] == '-' || s[0] == '*' || s[0] == '+'):
		s = s[1:]
	default:
		k := 0
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > 0 && k < len(s) && (s[k] == '.' || s[k] == ')') {
			s = s[k+1:]
		}
	}
	s = bytes.TrimLeft(s, " \t")
	var task rune
	if len(s) >= 3 && s[0] == '[' && s[2] == ']' {
		task = rune(s[1])
		s = bytes.TrimLeft(s[3:], " \t")
	}
	return string(bytes.TrimRight(s, " \t\r")), task
}

func (w *walker) wikilink(x *wikilink.Node) {
	if start := x.Pos(); start >= 0 {
		w.wikilinkAt(start, x.Embed)
	}
}

// wikilinkAt records the wikilink whose "[[" (or "![[") is at start, and
// returns the offset just past its "]]", or -1 if it does not close.
func (w *walker) wikilinkAt(start int, embed bool) int {
	openLen := 2
	if embed {
		openLen = 3
	}
	end := bytes.Index(w.src[start+openLen:], []byte("]]"))
	if end < 0 {
		return -1
	}
	end += start + openLen + 2
	// One string for the link; its parts are slices of it.
	original := string(w.src[start:end])
	inner := original[openLen : len(original)-2]
	l := Link{Kind: Wikilink, Embed: embed, Original: original, Span: w.span(start, end)}
	target, display, hasDisplay := splitWikiInner(inner)
	l.Link = target
	l.Path, l.Subpath = splitSubpath(target)
	l.HasDisplay = hasDisplay
	if hasDisplay {
		l.DisplayText = display
		if embed {
			l.Size = imageSize(display)
		}
	} else {
		l.DisplayText = defaultDisplay(l.Path, l.Subpath)
	}
	w.addLink(l)
	return end
}

// splitWikiInner splits the text between [[ and ]] at the first pipe into
// target and display text. An escaped pipe (\|, as written in tables) is a
// separator too, and its backslash belongs to neither side. Nothing before
// the pipe means no split, as in Obsidian.
func splitWikiInner(inner string) (target, display string, hasDisplay bool) {
	i := strings.IndexByte(inner, '|')
	if i <= 0 {
		return inner, "", false
	}
	target = inner[:i]
	if strings.HasSuffix(target, `\`) {
		target = target[:len(target)-1]
		if target == "" {
			return inner, "", false
		}
	}
	return target, inner[i+1:], true
}

func splitSubpath(link string) (string, string) {
	if i := strings.IndexByte(link, '#'); i >= 0 {
		return link[:i], link[i:]
	}
	return link, ""
}

// defaultDisplay is the text Obsidian shows for a link without display
// text: "Note", "Note > H1 > H2", "Note > ^id", or "H" for a same-note link.
func defaultDisplay(p, sub string) string {
	if sub == "" {
		return p
	}
	parts := []string{}
	if p != "" {
		parts = append(parts, p)
	}
	for _, s := range strings.Split(sub[1:], "#") {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " > ")
}

// imageSize returns the size an embed's display text sets: "100" or
// "100x145", as the whole text or its last |-separated segment.
func imageSize(display string) string {
	seg := display
	if i := strings.LastIndexByte(display, '|'); i >= 0 {
		seg = display[i+1:]
	}
	w, h, found := strings.Cut(seg, "x")
	if !isDigits(w) || (found && !isDigits(h)) {
		return ""
	}
	return seg
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (w *walker) mdLink(node ast.Node, image bool) {
	var dest []byte
	switch x := node.(type) {
	case *ast.Link:
		dest = x.Destination
	case *ast.Image:
		dest = x.Destination
	}
	start, end := node.Pos(), w.ends[node]
	if start < 0 || end <= start {
		return
	}
	if !image && isFootnote(w.src, start, end) {
		return
	}
	w.mdLinkAt(start, end, dest, image)
}

// isFootnote reports whether the reference link src[start:end] is a
// footnote: a reference [^1] (goldmark reads a definition "[^1]: text" as a
// link reference definition, so "[^1]" became a link to "text"), or the
// [text] of an inline footnote ^[text] that happens to name a definition.
// Obsidian renders both as footnotes and records no link (spec M1).
func isFootnote(src []byte, start, end int) bool {
	if src[end-1] != ']' {
		return false // [label](destination): an inline link, footnote-like label or not
	}
	if end-start > 2 && src[start] == '[' && src[start+1] == '^' {
		return true
	}
	return start > 0 && src[start-1] == '^'
}

// mdLinkAt records the markdown link or image in src[start:end] whose
// destination is dest. External URLs and empty destinations are not links.
func (w *walker) mdLinkAt(start, end int, dest []byte, image bool) {
	if len(dest) == 0 || hasScheme(dest) {
		return
	}
	decoded, err := url.PathUnescape(string(dest))
	if err != nil {
		decoded = string(dest)
	}
	l := Link{Kind: Markdown, Embed: image, Original: string(w.src[start:end]), Span: w.span(start, end)}
	l.Link = decoded
	l.Path, l.Subpath = splitSubpath(decoded)
	l.DisplayText = string(linkLabel(w.src, start, image))
	l.HasDisplay = true
	if image {
		l.Size = imageSize(l.DisplayText)
	}
	w.addLink(l)
}

// linkLabel returns the raw label of a markdown link starting at start.
func linkLabel(src []byte, start int, image bool) []byte {
	i := start + 1
	if image {
		i++
	}
	depth := 0
	for k := i; k < len(src); k++ {
		switch src[k] {
		case '\\':
			k++
		case '[':
			depth++
		case ']':
			if depth == 0 {
				return src[i:k]
			}
			depth--
		}
	}
	return nil
}

// hasScheme reports whether a destination is an external URL (https:,
// mailto:, obsidian:, ...): a scheme of two or more letters then ':'.
func hasScheme(dest []byte) bool {
	i := bytes.IndexByte(dest, ':')
	if i < 2 {
		return false
	}
	for _, c := range dest[:i] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func sortTags(ts []Tag) {
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].Span.Start.Offset < ts[j].Span.Start.Offset })
}

func (w *walker) addLink(l Link) {
	if l.Embed {
		w.n.Embeds = append(w.n.Embeds, l)
	} else {
		w.n.Links = append(w.n.Links, l)
	}
}

// text scans a text node for #tags. Code, HTML and comments never reach
// here: the walk skips them and the masked source blanks %% comments.
func (w *walker) text(t *ast.Text) {
	w.tags(w.masked, t.Segment.Start, t.Segment.Stop)
}

// tags finds the #tags in b[from:to].
func (w *walker) tags(b []byte, from, to int) {
	for i := from; i < to; i++ {
		if b[i] != '#' {
			continue
		}
		if j := w.tagAt(b, i); j > 0 {
			i = j - 1
		}
	}
}

// tagAt records the tag whose '#' is at b[i], if one starts there, and
// returns the offset just past it, or -1.
func (w *walker) tagAt(b []byte, i int) int {
	if i > 0 && !tagMayFollow(b, i) {
		return -1
	}
	j := i + 1
	for j < len(b) {
		r, size := utf8.DecodeRune(b[j:])
		if !isTagRune(r) {
			break
		}
		j += size
	}
	if j == i+1 || isDigits(string(b[i+1:j])) {
		return -1
	}
	w.n.Tags = append(w.n.Tags, Tag{Tag: string(w.src[i:j]), Span: w.span(i, j)})
	return j
}

// tagMayFollow reports whether a # at i may start a tag: at the start of a
// line, after white space, or after an escaped character (Obsidian reads
// "\[\[#Escaped" as the tag #Escaped).
func tagMayFollow(b []byte, i int) bool {
	r, _ := utf8.DecodeLastRune(b[:i])
	if unicode.IsSpace(r) {
		return true
	}
	return i >= 2 && b[i-2] == '\\' && b[i-1] < utf8.RuneSelf && unicode.IsPunct(rune(b[i-1]))
}

// isTagRune reports whether r may appear in a tag body. This is the class
// Obsidian's own tag pattern excludes: white space, ASCII punctuation other
// than _ - /, and the general and supplemental punctuation blocks.
func isTagRune(r rune) bool {
	if r == utf8.RuneError || unicode.IsSpace(r) {
		return false
	}
	if r >= 0x2000 && r <= 0x206F || r >= 0x2E00 && r <= 0x2E7F {
		return false
	}
	if r < utf8.RuneSelf {
		switch r {
		case '_', '-', '/':
			return true
		}
		return !strings.ContainsRune("'!\"#$%&()*+,.:;<=>?@^`{|}~[]\\", r)
	}
	return true
}

// blockID looks for " ^id" at the end of a paragraph (or list item text),
// and for a paragraph that is only "^id", which names the block before it.
func (w *walker) blockID(node ast.Node) {
	lines := node.Lines()
	if lines == nil || lines.Len() == 0 {
		return
	}
	last := lines.At(lines.Len() - 1)
	w.blockIDAt(lines.At(0).Start, last.Start, last.Stop)
}

// blockIDAt looks for a block id at the end of the block whose first line
// starts at first and whose last line is src[lastStart:lastStop].
func (w *walker) blockIDAt(first, lastStart, lastStop int) {
	line := w.masked[lastStart:lastStop]
	e := len(line)
	for e > 0 && (line[e-1] == ' ' || line[e-1] == '\t' || line[e-1] == '\r' || line[e-1] == '\n') {
		e--
	}
	line = line[:e]
	// The ID is the run of its characters that ends the line, after the
	// last '^' (a '^' before any other byte would take that byte into
	// the ID): read back from the end, not every line searched for '^'.
	i := e
	for i > 0 && isBlockIDChar(line[i-1]) {
		i--
	}
	i--
	if i < 0 || line[i] != '^' || i+1 == e {
		return
	}
	w.addBlockID(first, lastStart, line, i)
}

// addBlockID records the block ID after the '^' at line[i] (line, its white
// space trimmed, starts at lastStart) when a space, a tab or the line's
// start is before it.
func (w *walker) addBlockID(first, lastStart int, line []byte, i int) {
	id := line[i+1:]
	if i > 0 && line[i-1] != ' ' && line[i-1] != '\t' {
		return
	}
	// Obsidian's position for a block id covers its whole block; for an id
	// on a line of its own it covers that line.
	from := first
	if i == 0 || len(bytes.TrimSpace(line[:i])) == 0 {
		from = lastStart + i
	}
	from = w.lines.lineStart(from)
	to := lastStart + len(line)
	w.n.BlockIDs = append(w.n.BlockIDs, BlockID{ID: string(id), Span: w.span(from, to)})
}

func isBlockIDChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}

// sections derives each heading's span from the heading list.
func sections(hs []Heading, size int) []Section {
	out := make([]Section, len(hs))
	for i, h := range hs {
		end := size
		for j := i + 1; j < len(hs); j++ {
			if hs[j].Level <= h.Level {
				end = hs[j].Span.Start.Offset
				break
			}
		}
		body := h.Span.End.Offset
		if body < size && body < end {
			body++ // past the newline
		}
		out[i] = Section{Heading: i, Level: h.Level, Title: h.Text, Start: h.Span.Start.Offset, Body: min(body, end), End: end}
	}
	return out
}

func equalFoldTrim(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}
