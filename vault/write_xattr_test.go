//go:build linux

package vault

import (
	"errors"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestEditNoteKeepsXattrs: a note replaced by a rename keeps its extended
// attributes, as one edited in place does by being the same file.
func TestEditNoteKeepsXattrs(t *testing.T) {
	v, dir := writeVault(t, map[string]string{"n.md": "# A\n- Last tended: 2026-01-01\n"})
	p := filepath.Join(dir, "n.md")
	if err := unix.Setxattr(p, "user.tag", []byte("keep me"), 0); errors.Is(err, unix.ENOTSUP) {
		t.Skip("no user extended attributes here")
	} else if err != nil {
		t.Fatal(err)
	}
	for _, edit := range []func([]byte) ([]byte, error){
		replaceEdit("2026-01-01", "2026-12-02"),       // in place
		replaceEdit("# A\n", "# A\nA longer text.\n"), // a rename
	} {
		res, err := v.EditNote("n.md", edit, WriteOptions{Quiet: -1})
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		n, err := unix.Getxattr(p, "user.tag", buf)
		if err != nil || string(buf[:n]) != "keep me" {
			t.Errorf("in place %v: user.tag = %q, %v; want it kept", res.InPlace, buf[:max(n, 0)], err)
		}
	}
}
