package vault

import (
	"slices"
	"testing"
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
