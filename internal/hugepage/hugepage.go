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
func Make[T any](n int) []T {
	s := make([]T, n)
	var zero T
	if size := uintptr(n) * unsafe.Sizeof(zero); size >= Size {
		advise(uintptr(unsafe.Pointer(unsafe.SliceData(s))), size)
	}
	return s
}

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
