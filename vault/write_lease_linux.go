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
	fd := f.Fd()
	_, err := unix.FcntlInt(fd, unix.F_SETLEASE, unix.F_RDLCK)
	switch {
	case err == nil:
		return func() { unix.FcntlInt(fd, unix.F_SETLEASE, unix.F_UNLCK) }, false
	case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EBUSY):
		return func() {}, true
	}
	return func() {}, false
}

// writeLease is a write lease on the note zk is about to write: Linux
// grants one only while no other descriptor has the file open, and while
// it is held any program that opens the note (to save it) waits until zk
// releases it. Without it an editor's truncate could land between zk's
// last check and its pwrite, and the pwrite would then write the date past
// the end of the editor's shorter text, leaving a hole of zero bytes: the
// torn note TestEditNoteRace once read back.
type writeLease struct {
	fd   uintptr
	held bool
}

// leaseWrite takes a write lease on f. busy reports another descriptor
// open on the note (a save under way, or a program holding it open);
// where no lease can be had at all the lease is a no-op, as on other
// systems.
func leaseWrite(f *os.File) (l writeLease, busy bool) {
	if testOnlyNoLease {
		return writeLease{}, false
	}
	fd := f.Fd()
	_, err := unix.FcntlInt(fd, unix.F_SETLEASE, unix.F_WRLCK)
	switch {
	case err == nil:
		return writeLease{fd: fd, held: true}, false
	case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EBUSY):
		return writeLease{}, true
	}
	return writeLease{}, false
}

// broken reports a program waiting to open the leased file: its open
// began after zk took the lease and proceeds, on this same file, once zk
// releases it.
func (l writeLease) broken() bool {
	if !l.held {
		return false
	}
	kind, err := unix.FcntlInt(l.fd, unix.F_GETLEASE, 0)
	return err == nil && kind != unix.F_WRLCK
}

func (l writeLease) release() {
	if l.held {
		unix.FcntlInt(l.fd, unix.F_SETLEASE, unix.F_UNLCK)
	}
}
