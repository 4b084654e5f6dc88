// Package printable makes text that is not zk's own (a note's words, a
// file name, a server's error body) safe to show on a terminal or in a
// table: every character that could move the cursor, recolour or rewrite
// the terminal, or reorder what is shown, written as a Go escape.
package printable

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Of is s with every character that could move the cursor, recolour
// or rewrite the terminal, or reorder what is shown (C0 and C1 controls,
// DEL, bidirectional overrides, invalid UTF-8) written as a Go escape
// (\x1b, \n, \u202e), so that text from a note or a file name is shown as
// what it is: an ESC sequence cannot make one command look like another,
// nor a newline split a line in two.
func Of(s string) string { return of(s, false) }

// Lines is Of keeping line breaks (\n) and tabs as they are: for text
// whose lines are its own (a message of several lines, a CSV value, which
// CSV quotes), where an ESC sequence or a carriage return must still not
// reach the terminal.
func Lines(s string) string { return of(s, true) }

func of(s string, lines bool) string {
	if plainASCII(s, lines) { // most paths and messages: one pass over bytes
		return s
	}
	unsafe := func(r rune) bool { return unsafeRune(r) && !(lines && (r == '\n' || r == '\t')) }
	clean := true
	for _, r := range s {
		if unsafe(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafe(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// plainASCII reports whether s is printable ASCII only (space to '~'),
// with line breaks and tabs when lines is true.
func plainASCII(s string, lines bool) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' || c > '~') && !(lines && (c == '\n' || c == '\t')) {
			return false
		}
	}
	return true
}

// JSON is the JSON text b with every character Of escapes that JSON
// leaves as it is (C1 controls, bidirectional overrides: encoding/json
// escapes only those below a space) written as a \uXXXX escape, which
// decodes to the same string: a note's name in zk's JSON output cannot
// rewrite or reorder the terminal it is printed on. Outside its strings
// JSON text is ASCII, so each such character is inside one. b is returned
// as it is when it holds none.
func JSON(b []byte) []byte {
	first := -1
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError && unsafeRune(r) {
			first = i
			break
		}
		i += size
	}
	if first < 0 {
		return b
	}
	const hex = "0123456789abcdef"
	out := append(make([]byte, 0, len(b)+16), b[:first]...)
	for i := first; i < len(b); {
		if b[i] < utf8.RuneSelf {
			out = append(out, b[i])
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError && unsafeRune(r) {
			out = append(out, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// Unsafe reports whether Of escapes r.
func Unsafe(r rune) bool { return unsafeRune(r) }

func unsafeRune(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == utf8.RuneError ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}
