//go:build linux || darwin || freebsd || netbsd

package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// copyXattrs gives dst the extended attributes of src, so that a note
// replaced by a rename keeps them (macOS Finder tags and colours live
// there: research/reliability.md §1.2 saw renameio drop them). Attributes
// the kernel keeps for itself (security., system., trusted.) are left to
// it; a file system without extended attributes has none to keep.
func copyXattrs(dst, src *os.File) error {
	names, err := xattrNames(int(src.Fd()))
	if errors.Is(err, unix.ENOTSUP) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("extended attributes: %w", err)
	}
	for _, name := range names {
		if strings.HasPrefix(name, "security.") || strings.HasPrefix(name, "system.") || strings.HasPrefix(name, "trusted.") {
			continue
		}
		val, err := xattr(int(src.Fd()), name)
		if err == nil {
			err = unix.Fsetxattr(int(dst.Fd()), name, val, 0)
		}
		if err != nil {
			return fmt.Errorf("extended attribute %s: %w", name, err)
		}
	}
	return nil
}

// xattrNames lists the file's extended attribute names.
func xattrNames(fd int) ([]string, error) {
	buf, err := readXattr(func(b []byte) (int, error) { return unix.Flistxattr(fd, b) })
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range bytes.Split(buf, []byte{0}) {
		if len(n) > 0 {
			names = append(names, string(n))
		}
	}
	return names, nil
}

// xattr reads one extended attribute.
func xattr(fd int, name string) ([]byte, error) {
	return readXattr(func(b []byte) (int, error) { return unix.Fgetxattr(fd, name, b) })
}

// readXattr calls get with a nil buffer to learn the size, then with a
// buffer of that size, again when the value grew in between.
func readXattr(get func([]byte) (int, error)) ([]byte, error) {
	for {
		n, err := get(nil)
		if err != nil || n == 0 {
			return nil, err
		}
		buf := make([]byte, n)
		n, err = get(buf)
		if errors.Is(err, unix.ERANGE) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
}
