//go:build unix

package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// processAlive reports whether a process with this pid exists. EPERM means
// it exists but belongs to someone else.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// lockWrites takes the vault's writer lock, .zk/write.lock, waiting up to
// timeout. It is an advisory flock: it keeps zk processes from editing at
// once (an editor does not honour it), and the kernel releases it when a
// writer dies, so a killed zk never leaves the vault locked.
func lockWrites(root *os.Root, timeout time.Duration) (unlock func(), err error) {
	if err := root.MkdirAll(".zk", 0o700); err != nil {
		return nil, err
	}
	f, err := root.OpenFile(filepath.Join(".zk", "write.lock"), os.O_RDWR|os.O_CREATE, 0o600)
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
		if time.Now().After(deadline) {
			f.Close()
			return nil, ErrLocked
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hardLinked reports whether the file has other names: replacing it by a
// rename would leave them holding the old text.
func hardLinked(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}

// keepOwner gives f, the replacement of the file info describes, that
// file's owner and group, when they are not the ones a new file gets: a
// rename would otherwise hand the note to whoever ran zk (root, in a
// container). A failure refuses the write rather than change the owner.
func keepOwner(f *os.File, info fs.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	now, err := f.Stat()
	if err != nil {
		return err
	}
	cur, ok := now.Sys().(*syscall.Stat_t)
	if !ok || (cur.Uid == st.Uid && cur.Gid == st.Gid) {
		return nil
	}
	if err := f.Chown(int(st.Uid), int(st.Gid)); err != nil {
		return fmt.Errorf("keep the note's owner: %w", err)
	}
	return nil
}
