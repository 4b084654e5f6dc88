package vault

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/util"

	"github.com/zk-claims/zk/internal/lazyre"
)

// The fast path. goldmark costs several times the CPU of reading a note
// (research/performance.md §2), and most permanent notes are made of a few
// shapes only: ATX headings, paragraphs, single-line list items, block
// quotes and callouts of paragraphs, wikilinks, plain markdown links and
// tags. fastParse reads exactly those shapes with
// a line scanner and gives up (returns false) on anything else, and the
// note then goes to goldmark, which stays the parser of record.
// FuzzFastParse holds the two to the same output on every input the fast
// path accepts, and TestFastParseAgrees on the conformance notes.

// fastBail lists bytes whose presence anywhere sends a note to goldmark:
// carriage returns and the like. A tab sends it only where a line is read
// past its indent (an indent of tabs alone is read), not in fenced code
// or an HTML comment block, whose lines are nothing but a closing fence
// or "-->" to either parser. Backslash escapes are read: an escaped byte
// starts nothing (inline), and a link whose label or destination holds
// one is goldmark's. Code spans, fenced code, HTML comment blocks and
// inline HTML on one line are read here (FuzzFastParseTokens); %%
// comments and $ math are left to goldmark unless masking them changes
// nothing.
const fastBail = "\r\f\v\x00"

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
	// The open text of the list's last item (iParaFirst >= 0), its first
	// line's content start, its last line's start and stop: its block ID
	// is read when it ends, as goldmark reads one at a paragraph's end.
	iParaFirst, iParaLast, iParaStop int
	blank                            bool   // the previous line was blank
	fence                            []byte // the open fence's marker, nil outside a fence
	fenceStart                       int
	fenceCol                         int          // the content column of the item the open fence is in, 0 at the margin
	comment                          bool         // in an HTML comment block
	commentLast                      int          // the end of its last line before the closing one
	noRefs                           bool         // no link reference definition can be in the body (noRefsIn)
	onBail                           func(at int) // called at a refusal with its line's start; nil but in the tests that count them
	at                               int          // the start of the line being read
	cell                             bool         // inline is reading a table's cell (row)
	qFence                           bool         // the open fence is in the open block quote
	htmlBlock                        bool         // in an HTML block that a blank line ends (htmlLine)

	// The open paragraph is a table of cols columns (cols > 0), whose
	// delimiter row is the line at delimAt and whose last row read (the
	// header or a body row) starts at rowLast.
	cols, delimAt, rowLast int

	// An open block quote (quoteStart >= 0) of paragraphs only: where it
	// starts, where its last line of text ends, and its open paragraph
	// (qParaFirst >= 0) as paraFirst, paraLast and paraStop.
	quoteStart, quoteEnd             int
	qParaFirst, qParaLast, qParaStop int
	qDepth                           int // how many quotes deep the open paragraph (or the last line) is
	// A list in the quote: qItem when its last line was an item's,
	// qListBlank when an empty quote line followed one, else qNoList.
	qList int
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
	return fastParseCounted(notePath, src, h, nil)
}

// fastParseCounted is fastParse calling onBail (when not nil) at the
// scanner's refusal, for a test to count the refusals by where they are.
func fastParseCounted(notePath string, src []byte, h head, onBail func(at int)) (*Note, bool) {
	if containsByte(src, fastBail) || !unmasked(src, h.fmEnd) {
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
		paraFirst: -1, delimAt: -1, listStart: -1, iParaFirst: -1, list: sc.list[:0], quoteStart: -1, qParaFirst: -1,
		noRefs: noRefsIn(src[fmEnd:]), onBail: onBail}
	// Line by line, each line's end the next one's start less one: a
	// search of the line index for it was 1.5% of a cold check.
	for ln, off := lines.line(fmEnd), fmEnd; off < len(src) && f.ok; ln++ {
		end := len(src)
		if ln+1 < len(lines.starts) {
			end = lines.starts[ln+1] - 1
		}
		f.at = off
		f.line(off, end)
		off = end + 1
	}
	if f.fence != nil || f.comment {
		f.bail() // an unclosed fence or comment: the rest of the note is in it
	}
	f.closeHTML()
	f.closePara()
	f.closeList()
	f.closeQuote()
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

// noRefsIn reports whether body can hold no link reference definition
// (nor a footnote's, which goldmark reads as one): then "[x]", "[x][y]"
// and "[^1]" are plain text. A definition is "[label]:" whose '[' opens
// a paragraph's line, after nothing but spaces, tabs and the '>' and list
// markers of its containers, and whose label holds no unescaped bracket
// (goldmark's FindClosure without nesting). So every "]:" is looked at:
// the nearest bracket before it must be an unescaped '[' (a ']' ends any
// label first) that opens its line so; a backslash before that bracket
// is taken as a definition too, as is a "]:" in code.
func noRefsIn(body []byte) bool {
	for i := 0; ; {
		k := bytes.Index(body[i:], []byte("]:"))
		if k < 0 {
			return true
		}
		p := i + k
		i = p + 2
		j := p - 1
		for j >= 0 && body[j] != '[' && body[j] != ']' {
			j--
		}
		if j < 0 {
			continue
		}
		if j > 0 && body[j-1] == '\\' {
			return false
		}
		if body[j] == ']' {
			continue
		}
		ls := bytes.LastIndexByte(body[:j], '\n') + 1
		if len(bytes.Trim(body[ls:j], " \t>-*+.)0123456789")) == 0 {
			return false
		}
	}
}

func (f *fastScanner) bail() {
	if f.ok && f.onBail != nil {
		f.onBail(f.at)
	}
	f.ok = false
}

// containsByte is bytes.ContainsAny for a few ASCII bytes, one IndexByte
// (vectorised) a byte: ContainsAny reads b a byte at a time, and was a
// seventh of the fast path's time on the help vault.
func containsByte(b []byte, set string) bool {
	for i := 0; i < len(set); i++ {
		if bytes.IndexByte(b, set[i]) >= 0 {
			return true
		}
	}
	return false
}

// otherSpaceAtEnds reports whether line, its spaces and tabs trimmed,
// starts or ends with other white space, as bytes.TrimSpace reads it:
// len(bytes.TrimSpace(line)) != len(bytes.Trim(line, " \t")), which built
// Trim's set of bytes and trimmed each line twice, 1% of a cold check.
func otherSpaceAtEnds(line []byte) bool {
	i, j := 0, len(line)
	for i < j && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	for j > i && (line[j-1] == ' ' || line[j-1] == '\t') {
		j--
	}
	if i == j {
		return false
	}
	return isSpaceRune(utf8.DecodeRune(line[i:j])) || isSpaceRune(utf8.DecodeLastRune(line[i:j]))
}

// isSpaceRune is unicode.IsSpace of a rune decoded, its size unused.
func isSpaceRune(r rune, _ int) bool { return unicode.IsSpace(r) }

// unmasked reports whether goldmark would see the note's body as it is:
// no %% block comment and no math for maskedSource to blank. A %% comment
// on one line and a $ that opens no math are plain text to goldmark, as
// to the fast path.
func unmasked(src []byte, fmEnd int) bool {
	body := src[fmEnd:]
	if bytes.IndexByte(body, '$') < 0 && !bytes.Contains(body, []byte("%%")) {
		return true
	}
	masked, comments := maskSource(src, fmEnd, nil)
	return len(comments) == 0 && bytes.Equal(masked[fmEnd:], body)
}

func (f *fastScanner) line(start, end int) {
	line := f.src[start:end]
	if f.fence != nil && f.qFence {
		f.quoteFenceLine(start, end)
		return
	}
	if f.fence != nil {
		f.fenceLine(start, end)
		return
	}
	if start == f.delimAt {
		// A table's delimiter row, read with its header: the paragraph's.
		f.paraLast, f.paraStop = start, min(end+1, len(f.src))
		return
	}
	if f.comment {
		f.commentLine(start, end)
		return
	}
	if f.htmlBlock && !f.htmlLine(start, end) {
		return
	}
	// The line's indent in columns (a tab to the next multiple of 4, as
	// goldmark counts it) and the rest of it; but a line with an escape or
	// a tab anywhere is goldmark's to read.
	ws, indent := 0, 0
	for ; ws < len(line) && (line[ws] == ' ' || line[ws] == '\t'); ws++ {
		if line[ws] == '\t' {
			indent += 4 - indent%4
		} else {
			indent++
		}
	}
	rest := line[ws:]
	if bytes.IndexByte(rest, '\t') >= 0 ||
		bytes.IndexByte(line[:ws], ' ') >= 0 && bytes.IndexByte(line[:ws], '\t') >= 0 {
		// An indent of tabs only starts each at a multiple of 4, where
		// goldmark's columns are the fast path's (Obsidian indents a
		// nested item with one). A tab after a space may start between
		// two stops, where goldmark keeps it as a tab: "* a\n  \t* b" is
		// one item to it (testdata/fuzz/FuzzFastParse), so a mixed indent
		// is goldmark's to read.
		f.bail()
		return
	}
	if otherSpaceAtEnds(line) {
		f.bail() // Unicode white space at either end: goldmark's call
		return
	}
	if len(rest) == 0 {
		f.closePara()
		f.closeItemPara()
		f.closeQuote()
		f.blank = true
		return
	}
	if f.quoteStart >= 0 {
		switch {
		case f.qList == qItem && (rest[0] != '>' || indent > 3):
			f.bail() // a lazy continuation of the item's text, or a block after it
			return
		case rest[0] == '>' && indent <= 3:
			f.quoteLine(start, start+ws, end)
			return
		case f.qParaFirst >= 0 && ws > 0:
			f.bail() // an indented lazy continuation of the quote's paragraph
			return
		case f.qParaFirst >= 0 && ws == 0 && !isATX(line):
			f.quoteText(start, end) // a lazy continuation of the quote's paragraph
			return
		}
		f.closeQuote() // a heading, or a block after an empty quote line
	}
	if fence := fenceMarker(rest); fence != nil {
		f.openFence(start, indent, ws, fence)
		return
	}
	if rest[0] == '<' && (bytes.HasPrefix(rest, []byte("<!--")) || htmlBlockStart(rest)) {
		f.openComment(start, end, indent)
		return
	}
	if rest[0] == '>' {
		f.openQuote(start, end, indent, ws)
		return
	}
	if ws == 0 && isThematicBreak(line) && (line[0] != '-' || f.paraFirst < 0) && (len(f.list) == 0 || f.blank) {
		// A thematic break at the margin: it ends a paragraph or a list
		// (one right after an item's text, or a "---" under a
		// paragraph's, a setext underline, is goldmark's).
		f.closePara()
		f.closeList()
		f.w.n.Blocks = append(f.w.n.Blocks, Block{Kind: "thematicBreak", Span: f.w.span(start, end)})
		f.blank = false
		return
	}
	switch {
	case onlyRuleChars(rest), looksLikeTableRule(rest):
		// Setext underlines, tables, thematic breaks not read above.
		f.bail()
		return
	}
	if marker, ordered, contentOff, isItem := listMarker(rest); isItem {
		f.item(start, end, indent, marker, ordered, indent+contentOff, ws+contentOff)
		f.blank = false
		return
	}
	if f.iParaFirst >= 0 && !isATX(rest) {
		// A line right after an item's text that opens no block (those
		// that may interrupt a paragraph are read above, an ATX heading
		// here): it goes on with the text of the list's last item,
		// whatever its indent, lazily at the margin.
		f.itemText(start, end, ws)
		return
	}
	if indent > 0 {
		switch {
		case isATX(rest) || f.cols > 0:
			f.bail() // an indented heading, or a table's indented row
			return
		case len(f.list) > 0 && f.itemPara(start, end, ws, indent):
			return // a paragraph in an item after an empty line
		case len(f.list) == 0 && f.paraFirst >= 0:
			// A continuation of the paragraph's text: indented code
			// cannot interrupt a paragraph.
		case indent > 3:
			f.bail() // indented code
			return
		}
	}
	f.closeList() // a heading, or a line after an empty one outside the list
	if isATX(line) {
		f.closePara()
		f.heading(start, end)
		f.blank = false
		return
	}
	if f.paraFirst < 0 {
		f.paraFirst = start
		if f.cols = f.tableHeader(start, end); f.cols > 0 && ws > 0 {
			f.bail() // a table's indented header
			return
		}
	}
	f.paraLast, f.paraStop = start, min(end+1, len(f.src))
	if f.cols > 0 {
		f.row(start, end)
	} else {
		f.inline(start, end)
	}
	f.blank = false
}

// tableHeader reads the first line of a paragraph, src[start:end], as
// goldmark's table extension does: a table's header when the next line
// is a delimiter row of as many columns as the line has cells. It
// returns the table's columns, or 0 when the paragraph is no table. Only
// a delimiter row at the left margin starting with '|' is read here (no
// block opens at a '|', so it goes on with the paragraph); a table
// elsewhere in a paragraph is goldmark's (its delimiter row looks like a
// table rule in line).
func (f *fastScanner) tableHeader(start, end int) int {
	if end+1 >= len(f.src) || f.src[end+1] != '|' {
		return 0
	}
	next := end + 1
	cols := tableColumns(f.src[next:f.w.lines.lineEnd(next)])
	if cols <= 0 {
		return 0
	}
	if !f.noRefs || len(tableCells(f.src[start:end], true, 0)) != cols {
		// A link reference definition may take the header first; a
		// header of other than cols cells leaves the paragraph as it is.
		f.bail()
		return 0
	}
	f.delimAt = next
	return cols
}

// tableColumns is the number of columns of a delimiter row (goldmark's
// parseDelimiter: cells of "-", ":-", "-:" or ":-:", spaces around),
// or -1 when the line is none.
func tableColumns(line []byte) int {
	allDash := true
	for _, c := range line {
		if c != '-' {
			allDash = false
		}
		if c != ' ' && c != '-' && c != '|' && c != ':' {
			return -1
		}
	}
	if allDash {
		return -1
	}
	cols := bytes.Split(line, []byte{'|'})
	if len(bytes.Trim(cols[0], " ")) == 0 {
		cols = cols[1:]
	}
	if len(cols) > 0 && len(bytes.Trim(cols[len(cols)-1], " ")) == 0 {
		cols = cols[:len(cols)-1]
	}
	if len(cols) == 0 {
		return -1
	}
	for _, c := range cols {
		c = bytes.Trim(c, " ")
		c = bytes.TrimPrefix(c, []byte(":"))
		c = bytes.TrimSuffix(c, []byte(":"))
		if len(c) == 0 || len(bytes.Trim(c, "-")) != 0 {
			return -1
		}
	}
	return len(cols)
}

// tableCells splits a table row as goldmark's parseRow does (the line
// trimmed, a '|' at either end dropped, cells between the other pipes,
// each trimmed) and returns each cell's [start, end) in line; a body row
// (header false) keeps its first cols cells only, as goldmark drops the
// rest. A '|' right after a backslash splits nothing, whatever escapes
// the backslash: goldmark looks at the byte before the pipe alone.
func tableCells(line []byte, header bool, cols int) [][2]int {
	from, to := 0, len(line)
	for from < to && line[from] == ' ' {
		from++
	}
	for to > from && line[to-1] == ' ' {
		to--
	}
	from0 := from // goldmark's index 0, the trimmed line's start
	if from < to && line[from] == '|' {
		from++
	}
	if from < to && line[to-1] == '|' {
		to--
	}
	var cells [][2]int
	for pos := from; pos < to; {
		if !header && len(cells) >= cols {
			break
		}
		closure := pos
		for closure < to && (line[closure] != '|' || closure > from0 && line[closure-1] == '\\') {
			closure++
		}
		s, e := pos, closure
		for s < e && line[s] == ' ' {
			s++
		}
		for e > s && line[e-1] == ' ' {
			e--
		}
		cells = append(cells, [2]int{s, e})
		pos = closure + 1
	}
	return cells
}

// row reads a table's row, the header too: the links and tags of each
// cell, each cell's inline content on its own, as goldmark reads it.
func (f *fastScanner) row(start, end int) {
	cells := tableCells(f.src[start:end], start == f.paraFirst, f.cols)
	if len(cells) == 0 {
		f.bail() // a row of no cell ("|"): the table's span is goldmark's
		return
	}
	f.rowLast = start
	f.cell = true
	for _, c := range cells {
		f.inline(start+c[0], start+c[1])
	}
	f.cell = false
}

// openFence starts a fenced code block: at the left margin, where it
// ends a paragraph or a list before it (a fence is no lazy continuation),
// or in the deepest item whose content starts at or before its column,
// up to three columns past it, indented by spaces, which ends the item's
// text and the lists in it. Any other indented fence is goldmark's.
func (f *fastScanner) openFence(start, indent, ws int, fence []byte) {
	if indent == 0 {
		f.closePara()
		f.closeList()
		f.fence, f.fenceStart, f.fenceCol = fence, start, 0
		return
	}
	k := len(f.list) - 1
	for k >= 0 && f.list[k].contentCol > indent {
		k--
	}
	if k < 0 || indent-f.list[k].contentCol > 3 || bytes.IndexByte(f.src[start:start+ws], '\t') >= 0 {
		f.bail()
		return
	}
	f.closeItemPara()
	f.list = f.list[:k+1]
	f.list[k].child = 0 // a list after the fence is a new one
	f.fence, f.fenceStart, f.fenceCol = fence, start, f.list[k].contentCol
	f.blank = false
}

// fenceLine reads a line inside a fenced code block: nothing in it counts
// but a closing fence, up to three spaces in, at least as long as the
// opening one, of the same character, with only spaces after it.
func (f *fastScanner) fenceLine(start, end int) {
	line := f.src[start:end]
	if f.fenceCol > 0 {
		f.itemFenceLine(start, end)
		return
	}
	if t := bytes.TrimLeft(line, " \t"); len(t) > 0 && t[0] == f.fence[0] && bytes.IndexByte(line, '\t') >= 0 {
		f.bail() // a tab where a closing fence may be: goldmark counts its columns
		return
	}
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

// itemFenceLine reads a line inside a fenced code block in an item: a
// closing fence (up to three columns past the item's content column) or
// a line of code, which the item, the items it is in and the list end
// with (goldmark's span of an item ends with its fence's last line of
// code, an empty one too, not with the fence). A tab, or a line left of
// the item's column (it ends the item, and the fence unclosed), is
// goldmark's.
func (f *fastScanner) itemFenceLine(start, end int) {
	line := f.src[start:end]
	ws := 0
	for ws < len(line) && line[ws] == ' ' {
		ws++
	}
	if ws < len(line) && (ws < f.fenceCol || bytes.IndexByte(line, '\t') >= 0) {
		f.bail()
		return
	}
	if ws < len(line) && ws-f.fenceCol < 4 {
		run := ws
		for run < len(line) && line[run] == f.fence[0] {
			run++
		}
		if run-ws >= len(f.fence) && len(bytes.Trim(line[run:], " ")) == 0 {
			f.fence, f.fenceCol = nil, 0
			f.blank = false
			return
		}
	}
	for _, anc := range f.list {
		f.w.n.ListItems[anc.idx].Span.End = f.w.pos(end)
	}
	f.listEnd = end
}

// openComment reads a line starting with '<': an HTML comment block at
// the left margin ("<!--" up to the first line holding "-->", the whole
// of that line hidden too). Any other HTML block is goldmark's.
func (f *fastScanner) openComment(start, end, indent int) {
	line := f.src[start:end]
	if indent == 0 && htmlBlockType6(line) {
		f.closePara()
		f.closeList()
		f.blank = false
		f.htmlBlock, f.fenceStart, f.commentLast = true, start, end
		return
	}
	if indent > 0 || !bytes.HasPrefix(line, []byte("<!--")) {
		f.bail()
		return
	}
	f.closePara()
	f.closeList()
	f.blank = false
	if bytes.Contains(line, []byte("-->")) {
		f.w.n.Blocks = append(f.w.n.Blocks, Block{Kind: "html", Span: f.w.span(start, end)})
		return
	}
	f.comment, f.fenceStart, f.commentLast = true, start, end
}

// commentLine reads a line inside an HTML comment block. goldmark keeps
// the closing line apart from the block's lines, so the block's span ends
// with the line before it.
func (f *fastScanner) commentLine(start, end int) {
	if !bytes.Contains(f.src[start:end], []byte("-->")) {
		f.commentLast = end
		return
	}
	f.w.n.Blocks = append(f.w.n.Blocks, Block{Kind: "html", Span: f.w.span(f.fenceStart, f.commentLast)})
	f.comment = false
}

// htmlBlockType6 reports whether a line at the left margin opens an HTML
// block that a blank line ends and that may interrupt a paragraph
// (goldmark's sixth kind): '<' or "</" (spaces after the '/'), a
// block-level tag's name, then a space, '>', "/>" or the line's end. It
// is the embedded player of the help vault's notes ("<div style=...>").
func htmlBlockType6(line []byte) bool {
	if len(line) < 2 || line[0] != '<' {
		return false
	}
	k := 1
	if line[k] == '/' {
		for k++; k < len(line) && line[k] == ' '; k++ {
		}
	}
	n := k
	for n < len(line) && (line[n] >= 'a' && line[n] <= 'z' || line[n] >= 'A' && line[n] <= 'Z' || n > k && (line[n] >= '0' && line[n] <= '9' || line[n] == '-')) {
		n++
	}
	if n == k || !htmlBlockTags[strings.ToLower(string(line[k:n]))] {
		return false
	}
	rest := line[n:]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '>' || bytes.HasPrefix(rest, []byte("/>"))
}

// htmlLine reads a line in an HTML block of the sixth kind: nothing in
// it counts, and a blank one (spaces and tabs only) ends the block, its
// span the lines before, and is then read as any blank line (true).
func (f *fastScanner) htmlLine(start, end int) bool {
	if len(bytes.Trim(f.src[start:end], " \t")) != 0 {
		f.commentLast = end
		return false
	}
	f.closeHTML()
	return true
}

// closeHTML ends an open HTML block of the sixth kind, at a blank line
// or the note's end.
func (f *fastScanner) closeHTML() {
	if !f.htmlBlock {
		return
	}
	f.w.n.Blocks = append(f.w.n.Blocks, Block{Kind: "html", Span: f.w.span(f.fenceStart, f.commentLast)})
	f.htmlBlock = false
}

// openQuote starts a block quote at a line whose '>' is up to three
// spaces in, outside a list; one that may be in a list, or right after a
// list item's text, is goldmark's.
func (f *fastScanner) openQuote(start, end, indent, ws int) {
	if indent > 3 || indent > 0 && len(f.list) > 0 || len(f.list) > 0 && !f.blank {
		f.bail()
		return
	}
	f.closePara()
	f.closeList()
	f.quoteStart, f.quoteEnd, f.qDepth = start, -1, 1
	f.blank = false
	f.quoteLine(start, start+ws, end)
}

// quoteLine reads a line of a block quote, whose '>' is at gt: '>', an
// optional space, then
// a paragraph's text, a list item of one line, or nothing (which ends the
// paragraph). Anything else in a quote (a heading, a fence, a nested
// quote or list, an indented line) is goldmark's.
func (f *fastScanner) quoteLine(start, gt, end int) {
	c := gt + 1
	if c < end && f.src[c] == ' ' {
		c++
	}
	depth := 1
	for c < end && f.src[c] == '>' {
		depth, c = depth+1, c+1
		if c < end && f.src[c] == ' ' {
			c++
		}
	}
	if depth > 1 || f.qDepth > 1 {
		f.nestedQuoteLine(depth, c, end)
		return
	}
	content := f.src[c:end]
	if len(bytes.Trim(content, " ")) == 0 {
		if f.quoteEnd < 0 {
			f.bail() // a quote opening with an empty line: its span is goldmark's
			return
		}
		f.closeQuotePara()
		if f.qList == qItem {
			f.qList = qListBlank
		}
		return
	}
	k := 0
	for k < len(content) && k < 3 && content[k] == ' ' {
		k++
	}
	if fence := fenceMarker(content[k:]); fence != nil {
		f.openQuoteFence(fence) // up to three spaces in, as at the margin
		return
	}
	if _, ordered, contentOff, isItem := listMarker(content); isItem {
		f.quoteItem(start, c, end, ordered, contentOff)
		return
	}
	f.quoteText(c, end)
}

// nestedQuoteLine reads a line of quotes in a quote (a callout in a
// callout), depth '>' deep, each '>' right after the one before or the
// space after it, whose content starts at c: paragraphs only. A deeper
// line opens quotes (ending the paragraph), an empty one ends the
// paragraph and the quotes deeper than it, and a shallower line of text
// goes on with an open paragraph lazily, as goldmark reads them. A list,
// a fence or any other block in them is goldmark's.
func (f *fastScanner) nestedQuoteLine(depth, c, end int) {
	if f.qList != qNoList || depth > maxQuoteDepth {
		// A list, or a nesting that ParseWithBudget reads with
		// fallbackParse, not goldmark.
		f.bail()
		return
	}
	if len(bytes.Trim(f.src[c:end], " ")) == 0 {
		if depth > f.qDepth || f.quoteEnd < 0 {
			f.bail() // a quote opening with an empty line: its span is goldmark's
			return
		}
		f.closeQuotePara()
		f.qDepth = depth
		return
	}
	switch {
	case depth > f.qDepth:
		f.closeQuotePara()
		f.qDepth = depth
	case depth < f.qDepth && f.qParaFirst < 0:
		f.qDepth = depth
	}
	f.quoteText(c, end)
}

// openQuoteFence starts a fenced code block in the open block quote, at
// the column right after its "> " (a fence in callouts is common, where
// they show code): it ends the quote's paragraph. One that opens the
// quote (whose span goldmark starts at the code), or follows a list in
// it, is goldmark's.
func (f *fastScanner) openQuoteFence(fence []byte) {
	if f.quoteEnd < 0 || f.qList != qNoList {
		f.bail()
		return
	}
	f.closeQuotePara()
	f.fence, f.qFence = fence, true
}

// quoteFenceLine reads a line of a fenced code block in a block quote: a
// quote's line, whose content (after '>' and one space) is either the
// closing fence (up to three spaces in, at least as long as the opening
// one, of its character, only spaces after it) or code, which the
// quote's span takes in, as goldmark's span of a quote ends with its last
// line of code. A line that is no quote's ends the quote with the fence
// open, and a tab where the fence may close counts columns: goldmark's.
func (f *fastScanner) quoteFenceLine(start, end int) {
	line := f.src[start:end]
	ws := 0
	for ws < len(line) && ws < 4 && line[ws] == ' ' {
		ws++
	}
	if ws > 3 || ws == len(line) || line[ws] != '>' {
		f.bail()
		return
	}
	c := ws + 1
	if c < len(line) && line[c] == ' ' {
		c++
	}
	content := line[c:]
	if t := bytes.TrimLeft(line[ws+1:], " \t"); len(t) > 0 && t[0] == f.fence[0] && bytes.IndexByte(line, '\t') >= 0 {
		f.bail()
		return
	}
	k := 0
	for k < len(content) && k < 4 && content[k] == ' ' {
		k++
	}
	if k < 4 {
		run := k
		for run < len(content) && content[run] == f.fence[0] {
			run++
		}
		if run-k >= len(f.fence) && len(bytes.Trim(content[run:], " ")) == 0 {
			f.fence, f.qFence = nil, false
			return
		}
	}
	f.quoteEnd = end
}

// The states of a list in a block quote (fastScanner.qList).
const (
	qNoList = iota
	qItem
	qListBlank
)

// quoteItem reads a list item in a block quote, "> - text" with its
// marker right after "> " (or '>'): an item of one line, with no list in
// it; whatever goes on with its text (a lazy line, an indented one) is
// goldmark's to read. An item after an empty quote line goes on with the
// list, which only the items' own spans show. The item's content starts
// at c+contentOff.
func (f *fastScanner) quoteItem(start, c, end int, ordered bool, contentOff int) {
	content := f.src[c+contentOff : end]
	if len(content) == 0 || content[0] == ' ' || content[0] == '#' || content[0] == '>' || content[0] == '<' {
		f.bail()
		return
	}
	if _, _, _, nested := listMarker(content); nested || onlyRuleChars(content) || fenceMarker(content) != nil ||
		looksLikeTableRule(content) || onlyRuleChars(f.src[c:end]) {
		f.bail()
		return
	}
	if f.qParaFirst >= 0 && ordered && !startsWithOne(f.src[c:end]) {
		f.bail() // it cannot interrupt the quote's paragraph
		return
	}
	f.closeQuotePara()
	inlineFrom := c + contentOff
	if len(content) >= 4 && content[0] == '[' && content[2] == ']' && content[3] == ' ' && content[1] != '[' && content[1] != ']' {
		inlineFrom += 4
	}
	text, task := listItemText(f.src[start:end])
	f.w.n.ListItems = append(f.w.n.ListItems, ListItem{Parent: -1, Task: task, Text: text, Span: f.w.span(start, end)})
	f.qList = qItem
	f.quoteEnd = end
	f.inline(inlineFrom, end)
	f.w.blockIDAt(c+contentOff, c+contentOff, min(end+1, len(f.src)))
}

// quoteText reads src[c:end], a line of a quote's paragraph: after "> ",
// or a whole line that goes on with the paragraph (lazily, as goldmark
// reads a line that opens no block).
func (f *fastScanner) quoteText(c, end int) {
	content := f.src[c:end]
	if content[0] == ' ' || len(bytes.TrimSpace(content)) != len(bytes.Trim(content, " ")) ||
		content[0] == '>' || content[0] == '<' || isATX(content) || fenceMarker(content) != nil ||
		onlyRuleChars(content) || looksLikeTableRule(content) {
		f.bail()
		return
	}
	if _, _, _, isItem := listMarker(content); isItem {
		f.bail() // a lazy line that opens a list: it ends the quote
		return
	}
	if f.qList == qItem {
		f.bail() // a lazy continuation of the item's text
		return
	}
	f.qList = qNoList // an empty quote line ended the list
	if f.qParaFirst < 0 {
		f.qParaFirst = c
	}
	f.qParaLast, f.qParaStop = c, min(end+1, len(f.src))
	f.quoteEnd = end
	f.inline(c, end)
}

func (f *fastScanner) closeQuotePara() {
	if f.qParaFirst < 0 {
		return
	}
	f.w.blockIDAt(f.qParaFirst, f.qParaLast, f.qParaStop)
	f.qParaFirst = -1
}

// closeQuote ends an open block quote: its span runs from its first line
// to the last line of its text (goldmark's, which leaves out the empty
// quote lines after it).
func (f *fastScanner) closeQuote() {
	if f.quoteStart < 0 || !f.ok {
		return
	}
	f.closeQuotePara()
	kind := "blockquote"
	if isCallout(f.src[f.quoteStart:f.quoteEnd]) {
		kind = "callout"
	}
	f.w.n.Blocks = append(f.w.n.Blocks, Block{Kind: kind, Span: f.w.span(f.quoteStart, f.quoteEnd)})
	f.quoteStart, f.qList = -1, qNoList
}

// htmlBlockStart reports whether a line (or an item's content) starting
// with '<' may open an HTML block other than a comment (goldmark's
// parser/html_block.go): a processing instruction, a declaration, CDATA,
// a tag of script, pre, style or textarea, a block-level tag, or a line
// that is one whole tag. Any other '<' starts a paragraph's text.
func htmlBlockStart(b []byte) bool {
	if len(b) == 0 || b[0] != '<' {
		return false
	}
	if len(b) > 1 && (b[1] == '?' || b[1] == '!') {
		return true
	}
	k := 1
	if k < len(b) && b[k] == '/' {
		for k++; k < len(b) && b[k] == ' '; k++ {
		}
	}
	n := k
	for n < len(b) && (b[n] >= 'a' && b[n] <= 'z' || b[n] >= 'A' && b[n] <= 'Z' || n > k && (b[n] >= '0' && b[n] <= '9' || b[n] == '-')) {
		n++
	}
	if n == k {
		return false
	}
	name := strings.ToLower(string(b[k:n]))
	switch name {
	case "script", "pre", "style", "textarea":
		return true
	}
	return htmlBlockTags[name] || htmlBlockType7().Match(b)
}

// htmlBlockType7 and htmlBlockTags are goldmark's (v1.8.7).
var htmlBlockType7 = lazyre.New(`^[ ]{0,3}<(/[ ]*)?([a-zA-Z]+[a-zA-Z0-9\-]*)(` + htmlAttribute + `*)[ ]*(?:>|/>)[ ]*(?:\r\n|\n)?$`)

var htmlBlockTags = map[string]bool{
	"address": true, "article": true, "aside": true, "base": true, "basefont": true, "blockquote": true,
	"body": true, "caption": true, "center": true, "col": true, "colgroup": true, "dd": true, "details": true,
	"dialog": true, "dir": true, "div": true, "dl": true, "dt": true, "fieldset": true, "figcaption": true,
	"figure": true, "footer": true, "form": true, "frame": true, "frameset": true, "h1": true, "h2": true,
	"h3": true, "h4": true, "h5": true, "h6": true, "head": true, "header": true, "hr": true, "html": true,
	"iframe": true, "legend": true, "li": true, "link": true, "main": true, "menu": true, "menuitem": true,
	"meta": true, "nav": true, "noframes": true, "ol": true, "optgroup": true, "option": true, "p": true,
	"param": true, "search": true, "section": true, "summary": true, "table": true, "tbody": true, "td": true,
	"tfoot": true, "th": true, "thead": true, "title": true, "tr": true, "track": true, "ul": true,
}

// isThematicBreak reports whether a line is three or more of one of
// '-', '*' and '_', with spaces between them and nothing else.
func isThematicBreak(b []byte) bool {
	if len(b) == 0 || b[0] != '-' && b[0] != '*' && b[0] != '_' {
		return false
	}
	n := 0
	for _, c := range b {
		switch c {
		case b[0]:
			n++
		case ' ':
		default:
			return false
		}
	}
	return n >= 3
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

// item reads a list item's line: indent and contentCol are columns,
// contentAt the offset in the line where its content starts.
func (f *fastScanner) item(start, end, indent int, marker byte, ordered bool, contentCol, contentAt int) {
	line := f.src[start:end]
	content := line[contentAt:]
	// One to four spaces after the marker (five are one, then indented
	// code), then content that is itself plain text: a '#' opening a tag,
	// not a heading.
	sp := 0
	for sp < len(content) && content[sp] == ' ' {
		sp++
	}
	if sp >= 4 {
		f.bail()
		return
	}
	content, contentAt, contentCol = content[sp:], contentAt+sp, contentCol+sp
	if len(content) == 0 || isATX(content) || content[0] == '>' || htmlBlockStart(content) || bytes.HasPrefix(content, []byte("<!--")) {
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
		if top.child == 0 && !f.blank && ordered && !startsWithOne(line[contentAt-(contentCol-indent):]) {
			f.bail() // it would interrupt the parent's text: a continuation
			return
		}
		top.child = marker
		parent = top.idx
	}
	f.closePara()
	f.closeItemPara()
	// A task box "[ ] " or "[x] " is plain text to goldmark (no task-list
	// extension); skip it so the inline scan does not read it as a link.
	inlineFrom := start + contentAt
	if len(content) >= 4 && content[0] == '[' && content[2] == ']' && content[3] == ' ' && content[1] != '[' && content[1] != ']' {
		inlineFrom += 4
	}
	text, task := listItemText(line)
	it := ListItem{Parent: parent, Task: task, Text: text, Span: f.w.span(start, end)}
	f.w.n.ListItems = append(f.w.n.ListItems, it)
	idx := len(f.w.n.ListItems) - 1
	for _, anc := range f.list {
		f.w.n.ListItems[anc.idx].Span.End = f.w.pos(end)
	}
	f.list = append(f.list, fastItem{idx: idx, contentCol: contentCol, marker: marker})
	f.listEnd = end
	f.inline(inlineFrom, end)
	f.iParaFirst, f.iParaLast, f.iParaStop = start+contentAt, start+contentAt, min(end+1, len(f.src))
}

// itemText reads a line that goes on with the text of the list's last
// item (goldmark's TextBlock, or a lazy continuation line): the item and
// the items it is in end with it. ws is where the line's text starts.
func (f *fastScanner) itemText(start, end, ws int) {
	for _, anc := range f.list {
		f.w.n.ListItems[anc.idx].Span.End = f.w.pos(end)
	}
	f.listEnd = end
	f.iParaLast, f.iParaStop = start+ws, min(end+1, len(f.src))
	f.inline(start+ws, end)
}

// itemPara reads a line indented by indent columns after an empty line
// in a list: a new paragraph of the deepest item whose content starts at
// or before that column (goldmark's loose item), ending the lists in it.
// It reports false when no item takes the line: the list ends there.
func (f *fastScanner) itemPara(start, end, ws, indent int) bool {
	k := len(f.list) - 1
	for k >= 0 && f.list[k].contentCol > indent {
		k--
	}
	if k < 0 {
		return false
	}
	if indent-f.list[k].contentCol >= 4 {
		f.bail() // indented code in the item
		return true
	}
	f.list = f.list[:k+1]
	f.list[k].child = 0 // a list after the paragraph is a new one
	f.iParaFirst = start + ws
	f.itemText(start, end, ws)
	f.blank = false
	return true
}

// closeItemPara reads the block ID at the end of the last item's text.
func (f *fastScanner) closeItemPara() {
	if f.iParaFirst < 0 {
		return
	}
	f.w.blockIDAt(f.iParaFirst, f.iParaLast, f.iParaStop)
	f.iParaFirst = -1
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
	// The text starts past any white space, Unicode's too ("# \u00a0#t"
	// has the tag #t): where it is in the line, not after the spaces.
	from := start + level + bytes.Index(line[level:], []byte(txt))
	f.inline(from, from+len(txt))
}

func (f *fastScanner) closePara() {
	if f.paraFirst < 0 {
		return
	}
	endLine := f.w.lines.lineEnd(f.paraLast)
	if f.cols > 0 {
		// A table, up to its last row of cells (goldmark's span of a
		// table of a header alone leaves out its delimiter row); no block
		// ID is read in it.
		endLine = f.w.lines.lineEnd(f.rowLast)
		f.w.n.Blocks = append(f.w.n.Blocks, Block{Kind: "table", Span: f.w.span(f.paraFirst, endLine)})
		f.paraFirst, f.cols, f.delimAt = -1, 0, -1
		return
	}
	f.w.n.Blocks = append(f.w.n.Blocks, Block{Kind: "paragraph", Span: f.w.span(f.paraFirst, endLine)})
	f.w.blockIDAt(f.paraFirst, f.paraLast, f.paraStop)
	f.paraFirst = -1
}

func (f *fastScanner) closeList() {
	f.closeItemPara()
	if f.listStart < 0 {
		return
	}
	f.w.n.Blocks = append(f.w.n.Blocks, Block{Kind: "list", Span: f.w.span(f.listStart, f.listEnd)})
	f.list, f.listStart = f.list[:0], -1
}

// inlineStarts are the bytes at which inline reads more than plain text.
var inlineStarts = [256]bool{'[': true, '!': true, '#': true, '`': true, '<': true, '\\': true}

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
		case c == '\\':
			// An escaped punctuation mark opens nothing; but an escaped
			// '#' is still in a text node, where tags are looked for.
			switch {
			case i+1 < to && util.IsPunct(b[i+1]) && b[i+1] != '#':
				i += 2
			case i+1 < to && b[i+1] == ' ' && len(bytes.Trim(b[i+1:to], " ")) == 0:
				// A backslash before the spaces of a hard line break:
				// goldmark reads it with the next line's first byte
				// ("\\  \n\\[x](y)" is a link to it).
				f.bail()
				i = to
			default:
				i++
			}
		case c == '`':
			i = f.codeSpan(i, to)
		case c == '<':
			i = f.html(i, to)
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
		if f.cell && bytes.IndexByte(f.src[open+2:to], ']') < 0 {
			// goldmark reads a table's cell on its own, and one that
			// holds no ']' after "[[" (a wikilink whose '|' split it
			// between two cells) closes no link: both brackets are text.
			return open + 2
		}
		f.bail()
		return to
	}
	inner := f.src[open+2 : open+2+closeAt]
	if len(inner) == 0 || (inner[0] != '|' && bytes.IndexByte(inner, '|') == len(inner)-1) {
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
		if f.cell {
			return open + 1 // no ']' in the rest of a table's cell: text (wikilink)
		}
		f.bail()
		return to
	}
	labelEnd := open + 1 + closeAt
	label := b[open+1 : labelEnd]
	if bytes.IndexByte(label, '[') >= 0 || bytes.IndexByte(label, '\\') >= 0 || len(label) > 900 || !codeSpansClose(label) || !f.htmlCloses(open+1, labelEnd) {
		f.bail()
		return to
	}
	if labelEnd+1 >= to || b[labelEnd+1] != '(' {
		if f.noRefs {
			// Without a definition in the note, "[x]", "[x][y]",
			// "[^1]" and a callout's "[!tip]" are plain text, read on
			// from inside the brackets.
			return open + 1
		}
		f.bail() // a reference link, a footnote, or plain brackets
		return to
	}
	if bytes.IndexByte(label, '!') >= 0 {
		f.bail()
		return to
	}
	dest, end := linkTail(b[:to], labelEnd+2)
	if end < 0 || bytes.IndexByte(b[labelEnd:end], '\\') >= 0 {
		// goldmark unescapes a destination and a title: one with an
		// escape is its own to read.
		f.bail()
		return to
	}
	f.w.mdLinkAt(i, end, dest, image)
	f.w.tags(b, open+1, labelEnd)
	return end
}

// linkTail reads an inline link's destination and title from b[k:], just
// past the '(', as goldmark's parseLink does, and returns the destination
// and the offset past the ')'. It gives up (end -1) on a link that goes on
// to the next line, or one goldmark would not make a link of. A
// destination in <> is what is between them, up to the first '>' on the
// line (a backslash in it is the caller's to refuse). A title is never a
// link's text: nothing in it counts.
func linkTail(b []byte, k int) (dest []byte, end int) {
	for k < len(b) && b[k] == ' ' {
		k++
	}
	if k >= len(b) {
		return nil, -1
	}
	if b[k] == ')' {
		return nil, k + 1 // [text](): a link to nowhere
	}
	d := k
	if b[k] == '<' {
		m := bytes.IndexByte(b[k+1:], '>')
		if m < 0 {
			return nil, -1
		}
		dest, d = b[k+1:k+1+m], k+1+m+1
	} else {
		opened := 0
		for ; d < len(b) && b[d] != ' '; d++ {
			if b[d] == '(' {
				opened++
			} else if b[d] == ')' {
				if opened--; opened < 0 {
					break
				}
			}
		}
		dest = b[k:d]
	}
	for d < len(b) && b[d] == ' ' {
		d++
	}
	if d >= len(b) {
		return nil, -1
	}
	if b[d] == ')' {
		return dest, d + 1
	}
	closer := b[d]
	switch closer {
	case '"', '\'':
	case '(':
		closer = ')'
	default:
		return nil, -1
	}
	t := d + 1
	for ; t < len(b) && b[t] != closer; t++ {
		if b[d] == '(' && b[t] == '(' {
			return nil, -1
		}
	}
	for t++; t < len(b) && b[t] == ' '; t++ {
	}
	if t >= len(b) || b[t] != ')' {
		return nil, -1
	}
	return dest, t + 1
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

// goldmark's inline HTML tags (parser/raw_html.go, v1.8.7), matched here
// on one line: a tag that goes on to the next line is goldmark's.
var (
	htmlAttribute = `(?:[\r\n \t]+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:[\r\n \t]*=[\r\n \t]*(?:[^\"'=<>` + "`" + `\x00-\x20]+|'[^']*'|"[^"]*"))?)`
	htmlOpenTag   = lazyre.New("^<([A-Za-z][A-Za-z0-9-]*)" + htmlAttribute + `*(?:[ \t]|(?:\r\n|\n){0,1})*/?>`)
	htmlCloseTag  = lazyre.New(`^</([A-Za-z][A-Za-z0-9-]*)(?:[ \t]|(?:\r\n|\n){0,1})*>`)
)

// html reads what goldmark makes of a '<' at i inside a line, in its
// order: an autolink, inline HTML (a tag, a comment, a processing
// instruction, a declaration, CDATA), or a plain '<'. It returns the
// offset past what it read; nothing inside an autolink or inline HTML is
// a link or a tag.
func (f *fastScanner) html(i, to int) int {
	line := f.src[i:to]
	stop := util.FindEmailIndex(line[1:])
	if stop < 0 {
		stop = util.FindURLIndex(line[1:])
	}
	if stop >= 0 && stop+1 < len(line) && line[stop+1] == '>' {
		return i + stop + 2
	}
	var closer string
	switch {
	case len(line) > 1 && util.IsAlphaNumeric(line[1]):
		return f.htmlTag(i, to, htmlOpenTag(), line[1])
	case len(line) > 2 && line[1] == '/' && util.IsAlphaNumeric(line[2]):
		return f.htmlTag(i, to, htmlCloseTag(), line[2])
	case bytes.HasPrefix(line, []byte("<!-->")):
		return i + 5
	case bytes.HasPrefix(line, []byte("<!--->")):
		return i + 6
	case bytes.HasPrefix(line, []byte("<!--")):
		if k := bytes.Index(line[4:], []byte("-->")); k >= 0 {
			return i + 4 + k + 3
		}
		f.bail()
		return to
	case bytes.HasPrefix(line, []byte("<?")):
		closer = "?>"
	case len(line) > 2 && line[1] == '!' && line[2] >= 'A' && line[2] <= 'Z':
		closer = ">"
	case bytes.HasPrefix(line, []byte("<![CDATA[")):
		closer = "]]>"
	default:
		return i + 1 // a plain '<'
	}
	if k := bytes.Index(line, []byte(closer)); k >= 0 {
		return i + k + len(closer)
	}
	f.bail()
	return to
}

// htmlCloses reports whether the HTML and autolinks in a link's label
// b[from:to] each end inside it, with no tag to read in them: one still
// open at the label's first ']' would take that bracket in.
func (f *fastScanner) htmlCloses(from, to int) bool {
	label := f.src[from:to]
	if bytes.IndexByte(label, '<') < 0 {
		return true
	}
	if bytes.ContainsAny(label, "#`") {
		return false
	}
	for i := from; i < to; {
		if f.src[i] != '<' {
			i++
			continue
		}
		if i = f.html(i, to); !f.ok {
			return false
		}
	}
	return true
}

// htmlTag reads a tag that the pattern must match on this line; a '<'
// and a letter that start no tag here may start one that ends on a later
// line, which is goldmark's to read. A digit where the name would start
// ("<3") starts none.
func (f *fastScanner) htmlTag(i, to int, re *regexp.Regexp, first byte) int {
	if first >= '0' && first <= '9' {
		return i + 1
	}
	m := re.FindIndex(f.src[i:to])
	if m == nil {
		// A tag goes on after its name only with a space, a line's end,
		// '/' or '>': after any other byte ("<www.example.com>", on
		// obsidian-hub's 30 pages of people) none starts here, on this
		// line or the next, and the '<' is text.
		j := i + 1
		if f.src[j] == '/' {
			j++
		}
		for j < to && (util.IsAlphaNumeric(f.src[j]) || f.src[j] == '-') {
			j++
		}
		if j < to && bytes.IndexByte([]byte(" \t\r\n\f\v/>"), f.src[j]) < 0 {
			return i + 1
		}
		f.bail()
		return to
	}
	return i + m[1]
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
