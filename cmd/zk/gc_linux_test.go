package main

import (
	"math"
	"runtime/debug"
	"syscall"
	"testing"

	"github.com/zk-claims/zk/internal/addrspace"
)

// TestSoftLimitKeepsToTheAddressLimit: under an RLIMIT_AS leaving 1 GiB
// to map, the soft limit is at most half of it, not the 2 GiB every
// command asks for, and raiseLimit keeps to that too: Go does not look at
// the limit, and a heap grown into it dies with "out of memory" (zk graph
// on a hostile vault under prlimit --as=4000000000).
func TestSoftLimitKeepsToTheAddressLimit(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &old); err != nil {
		t.Skip(err)
	}
	used, err := addrspace.Mapped()
	if err != nil {
		t.Skip(err)
	}
	lim := syscall.Rlimit{Cur: used + 1<<30, Max: old.Max}
	if lim.Cur > old.Cur {
		t.Skipf("the test runs under a tighter limit already (%d MiB)", old.Cur>>20)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		t.Skip(err)
	}
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		syscall.Setrlimit(syscall.RLIMIT_AS, &old)
		gcFloor.Store(math.MaxInt64) // the hook stays installed: make it a no-op
		gcCeiling.Store(math.MaxInt64)
		debug.SetMemoryLimit(oldLimit)
		debug.SetGCPercent(oldPercent)
	})

	tuneGC(heapLimit)
	if got := debug.SetMemoryLimit(-1); got > 1<<29 {
		t.Errorf("soft limit %d MiB with 1 GiB of address space left; want at most 512", got>>20)
	}
	gcFloor.Store(heapLimit) // as if the live heap called for more
	raiseLimit()
	if got := debug.SetMemoryLimit(-1); got > 1<<29 {
		t.Errorf("raiseLimit set %d MiB with 1 GiB of address space left; want at most 512", got>>20)
	}
}

func TestHeapCeiling(t *testing.T) {
	for _, tc := range []struct {
		room uint64
		want int64
	}{
		{addrspace.Unlimited, math.MaxInt64},
		{4 << 30, 2 << 30},
		{0, 64 << 20}, // unreadable: a floor, not a limit of nothing
	} {
		if got := heapCeiling(tc.room); got != tc.want {
			t.Errorf("heapCeiling(%d) = %d, want %d", tc.room, got, tc.want)
		}
	}
}
