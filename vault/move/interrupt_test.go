package move

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/internal/atomicfile"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// sameVault fails t unless dir holds exactly files, byte for byte, besides
// .zk/ (the backups a move keeps, its lock).
func sameVault(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	seen := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".zk" {
				return filepath.SkipDir
			}
			return nil
		}
		want, ok := files[rel]
		switch {
		case !ok:
			t.Errorf("%s: not in the vault before", rel)
		case read(t, dir, rel) != want:
			t.Errorf("%s = %q, want %q", rel, read(t, dir, rel), want)
		default:
			seen++
		}
		return nil
	})
	if seen != len(files) {
		t.Errorf("%d of %d files as before", seen, len(files))
	}
}

// temporaryFiles lists the temporary files under dir, .zk/ included.
func temporaryFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), atomicfile.TempPrefix) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// A move interrupted at any step (before its first file, between two,
// after the last, after its rename) writes no file after the interruption
// but those under way (none with one worker, at most seven of eight), and
// leaves the vault wholly as before: every file it wrote put back, no
// journal, no temporary file, nothing for the next command to do. It says
// so. Counted by the writes that finish after the cancel, not by time.
func TestApplyInterrupted(t *testing.T) {
	const n = 60
	files := manyLinks(n)
	for _, workers := range []int{1, 8} {
		for _, at := range []int{0, 1, 25, n, n + 1} {
			t.Run(fmt.Sprintf("workers=%d/at=%d", workers, at), func(t *testing.T) {
				dir := vaulttest.Dir(t, files)
				v, vfs := open(t, dir)
				p, err := Move(context.Background(), v, vfs, "Old.md", "New.md", Format{})
				if err != nil || len(p.Files) != n {
					t.Fatalf("plan: %v", err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if at == 0 {
					cancel()
				}
				after := 0
				err = Apply(ctx, v, p, ApplyOptions{Key: testKey, Workers: workers, Write: vault.WriteOptions{Quiet: -1},
					UndoWithin: time.Hour, // the undo finishes, however loaded the machine
					AfterFile: func(i int) {
						switch {
						case i == at:
							cancel()
						case i > at && i <= n:
							after++
						}
					}})
				if !errors.Is(err, ErrInterrupted) {
					t.Fatalf("err = %v, want ErrInterrupted", err)
				}
				wantMsg := "undone: nothing was changed"
				if at == 0 {
					wantMsg = "interrupted before any file was written; nothing was changed"
				}
				if !strings.HasSuffix(err.Error(), wantMsg) {
					t.Errorf("err = %q, want it to end %q", err, wantMsg)
				}
				if after > workers-1 {
					t.Errorf("%d files written after the interruption, want at most %d", after, workers-1)
				}
				sameVault(t, dir, files)
				if got := journals(t, dir); len(got) != 0 {
					t.Errorf("journal left: %v", got)
				}
				if tmp := temporaryFiles(dir); len(tmp) != 0 {
					t.Errorf("temporary files left: %v", tmp)
				}
				if recs, err := Recover(context.Background(), v, vault.WriteOptions{}, testKey); err != nil || len(recs) != 0 {
					t.Errorf("Recover after: %+v, %v", recs, err)
				}
			})
		}
	}
}

// An interrupted move whose undo has no time (UndoWithin < 0) says after
// how many files it stopped and that the next command undoes it; its
// journal is marked so, and Recover then undoes the move rather than
// finish it: the vault ends as before, as it would have had the undo had
// its time.
func TestApplyInterruptedLeavesTheUndo(t *testing.T) {
	const n, at = 60, 25
	files := manyLinks(n)
	dir := vaulttest.Dir(t, files)
	v, vfs := open(t, dir)
	p, err := Move(context.Background(), v, vfs, "Old.md", "New.md", Format{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err = Apply(ctx, v, p, ApplyOptions{Key: testKey, Workers: 1, Write: vault.WriteOptions{Quiet: -1}, UndoWithin: -1,
		AfterFile: func(i int) {
			if i == at {
				cancel()
			}
		}})
	want := fmt.Sprintf("move: interrupted after %d of %d files; the next zk command finishes undoing it", at, n)
	if !errors.Is(err, ErrInterrupted) || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if got := journals(t, dir); len(got) != 2 || !strings.HasSuffix(got[0], ".json") || !strings.HasSuffix(got[1], ".undo") {
		t.Fatalf("journal: %v, want the journal and its undo mark", got)
	}
	written := 0
	for name := range files {
		if strings.Contains(read(t, dir, name), "[[New]]") {
			written++
		}
	}
	if written != at {
		t.Errorf("%d files moved before Recover, want %d", written, at)
	}
	// A recovery itself signalled (the next command's, stopped at once)
	// writes nothing and keeps the journal and its mark for the next.
	stopped, stop := context.WithCancel(context.Background())
	stop()
	if recs, err := Recover(stopped, v, vault.WriteOptions{}, testKey); err == nil && (len(recs) != 1 || !recs[0].Stopped || recs[0].Files != 0) {
		t.Errorf("Recover, stopped: %+v, want it stopped before any file", recs)
	}
	if got := journals(t, dir); len(got) != 2 {
		t.Fatalf("journal after a stopped Recover: %v, want the journal and its undo mark", got)
	}
	recs, err := Recover(context.Background(), v, vault.WriteOptions{}, testKey)
	if err != nil || len(recs) != 1 {
		t.Fatalf("Recover: %+v, %v", recs, err)
	}
	if r := recs[0]; !r.Undone || !r.Interrupted || r.Files != at || r.Stopped || len(r.Conflicts) != 0 {
		t.Errorf("Recover: %+v", r)
	}
	sameVault(t, dir, files)
	if got := journals(t, dir); len(got) != 0 {
		t.Errorf("journal left: %v", got)
	}
}

// An undo mark that does not verify (another machine's key, or copied
// beside another journal) is no mark: the journal is rolled forward, as
// after a crash.
func TestRecoverIgnoresAForeignUndoMark(t *testing.T) {
	files := manyLinks(4)
	dir := vaulttest.Dir(t, files)
	v, vfs := open(t, dir)
	p, err := Move(context.Background(), v, vfs, "Old.md", "New.md", Format{})
	if err != nil {
		t.Fatal(err)
	}
	applyCrashing(t, v, p, 2)
	names := journals(t, dir)
	if len(names) != 1 {
		t.Fatalf("journal: %v", names)
	}
	name := journalDir + "/" + names[0]
	other := make([]byte, KeySize)
	if err := markUndo(v, other, name); err != nil {
		t.Fatal(err)
	}
	recs, err := Recover(context.Background(), v, vault.WriteOptions{}, testKey)
	if err != nil || len(recs) != 1 || recs[0].Undone || recs[0].Files != 2 {
		t.Fatalf("Recover: %+v, %v", recs, err)
	}
	if !exists(dir, "New.md") || exists(dir, "Old.md") {
		t.Errorf("not moved")
	}
	if got := journals(t, dir); len(got) != 0 {
		t.Errorf("journal or mark left: %v", got)
	}
}

// Recover sweeps the temporary files a killed move left where no write of
// the recovery goes: a folder whose files were all written before the
// kill, a backup's folder, the journal's folder.
func TestRecoverSweepsTemporaryFiles(t *testing.T) {
	files := map[string]string{
		"Old.md":  "# The old note\n",
		"a/L0.md": "# L0\n\n[[Old]]\n",
		"a/L1.md": "# L1\n\n[[Old]]\n",
		"b/L2.md": "# L2\n\n[[Old]]\n",
		"b/L3.md": "# L3\n\n[[Old]]\n",
	}
	dir := vaulttest.Dir(t, files)
	v, vfs := open(t, dir)
	p, err := Move(context.Background(), v, vfs, "Old.md", "New.md", Format{})
	if err != nil {
		t.Fatal(err)
	}
	applyCrashing(t, v, p, 2) // a/ written, b/ not
	// A writer whose pid cannot be read is stale at once, on every system.
	left := []string{"a", ".zk/backups/a/L0.md", ".zk/journal"}
	for _, d := range left {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(d), atomicfile.TempPrefix+"x-1"), []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := Recover(context.Background(), v, vault.WriteOptions{Quiet: -1}, testKey)
	if err != nil || len(recs) != 1 || recs[0].Files != 2 {
		t.Fatalf("Recover: %+v, %v", recs, err)
	}
	if tmp := temporaryFiles(dir); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}
