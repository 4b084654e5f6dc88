package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Soft memory limits (see tuneGC).
const (
	// heapLimit is every command's.
	heapLimit = 2 << 30
	// streamHeapLimit is for the commands that stream notes (check,
	// stale, index, search), whose live heap stays under 500 MB at
	// 100,000 notes.
	streamHeapLimit = 768 << 20
)

// tuneGC trades memory for time, unless the user set GOGC or GOMEMLIMIT:
// the heap may grow to five times the live data (GOGC=400) under a soft
// limit, near which the collector works harder instead of the heap
// growing; the limit follows the live heap up (see raiseLimit).
//
// zk runs for a fraction of a second and allocates mostly short-lived parse
// results, so at Go's default the collector ran through a quarter of a cold
// check: on 10,000 notes (2 cores) cold 303 → 251 ms, an unchanged check
// 37 → 25 ms, zk stale 368 → 330 ms. The limit is what keeps memory in
// bounds at 100,000 notes: a cold check peaked at 777 MiB under 768 MiB
// (939 without), zk graph, when it held every parsed note, at 2.1 GB in
// 4.4 s under 2 GiB (default GC 2.8 GB in 5.6 s; GOGC=400 alone 3.7 GB).
//
// The first collection waits longer: Go starts the heap's goal at 4 MB
// times GOGC/100, 16 MB at 400, which every reading command passed once
// on a cached 10,000-note vault (a collection of 11-15 MB live, most of
// them the cache just decoded, to free a few MB). Until the first
// collection the percent is firstGCPercent (a goal of 64 MB), then 400:
// a command that allocates more is collected as before.
func tuneGC(limit int64) {
	if os.Getenv("GOGC") == "" {
		if gcFirstDone.Load() {
			debug.SetGCPercent(gcPercent)
		} else {
			debug.SetGCPercent(firstGCPercent)
			gcFirst.Do(func() { afterFirstGC(gcPercent) })
		}
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		gcFloor.Store(limit)
		debug.SetMemoryLimit(limit)
		gcHook.Do(func() { afterEachGC(raiseLimit) })
	}
}

// The collector's percent (GOGC) after the first collection, and before.
const (
	gcPercent      = 400
	firstGCPercent = 1600
)

// afterFirstGC sets the collector's percent once the first collection
// has run, from the finalizer of an object that collection frees.
func afterFirstGC(percent int) {
	type sentinel struct{ _ [64]byte } // past the tiny allocator, whose objects may never be finalized
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		gcFirstDone.Store(true)
		if os.Getenv("GOGC") == "" {
			debug.SetGCPercent(percent)
		}
	})
}

// gcFirst arms afterFirstGC once; gcFirstDone says it ran.
var (
	gcFirst     sync.Once
	gcFirstDone atomic.Bool
)

// gcFloor is the soft limit tuneGC set last (main's, then the command's);
// gcHook installs raiseLimit once, however often tuneGC runs. They are
// the process's, as the collector they tune is.
var (
	gcFloor atomic.Int64
	gcHook  sync.Once
)

// raiseLimit keeps the soft limit at least twice the live heap (Go's
// default, GOGC=100) once the live heap passes half of it. Under a fixed
// limit a live heap near it kept the collector running nearly always: a
// cold zk index of a million notes lists every file first (about 500 MB
// live, 490 bytes a note) and then read its notes at 0.7 MB a CPU second
// (1.8 at 100,000 notes), RSS pinned at the 768 MiB limit; zk check's
// million-note run peaked at 3.2 GB, far past its limit.
func raiseLimit() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	live := int64(sample[0].Value.Uint64())
	debug.SetMemoryLimit(max(gcFloor.Load(), 2*live))
}

// afterEachGC runs f after every collection, from the finalizer of an
// object that each run makes again (the runtime has no other hook).
func afterEachGC(f func()) {
	type sentinel struct{ _ [64]byte } // past the tiny allocator, whose objects may never be finalized
	var arm func()
	arm = func() {
		runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
			f()
			arm()
		})
	}
	arm()
}
