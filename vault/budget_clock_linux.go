package vault

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// threadClocks says a parse's budget is counted in the CPU time of the
// thread it runs on, not in wall time.
const threadClocks = true

// parseClock is the CPU clock of the thread a guarded parse runs on,
// locked to it so that the clock counts that parse alone.
type parseClock struct {
	id    int32 // the thread's CPU clock (clock_gettime), valid when ok
	start time.Duration
	ok    bool
}

// startParseClock locks the calling goroutine to its thread and starts
// counting that thread's CPU time. stop unlocks it.
func startParseClock() parseClock {
	runtime.LockOSThread()
	// The kernel's clock id of one thread's CPU time (CPUCLOCK_SCHED,
	// per thread): readable from any thread of the process.
	id := int32(^uint32(unix.Gettid())<<3 | 6)
	var ts unix.Timespec
	if unix.ClockGettime(id, &ts) != nil {
		return parseClock{}
	}
	return parseClock{id: id, start: time.Duration(ts.Nano()), ok: true}
}

func (c parseClock) stop() { runtime.UnlockOSThread() }

// used is the CPU time the parse has spent; ok is false when the thread's
// clock cannot be read (then the budget is wall time, as elsewhere).
func (c parseClock) used() (time.Duration, bool) {
	if !c.ok {
		return 0, false
	}
	var ts unix.Timespec
	if unix.ClockGettime(c.id, &ts) != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()) - c.start, true
}
