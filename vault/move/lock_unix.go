//go:build unix

package move

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// errBusy: another zk process holds the journal's lock.
var errBusy = errors.New("another zk process is moving files in this vault")

// lockJournal takes the lock that a move holds from its journal's write
// to its removal, so that the next zk command does not "recover" a move
// still under way. It waits up to timeout (0: not at all).
func lockJournal(root *os.Root, timeout time.Duration) (func(), error) {
	f, err := root.OpenFile(filepath.Join(".zk", "journal", "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || !time.Now().Before(deadline) {
			f.Close()
			return nil, errBusy
		}
		time.Sleep(10 * time.Millisecond)
	}
}
