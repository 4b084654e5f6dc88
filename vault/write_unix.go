//go:build unix

package vault

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/zk-claims/zk/internal/ownfile"
)

// lockWrites takes the vault's writer lock, .zk/write.lock, waiting up to
// timeout. It is an advisory flock: it keeps zk processes from editing at
// once (an editor does not honour it), and the kernel releases it when a
// writer dies, so a killed zk never leaves the vault locked.
func lockWrites(root *os.Root, timeout time.Duration) (unlock func(), err error) {
	if err := ownfile.MkdirAll(root, ".zk", 0o700); err != nil {
		return nil, err
	}
	unlock, err = ownfile.Lock(root, WriteLock, timeout)
	if errors.Is(err, ownfile.ErrBusy) {
		return nil, ErrLocked
	}
	return unlock, err
}

// links is the file's number of names (hard links), 1 when the stat does
// not say.
func links(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// fileID is the file's device and inode: which file it is, whatever its
// name.
func fileID(info fs.FileInfo) (dev, ino uint64) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}
