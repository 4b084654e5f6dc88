package main

import (
	"os"
	"runtime/debug"
)

// tuneGC lets the heap grow to five times the live data (GOGC=400) under
// a 768 MiB soft limit, unless the user set GOGC or GOMEMLIMIT. zk runs
// for a fraction of a second and allocates mostly short-lived parse
// results, so at Go's default the collector ran through a quarter of a
// cold check: on 10,000 notes (2 cores) cold 303 → 255 ms and an unchanged
// check 37 → 25 ms. The limit keeps a 100,000-note vault under the
// 1 GiB budget: near it the collector works harder instead of the heap
// growing.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(768 << 20)
	}
}
