package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// A live heap past half the soft limit raises the limit to twice the live
// heap: under a fixed limit the collector never stopped (a million-note
// index listed 500 MB of files under a 768 MiB limit).
func TestSoftLimitFollowsLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		gcFloor.Store(math.MaxInt64) // the hook stays installed: make it a no-op
		debug.SetMemoryLimit(oldLimit)
		debug.SetGCPercent(oldPercent)
	})

	const floor, live = 16 << 20, 96 << 20
	tuneGC(floor)
	held := make([][]byte, 0, live>>20)
	for range live >> 20 {
		b := make([]byte, 1<<20)
		b[0] = 1 // touched, so the pages are real
		held = append(held, b)
	}
	// The hook runs from a finalizer after a collection: wait for it.
	var got int64
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		runtime.GC()
		if got = debug.SetMemoryLimit(-1); got >= 2*live {
			break
		}
	}
	runtime.KeepAlive(held)
	if got < 2*live {
		t.Fatalf("soft limit %d MiB with %d MiB live; want at least %d MiB", got>>20, live>>20, 2*live>>20)
	}

}
