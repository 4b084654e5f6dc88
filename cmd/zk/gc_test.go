package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
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

// The first collection waits for a heap of 64 MB (firstGCPercent), then
// the percent is 400 again: a reading command of a cached 10,000-note
// vault collected once, at 16 MB, only to free a few.
func TestFirstCollectionComesLater(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "x") // leave the soft limit alone
	oldPercent := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(oldPercent) })
	gcFirst, gcFirstDone = sync.Once{}, atomic.Bool{}

	tuneGC(heapLimit)
	if p := debug.SetGCPercent(firstGCPercent); p != firstGCPercent {
		t.Fatalf("GOGC before the first collection %d, want %d", p, firstGCPercent)
	}
	var got int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		runtime.GC()
		if gcFirstDone.Load() {
			got = debug.SetGCPercent(gcPercent)
			break
		}
	}
	if got != gcPercent {
		t.Fatalf("GOGC after the first collection %d, want %d", got, gcPercent)
	}
	tuneGC(streamHeapLimit) // a command's own call after it keeps 400
	if p := debug.SetGCPercent(gcPercent); p != gcPercent {
		t.Errorf("GOGC after a second tuneGC %d, want %d", p, gcPercent)
	}
}
