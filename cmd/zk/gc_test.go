package main

import (
	"crypto/sha256"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zk-claims/zk/checkcache"
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
	freshFirstGC(t)

	tuneGC(heapLimit)
	if p := debug.SetGCPercent(firstGCPercent); p != firstGCPercent {
		t.Fatalf("GOGC before the first collection %d, want %d", p, firstGCPercent)
	}
	if got := percentAfterFirstGC(); got != gcPercent {
		t.Fatalf("GOGC after the first collection %d, want %d", got, gcPercent)
	}
	tuneGC(streamHeapLimit) // a command's own call after it keeps 400
	if p := debug.SetGCPercent(gcPercent); p != gcPercent {
		t.Errorf("GOGC after a second tuneGC %d, want %d", p, gcPercent)
	}
}

// A forced collection (hugepage.Heap's, readying a cold run's heap) is
// not the first: the 64 MB wait goes on to one the heap's growth starts.
func TestForcedCollectionIsNotTheFirst(t *testing.T) {
	freshFirstGC(t)
	gcSink = nil
	runtime.GC() // a collection the last test's garbage started ends here, before the arming

	tuneGC(heapLimit)
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // for the finalizer, which runs on its own goroutine
	}
	if p := debug.SetGCPercent(firstGCPercent); p != firstGCPercent || gcFirstDone.Load() {
		t.Fatalf("after forced collections: GOGC %d, first collection done %v; want %d, false", p, gcFirstDone.Load(), firstGCPercent)
	}
	if got := percentAfterFirstGC(); got != gcPercent {
		t.Fatalf("GOGC after a collection of the heap's growth %d, want %d", got, gcPercent)
	}
}

// freshFirstGC gives a test the collector as a process starts it: GOGC
// unset, percent 100, the first collection not yet armed, and GOMEMLIMIT
// set so that tuneGC leaves the soft limit alone; the percent is
// restored after.
func freshFirstGC(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "x")
	oldPercent := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(oldPercent) })
	gcFirst, gcFirstDone = sync.Once{}, atomic.Bool{}
}

// percentAfterFirstGC allocates garbage until a collection the heap's
// growth started has run the first collection's finalizer (10 s at
// most), and says the percent it left, 0 if it never ran.
func percentAfterFirstGC() int {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		for range 16 {
			gcSink = make([]byte, 1<<20)
		}
		if gcFirstDone.Load() {
			p := debug.SetGCPercent(gcPercent)
			debug.SetGCPercent(p)
			return p
		}
	}
	return 0
}

// gcSink keeps percentAfterFirstGC's garbage from being optimised away.
var gcSink []byte

// The first collection's goal grows with the vault, 2 KiB a file, from
// 64 MB up to the soft limit: a reading command on a cached 100,000-note
// vault (166 MB allocated at most) does not collect, one on 10,000 notes
// keeps 64 MB.
func TestFirstGCGoal(t *testing.T) {
	for _, c := range []struct {
		files int
		limit int64
		want  int64
	}{
		{0, heapLimit, 64 << 20},                  // no model file: 64 MB
		{10_000, streamHeapLimit, 64 << 20},       // 20 MB a vault: still 64
		{32_768, streamHeapLimit, 64 << 20},       // where 2 KiB a file meets 64 MB
		{32_769, streamHeapLimit, 64<<20 + 2<<10}, // past it, 2 KiB a file
		{100_000, streamHeapLimit, 100_000 << 11}, // 195 MiB
		{100_000, 0, 100_000 << 11},               // no limit (GOMEMLIMIT set): none applies
		{1_000_000, streamHeapLimit, streamHeapLimit},
		{1_000_000, heapLimit, 1_000_000 << 11},
		{10_000_000, heapLimit, heapLimit},
		{10_000, 32 << 20, 32 << 20}, // a limit under 64 MB wins
	} {
		if got := firstGCGoal(c.files, c.limit); got != c.want {
			t.Errorf("firstGCGoal(%d files, limit %d MiB) = %d, want %d", c.files, c.limit>>20, got, c.want)
		}
	}
}

// sizeFirstGC sets the percent whose first goal is firstGCGoal's for the
// files the vault's model file stamps, and leaves it alone without a model
// file or once the first collection has run.
func TestSizeFirstGC(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	oldPercent := debug.SetGCPercent(firstGCPercent)
	t.Cleanup(func() { debug.SetGCPercent(oldPercent); gcFirstDone.Store(false) })
	oldFloor := gcFloor.Swap(streamHeapLimit)
	t.Cleanup(func() { gcFloor.Store(oldFloor) })
	gcFirstDone.Store(false)

	dir := t.TempDir()
	sizeFirstGC(dir)
	if p := debug.SetGCPercent(firstGCPercent); p != firstGCPercent {
		t.Errorf("GOGC without a model file %d, want %d", p, firstGCPercent)
	}

	file, err := checkcache.ModelFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	stamps := make([]checkcache.Stamp, 50_000)
	for i := range stamps {
		stamps[i] = checkcache.Stamp{Path: fmt.Sprintf("n%06d.md", i), Size: 1, ModTime: 1}
	}
	if err := checkcache.SaveModel(file, nil, checkcache.Update{Stamps: stamps,
		Sections: []checkcache.Section{{Name: "list", Hashes: make([][sha256.Size]byte, len(stamps)), Entries: [][]byte{nil}}}}); err != nil {
		t.Fatal(err)
	}
	sizeFirstGC(dir)
	want := int((firstGCGoal(len(stamps), streamHeapLimit)*100 + heapMinimum - 1) / heapMinimum)
	if p := debug.SetGCPercent(firstGCPercent); p != want || want <= firstGCPercent {
		t.Errorf("GOGC with a model file of %d files %d, want %d (over %d)", len(stamps), p, want, firstGCPercent)
	}

	gcFirstDone.Store(true)
	sizeFirstGC(dir)
	if p := debug.SetGCPercent(firstGCPercent); p != firstGCPercent {
		t.Errorf("GOGC after the first collection %d, want %d left alone", p, firstGCPercent)
	}
}
