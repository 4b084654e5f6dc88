//go:build linux

package vault

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// exchange swaps the files a and b (relative to root, in one folder) in
// one step, renameat2's RENAME_EXCHANGE: afterwards a names the file that
// b named, so the caller sees exactly what it replaced. It reports false,
// having done nothing, where the file system cannot (EINVAL, ENOSYS).
func exchange(root *os.Root, a, b string) (bool, error) {
	if filepath.Dir(a) != filepath.Dir(b) {
		return false, nil
	}
	d, err := root.Open(filepath.Dir(a))
	if err != nil {
		return false, err
	}
	defer d.Close()
	fd := int(d.Fd())
	err = unix.Renameat2(fd, filepath.Base(a), fd, filepath.Base(b), unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return false, nil
	}
	return err == nil, err
}
