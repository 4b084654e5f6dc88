package addrspace

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// Room is the address space the process may still map: its RLIMIT_AS
// less /proc's VmSize, 0 when that cannot be read, and Unlimited without
// a limit.
func Room() uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil || lim.Cur == Unlimited {
		return Unlimited
	}
	used, err := Mapped()
	if err != nil || used >= lim.Cur {
		return 0
	}
	return lim.Cur - used
}

// Mapped is the address space the process maps, in bytes: VmSize, the
// first field of /proc/self/statm.
func Mapped() (uint64, error) {
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
