//go:build unix

package vault

import (
	"syscall"
	"time"
)

// mkfifo makes a named pipe, a file Files must leave out.
func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }

// cpuTime is the CPU time (user and system) the process has used: on a
// machine shared with other work, a walk's cost where wall time measures
// the queue for the cores too.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
