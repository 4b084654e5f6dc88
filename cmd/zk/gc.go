package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"

	"github.com/zk-claims/zk/checkcache"
	"github.com/zk-claims/zk/internal/addrspace"
	"github.com/zk-claims/zk/internal/hugepage"
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
// a command that allocates more is collected as before. Once the vault
// is known, sizeFirstGC moves that goal with the vault's size.
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
		ceiling := heapCeiling(addrspace.Room())
		gcCeiling.Store(ceiling)
		limit = min(limit, ceiling)
		gcFloor.Store(limit)
		debug.SetMemoryLimit(limit)
		gcHook.Do(func() { afterEachGC(raiseLimit) })
	}
}

// heapCeiling is the highest soft limit for a process that may map room
// more bytes of address space (addrspace.Room): half of it, the rest
// left to Go's reservations beside the heap, the model file's and the
// index's mappings, and stacks. Go does not look at RLIMIT_AS: under
// prlimit --as=4000000000, zk graph's heap grew to 1.7 GB of its 2 GiB
// limit on a hostile vault and the process died with "out of memory",
// where collecting sooner would have kept it in bounds. It is never
// under 64 MiB: room is 0 where /proc cannot be read, and a limit of 0
// would keep the collector running.
func heapCeiling(room uint64) int64 {
	return int64(min(max(room/2, 64<<20), math.MaxInt64))
}

// The collector's percent (GOGC) after the first collection, and before.
const (
	gcPercent      = 400
	firstGCPercent = 1600
)

// firstGoalPerFile is the first collection's goal for each file of the
// vault (firstGCGoal): a reading command on a cached vault allocates at
// most 1.7 KB a file in all (zk base after one edit, 166 MB at 100,000
// notes, 16 MB at 10,000; zk properties 0.5-0.7 KB), so under 2 KiB a
// file none collects. Under a fixed 64 MB goal, each of them but
// properties, backlinks and links collected once at 100,000 notes, near
// its end, 23-49 MB of it live and no more than 45 MB freed: the mark
// cost 20-480 ms of CPU (zk properties after one edit 566 -> 670 ms when
// the goal was passed with 49 MB live, not 40).
const firstGoalPerFile = 2 << 10

// firstGCGoal is the heap the first collection waits for, in bytes, in a
// vault of files files (0: not known) under the soft limit limit (0 or
// less: none): 2 KiB a file (firstGoalPerFile), never less than
// firstGCPercent's 64 MB nor more than the limit. Memory stays linear in
// the vault: before the first collection the heap is at most the larger
// of 64 MB and 2 KiB a file (195 MiB at 100,000 files), and the soft
// limit, where the collector runs whatever the goal, caps it; after it,
// five times the live heap (GOGC=400), under the limit.
func firstGCGoal(files int, limit int64) int64 {
	goal := max(heapMinimum*firstGCPercent/100, int64(files)*firstGoalPerFile)
	if limit > 0 {
		goal = min(goal, limit)
	}
	return goal
}

// heapMinimum is Go's first heap goal at GOGC=100: the first goal is
// heapMinimum times GOGC/100.
const heapMinimum = 4 << 20

// sizeFirstGC sets the first collection's goal for the vault at dir from
// the files its model file stamps (firstGCGoal), read from its header
// before any command reads the file. Without a model file the run is cold
// and will parse every note: the goal stays 64 MB, and coldHeap of the
// heap is readied for huge pages (hugepage.Heap) before the walk and the
// parse allocate anything; the collection that takes is forced, which
// the first collection's wait does not count (afterFirstGC). Nothing
// changes once a collection has run (a long-lived server's later
// opening) or, but for the huge pages, when the user set GOGC.
func sizeFirstGC(dir string) {
	if gcFirstDone.Load() {
		return
	}
	files, err := modelFiles(dir)
	if err != nil {
		hugepage.Heap(coldHeap)
		return
	}
	if os.Getenv("GOGC") != "" {
		return
	}
	goal := firstGCGoal(files, gcFloor.Load())
	debug.SetGCPercent(int((goal*100 + heapMinimum - 1) / heapMinimum))
}

// modelFiles is how many files the vault at dir's model file stamps.
func modelFiles(dir string) (int, error) {
	file, err := checkcache.ModelFile(dir)
	if err != nil {
		return 0, err
	}
	return checkcache.ModelFiles(file)
}

// coldHeap is how much of the heap a cold run readies for huge pages
// (hugepage.Heap holds it to half the soft limit): a cold check grew its
// heap to 93 MB on obsidian-hub (15 MB of notes), 110 MB on Obsidian's
// help vault (32 MB), 120 MB on the generated 10,000-note vault (23 MB);
// past 256 MiB (100,000 notes) the rest is in small pages as before. A
// cold check's CPU, 7 alternating runs: help 1,050 -> 730 ms (22,500
// page faults -> 3,300), hub 620 -> 410, 10,000 notes 810 -> 530;
// 100,000 notes 7.1 -> 6.7 s, its peak RSS 744-772 -> 796 MB. Readied
// here, before the walk, rather than by vault.Each alone, after it, the
// walk's own objects are in huge pages too: help 800 -> 730 ms.
const coldHeap = 256 << 20

// afterFirstGC sets the collector's percent once the first collection
// has run, from the finalizer of an object that collection frees. Only
// a collection the heap's growth started counts: after one a caller
// forced (runtime.GC, hugepage.Heap's) it waits on.
func afterFirstGC(percent int) { awaitFirstGC(percent, automaticGCs()) }

// awaitFirstGC is afterFirstGC waiting for the collector to have started
// more than auto collections of its own.
func awaitFirstGC(percent int, auto uint64) {
	type sentinel struct{ _ [64]byte } // past the tiny allocator, whose objects may never be finalized
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		if automaticGCs() == auto {
			awaitFirstGC(percent, auto)
			return
		}
		gcFirstDone.Store(true)
		if os.Getenv("GOGC") == "" {
			debug.SetGCPercent(percent)
		}
	})
}

// automaticGCs is how many collections the collector started itself
// (all of them but those forced), as runtime/metrics counts them.
func automaticGCs() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/automatic:gc-cycles"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
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
	// gcCeiling is the highest limit raiseLimit may set (heapCeiling).
	gcCeiling atomic.Int64
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
	debug.SetMemoryLimit(min(max(gcFloor.Load(), 2*live), gcCeiling.Load()))
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
