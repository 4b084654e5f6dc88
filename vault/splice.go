package vault

import "bytes"

// The byte-splice helpers every edit of a note is made of (zk tend, zk
// run, zk attach): an edit inserts or replaces a span and keeps every
// other byte, in the note's own line endings.

// SpliceBytes returns a copy of src with src[from:to] replaced by with.
func SpliceBytes(src []byte, from, to int, with string) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(with))
	out = append(out, src[:from]...)
	out = append(out, with...)
	return append(out, src[to:]...)
}

// LineEnding is the ending of src's first line ("\r\n" or "\n"); a note
// without any gets "\n".
func LineEnding(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// EndingBefore is the line ending of the last line ending before at: a
// line zk adds takes the style of its neighbour, which matters in a note
// with mixed endings. A note with none at all gets LineEnding's "\n".
func EndingBefore(src []byte, at int) string {
	i := bytes.LastIndexByte(src[:at], '\n')
	if i < 0 {
		return LineEnding(src)
	}
	if i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// HasFinalNewline reports whether src ends with a line ending.
func HasFinalNewline(src []byte) bool { return len(src) > 0 && src[len(src)-1] == '\n' }
