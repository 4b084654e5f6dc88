package vault

import (
	"bytes"
	"unicode/utf8"
)

// lineIndex maps byte offsets to lines. starts[i] is the offset of line i.
type lineIndex struct {
	src    []byte
	starts []int
	// marks are made by col when first needed.
	marks []runeMark
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

// line is the line holding off: the last start at or before it, found
// by a binary search written out, as sort.Search's call of a closure at
// each step cost more than the search.
func (l *lineIndex) line(off int) int {
	lo, hi := 0, len(l.starts)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.starts[m] > off {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo - 1
}

// lineNear is line(off), looked for first at line ln and the one after
// it: a parse asks for offsets in order, mostly on the line it asked
// for last or the next, where a search of every line was 2% of a cold
// check of the help vault.
func (l *lineIndex) lineNear(off, ln int) int {
	for k := ln; k >= 0 && k <= ln+1 && k < len(l.starts); k++ {
		if l.starts[k] <= off && (k+1 == len(l.starts) || l.starts[k+1] > off) {
			return k
		}
	}
	return l.line(off)
}

func (l *lineIndex) pos(off int) Pos {
	off = max(0, min(off, len(l.src)))
	ln := l.line(off)
	return Pos{Line: ln, Col: off - l.starts[ln], Offset: off}
}

// posNear is pos(off) with the line looked for near *ln first
// (lineNear), and *ln set to off's line for the next.
func (l *lineIndex) posNear(off int, ln *int) Pos {
	off = max(0, min(off, len(l.src)))
	*ln = l.lineNear(off, *ln)
	return Pos{Line: *ln, Col: off - l.starts[*ln], Offset: off}
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
	if isASCII(src) {
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

// runeStride is the spacing, in bytes, of the rune counts lineIndex.col
// keeps: a column costs at most this many bytes of counting.
const runeStride = 512

// runeMark is a rune boundary and the runes before it.
type runeMark struct{ off, runes int }

// col is the 0-based rune column of byte offset off. Counting runes from
// the line's start for each position was quadratic on one long line of
// links; counts kept every runeStride bytes make each position cost at
// most runeStride bytes. An ASCII note needs no counting at all.
func (l *lineIndex) col(off int) int {
	off = max(0, min(off, len(l.src)))
	start := l.lineStart(off)
	if off-start <= 2*runeStride {
		// A line of ordinary length: counting it is cheaper than the
		// checkpoints, which only a very long line needs.
		return utf8.RuneCount(l.src[start:off])
	}
	if l.marks == nil {
		l.marks = runeMarks(l.src)
	}
	if len(l.marks) == 0 {
		return off - start // ASCII
	}
	return l.runesBefore(off) - l.runesBefore(start)
}

// runesBefore counts the runes of src[:off], as utf8.RuneCount would for
// an off at a rune boundary.
func (l *lineIndex) runesBefore(off int) int {
	k := min(off/runeStride, len(l.marks)-1)
	for k > 0 && l.marks[k].off > off {
		k--
	}
	m := l.marks[k]
	return m.runes + utf8.RuneCount(l.src[m.off:off])
}

// runeMarks are the rune counts at the first rune boundary of every
// runeStride bytes, decoding from the start as utf8.RuneCount does; an
// empty, non-nil slice for an ASCII source.
func runeMarks(src []byte) []runeMark {
	if isASCII(src) {
		return []runeMark{}
	}
	marks := make([]runeMark, 0, len(src)/runeStride+1)
	runes := 0
	for i := 0; i < len(src); {
		if i >= len(marks)*runeStride {
			marks = append(marks, runeMark{i, runes})
		}
		_, size := utf8.DecodeRune(src[i:])
		i += size
		runes++
	}
	if len(marks) == 0 {
		marks = append(marks, runeMark{})
	}
	return marks
}

// isASCII reports whether src holds no byte of a multi-byte rune.
func isASCII(src []byte) bool {
	for _, b := range src {
		if b >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
