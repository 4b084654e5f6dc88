//go:build unix

package criterion

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used, user and system: on a
// shared machine it is what a benchmark costs, whatever else runs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
