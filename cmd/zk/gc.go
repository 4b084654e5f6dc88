package main

import (
	"os"
	"runtime/debug"
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
// growing.
//
// zk runs for a fraction of a second and allocates mostly short-lived parse
// results, so at Go's default the collector ran through a quarter of a cold
// check: on 10,000 notes (2 cores) cold 303 → 251 ms, an unchanged check
// 37 → 25 ms, zk stale 368 → 330 ms. The limit is what keeps memory in
// bounds at 100,000 notes: a cold check peaked at 777 MiB under 768 MiB
// (939 without), zk graph, when it held every parsed note, at 2.1 GB in
// 4.4 s under 2 GiB (default GC 2.8 GB in 5.6 s; GOGC=400 alone 3.7 GB).
// The limit must stay above the live heap, or the collector never stops:
// under 768 MiB zk stale, when it still held every note (over 1 GB at
// 100,000), took 9–16 s instead of 4.
func tuneGC(limit int64) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
	}
}
