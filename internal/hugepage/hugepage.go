// Package hugepage makes large slices whose memory the system may back
// with huge pages.
//
// A page of memory first touched costs a page fault, and on a virtual
// machine whose faults trap to the host (PVM) that is about 6 us of CPU a
// 4 KiB page: an array of 100,000 entries of 192 bytes (19 MB, zk base's
// entries at 100,000 notes) cost 50 ms to fault in, 8-19 ms in 2 MiB
// pages. Linux gives a process huge pages only where it asks
// (transparent_hugepage "madvise", the common default), and Go's heap
// does not ask since Go 1.21.1, so a slice of many megabytes made here
// asks for its own range.
package hugepage

import "unsafe"

// Size is a huge page's size (x86-64's and arm64's usual 2 MiB); a slice
// is advised in the 2 MiB-aligned ranges wholly inside it.
const Size = 2 << 20

// Make is make([]T, n), the whole 2 MiB-aligned ranges inside its memory
// advised to be backed by huge pages before anything touches them. The
// memory is Go's like any other slice's (moved never, collected as
// ever); a system without transparent huge pages ignores the advice.
//
// A slice of 1 to a few MiB rarely holds a whole aligned range (1.9 MB of
// entries at 10,000 notes holds none), so where the advice is taken such
// a slice is cut from a larger one at its first 2 MiB boundary, its end
// rounded up to the next: the memory before the boundary and past the
// end is never touched, and costs address space, not pages.
func Make[T any](n int) []T {
	var zero T
	sz := unsafe.Sizeof(zero)
	size := uintptr(n) * sz
	if !advised || sz == 0 || size < minAligned {
		return make([]T, n)
	}
	extra := (Size + (size+Size-1)&^(Size-1) - size + sz - 1) / sz
	s := make([]T, uintptr(n)+extra)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	advise(p, uintptr(len(s))*sz)
	k := ((p+Size-1)&^(Size-1) - p + sz - 1) / sz // the first element at or past the boundary
	return s[k : k+uintptr(n) : k+uintptr(n)]
}

// minAligned is the least slice Make cuts at a huge page's boundary.
const minAligned = 1 << 20

// span is the 2 MiB-aligned range wholly inside [p, p+n), empty when
// there is none.
func span(p, n uintptr) (lo, hi uintptr) {
	lo = (p + Size - 1) &^ (Size - 1)
	hi = (p + n) &^ (Size - 1)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}
