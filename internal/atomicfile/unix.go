//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ProcessAlive reports whether a process with this pid exists. EPERM means
// it exists but belongs to someone else.
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// keepOwner gives f, the replacement of the file info describes, that
// file's owner and group, when they are not the ones a new file gets: a
// rename would otherwise hand the note to whoever ran zk (root, in a
// container). A failure refuses the write rather than change the owner,
// unless ifAllowed says the file is zk's own copy.
func keepOwner(f *os.File, info fs.FileInfo, ifAllowed bool) error {
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
		if ifAllowed && errors.Is(err, fs.ErrPermission) {
			return nil
		}
		return fmt.Errorf("replacing the file would change its owner:group from %d:%d to %d:%d, which this user cannot set back (chgrp it to a group of yours): %w", st.Uid, st.Gid, cur.Uid, cur.Gid, err)
	}
	return nil
}
