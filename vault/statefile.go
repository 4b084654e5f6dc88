package vault

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces a file of zk's own (a cache, the approvals, an
// index stamp; never a note, which goes through EditNote) in one rename: a
// temporary file beside it, synced, renamed over it, and the folder synced,
// so a reader sees the old bytes or the new ones and a crash leaves no
// half-written file. It works on every platform Go does, which
// renameio.WriteFile does not (it exports nothing on Windows).
func WriteFileAtomic(name string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(name)
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", name, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // durability of the rename; not every system can sync a folder
		d.Close()
	}
	return nil
}
