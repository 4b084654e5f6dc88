//go:build !unix

package vault

import (
	"errors"
	"time"
)

// mkfifo makes a named pipe where the system has them.
func mkfifo(string) error { return errors.New("no named pipes on this system") }

// cpuTime is not measured here: the benchmarks report wall time only.
func cpuTime() time.Duration { return 0 }
