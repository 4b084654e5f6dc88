//go:build unix

package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zk-claims/zk/internal/ownfile"
	"github.com/zk-claims/zk/vault/lint"
)

// zk run --due's lock, .zk/runs/due.lock, came with the vault like the
// rest of .zk/: a symlink there, or on the way there, is refused and not
// followed (one linked to the user's journal key had zk create it empty,
// and every zk mv then failed), and a FIFO is refused rather than waited
// on, a dry run included. Nothing runs.
func TestDueLockRefusesHostileShapes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, vault, outside string)
		want   error
		absent string // relative to the vault ("" for none), or outside
	}{
		{name: "linked outside", want: ownfile.ErrSymlink, absent: "outside",
			damage: func(t *testing.T, vault, outside string) {
				must(t, os.Symlink(outside, filepath.Join(vault, ".zk", "runs", "due.lock")))
			}},
		{name: "a FIFO", want: ownfile.ErrNotRegular,
			damage: func(t *testing.T, vault, _ string) {
				name := filepath.Join(vault, ".zk", "runs", "due.lock")
				must(t, syscall.Mkfifo(name, 0o644))
				// Let a reader stuck on it (the bug) go when the test ends.
				t.Cleanup(func() {
					if f, err := os.OpenFile(name, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
						f.Close()
					}
				})
			}},
		{name: "runs linked to a folder of notes", want: ownfile.ErrSymlink, absent: "notes/due.lock",
			damage: func(t *testing.T, vault, _ string) {
				must(t, os.Remove(filepath.Join(vault, ".zk", "runs")))
				must(t, os.Symlink("../notes", filepath.Join(vault, ".zk", "runs")))
			}},
	} {
		for _, dry := range []bool{true, false} {
			name := tc.name
			if dry {
				name += ", dry run"
			}
			t.Run(name, func(t *testing.T) {
				w, _ := open(t, map[string]string{".obsidian/app.json": "{}", "notes/Due.md": dueNote}, Writing)
				approve(t, w, "notes/Due.md", "sh -c 'echo one'")
				must(t, os.MkdirAll(filepath.Join(w.Vault.Dir, ".zk", "runs"), 0o755))
				outside := filepath.Join(t.TempDir(), "journal.key")
				tc.damage(t, w.Vault.Dir, outside)

				var err error
				ran := false
				done := make(chan struct{})
				go func() {
					defer close(done)
					_, err = w.Due(context.Background(), DueRequest{DryRun: dry, Ran: func(RunResult) { ran = true }})
				}()
				select {
				case <-done:
				case <-time.After(20 * time.Second):
					t.Fatal("zk run --due still waiting after 20s (on a FIFO?)")
				}
				if !errors.Is(err, tc.want) {
					t.Errorf("due: %v, want an error wrapping %q", err, tc.want)
				}
				if ran {
					t.Error("a falsifier ran")
				}
				switch tc.absent {
				case "":
				case "outside":
					if _, err := os.Lstat(outside); err == nil {
						t.Errorf("%s was created, outside the vault", outside)
					}
				default:
					if _, err := os.Lstat(filepath.Join(w.Vault.Dir, filepath.FromSlash(tc.absent))); err == nil {
						t.Errorf("%s was created", tc.absent)
					}
				}
			})
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A lock file zk would refuse to take (a symlink, a FIFO, a folder, or
// one behind a linked folder) is reported by zk check as file/untrusted,
// saying which commands it stops, the cached check too; lock files as zk
// leaves them are not.
func TestCheckReportsHostileLocks(t *testing.T) {
	w, _ := open(t, map[string]string{".obsidian/app.json": "{}", "notes/A.md": "# A\n",
		".zk/journal/keep": "", ".zk/runs/keep": ""}, Reading)
	dir := w.Vault.Dir
	for _, l := range locks {
		must(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(l.file)), nil, 0o600))
	}
	got := func() map[string]string {
		t.Helper()
		res, err := w.Check(context.Background(), CheckRequest{}) // through the cache: its key holds them
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, f := range res.Findings {
			if f.Rule == lint.RuleFileUntrusted {
				out[f.Path] = f.Message
			}
		}
		return out
	}
	if u := got(); len(u) != 0 {
		t.Fatalf("regular lock files reported: %v", u)
	}

	must(t, os.Remove(filepath.Join(dir, ".zk", "write.lock")))
	must(t, os.Symlink(filepath.Join(t.TempDir(), "journal.key"), filepath.Join(dir, ".zk", "write.lock")))
	must(t, os.Remove(filepath.Join(dir, ".zk", "journal", "lock")))
	must(t, syscall.Mkfifo(filepath.Join(dir, ".zk", "journal", "lock"), 0o644))
	must(t, os.RemoveAll(filepath.Join(dir, ".zk", "runs")))
	must(t, os.Symlink("../notes", filepath.Join(dir, ".zk", "runs")))
	u := got()
	for file, want := range map[string]string{
		".zk/write.lock":    "so every command that writes a note refuses to start: .zk/write.lock is a symbolic link",
		".zk/journal/lock":  "so zk mv refuses to start: .zk/journal/lock is not a regular file",
		".zk/runs/due.lock": "so zk run --due refuses to start: .zk/runs/due.lock: .zk/runs is a symbolic link",
	} {
		if !strings.Contains(u[file], want) {
			t.Errorf("file/untrusted for %s: %q, want it to say %q", file, u[file], want)
		}
	}
}
