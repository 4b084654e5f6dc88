package move

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// A move of 1,000 backlinkers, over repeated trials, with what broke it
// before (issue 23: one read-only backlinker failed it late and its undo
// was refused past 256 files; an editor saving a backlinker during it left
// 5 of 36 trials half-moved): an editor, running on its own, saves a
// backlinker's buffer (the old link and a line of its own) at a moment
// drawn anew each trial, in place or by rename, and in every other trial
// the last backlinker is read-only. Whatever the moment, the vault ends as
// it was before the move or as the uninterrupted move leaves it, never
// between; an editor's save made before the move ended is never lost;
// no journal is left for the next command to act on. No moment is
// asserted: the trials draw them, the outcome is what is checked.
func TestApplyAThousandFilesEndsBeforeOrAfter(t *testing.T) {
	if testing.Short() {
		t.Skip("repeated moves of 1,000 files")
	}
	const n, trials = 1000, 6
	rng := rand.New(rand.NewPCG(23, 1000))
	var took time.Duration // an uninterrupted move's, to draw moments across it
	outcomes := map[string]int{}
	for trial := range trials + 1 {
		files := manyBacklinks(n)
		dir := vaulttest.Dir(t, files)
		old := time.Now().Add(-time.Hour)
		for p := range files {
			os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), old, old)
		}
		readOnly := trial%2 == 1
		if readOnly {
			if err := os.Chmod(filepath.Join(dir, "b", "0999.md"), 0o444); err != nil {
				t.Fatal(err)
			}
		}
		v, fs := open(t, dir)
		p, err := Move(context.Background(), v, fs, "Old.md", "New.md", Format{})
		if err != nil {
			t.Fatal(err)
		}
		edited := fmt.Sprintf("b/%04d.md", rng.IntN(n-1))
		saved := strings.Replace(files[edited], "\n\n", "\n\nthe editor's line\n", 1)
		byRename := rng.IntN(2) == 0
		var wait time.Duration
		if trial > 0 {
			wait = time.Duration(rng.Int64N(int64(took) + 1))
		}

		// verifying is set when the move starts reading its files back:
		// an editor's save done before then must be seen, and the move
		// undone. Only observed, never waited on.
		var verifying atomic.Bool
		stop := make(chan struct{})
		type save struct{ done, beforeVerify bool }
		savedAt := make(chan save, 1)
		go func() {
			if trial == 0 {
				savedAt <- save{}
				return
			}
			select {
			case <-stop:
				savedAt <- save{}
				return
			case <-time.After(wait):
			}
			full := filepath.Join(dir, filepath.FromSlash(edited))
			if byRename {
				tmp := full + ".editor~"
				os.WriteFile(tmp, []byte(saved), 0o644)
				os.Rename(tmp, full)
			} else {
				os.WriteFile(full, []byte(saved), 0o644)
			}
			savedAt <- save{done: true, beforeVerify: !verifying.Load()}
		}()
		start := time.Now()
		err = Apply(context.Background(), v, p, ApplyOptions{Key: testKey, BeforeVerify: func() { verifying.Store(true) }})
		if trial == 0 {
			took = time.Since(start)
		}
		close(stop)
		s := <-savedAt
		didSave := s.done
		moved := err == nil
		if moved && s.beforeVerify {
			t.Fatalf("trial %d: the editor saved %s (the old link) before the move read its files back, and the move stands: a broken link", trial, edited)
		}
		if readOnly && moved {
			t.Fatalf("trial %d: a move with a read-only backlinker succeeded", trial)
		}
		if trial == 0 && !moved {
			t.Fatalf("the uninterrupted move failed: %v", err)
		}

		// Every file the editor did not touch: all old, or all new.
		bad := 0
		for f, before := range files {
			if f == edited || f == "Old.md" {
				continue
			}
			want := before
			if moved {
				want = strings.Replace(before, "[[Old]]", "[[New]]", 1)
			}
			if got := read(t, dir, f); got != want {
				if bad++; bad <= 3 {
					t.Errorf("trial %d (editor after %v of %v, by rename %v, read-only %v, moved %v, err %v): %s = %q, want %q",
						trial, wait, took, byRename, readOnly, moved, err, f, got, want)
				}
			}
		}
		if bad > 0 {
			t.Fatalf("trial %d: %d of %d files between the vault before and after the move", trial, bad, len(files)-2)
		}
		if exists(dir, "New.md") != moved || exists(dir, "Old.md") == moved {
			t.Fatalf("trial %d: moved %v but Old.md/New.md disagree", trial, moved)
		}
		got := read(t, dir, edited)
		switch {
		case !moved && didSave && got != saved:
			t.Fatalf("trial %d: the editor's save lost: %q (err %v)", trial, got, err)
		case !moved && !didSave && got != files[edited]:
			t.Fatalf("trial %d: %s = %q, want it as before", trial, edited, got)
		case moved && got != saved && got != strings.Replace(files[edited], "[[Old]]", "[[New]]", 1):
			t.Fatalf("trial %d: %s = %q, neither moved nor the editor's", trial, edited, got)
		}
		if j := journals(t, dir); len(j) != 0 {
			t.Fatalf("trial %d: journals left: %v", trial, j)
		}
		// The next command finds nothing to roll forward or back.
		if recs, err := Recover(context.Background(), v, vault.WriteOptions{}, testKey); err != nil || len(recs) != 0 {
			t.Fatalf("trial %d: the next command recovered %+v, %v", trial, recs, err)
		}
		switch {
		case moved:
			outcomes["moved"]++
		case readOnly:
			outcomes["undone: read-only"]++
		default:
			outcomes["undone: the editor's save"]++
		}
	}
	t.Logf("%d trials of %d files (an uninterrupted move: %v): %v", trials, n, took, outcomes)
}
