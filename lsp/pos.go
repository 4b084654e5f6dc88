package lsp

import (
	"strings"
	"unicode/utf8"

	protocol "github.com/tliron/glsp/protocol_3_16"
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

// utf16Len is how many UTF-16 code units s takes.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// utf16LenBytes is utf16Len of b, without making a string of it.
func utf16LenBytes(b []byte) int {
	n := 0
	for len(b) > 0 {
		if b[0] < utf8.RuneSelf {
			n, b = n+1, b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		b = b[size:]
	}
	return n
}

// position is the LSP position of byte offset off of text.
func position(text string, off int) protocol.Position {
	off = min(max(off, 0), len(text))
	line := strings.Count(text[:off], "\n")
	start := strings.LastIndexByte(text[:off], '\n') + 1
	return protocol.Position{Line: uint32(line), Character: uint32(utf16Len(text[start:off]))}
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
