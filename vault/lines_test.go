package vault

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLineIndex(t *testing.T) {
	tests := []struct {
		src    string
		starts []int
	}{
		{"", []int{0}},
		{"a", []int{0}},
		{"\n", []int{0, 1}},
		{"a\nb", []int{0, 2}},
		{"a\nb\n", []int{0, 2, 4}},
		{"\r\n\r\n", []int{0, 2, 4}},
		{"\n\n\n", []int{0, 1, 2, 3}},
		{"no\rbreak", []int{0}},
	}
	for _, tt := range tests {
		l := newLineIndex([]byte(tt.src))
		if !slices.Equal(l.starts, tt.starts) {
			t.Errorf("newLineIndex(%q).starts = %v, want %v", tt.src, l.starts, tt.starts)
		}
	}
}

// TestLineIndexPosNear holds posNear, from every hint, to the position
// counted by hand at every offset (and one past each end), and line to
// the last start at or before the offset.
func TestLineIndexPosNear(t *testing.T) {
	for _, src := range []string{"", "a", "\n", "a\nb", "a\nb\n", "\n\n\n", "ab\n\ncd\nefg\n\n"} {
		l := newLineIndex([]byte(src))
		for off := -1; off <= len(src)+1; off++ {
			c := max(0, min(off, len(src)))
			ln := strings.Count(src[:c], "\n")
			want := Pos{Line: ln, Col: c - (strings.LastIndexByte(src[:c], '\n') + 1), Offset: c}
			if got := l.line(c); got != ln {
				t.Errorf("%q: line(%d) = %d, want %d", src, c, got, ln)
			}
			for hint := -1; hint <= len(l.starts)+1; hint++ {
				h := hint
				if got := l.posNear(off, &h); got != want || h != ln {
					t.Errorf("%q: posNear(%d, %d) = %+v (line %d), want %+v", src, off, hint, got, h, want)
				}
			}
		}
	}
}

// TestLineIndexCol compares col with counting runes from the line's start,
// at every offset, on ASCII, multi-byte and invalid UTF-8, across more
// than one runeStride.
func TestLineIndexCol(t *testing.T) {
	long := strings.Repeat("[[Zielnotiz]] é ", 200)
	for name, src := range map[string]string{
		"empty":      "",
		"ascii":      "ab\ncd\n\nxyz",
		"multibyte":  "é\nüñï😀x\n日本語 [[a]]",
		"invalid":    "a\xe2\x82b\xff\xfe\nc\x80\x80d\xf0\x9f",
		"long line":  long,
		"long lines": long + "\n" + long + "\nö" + long,
		"ascii long": strings.Repeat("[[Target]]", 300),
	} {
		l := newLineIndex([]byte(src))
		for off := 0; off <= len(src); off++ {
			p := l.pos(off)
			want := utf8.RuneCountInString(src[off-p.Col : off])
			if got := l.col(off); got != want {
				t.Fatalf("%s: col(%d) = %d, want %d", name, off, got, want)
			}
		}
	}
}
