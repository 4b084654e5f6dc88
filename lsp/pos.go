package lsp

import (
	"strings"
	"unicode/utf8"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/workspace"
)

// Positions: LSP counts a line's characters in UTF-16 code units (the
// default position encoding, the only one LSP 3.16 clients all speak);
// zk counts bytes, and a finding's column in runes. These convert.

// lineStart is the offset of the start of 0-based line in text, or
// len(text) past the last line.
func lineStart(text string, line int) int {
	off := 0
	for ; line > 0; line-- {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	return off
}

// spanRanges are the LSP ranges of spans, byte offsets [start, end) into
// src, found in one pass over it (workspace.Positions). A loop over a
// note's tags, headings or edits calling position for each counted from
// the top of the text every time: 375,000 tags on one line kept the
// server from answering for minutes.
func spanRanges(src []byte, spans [][2]int) []protocol.Range {
	offs := make([]int, 0, 2*len(spans))
	for _, sp := range spans {
		offs = append(offs, sp[0], sp[1]) // Positions keeps them to src
	}
	ps := workspace.Positions(src, offs)
	out := make([]protocol.Range, len(spans))
	for i := range out {
		out[i] = protocol.Range{Start: protocol.Position{Line: ps[2*i].Line, Character: ps[2*i].Char},
			End: protocol.Position{Line: ps[2*i+1].Line, Character: ps[2*i+1].Char}}
	}
	return out
}

// position is the LSP position of byte offset off of text.
func position(text string, off int) protocol.Position {
	off = min(max(off, 0), len(text))
	line := strings.Count(text[:off], "\n")
	start := strings.LastIndexByte(text[:off], '\n') + 1
	return protocol.Position{Line: uint32(line), Character: uint32(workspace.UTF16Len(text[start:off]))}
}

// offset is the byte offset of an LSP position in text: past the line's
// end, the line's end; past the text, its end.
func offset(text string, p protocol.Position) int {
	off := lineStart(text, int(p.Line))
	units := int(p.Character)
	for off < len(text) && units > 0 {
		r, size := utf8.DecodeRuneInString(text[off:])
		if r == '\n' {
			break
		}
		if r >= 0x10000 {
			units -= 2
		} else {
			units--
		}
		off += size
	}
	return off
}

// runePosition is the LSP position of a 1-based line and 1-based rune
// column, as a finding gives them.
func runePosition(text string, line, col int) protocol.Position {
	off := lineStart(text, max(line-1, 0))
	for i := 1; i < col && off < len(text); i++ {
		r, size := utf8.DecodeRuneInString(text[off:])
		if r == '\n' {
			break
		}
		off += size
	}
	return position(text, off)
}

// positioner finds the LSP positions of findings' 1-based lines and rune
// columns, as runePosition does, going on from the last position asked
// instead of from the top of the text: in order (a note's findings are),
// a note's whole list costs one pass over it, where runePosition's costs
// one per finding (70,000 broken links on a 1 MB line took minutes).
type positioner struct {
	text string
	// line and col (1-based, 0 before the first use) are the finding
	// position off is at; char is its UTF-16 column.
	line, col, off, char int
}

// at is runePosition(text, line, col).
func (p *positioner) at(line, col int) protocol.Position {
	line, col = max(line, 1), max(col, 1)
	if p.line == 0 || line < p.line || line == p.line && col < p.col {
		p.line, p.col, p.off, p.char = 1, 1, 0, 0
	}
	for p.line < line {
		i := strings.IndexByte(p.text[p.off:], '\n')
		if i < 0 { // past the last line: its end, as runePosition says
			pos := position(p.text, len(p.text))
			p.line = 0
			return pos
		}
		p.off += i + 1
		p.line, p.col, p.char = p.line+1, 1, 0
	}
	for p.col < col && p.off < len(p.text) {
		r, size := utf8.DecodeRuneInString(p.text[p.off:])
		if r == '\n' {
			break
		}
		p.off += size
		p.col++
		if r >= 0x10000 {
			p.char += 2
		} else {
			p.char++
		}
	}
	return protocol.Position{Line: uint32(p.line - 1), Character: uint32(p.char)}
}

// lineEnd is the position of the end of the line the last at was on.
func (p *positioner) lineEnd() protocol.Position {
	if p.line == 0 {
		return position(p.text, len(p.text))
	}
	end := strings.IndexByte(p.text[p.off:], '\n')
	if end < 0 {
		end = len(p.text) - p.off
	}
	return protocol.Position{Line: uint32(p.line - 1), Character: uint32(p.char + workspace.UTF16Len(p.text[p.off:p.off+end]))}
}
