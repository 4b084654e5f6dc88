package main

import (
	"os"
	"runtime/debug"
)

// tuneGC lets the heap grow to five times the live data (GOGC=400) unless
// the user set GOGC. zk runs for a fraction of a second and allocates
// mostly short-lived parse results, so at Go's default the collector ran
// through a quarter of a cold check: on 10,000 notes (2 cores) cold
// 303 → 251 ms and an unchanged check 37 → 25 ms.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

// capHeap adds a 768 MiB soft memory limit, unless the user set
// GOMEMLIMIT, for the commands that stream notes (check, index, search)
// and so keep a live heap well under it (about 250 MB at 100,000 notes):
// near the limit the collector works harder instead of the heap growing,
// which kept a cold check of 100,000 notes at 777 MiB instead of 939.
// Commands that hold every parsed note (stale, graph, links: 1.5 GB live
// at 100,000) must not have it: under a limit below the live heap the
// collector never stops, and zk stale went from 3.4 s to 8.9–15.6 s.
func capHeap() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(768 << 20)
	}
}
