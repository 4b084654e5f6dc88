//go:build unix

package vault

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEditNoteWaitsForAnotherWriter: while another zk holds the vault's
// writer lock, a write waits for it, and gives up with ErrLocked after
// LockTimeout, leaving the note alone.
func TestEditNoteWaitsForAnotherWriter(t *testing.T) {
	v, dir := writeVault(t, map[string]string{"n.md": "# A\n"})
	unlock, err := lockWrites(v.Root(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.EditNote("n.md", replaceEdit("A", "B"), WriteOptions{LockTimeout: 50 * time.Millisecond})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
	if got := readString(t, dir+"/n.md"); got != "# A\n" {
		t.Errorf("note = %q while locked", got)
	}
	done := make(chan error)
	go func() {
		_, err := v.EditNote("n.md", replaceEdit("A", "B"), WriteOptions{})
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // let it wait; the result holds either way
	unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := readString(t, dir+"/n.md"); got != "# B\n" {
		t.Errorf("note = %q after the lock was released", got)
	}
}

// TestEditNoteHardLinks: a note with other names is written neither in
// place (a date: the file under every name, perhaps outside the vault,
// would change) nor by a rename (the others would keep the old text); an
// edit that changes nothing is no write, and a note of its own again is
// written.
func TestEditNoteHardLinks(t *testing.T) {
	const note = "# A\n- Last tended: 2026-01-01\n"
	v, dir := writeVault(t, map[string]string{"n.md": note})
	outside := filepath.Join(t.TempDir(), "precious.md")
	if err := os.Link(filepath.Join(dir, "n.md"), outside); err != nil {
		t.Skip("no hard links here:", err)
	}
	for _, c := range []struct{ name, from, to string }{
		{"in place", "2026-01-01", "2026-12-02"},
		{"by a rename", "# A\n", "# A\nmore\n"},
	} {
		_, err := v.EditNote("n.md", replaceEdit(c.from, c.to), WriteOptions{Quiet: -1})
		if !errors.Is(err, ErrHardLinked) || !strings.Contains(err.Error(), "(2 names)") {
			t.Errorf("%s: err = %v, want ErrHardLinked of 2 names", c.name, err)
		}
		for _, p := range []string{filepath.Join(dir, "n.md"), outside} {
			if got := readString(t, p); got != note {
				t.Errorf("%s: %s holds %q", c.name, p, got)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".zk", "backups")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused write kept a backup: %v", err)
	}
	if res, err := v.EditNote("n.md", replaceEdit("2026-01-01", "2026-01-01"), WriteOptions{Quiet: -1}); err != nil || !res.Unchanged {
		t.Errorf("an edit that changes nothing: %+v, %v", res, err)
	}
	if err := os.Remove(outside); err != nil {
		t.Fatal(err)
	}
	if _, err := v.EditNote("n.md", replaceEdit("2026-01-01", "2026-12-02"), WriteOptions{Quiet: -1}); err != nil {
		t.Errorf("a note of its own again: %v", err)
	}
}

// TestEditNoteKeepsOwner: a note replaced by a rename keeps its owner and
// group, even when zk runs as root.
func TestEditNoteKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the note another owner")
	}
	v, dir := writeVault(t, map[string]string{"n.md": "# A\n"})
	p := filepath.Join(dir, "n.md")
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := v.EditNote("n.md", replaceEdit("# A\n", "# A\nmore\n"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st := info.Sys().(*syscall.Stat_t); st.Uid != 65534 || st.Gid != 65534 {
		t.Errorf("owner %d:%d, want 65534:65534", st.Uid, st.Gid)
	}
}
