//go:build unix

package ownfile

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// Lock opens rel (as OpenFile does, creating it) and takes an exclusive
// advisory lock on it, waiting up to timeout (0: not at all); ErrBusy
// when another process holds it past then. The kernel drops the lock of
// a process that dies, so a killed zk never leaves one behind.
func Lock(root *os.Root, rel string, timeout time.Duration) (unlock func(), err error) {
	f, err := OpenFile(root, rel, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(fd, syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, ErrBusy
		}
		time.Sleep(10 * time.Millisecond)
	}
}
