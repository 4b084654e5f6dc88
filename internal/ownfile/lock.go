//go:build unix || windows

package ownfile

import (
	"context"
	"os"
	"time"
)

// Lock opens rel (as OpenFile does, creating it) and takes an exclusive
// advisory lock on it, waiting up to timeout (0: not at all); ErrBusy
// when another process holds it past then. The system drops the lock of
// a process that dies, so a killed zk never leaves one behind.
func Lock(root *os.Root, rel string, timeout time.Duration) (unlock func(), err error) {
	return LockContext(context.Background(), root, rel, timeout)
}

// LockContext is Lock, giving up with ctx's error when ctx is done while
// it waits: an interrupted command does not sit out another zk's lock.
// It is zk's one loop that takes a file lock, so that every lock file zk
// keeps, in a vault or in an index folder, is opened as OpenFile opens
// it: never through a symlink (a vault's .zk/runs/due.lock linked to the
// user's journal key had zk create and lock that), never a FIFO (which
// hung the command).
func LockContext(ctx context.Context, root *os.Root, rel string, timeout time.Duration) (unlock func(), err error) {
	f, err := OpenFile(root, rel, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	for {
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		if held {
			return func() {
				unlockFile(f)
				f.Close()
			}, nil
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, ErrBusy
		}
		t := time.NewTimer(10 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}
