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

// stat returns a note's stat as the vault's walk records it (size,
// times, device and inode): a symlinked note's are its target's.
func (s folderStat) stat(p string) (vault.File, bool) {
	if s.dir == nil {
		return vault.File{}, false
	}
	var st unix.Stat_t
	if err := unix.Fstatat(int(s.dir.Fd()), path.Base(p), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return vault.File{}, false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return vault.File{Path: p, Size: st.Size, ModTime: time.Unix(st.Mtim.Unix()),
			ChangeTime: st.Ctim.Nano(), Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, true
	case unix.S_IFLNK:
		info, err := s.v.Root().Stat(filepath.FromSlash(p))
		if err != nil || !info.Mode().IsRegular() {
			return vault.File{}, false
		}
		return vault.FileOf(p, info), true
	}
	return vault.File{}, false
}
