package vault

import (
	"bytes"
	"sort"
	"unicode/utf8"
)

// lineIndex maps byte offsets to lines. starts[i] is the offset of line i.
type lineIndex struct {
	src    []byte
	starts []int
}

func newLineIndex(src []byte) *lineIndex {
	// Counted first, so that the slice is allocated once; bytes.Count and
	// IndexByte are vectorised, where a byte loop was a fifth of zk
	// check's rule time.
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	for off := 0; ; {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		starts = append(starts, off)
	}
	return &lineIndex{src: src, starts: starts}
}

func (l *lineIndex) line(off int) int {
	return sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off }) - 1
}

func (l *lineIndex) pos(off int) Pos {
	off = max(0, min(off, len(l.src)))
	ln := l.line(off)
	return Pos{Line: ln, Col: off - l.starts[ln], Offset: off}
}

func (l *lineIndex) lineStart(off int) int {
	return l.starts[l.line(min(off, len(l.src)))]
}

// lineEnd returns the offset of the newline (or the end of the source) of
// the line holding off. A "\r" before the newline belongs to the line.
func (l *lineIndex) lineEnd(off int) int {
	ln := l.line(min(off, len(l.src)))
	if ln+1 < len(l.starts) {
		return l.starts[ln+1] - 1
	}
	return len(l.src)
}

// utf16Counter converts byte offsets to UTF-16 code unit offsets, the unit
// Obsidian (JavaScript) counts in. Each invalid byte counts as one unit
// (U+FFFD), as a UTF-8 decoder would.
type utf16Counter struct {
	units []int32 // units[i] is the UTF-16 offset of byte offset i; nil for ASCII
}

func newUTF16Counter(src []byte) *utf16Counter {
	ascii := true
	for _, b := range src {
		if b >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return &utf16Counter{}
	}
	units := make([]int32, len(src)+1)
	u := int32(0)
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		for k := 0; k < size; k++ {
			units[i+k] = u // an offset inside a rune maps to its start
		}
		u += int32(runeUnits(r))
		i += size
	}
	units[len(src)] = u
	return &utf16Counter{units: units}
}

func runeUnits(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// at returns the UTF-16 offset of byte offset off.
func (c *utf16Counter) at(off int) int {
	if c.units == nil {
		return off
	}
	return int(c.units[max(0, min(off, len(c.units)-1))])
}
