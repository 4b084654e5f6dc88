//go:build linux

package vault

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// leaseRead takes a read lease on f, a note opened for reading. Linux
// grants one only while no process has the file open for writing, which
// is what a truncate-then-write save under way looks like from outside,
// however long it stalls: writing reports that. While the lease is held,
// a program that opens the note for writing waits (the kernel breaks the
// lease and tells zk with SIGIO, which Go ignores unless asked) until
// release, so a read under the lease is never torn by a save that starts
// during it. Where no lease can be had (another user's file, a file
// system without leases) release does nothing and writing is false: the
// quiet window and the checks before the write guard alone, as elsewhere.
func leaseRead(f *os.File) (release func(), writing bool) {
	fd := int(f.Fd())
	_, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_RDLCK)
	switch {
	case err == nil:
		return func() { unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_UNLCK) }, false
	case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EBUSY):
		return func() {}, true
	}
	return func() {}, false
}
