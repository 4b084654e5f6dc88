//go:build !unix

package lsp

import "time"

// cpuTime is not measured here: the benchmarks report zero.
func cpuTime() time.Duration { return 0 }
