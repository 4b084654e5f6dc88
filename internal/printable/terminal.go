package printable

import (
	"io"
	"strconv"
	"unicode/utf8"
)

// Terminal is a writer for a stream of text that is not zk's own (a
// falsifier's output, which often prints a vault's files, shown live) on
// its way to a terminal. What Lines escapes is written escaped the same
// way; line breaks and tabs pass. A carriage return is written as a line
// break (a CR LF as one): on a terminal a lone \r lets the text after it
// overwrite the text before it (`rm -rf ~\rall fine`), and as a line
// break a progress meter's updates still read, one a line, where the
// escape would run them into one line. A rune split between two writes is
// joined first, so a C1 control written as two UTF-8 bytes in two reads
// is still one rune, and escaped.
//
// A Terminal is not safe for concurrent use; Flush writes a rune left
// incomplete at the end.
type Terminal struct {
	w       io.Writer
	part    [utf8.UTFMax]byte
	npart   int
	afterCR bool
	buf     []byte
	joined  []byte
}

// NewTerminal returns a Terminal writing to w.
func NewTerminal(w io.Writer) *Terminal { return &Terminal{w: w} }

// Write writes p, escaped, to the terminal; it reports all of p written
// unless the terminal fails.
func (t *Terminal) Write(p []byte) (int, error) {
	data := p
	if t.npart > 0 { // the rune the last write left open comes first
		t.joined = append(append(t.joined[:0], t.part[:t.npart]...), p...)
		data, t.npart = t.joined, 0
	}
	out := t.buf[:0]
	i := 0
	for i < len(data) {
		c := data[i]
		if t.afterCR {
			t.afterCR = false
			if c == '\n' {
				i++
				continue
			}
		}
		if c < utf8.RuneSelf {
			out = t.appendRune(out, rune(c), data[i:i+1])
			i++
			continue
		}
		if !utf8.FullRune(data[i:]) {
			t.npart = copy(t.part[:], data[i:])
			break
		}
		r, size := utf8.DecodeRune(data[i:])
		out = t.appendRune(out, r, data[i:i+size])
		i += size
	}
	t.buf = out[:0]
	if len(out) == 0 {
		return len(p), nil
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// appendRune appends r, whose bytes in the stream are raw, as the
// terminal should show it.
func (t *Terminal) appendRune(out []byte, r rune, raw []byte) []byte {
	switch {
	case r == '\r':
		t.afterCR = true
		return append(out, '\n')
	case r == '\n' || r == '\t':
		return append(out, byte(r))
	case r == utf8.RuneError && len(raw) == 1:
		return appendHex(out, raw[0])
	case unsafeRune(r):
		q := strconv.QuoteRuneToASCII(r)
		return append(out, q[1:len(q)-1]...)
	}
	return append(out, raw...)
}

// Flush writes the bytes of a rune the stream left incomplete, as
// escapes.
func (t *Terminal) Flush() error {
	if t.npart == 0 {
		return nil
	}
	var out []byte
	for _, c := range t.part[:t.npart] {
		out = appendHex(out, c)
	}
	t.npart = 0
	_, err := t.w.Write(out)
	return err
}

func appendHex(out []byte, c byte) []byte {
	const hex = "0123456789abcdef"
	return append(out, '\\', 'x', hex[c>>4], hex[c&0xf])
}
