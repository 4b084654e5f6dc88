//go:build !unix

package index

import (
	"path/filepath"

	"github.com/zk-claims/zk/vault"
)

// folderStat stats the notes of one folder through the vault's os.Root.
type folderStat struct{ v *vault.Vault }

func newFolderStat(v *vault.Vault, dir string) folderStat { return folderStat{v: v} }

func (folderStat) close() {}

// stat returns a note's stat as the vault's walk records it.
func (s folderStat) stat(p string) (vault.File, bool) {
	info, err := s.v.Root().Stat(filepath.FromSlash(p))
	if err != nil || !info.Mode().IsRegular() {
		return vault.File{}, false
	}
	return vault.FileOf(p, info), true
}
