package hugepage

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

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

// addressRoom is how much more address space the process may map under
// its RLIMIT_AS (prlimit --as, ulimit -v): the limit less /proc's VmSize,
// 0 when that cannot be read, and the most a uint64 holds without a
// limit. Go reserves far more address space than it uses (a cold check
// of obsidian-hub needed between 1.4 and 2 GB of it for a 93 MB heap),
// so a slice of 256 MiB made under a 2 GB limit was Go's fatal "out of
// memory" where the same check without it ran.
func addressRoom() uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil || lim.Cur == ^uint64(0) {
		return ^uint64(0)
	}
	used, err := mapped()
	if err != nil || used >= lim.Cur {
		return 0
	}
	return lim.Cur - used
}

// mapped is the address space the process maps, in bytes: VmSize, the
// first field of /proc/self/statm.
func mapped() (uint64, error) {
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, err
	}
	size, _, _ := bytes.Cut(statm, []byte(" "))
	pages, err := strconv.ParseUint(string(size), 10, 64)
	if err != nil {
		return 0, err
	}
	return pages * uint64(os.Getpagesize()), nil
}
