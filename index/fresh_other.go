//go:build !unix

package index

import (
	"path/filepath"
	"time"

	"github.com/zk-claims/zk/vault"
)

// folderStat stats the notes of one folder through the vault's os.Root.
type folderStat struct{ v *vault.Vault }

func newFolderStat(v *vault.Vault, dir string) folderStat { return folderStat{v: v} }

func (folderStat) close() {}

// stat returns a note's size and time as the vault's walk records them.
func (s folderStat) stat(p string) (int64, time.Time, bool) {
	info, err := s.v.Root().Stat(filepath.FromSlash(p))
	if err != nil || !info.Mode().IsRegular() {
		return 0, time.Time{}, false
	}
	return info.Size(), info.ModTime(), true
}
