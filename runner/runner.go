// Package runner runs a falsifier's command the way a record of it can be
// trusted: argv executed directly (no shell), no stdin, a fixed working
// directory, a timeout that kills the whole process group, and output
// streamed live while a bounded, cleaned copy of it is kept. stdout and
// stderr are kept apart: stdout is the measurement a criterion reads,
// stderr what the command said about itself (a warning, a reason to stop).
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Defaults for Command's zero fields.
const (
	DefaultTimeout   = 10 * time.Minute
	DefaultMaxLog    = 1 << 20
	DefaultTailLines = 20
	DefaultMaxLine   = 400
	// waitDelay bounds how long Wait waits for output pipes after the
	// process group is killed: a grandchild that left the group may hold
	// them open forever.
	waitDelay = 2 * time.Second
)

// ErrNoCommand is returned for an empty argv.
var ErrNoCommand = errors.New("no command to run")

// Command is what to run and where its output goes.
type Command struct {
	// Argv is the program and its arguments; Argv[0] is looked up in
	// PATH unless it holds a slash, in which case it is relative to Dir.
	Argv []string
	// Dir is the working directory.
	Dir string
	// Env is the environment; nil means this process's.
	Env []string
	// Timeout, when positive, kills the process group after it elapses;
	// zero means DefaultTimeout.
	Timeout time.Duration
	// Live receives stdout and stderr as they come (the terminal); may be
	// nil.
	Live io.Writer
	// Log receives stdout as it comes, up to MaxLog bytes; ErrLog stderr,
	// up to MaxLog bytes of its own. Either may be nil.
	Log    io.Writer
	ErrLog io.Writer
	MaxLog int64
	// TailLines and MaxLine bound the lines kept in Result.Tail and
	// Result.ErrTail.
	TailLines int
	MaxLine   int
}

// Result is what happened.
type Result struct {
	Started  time.Time
	Duration time.Duration
	// Exit is the exit code, or -1 when the process did not exit by
	// itself (killed, timed out) or never started.
	Exit int
	// Signal names the signal that ended the process, if one did.
	Signal string
	// TimedOut: the timeout killed it. Interrupted: the caller's context
	// ended first (Ctrl-C).
	TimedOut    bool
	Interrupted bool
	// StartErr is why the command could not start.
	StartErr error
	// Lines and Bytes count stdout; Tail holds its last lines, cleaned
	// (see Clean).
	Lines int
	Bytes int64
	Tail  []string
	// Truncated: the log stopped at MaxLog bytes.
	Truncated bool
	// ErrLines, ErrBytes, ErrTail and ErrTruncated are the same for
	// stderr.
	ErrLines     int
	ErrBytes     int64
	ErrTail      []string
	ErrTruncated bool
}

// Run runs c and waits for it; when it exits, whatever it left running in
// its process group is killed. The error is for a failure of zk's own
// (writing the log); a command that fails, times out or cannot start is
// described in Result.
func Run(ctx context.Context, c Command) (Result, error) {
	if len(c.Argv) == 0 || c.Argv[0] == "" {
		return Result{Exit: -1}, ErrNoCommand
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	maxLog := c.MaxLog
	if maxLog <= 0 {
		maxLog = DefaultMaxLog
	}
	lines, maxLine := orDefault(c.TailLines, DefaultTailLines), orDefault(c.MaxLine, DefaultMaxLine)
	// The two pipes are copied by two goroutines: one lock keeps their
	// writes to the terminal whole.
	live := &lockedWriter{w: c.Live}
	out := &capture{live: live, log: c.Log, maxLog: maxLog, tail: newTail(lines, maxLine)}
	errOut := &capture{live: live, log: c.ErrLog, maxLog: maxLog, tail: newTail(lines, maxLine)}

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Stdin = nil // /dev/null
	cmd.Stdout = out
	cmd.Stderr = errOut
	cmd.WaitDelay = waitDelay
	inGroup(cmd)

	r := Result{Exit: -1, Started: time.Now()}
	if err := cmd.Start(); err != nil {
		r.StartErr = err
		return r, nil
	}
	err := cmd.Wait()
	r.Duration = time.Since(r.Started)
	endGroup(cmd)
	out.tail.flush()
	errOut.tail.flush()
	r.Lines, r.Bytes, r.Tail, r.Truncated = out.tail.lines, out.n, out.tail.kept(), out.truncated
	r.ErrLines, r.ErrBytes, r.ErrTail, r.ErrTruncated = errOut.tail.lines, errOut.n, errOut.tail.kept(), errOut.truncated
	if st := cmd.ProcessState; st != nil {
		r.Exit = st.ExitCode()
		r.Signal = signalOf(st)
	}
	switch {
	case ctx.Err() != nil:
		r.Interrupted = true
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		r.TimedOut = true
	}
	if r.TimedOut || r.Interrupted {
		r.Exit = -1
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) && !r.TimedOut && !r.Interrupted {
		return r, fmt.Errorf("run %s: %w", c.Argv[0], err)
	}
	if err := errors.Join(out.err, errOut.err); err != nil {
		return r, fmt.Errorf("write log: %w", err)
	}
	return r, nil
}

func orDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// lockedWriter serialises writes to w, which may be nil.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) {
	if l.w == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(p) // a closed terminal must not stop the run
}

// capture is the command's stdout, or its stderr: everything goes to live
// as it is, the first maxLog bytes to log, and the line tail is kept.
type capture struct {
	live      *lockedWriter
	log       io.Writer
	maxLog    int64
	n         int64
	truncated bool
	err       error
	tail      *tail
}

func (c *capture) Write(p []byte) (int, error) {
	c.live.Write(p)
	if c.log != nil && c.err == nil {
		room := c.maxLog - c.n
		w := p
		if int64(len(w)) > room {
			w = w[:max(room, 0)]
			c.truncated = true
		}
		if len(w) > 0 {
			_, c.err = c.log.Write(w)
		}
	}
	c.n += int64(len(p))
	c.tail.Write(p)
	return len(p), nil
}
