package hugepage

import "syscall"

// advised: Linux takes the advice (transparent_hugepage "madvise" or
// "always"; "never" ignores it).
const advised = true

// advise asks for huge pages in the aligned part of [p, p+n); a failure
// (an old kernel, THP compiled out) leaves the memory as it was, in
// small pages.
func advise(p, n uintptr) {
	if lo, hi := span(p, n); hi > lo {
		syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, syscall.MADV_HUGEPAGE)
	}
}
