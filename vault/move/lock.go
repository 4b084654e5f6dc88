package move

import (
	"errors"
	"os"
	"time"

	"github.com/zk-claims/zk/internal/ownfile"
)

// LockFile is the lock a move holds (lockJournal).
const LockFile = journalDir + "/lock"

// errBusy: another zk process holds the journal's lock.
var errBusy = errors.New("another zk process is moving files in this vault")

// lockJournal takes the lock that a move holds from its journal's write
// to its removal, so that the next zk command does not "recover" a move
// still under way. It waits up to timeout (0: not at all).
func lockJournal(root *os.Root, timeout time.Duration) (func(), error) {
	unlock, err := ownfile.Lock(root, LockFile, timeout)
	if errors.Is(err, ownfile.ErrBusy) {
		return nil, errBusy
	}
	return unlock, err
}
