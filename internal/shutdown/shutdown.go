// Package shutdown lets a write that must finish hold off the exit that
// follows a signal: the front end that catches the signal waits (Wait)
// for every hold (Hold) taken in the context it handed down, for a
// bounded time. The use case that records an interrupted run holds it;
// the front end decides how long to wait.
package shutdown

import (
	"context"
	"sync"
	"time"
)

// Holds counts the writes that must finish before the process stops on a
// signal.
type Holds struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed when n drops to 0; nil while n is 0
	done bool          // Done was called
}

type holdsKey struct{}

// WithHolds returns ctx carrying a new Holds, which Hold in any context
// derived from it counts into.
func WithHolds(ctx context.Context) (context.Context, *Holds) {
	h := &Holds{}
	return context.WithValue(ctx, holdsKey{}, h), h
}

// Hold delays the exit that follows a signal until the returned release
// is called (or the front end's Wait gives up). Without Holds in ctx it
// holds nothing.
func Hold(ctx context.Context) (release func()) {
	h, _ := ctx.Value(holdsKey{}).(*Holds)
	if h == nil {
		return func() {}
	}
	h.mu.Lock()
	if h.n == 0 {
		h.zero = make(chan struct{})
	}
	h.n++
	h.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			if h.n--; h.n == 0 {
				close(h.zero)
				h.zero = nil
			}
		})
	}
}

// Wait returns once nothing is held, or after at most d.
func (h *Holds) Wait(d time.Duration) {
	h.mu.Lock()
	zero := h.zero
	h.mu.Unlock()
	if zero == nil {
		return
	}
	select {
	case <-zero:
	case <-time.After(d):
	}
}

// Done says the command's change is made (a move's files moved, its
// journal removed): a signal that lands after it stops nothing the
// command was doing, and the front end reports the command's result,
// not an interruption. Without Holds in ctx it does nothing.
func Done(ctx context.Context) {
	if h, _ := ctx.Value(holdsKey{}).(*Holds); h != nil {
		h.mu.Lock()
		h.done = true
		h.mu.Unlock()
	}
}

// Done reports whether Done was called in a context carrying h.
func (h *Holds) Done() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.done
}
