//go:build unix

package vault

import (
	"errors"
	"os"
	"path/filepath"
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

// TestEditNoteHardLinks: a date is overwritten in place, which every name
// of the file sees; an edit that needs a rename is refused, since it would
// leave the other names with the old text.
func TestEditNoteHardLinks(t *testing.T) {
	v, dir := writeVault(t, map[string]string{"n.md": "# A\n- Last tended: 2026-01-01\n"})
	if err := os.Link(filepath.Join(dir, "n.md"), filepath.Join(dir, "other.md")); err != nil {
		t.Skip("no hard links here:", err)
	}
	if _, err := v.EditNote("n.md", replaceEdit("2026-01-01", "2026-12-02"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, filepath.Join(dir, "other.md")); got != "# A\n- Last tended: 2026-12-02\n" {
		t.Errorf("the other name holds %q", got)
	}
	_, err := v.EditNote("n.md", replaceEdit("# A\n", "# A\nmore\n"), WriteOptions{Quiet: -1})
	if !errors.Is(err, ErrHardLinked) {
		t.Errorf("err = %v, want ErrHardLinked", err)
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
