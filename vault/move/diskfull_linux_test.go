package move

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// TestRecoverOnAFullDiskKeepsTheJournal: a move cut short is finished by
// the next zk command, and that command may find the disk full. The
// writes it cannot make now are no conflict: the journal stays as it is,
// no rename is made ahead of the files, and the command after, once there
// is room, finishes the move. Before, each refused write counted as a
// conflict: the rename was made, the journal set aside as *.failed.json
// and never tried again, and the vault stayed half moved (300 linking
// notes on a 2 MB tmpfs: 185 notes linking the new name, 116 the old).
// It mounts a tmpfs, so it needs root.
func TestRecoverOnAFullDiskKeepsTheJournal(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	for name, text := range twoNotes {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		// An hour old, as vaulttest.Dir makes them: past the quiet window.
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	want := vaulttest.Dir(t, twoNotes)
	wv, wfs := open(t, want)
	wp, _ := Move(context.Background(), wv, wfs, "Old.md", "New.md", Format{})
	if err := Apply(context.Background(), wv, wp, ApplyOptions{Key: testKey}); err != nil {
		t.Fatal(err)
	}

	v, fs := open(t, dir)
	p, _ := Move(context.Background(), v, fs, "Old.md", "New.md", Format{})
	applyCrashing(t, v, p, 1)
	// Fill the disk.
	fill, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	for page := make([]byte, 4096); ; {
		if _, err := fill.Write(page); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	fill.Close()
	w := vault.WriteOptions{Quiet: -1}
	recs, err := Recover(context.Background(), v, w, testKey)
	if err != nil || len(recs) != 1 {
		t.Fatalf("on a full disk: %+v, %v", recs, err)
	}
	if len(recs[0].Conflicts) != 0 || !strings.Contains(recs[0].Retry, "no space left") {
		t.Errorf("on a full disk: conflicts %q, retry %q; want no conflict, a retry saying the disk is full", recs[0].Conflicts, recs[0].Retry)
	}
	if got := journals(t, dir); len(got) != 1 || strings.Contains(got[0], "failed") {
		t.Errorf("journals %v, want the one journal kept as it is", got)
	}
	if !exists(dir, "Old.md") || exists(dir, "New.md") {
		t.Errorf("renamed before the files were written")
	}

	if err := os.Remove(filepath.Join(dir, "fill")); err != nil {
		t.Fatal(err)
	}
	recs, err = Recover(context.Background(), v, w, testKey)
	if err != nil || len(recs) != 1 || len(recs[0].Conflicts) != 0 || recs[0].Retry != "" {
		t.Fatalf("with room again: %+v, %v", recs, err)
	}
	for _, f := range []string{"A.md", "B.md", "New.md"} {
		if read(t, dir, f) != read(t, want, f) {
			t.Errorf("%s = %q, want %q", f, read(t, dir, f), read(t, want, f))
		}
	}
	if exists(dir, "Old.md") || len(journals(t, dir)) != 0 {
		t.Errorf("Old.md or the journal left: %v", journals(t, dir))
	}
}
