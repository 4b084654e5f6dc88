package vault

import (
	"bytes"
	"time"
)

// maxQuoteDepth is the nesting of blockquotes and list items opened on one
// line past which goldmark is not asked: 100,000 '>' took it 6.9 s
// (research/reliability.md §5, case 6), and 100,000 "- " (200 KB) its
// whole budget, in every parse of a command (zk tend's four: over a
// minute on a loaded machine).
const maxQuoteDepth = 100

// unguardedSize is the size below which a note is parsed without a
// deadline: the slowest shapes measured need tens of kilobytes to cost even
// a tenth of a second, and the goroutine and timer of the guard would add
// half again to the parse of an ordinary note.
const unguardedSize = 16 << 10

// ParseWithBudget parses like Parse but gives up on goldmark after budget
// and reads the note with a plain line scanner instead, marking the result
// Fallback; budget 0 parses without a deadline. An abandoned parse ends at
// its next link trigger (stopped), not at once, so the parser gets a fresh
// goldmark instance and the old one is never shared.
//
// On Linux the budget is the CPU time the parse itself spends, not the
// time on the clock: a note that falls back must do so on an idle machine
// and a loaded one alike, or the same note would give other findings
// under load, and check would keep them (obsidian-hub's 25 KB "Blue
// Topaz" lost an embed so once, at a load of 12 on 2 cores).
func (p *Parser) ParseWithBudget(notePath string, src []byte, budget time.Duration) *Note {
	return p.parseWithin(nil, notePath, src, budget)
}

// parseWithin is ParseWithBudget, giving up on goldmark as well once
// stop is closed (a nil stop never is): a command stopped by a signal
// went on waiting out the budget of each parse its workers were in, up
// to 2 s, past the second zk has to be gone in.
func (p *Parser) parseWithin(stop <-chan struct{}, notePath string, src []byte, budget time.Duration) *Note {
	h := readHead(src)
	if n, ok := fastParse(notePath, src, h); ok {
		return n // linear: needs no deadline
	}
	if limit := maxDestinationWork(len(src)); nestingDepth(src) > maxQuoteDepth || openBrackets(src) > maxOpenBrackets ||
		destinationWork(src, limit) > limit || definitionWork(src, limit) > limit {
		return fallbackParse(notePath, src)
	}
	if budget <= 0 || len(src) < unguardedSize {
		return p.parseGoldmark(notePath, src, h)
	}
	// The goroutine parses with a copy of the parser, taken here: on a
	// timeout *p is replaced while the abandoned parse may not even have
	// started reading its fields.
	own := *p
	if n, ok := budgeted(budget, stop, func() *Note { return own.parseGoldmark(notePath, src, h) }); ok {
		return n
	}
	own.wiki.stop.Store(true)
	*p = *NewParser()
	return fallbackParse(notePath, src)
}

// budgeted runs parse on a goroutine of its own and returns its note, or
// ok false if it panicked or spent budget (the CPU time of its thread
// where the system counts it, threadClocks, else wall time) or stop was
// closed first.
func budgeted(budget time.Duration, stop <-chan struct{}, parse func() *Note) (n *Note, ok bool) {
	done := make(chan *Note, 1)
	clocks := make(chan parseClock, 1)
	go func() {
		c := startParseClock()
		defer c.stop()
		clocks <- c
		defer func() {
			if r := recover(); r != nil {
				done <- nil
			}
		}()
		done <- parse()
	}()
	timer := time.NewTimer(budget)
	defer timer.Stop()
	var clock parseClock
	started := false
	for {
		select {
		case n := <-done:
			return n, n != nil
		case clock = <-clocks:
			started, clocks = true, nil
		case <-stop:
			return nil, false
		case <-timer.C:
			// Wall time is up: the parse has spent its budget only if
			// its thread's clock says so. One not started yet (a busy
			// machine) has spent nothing.
			used, ok := clock.used()
			switch {
			case threadClocks && !started:
				timer.Reset(budget)
			case ok && used < budget:
				timer.Reset(budget - used)
			default:
				return nil, false
			}
		}
	}
}

// maxDestinationWork is the most destinationWork goldmark is asked to do
// for a note of n bytes: 64 reads of each byte, and a megabyte over. An
// ordinary note's links read their destination once; 100 KB of "[x]("
// reads 1.25 GB, and took goldmark 1.8 s.
func maxDestinationWork(n int) int { return 64*n + 1<<20 }

// destinationWork is at least the number of bytes goldmark's link parser
// reads for the link destinations of src, or, once that passes limit,
// some number past it: at each "](" it reads on to the next space,
// control byte or ')' (further, past balanced parentheses), a line at a
// time. A line of many "](" and no space is read to its end at each:
// quadratic, where this count stops at its limit. An ordinary note's
// destinations are short: the count reads them and little else.
func destinationWork(src []byte, limit int) int {
	work := 0
	for i := 0; work <= limit; {
		j := bytes.Index(src[i:], []byte("]("))
		if j < 0 {
			break
		}
		i += j + 2
		k := i
		for k < len(src) && src[k] > ' ' && src[k] != ')' {
			k++
		}
		work += k - i + 1
	}
	return work
}

// definitionWork is at least the work of goldmark's reference-definition
// transformer on src, in lines moved: it takes the definitions off the
// front of a paragraph one at a time, moving the paragraph's remaining
// lines at each, so a paragraph of d definitions and l lines costs d×l.
// 40,000 definitions took 1.0 s, 100,000 spent the whole budget, and an
// abandoned parse of them ran on to its end: the transformer calls no
// link parser to see the stop flag. The count is over blocks of
// non-blank lines (a block may hold several paragraphs: the count is an
// upper bound) and the lines in it that look like a definition's start,
// "[label]:" under any quote and list markers. Past limit it stops.
func definitionWork(src []byte, limit int) int {
	work, lines, defs := 0, 0, 0
	for line := range bytes.Lines(src) {
		rest := blockContent(line)
		if len(rest) == 0 {
			if work += defs * lines; work > limit {
				return work
			}
			lines, defs = 0, 0
			continue
		}
		lines++
		if rest[0] == '[' && bytes.Contains(rest, []byte("]:")) {
			defs++
		}
	}
	return work + defs*lines
}

// maxOpenBrackets is the most "[" left open in one block of lines that
// goldmark is asked to read: it keeps a label's state for each, some 600
// bytes with its text node, so that 2 MB of "[" took 570 MB and spent
// the 2 s budget. An ordinary note leaves a few open.
const maxOpenBrackets = 1 << 16

// openBrackets is the most "[" not yet closed by a "]" at any point of a
// block of non-blank lines of src (definitionWork's blocks), or a number
// past maxOpenBrackets once one passes it. Escapes and code spans are
// not told apart: the count is an upper bound.
func openBrackets(src []byte) int {
	most, open := 0, 0
	for line := range bytes.Lines(src) {
		if len(blockContent(line)) == 0 {
			open = 0
			continue
		}
		for _, c := range line {
			switch {
			case c == '[':
				open++
				most = max(most, open)
			case c == ']' && open > 0:
				open--
			}
		}
		if most > maxOpenBrackets {
			break
		}
	}
	return most
}

// blockContent is line without its indentation and its quote and list
// markers ("> ", "- ", "1. ", as listMarker reads them), however deeply
// nested: empty for a blank line, its line break ("\n", "\r\n") included.
func blockContent(line []byte) []byte {
	for {
		line = bytes.TrimLeft(line, " \t\r\n")
		if len(line) > 0 && line[0] == '>' {
			line = line[1:]
			continue
		}
		_, _, off, ok := listMarker(line)
		if !ok {
			return line
		}
		line = line[off:]
	}
}

// nestingDepth is the most blockquotes and list items any line opens
// ("> > x", "- - x", "> 1. - x"), read as blockContent reads them; it
// stops counting past maxQuoteDepth.
func nestingDepth(src []byte) int {
	deepest := 0
	for line := range bytes.Lines(src) {
		d := 0
		for d <= maxQuoteDepth {
			line = bytes.TrimLeft(line, " \t")
			if len(line) > 0 && line[0] == '>' {
				line = line[1:]
				d++
				continue
			}
			_, _, off, ok := listMarker(line)
			if !ok || off >= len(line) || line[off-1] != ' ' {
				break
			}
			line = line[off:]
			d++
		}
		deepest = max(deepest, d)
	}
	return deepest
}

// fallbackParse is a linear scan for what matters most when goldmark cannot
// be afforded: frontmatter, ATX headings and wikilinks outside fenced code.
func fallbackParse(notePath string, src []byte) *Note {
	n := newNote(notePath, src)
	n.Fallback = true
	lines := newLineIndex(src)
	n.lines = lines
	fmEnd := 0
	if fm, end := parseFrontmatter(src, lines); fm != nil {
		n.Frontmatter, fmEnd = fm, end
		n.FrontmatterLinks = frontmatterLinks(fm.Values, fm.Keys)
	}
	inFence := false
	for off := fmEnd; off < len(src); {
		end := lines.lineEnd(off)
		line := src[off:end]
		if fenceMarker(bytes.TrimLeft(line, " ")) != nil {
			inFence = !inFence
		} else if !inFence {
			if t := headingText(line); t != "" && isATX(line) {
				lvl := bytes.IndexFunc(bytes.TrimLeft(line, " "), func(r rune) bool { return r != '#' })
				n.Headings = append(n.Headings, Heading{Level: lvl, Text: t, Span: Span{Start: lines.pos(off), End: lines.pos(end)}})
			}
			for i := 0; i < len(line); {
				j := bytes.Index(line[i:], []byte("[["))
				if j < 0 {
					break
				}
				s := i + j
				e := bytes.Index(line[s+2:], []byte("]]"))
				if e < 0 {
					break
				}
				e += s + 4
				embed := s > 0 && line[s-1] == '!'
				start := s
				if embed {
					start--
				}
				inner := string(line[s+2 : e-2])
				if inner != "" {
					target, display, has := splitWikiInner(inner)
					l := Link{Kind: Wikilink, Embed: embed, Link: target, Original: string(line[start:e]), HasDisplay: has,
						Span: Span{Start: lines.pos(off + start), End: lines.pos(off + e)}}
					l.Path, l.Subpath = splitSubpath(target)
					l.DisplayText = display
					if !has {
						l.DisplayText = defaultDisplay(l.Path, l.Subpath)
					}
					if embed {
						n.Embeds = append(n.Embeds, l)
					} else {
						n.Links = append(n.Links, l)
					}
				}
				i = e
			}
		}
		off = end + 1
	}
	n.Sections = sections(n.Headings, len(src))
	n.fitLinks()
	return n
}

func isATX(line []byte) bool {
	s := bytes.TrimLeft(line, " ")
	if len(line)-len(s) > 3 {
		return false
	}
	k := 0
	for k < len(s) && s[k] == '#' {
		k++
	}
	return k >= 1 && k <= 6 && (k == len(s) || s[k] == ' ' || s[k] == '\t')
}
