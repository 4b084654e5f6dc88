//go:build unix

package ownfile

import (
	"errors"
	"os"
	"syscall"
)

// noFollow makes the open fail on a symlink at the path's end, and
// keeps it from blocking on a FIFO with no writer.
const noFollow = syscall.O_NOFOLLOW | nonBlock

// nonBlock keeps an open from waiting on a FIFO with no writer.
const nonBlock = syscall.O_NONBLOCK

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }

// clearNonblock puts a regular file back into blocking mode (O_NONBLOCK
// changes nothing for one, but a caller may hand it on).
func clearNonblock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var serr error
	rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) })
	return serr
}
