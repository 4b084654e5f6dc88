package runner

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// tail counts output lines and keeps the last few, cleaned and cut to a
// maximum length. It holds at most a few lines' worth of bytes whatever
// the command prints.
type tail struct {
	max, maxLine int
	ring         []string
	next         int
	full         bool
	lines        int
	cur          []byte // the current line, raw, up to rawCap bytes
	cut          bool   // cur lost bytes past rawCap
	pending      bool   // bytes seen since the last newline
}

func newTail(lines, maxLine int) *tail {
	return &tail{max: lines, maxLine: maxLine, ring: make([]string, lines)}
}

// rawCap bounds the raw bytes kept of one line: escapes are dropped when
// the line is cleaned, so keep more than maxLine.
func (t *tail) rawCap() int { return 8 * t.maxLine }

func (t *tail) Write(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := t.rawCap() - len(t.cur); len(chunk) > room {
			t.cur = append(t.cur, chunk[:max(room, 0)]...)
			t.cut = true
		} else {
			t.cur = append(t.cur, chunk...)
		}
		t.pending = t.pending || len(chunk) > 0
		if i < 0 {
			return
		}
		t.end()
		p = p[i+1:]
	}
}

// end closes the current line.
func (t *tail) end() {
	line := Clean(t.cur)
	if len(line) > t.maxLine || t.cut {
		line = cutRunes(line, t.maxLine) + "…"
	}
	t.ring[t.next] = line
	t.next = (t.next + 1) % t.max
	t.full = t.full || t.next == 0
	t.lines++
	t.cur, t.cut, t.pending = t.cur[:0], false, false
}

// flush counts a last line that had no newline.
func (t *tail) flush() {
	if t.pending {
		t.end()
	}
}

func (t *tail) kept() []string {
	if !t.full {
		return append([]string(nil), t.ring[:t.next]...)
	}
	return append(append([]string(nil), t.ring[t.next:]...), t.ring[:t.next]...)
}

// cutRunes cuts s to at most n bytes without splitting a character.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Clean makes one line of terminal output fit for a note: ANSI escape
// sequences (CSI, OSC and the other ESC forms) removed, a carriage return
// taken as a terminal does (what follows overwrites what precedes, as
// progress bars rely on), other control characters but tab dropped, and
// invalid UTF-8 replaced by U+FFFD.
func Clean(line []byte) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == 0x1b:
			i = skipEscape(line, i)
		case c == '\r':
			if strings.TrimSpace(string(line[i+1:])) != "" {
				b.Reset()
			}
		case c == '\t' || c >= ' ' && c != 0x7f:
			b.WriteByte(c)
		}
	}
	s := strings.ToValidUTF8(b.String(), "\uFFFD")
	// C1 controls (U+0080..U+009F) are escapes too.
	return strings.Map(func(r rune) rune {
		if r >= 0x80 && r <= 0x9f {
			return -1
		}
		return r
	}, s)
}

// skipEscape returns the index of the last byte of the escape sequence
// starting at line[i] == ESC.
func skipEscape(line []byte, i int) int {
	if i+1 >= len(line) {
		return i
	}
	switch line[i+1] {
	case '[': // CSI: parameters, then a final byte 0x40..0x7e
		for j := i + 2; j < len(line); j++ {
			if line[j] >= 0x40 && line[j] <= 0x7e {
				return j
			}
		}
		return len(line) - 1
	case ']', 'P', 'X', '^', '_': // OSC and other strings: to BEL or ESC \
		for j := i + 2; j < len(line); j++ {
			if line[j] == 0x07 {
				return j
			}
			if line[j] == 0x1b && j+1 < len(line) && line[j+1] == '\\' {
				return j + 1
			}
		}
		return len(line) - 1
	default:
		return i + 1
	}
}

// Tail counts the lines of data and returns the last n of them as Run
// keeps a command's: cleaned (see Clean) and cut to maxLine bytes.
func Tail(data []byte, n, maxLine int) (lines int, last []string) {
	t := newTail(orDefault(n, DefaultTailLines), orDefault(maxLine, DefaultMaxLine))
	t.Write(data)
	t.flush()
	return t.lines, t.kept()
}
