package vault

import (
	"bytes"
	"strings"
	"sync"
)

// The fast path. goldmark costs several times the CPU of reading a note
// (research/performance.md §2), and most permanent notes are made of a few
// shapes only: ATX headings, paragraphs, single-line list items, wikilinks,
// plain markdown links and tags. fastParse reads exactly those shapes with
// a line scanner and gives up (returns false) on anything else, and the
// note then goes to goldmark, which stays the parser of record.
// FuzzFastParse holds the two to the same output on every input the fast
// path accepts, and TestFastParseAgrees on the conformance notes.

// fastBail lists bytes whose presence anywhere sends a note to goldmark:
// HTML and autolinks, escapes, tabs and carriage returns. Code spans and
// fenced code are read here (FuzzFastParseCode); %% comments and $ math
// are left to goldmark unless masking them changes nothing.
const fastBail = "<\\\t\r\f\v\x00"

type fastItem struct {
	idx        int  // in Note.ListItems
	contentCol int  // column where the item's content starts
	marker     byte // '-', '*', '+', or '.'/')' for an ordered item
	child      byte // marker of the item's child list, 0 for none yet
}

type fastScanner struct {
	w   walker
	src []byte
	ok  bool

	paraFirst, paraLast, paraStop int // open paragraph, -1 when none
	list                          []fastItem
	listStart, listEnd            int // open top-level list, -1 when none
	listMarker                    byte
	blank                         bool   // the previous line was blank
	fence                         []byte // the open fence's marker, nil outside a fence
	fenceStart                    int
}

// fastScratch holds the lists a fast parse grows, between parses: a
// note's headings, blocks and items were grown by append, a quarter of
// the fast path's time, and each is now copied once, at its size.
type fastScratch struct {
	headings []Heading
	blocks   []Block
	items    []ListItem
	tags     []Tag
	ids      []BlockID
	embeds   []Link
	list     []fastItem
}

var fastScratches = sync.Pool{New: func() any { return new(fastScratch) }}

// exact is a copy of s at its length, or nil when it is empty, as a note
// without such elements always had.
func exact[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	return append(S(nil), s...)
}

// fastParse is Parse for notes the line scanner can read with certainty.
// h is the note's head, which goldmark reads the same.
func fastParse(notePath string, src []byte, h head) (*Note, bool) {
	if bytes.ContainsAny(src, fastBail) || !unmasked(src, h.fmEnd) {
		return nil, false
	}
	n := newNote(notePath, src)
	lines, fm, fmEnd := h.lines, h.fm, h.fmEnd
	n.lines = lines
	sc := fastScratches.Get().(*fastScratch)
	n.Headings, n.Blocks, n.ListItems = sc.headings[:0], sc.blocks[:0], sc.items[:0]
	n.Tags, n.BlockIDs, n.Embeds = sc.tags[:0], sc.ids[:0], sc.embeds[:0]
	if fm != nil {
		n.Frontmatter = fm
		n.FrontmatterLinks = h.fmLinks
		n.Blocks = append(n.Blocks, Block{Kind: "yaml", Span: fm.Span})
	}
	f := &fastScanner{w: walker{n: n, src: src, masked: src, lines: lines}, src: src, ok: true,
		paraFirst: -1, listStart: -1, list: sc.list[:0]}
	for off := fmEnd; off < len(src) && f.ok; {
		end := lines.lineEnd(off)
		f.line(off, end)
		off = end + 1
	}
	if f.fence != nil {
		f.bail() // an unclosed fence: the rest of the note is its code
	}
	f.closePara()
	f.closeList()
	// The lists as grown go back to the pool, emptied of what they point
	// to; the note keeps copies.
	sc.headings, sc.blocks, sc.items = n.Headings, n.Blocks, n.ListItems
	sc.tags, sc.ids, sc.embeds, sc.list = n.Tags, n.BlockIDs, n.Embeds, f.list
	if !f.ok {
		sc.release()
		return nil, false
	}
	n.Headings, n.Blocks, n.ListItems = exact(n.Headings), exact(n.Blocks), exact(n.ListItems)
	n.Tags, n.BlockIDs, n.Embeds = exact(n.Tags), exact(n.BlockIDs), exact(n.Embeds)
	sc.release()
	n.Sections = sections(n.Headings, len(src))
	n.fitLinks()
	return n, true
}

// release empties the scratch lists (their strings are the note's) and
// puts them back in the pool; a list grown past an ordinary note's is
// dropped rather than kept for the next.
func (sc *fastScratch) release() {
	sc.headings, sc.blocks, sc.items = reuse(sc.headings), reuse(sc.blocks), reuse(sc.items)
	sc.tags, sc.ids, sc.embeds, sc.list = reuse(sc.tags), reuse(sc.ids), reuse(sc.embeds), reuse(sc.list)
	fastScratches.Put(sc)
}

// reuse is s emptied for the next parse, or nil when it grew large.
func reuse[S ~[]E, E any](s S) S {
	if cap(s) > 1<<12 {
		return nil
	}
	clear(s)
	return s[:0]
}

func (f *fastScanner) bail() { f.ok = false }

// unmasked reports whether goldmark would see the note's body as it is:
// no %% block comment and no math for maskedSource to blank. A %% comment
// on one line and a $ that opens no math are plain text to goldmark, as
// to the fast path.
func unmasked(src []byte, fmEnd int) bool {
	body := src[fmEnd:]
	if bytes.IndexByte(body, '$') < 0 && !bytes.Contains(body, []byte("%%")) {
		return true
	}
	masked, comments := maskedSource(src, fmEnd)
	return len(comments) == 0 && bytes.Equal(masked[fmEnd:], body)
}

func (f *fastScanner) line(start, end int) {
	line := f.src[start:end]
	if f.fence != nil {
		f.fenceLine(start, end)
		return
	}
	if len(bytes.TrimSpace(line)) != len(bytes.Trim(line, " ")) {
		f.bail() // Unicode white space at either end: goldmark's call
		return
	}
	if len(bytes.Trim(line, " ")) == 0 {
		f.closePara()
		f.blank = true
		return
	}
	indent := 0
	for indent < len(line) && line[indent] == ' ' {
		indent++
	}
	rest := line[indent:]
	if fence := fenceMarker(rest); fence != nil {
		f.openFence(start, indent, fence)
		return
	}
	switch {
	case onlyRuleChars(rest), rest[0] == '>', looksLikeTableRule(rest):
		// Thematic breaks, setext underlines, quotes, tables.
		f.bail()
		return
	}
	if marker, ordered, contentOff, isItem := listMarker(rest); isItem {
		f.item(start, end, indent, marker, ordered, indent+contentOff)
		f.blank = false
		return
	}
	if indent > 0 {
		// Indented code, or a continuation inside a list item.
		f.bail()
		return
	}
	if len(f.list) > 0 {
		if !f.blank {
			f.bail() // lazy continuation of a list item
			return
		}
		f.closeList()
	}
	if isATX(line) {
		f.closePara()
		f.heading(start, end)
		f.blank = false
		return
	}
	if f.paraFirst < 0 {
		f.paraFirst = start
	}
	f.paraLast, f.paraStop = start, min(end+1, len(f.src))
	f.inline(start, end)
	f.blank = false
}

// openFence starts a fenced code block at a line of its own at the left
// margin; one in a list item, or that would end a list without a blank
// line before it, is goldmark's.
func (f *fastScanner) openFence(start, indent int, fence []byte) {
	if indent > 0 || (len(f.list) > 0 && !f.blank) {
		f.bail()
		return
	}
	f.closePara()
	f.closeList()
	f.fence, f.fenceStart = fence, start
}

// fenceLine reads a line inside a fenced code block: nothing in it counts
// but a closing fence, up to three spaces in, at least as long as the
// opening one, of the same character, with only spaces after it.
func (f *fastScanner) fenceLine(start, end int) {
	line := f.src[start:end]
	k := 0
	for k < len(line) && k < 4 && line[k] == ' ' {
		k++
	}
	if k == 4 {
		return
	}
	run := k
	for run < len(line) && line[run] == f.fence[0] {
		run++
	}
	if run-k < len(f.fence) || len(bytes.Trim(line[run:], " ")) != 0 {
		return
	}
	f.w.n.Blocks = append(f.w.n.Blocks, Block{Kind: "code", Span: f.w.span(f.fenceStart, end)})
	f.fence = nil
	f.blank = false
}

// onlyRuleChars reports whether a line is made of - * _ = and spaces only:
// a thematic break, a setext underline, or an empty list item.
func onlyRuleChars(b []byte) bool {
	return len(bytes.Trim(b, "-*_= ")) == 0
}

// looksLikeTableRule reports whether a line could be a table's delimiter
// row; goldmark accepts one without pipes too (":-").
func looksLikeTableRule(b []byte) bool {
	return bytes.IndexByte(b, '-') >= 0 && len(bytes.Trim(b, "|-: ")) == 0
}

// listMarker reads a list item's marker: "- ", "* ", "+ ", "1. " or "1) "
// followed by content. contentOff is where the content starts.
func listMarker(b []byte) (marker byte, ordered bool, contentOff int, ok bool) {
	k := 0
	switch {
	case len(b) > 0 && (b[0] == '-' || b[0] == '*' || b[0] == '+'):
		marker, k = b[0], 1
	default:
		for k < len(b) && k < 9 && b[k] >= '0' && b[k] <= '9' {
			k++
		}
		if k == 0 || k >= len(b) || (b[k] != '.' && b[k] != ')') {
			return 0, false, 0, false
		}
		marker, ordered, k = b[k], true, k+1
	}
	if k >= len(b) {
		return marker, ordered, k, true // an empty item
	}
	if b[k] != ' ' {
		return 0, false, 0, false
	}
	return marker, ordered, k + 1, true
}

func (f *fastScanner) item(start, end, indent int, marker byte, ordered bool, contentCol int) {
	line := f.src[start:end]
	content := line[contentCol:]
	// One space after the marker, then content that is itself plain text.
	if len(content) == 0 || content[0] == ' ' || content[0] == '#' || content[0] == '>' {
		f.bail()
		return
	}
	if _, _, _, nested := listMarker(content); nested || onlyRuleChars(content) || fenceMarker(content) != nil || looksLikeTableRule(content) {
		f.bail()
		return
	}
	for len(f.list) > 0 && f.list[len(f.list)-1].contentCol > indent {
		f.list = f.list[:len(f.list)-1]
	}
	parent := -1
	if len(f.list) == 0 {
		switch {
		case indent != 0:
			f.bail()
			return
		case f.listStart >= 0:
			if marker != f.listMarker {
				f.bail() // a new list right after another
				return
			}
		default:
			if f.paraFirst >= 0 && ordered && !startsWithOne(line) {
				f.bail() // cannot interrupt a paragraph
				return
			}
			f.closePara()
			f.listStart, f.listMarker = start, marker
		}
	} else {
		top := &f.list[len(f.list)-1]
		if indent-top.contentCol >= 4 {
			f.bail()
			return
		}
		if top.child != 0 && top.child != marker {
			f.bail()
			return
		}
		if top.child == 0 && !f.blank && ordered && !startsWithOne(line[indent:]) {
			f.bail() // it would interrupt the parent's text: a continuation
			return
		}
		top.child = marker
		parent = top.idx
	}
	f.closePara()
	// A task box "[ ] " or "[x] " is plain text to goldmark (no task-list
	// extension); skip it so the inline scan does not read it as a link.
	inlineFrom := start + contentCol
	if len(content) >= 4 && content[0] == '[' && content[2] == ']' && content[3] == ' ' && content[1] != '[' && content[1] != ']' {
		inlineFrom += 4
	}
	text, task := listItemText(line)
	it := ListItem{Parent: parent, Task: task, Text: text, Span: f.w.span(start, end)}
	f.w.n.ListItems = append(f.w.n.ListItems, it)
	idx := len(f.w.n.ListItems) - 1
	for _, anc := range f.list {
		f.w.n.ListItems[anc.idx].Span.End = f.w.lines.pos(end)
	}
	f.list = append(f.list, fastItem{idx: idx, contentCol: contentCol, marker: marker})
	f.listEnd = end
	f.inline(inlineFrom, end)
	f.w.blockIDAt(start+contentCol, start+contentCol, min(end+1, len(f.src)))
}

func (f *fastScanner) heading(start, end int) {
	line := f.src[start:end]
	txt := headingText(line)
	if txt == "" {
		f.bail()
		return
	}
	level := bytes.IndexFunc(line, func(r rune) bool { return r != '#' })
	sp := f.w.span(start, end)
	f.w.n.Headings = append(f.w.n.Headings, Heading{Level: level, Text: txt, Span: sp})
	f.w.n.Blocks = append(f.w.n.Blocks, Block{Kind: "heading", Span: sp})
	from := start + level
	for f.src[from] == ' ' {
		from++
	}
	f.inline(from, from+len(txt))
}

func (f *fastScanner) closePara() {
	if f.paraFirst < 0 {
		return
	}
	endLine := f.w.lines.lineEnd(f.paraLast)
	f.w.n.Blocks = append(f.w.n.Blocks, Block{Kind: "paragraph", Span: f.w.span(f.paraFirst, endLine)})
	f.w.blockIDAt(f.paraFirst, f.paraLast, f.paraStop)
	f.paraFirst = -1
}

func (f *fastScanner) closeList() {
	if f.listStart < 0 {
		return
	}
	f.w.n.Blocks = append(f.w.n.Blocks, Block{Kind: "list", Span: f.w.span(f.listStart, f.listEnd)})
	f.list, f.listStart = f.list[:0], -1
}

// inlineStarts are the bytes at which inline reads more than plain text.
var inlineStarts = [256]bool{'[': true, '!': true, '#': true, '`': true}

// inline reads the links and tags of src[from:to], one line's inline
// content, or gives up on anything but plain text, wikilinks, simple
// markdown links and tags.
func (f *fastScanner) inline(from, to int) {
	b := f.src
	for i := from; i < to && f.ok; {
		if !inlineStarts[b[i]] {
			i++ // plain text, as most of a line is
			continue
		}
		switch c := b[i]; {
		case c == '`':
			i = f.codeSpan(i, to)
		case c == '[' || (c == '!' && i+1 < to && b[i+1] == '['):
			embed := c == '!'
			open := i
			if embed {
				open++
			}
			if open+1 < to && b[open+1] == '[' {
				i = f.wikilink(i, open, to, embed)
			} else {
				i = f.mdLink(i, open, to, embed)
			}
		case c == '#':
			if j := f.w.tagAt(b, i); j > 0 {
				if bytes.IndexByte(b[i:j], '_') >= 0 {
					// goldmark may read "_..._" as emphasis and cut
					// the tag short: leave it to goldmark.
					f.bail()
				}
				i = j
			} else {
				i++
			}
		default:
			i++
		}
	}
}

// wikilink reads a [[...]] starting at open (i, if embedded, is its '!')
// and returns the offset past it. It accepts only what the wikilink
// extension (as zk wraps it) would read as one link.
func (f *fastScanner) wikilink(i, open, to int, embed bool) int {
	closeAt := bytes.Index(f.src[open+2:to], []byte("]]"))
	if closeAt < 0 {
		f.bail()
		return to
	}
	inner := string(f.src[open+2 : open+2+closeAt])
	if inner == "" || (inner[0] != '|' && strings.IndexByte(inner, '|') == len(inner)-1) {
		f.bail() // goldmark reads these as plain brackets
		return to
	}
	return f.w.wikilinkAt(i, embed)
}

// mdLink reads a [text](dest) or ![alt](dest) with plain text and a plain
// destination, and gives up on every other use of brackets.
func (f *fastScanner) mdLink(i, open, to int, image bool) int {
	b := f.src
	closeAt := bytes.IndexByte(b[open+1:to], ']')
	if closeAt < 0 {
		f.bail()
		return to
	}
	labelEnd := open + 1 + closeAt
	label := b[open+1 : labelEnd]
	if bytes.ContainsAny(label, "[!") || len(label) > 900 || !codeSpansClose(label) {
		f.bail()
		return to
	}
	if labelEnd+1 >= to || b[labelEnd+1] != '(' {
		f.bail() // a reference link, a footnote, or plain brackets
		return to
	}
	destEnd := bytes.IndexByte(b[labelEnd+2:to], ')')
	if destEnd < 0 {
		f.bail()
		return to
	}
	dest := b[labelEnd+2 : labelEnd+2+destEnd]
	if len(dest) == 0 || bytes.ContainsAny(dest, " ()\"'&`") {
		f.bail()
		return to
	}
	end := labelEnd + 2 + destEnd + 1
	f.w.mdLinkAt(i, end, dest, image)
	f.w.tags(b, open+1, labelEnd)
	return end
}

// codeSpan skips the code span whose opening backticks start at i: it ends
// at the next run of as many backticks, which must be on the same line; a
// span going on to the next line, or backticks left open, are goldmark's.
func (f *fastScanner) codeSpan(i, to int) int {
	n := backtickRun(f.src[i:to])
	for j := i + n; j < to; {
		k := bytes.IndexByte(f.src[j:to], '`')
		if k < 0 {
			break
		}
		j += k
		m := backtickRun(f.src[j:to])
		if m == n {
			return j + m
		}
		j += m
	}
	f.bail()
	return to
}

func backtickRun(b []byte) int {
	k := 0
	for k < len(b) && b[k] == '`' {
		k++
	}
	return k
}

// codeSpansClose reports whether a link's label holds only code spans
// that close inside it and no tag to read in them: one still open at the
// label's first ']' would take that bracket into the code.
func codeSpansClose(label []byte) bool {
	if bytes.IndexByte(label, '`') < 0 {
		return true
	}
	if bytes.IndexByte(label, '#') >= 0 {
		return false
	}
	for i := 0; i < len(label); {
		if label[i] != '`' {
			i++
			continue
		}
		n := backtickRun(label[i:])
		j := i + n
		for {
			k := bytes.IndexByte(label[j:], '`')
			if k < 0 {
				return false
			}
			j += k
			m := backtickRun(label[j:])
			j += m
			if m == n {
				break
			}
		}
		i = j
	}
	return true
}

// startsWithOne reports whether an ordered marker is "1." or "1)": only
// such a list may interrupt a paragraph.
func startsWithOne(b []byte) bool {
	return len(b) >= 2 && b[0] == '1' && (b[1] == '.' || b[1] == ')')
}
