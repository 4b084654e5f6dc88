//go:build unix

package index

import (
	"os"
	"path"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zk-claims/zk/vault"
)

// folderStat stats the notes of one folder from the folder's handle
// (fstatat): no path is resolved again per note, and the folder is
// opened through the vault's os.Root, so never outside it.
type folderStat struct {
	v   *vault.Vault
	dir *os.File
}

func newFolderStat(v *vault.Vault, dir string) folderStat {
	f, err := v.Root().Open(filepath.FromSlash(dir))
	if err != nil {
		return folderStat{v: v}
	}
	return folderStat{v: v, dir: f}
}

func (s folderStat) close() {
	if s.dir != nil {
		s.dir.Close()
	}
}

// stat returns a note's size and time as the vault's walk records them:
// a symlinked note's are its target's.
func (s folderStat) stat(p string) (int64, time.Time, bool) {
	if s.dir == nil {
		return 0, time.Time{}, false
	}
	var st unix.Stat_t
	if err := unix.Fstatat(int(s.dir.Fd()), path.Base(p), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, time.Time{}, false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return st.Size, time.Unix(st.Mtim.Unix()), true
	case unix.S_IFLNK:
		info, err := s.v.Root().Stat(filepath.FromSlash(p))
		if err != nil || !info.Mode().IsRegular() {
			return 0, time.Time{}, false
		}
		return info.Size(), info.ModTime(), true
	}
	return 0, time.Time{}, false
}
