package hugepage

import (
	"testing"
	"unsafe"
)

// TestSpan: the advised range is the 2 MiB-aligned part wholly inside
// the slice's memory, never past either end, and empty when none is.
func TestSpan(t *testing.T) {
	for _, c := range []struct{ p, n, lo, hi uintptr }{
		{0, 4 * Size, 0, 4 * Size},
		{Size + 8192, 3 * Size, 2 * Size, 4 * Size},
		{Size + 8192, Size, 2 * Size, 2 * Size}, // no whole huge page inside
		{8192, Size - 8192, Size, Size},
		{Size, 2*Size - 1, Size, 2 * Size},
	} {
		lo, hi := span(c.p, c.n)
		if lo != c.lo || hi != c.hi {
			t.Errorf("span(%#x, %#x) = %#x, %#x; want %#x, %#x", c.p, c.n, lo, hi, c.lo, c.hi)
		}
		if hi > lo && (lo < c.p || hi > c.p+c.n) {
			t.Errorf("span(%#x, %#x) = %#x, %#x: outside the memory", c.p, c.n, lo, hi)
		}
	}
}

// TestMake: a slice as make makes it, of every length, zeroed and
// writable, a large one too.
func TestMake(t *testing.T) {
	for _, n := range []int{0, 1, 1000, minAligned/8 - 1, minAligned / 8, 3 * Size / 8} {
		s := Make[uint64](n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("Make(%d): len %d cap %d", n, len(s), cap(s))
		}
		for i := range s {
			if s[i] != 0 {
				t.Fatalf("Make(%d)[%d] = %d, not zero", n, i, s[i])
			}
			s[i] = uint64(i)
		}
		for i := range s {
			if s[i] != uint64(i) {
				t.Fatalf("Make(%d)[%d] = %d after writing %d", n, i, s[i], i)
			}
		}
	}
}

// TestMakeAligned: where huge pages are asked for, a slice of 1 MiB or
// more starts at a huge page's boundary (its elements of 8 bytes), so
// that its memory is in whole huge pages.
func TestMakeAligned(t *testing.T) {
	if !advised {
		t.Skip("no huge pages asked for here")
	}
	for _, n := range []int{minAligned / 8, 3 * Size / 8, 5*Size/8 + 3} {
		s := Make[uint64](n)
		if p := uintptr(unsafe.Pointer(unsafe.SliceData(s))); p%Size != 0 {
			t.Errorf("Make(%d) starts at %#x, not a huge page's boundary", n, p)
		}
	}
}
