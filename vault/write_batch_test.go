package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// batchVault is a vault of n notes, n00.md…, each "# Nk\nold\n".
func batchVault(t *testing.T, n int) (*Vault, string, []NoteEdit) {
	t.Helper()
	files := map[string]string{}
	var edits []NoteEdit
	for i := range n {
		p := fmt.Sprintf("d%d/n%02d.md", i%3, i)
		files[p] = fmt.Sprintf("# N%d\nold\n", i)
		edits = append(edits, NoteEdit{Path: p, Edit: replaceEdit("old\n", "new text\n")})
	}
	v, dir := writeVault(t, files)
	return v, dir, edits
}

// Every note of a batch is written, its previous version kept, and the
// own-writes record saved once at the end still knows each of them: the
// next zk write of a note just written is not taken for an editor's save.
func TestEditNotesWritesEach(t *testing.T) {
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			v, dir, edits := batchVault(t, 12)
			res, err := v.EditNotes(context.Background(), edits, BatchOptions{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range edits {
				if !res[i].Written() || res[i].Backup == "" {
					t.Errorf("%s: %+v", e.Path, res[i])
				}
				want := fmt.Sprintf("# N%d\nnew text\n", i)
				if got := readString(t, filepath.Join(dir, e.Path)); got != want {
					t.Errorf("%s = %q, want %q", e.Path, got, want)
				}
				if b := backups(t, dir, e.Path); len(b) != 1 {
					t.Errorf("%s: backups %v", e.Path, b)
				}
			}
			// Within the quiet window of the batch's writes.
			for _, e := range edits {
				if _, err := v.EditNote(e.Path, replaceEdit("new text\n", "newer\n"), WriteOptions{}); err != nil {
					t.Errorf("%s after the batch: %v", e.Path, err)
				}
			}
		})
	}
}

// An editor's save racing one note of a parallel batch is caught as
// EditNote catches it, under zk's lease and without one: its version
// stands, and the results say exactly which notes were written and which
// were not tried, which the caller needs to undo them.
func TestEditNotesConcurrentEdit(t *testing.T) {
	for _, world := range windowLeases {
		for _, rename := range []bool{false, true} {
			t.Run(fmt.Sprint(world.name, "/rename=", rename), func(t *testing.T) {
				v, dir, edits := batchVault(t, 40)
				racer := edits[20].Path
				p := filepath.Join(dir, racer)
				windowLease(t, p, world.lease)
				if !canExchange(t) {
					t.Skip("no RENAME_EXCHANGE here: the racing save is caught only before the hook")
				}
				hook, saved := editorDuring(t, p, editorSave(p, "the editor's\n", rename))
				done := false
				testOnlyBeforeWriteOf = func(target string) {
					if target == racer && !done {
						done = true
						hook()
					}
				}
				t.Cleanup(func() { testOnlyBeforeWriteOf = nil })
				res, err := v.EditNotes(context.Background(), edits, BatchOptions{Workers: 4})
				if serr := saved(); serr != nil {
					t.Fatalf("the editor's save: %v", serr)
				}
				// A truncating save under zk's lease waits for zk, which
				// then writes nothing; any other lands first and is put back.
				want := ErrConcurrent
				if world.lease && !rename {
					want = ErrMidWrite
				}
				if !errors.Is(err, want) {
					t.Fatalf("err = %v, want %v", err, want)
				}
				if got := readString(t, p); got != "the editor's\n" {
					t.Errorf("the editor's save lost: %q", got)
				}
				for i, e := range edits {
					got := readString(t, filepath.Join(dir, e.Path))
					switch {
					case e.Path == racer:
						if !errors.Is(res[i].Err, want) {
							t.Errorf("%s: %v", e.Path, res[i].Err)
						}
					case res[i].Written():
						if got != fmt.Sprintf("# N%d\nnew text\n", i) {
							t.Errorf("%s written, holds %q", e.Path, got)
						}
					default:
						if !errors.Is(res[i].Err, ErrNotTried) || got != fmt.Sprintf("# N%d\nold\n", i) {
							t.Errorf("%s: %v, holds %q", e.Path, res[i].Err, got)
						}
					}
				}
			})
		}
	}
}

// Two edits of one file (a symlink and its target) go one after the
// other, in order: the second sees the first's result.
func TestEditNotesSameFile(t *testing.T) {
	v, dir := writeVault(t, map[string]string{"t.md": "# T\nx\n"})
	if err := os.Symlink("t.md", filepath.Join(dir, "l.md")); err != nil {
		t.Skip(err)
	}
	strict := func(want, out string) func([]byte) ([]byte, error) {
		return func(src []byte) ([]byte, error) {
			if string(src) != want {
				return nil, fmt.Errorf("saw %q, want %q", src, want)
			}
			return []byte(out), nil
		}
	}
	edits := []NoteEdit{
		{Path: "l.md", Edit: strict("# T\nx\n", "# T\nx\ny\n")},
		{Path: "t.md", Edit: strict("# T\nx\ny\n", "# T\nx\ny\nz\n")},
	}
	if _, err := v.EditNotes(context.Background(), edits, BatchOptions{Workers: 2, WriteOptions: WriteOptions{Quiet: -1}}); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, filepath.Join(dir, "t.md")); got != "# T\nx\ny\nz\n" {
		t.Errorf("t.md = %q", got)
	}
}

// A note that cannot be resolved stops the batch before any note is
// written.
func TestEditNotesUnresolvable(t *testing.T) {
	v, dir, edits := batchVault(t, 5)
	edits[3].Path = "../outside.md"
	res, err := v.EditNotes(context.Background(), edits, BatchOptions{})
	if !errors.Is(err, ErrOutsideVault) {
		t.Fatalf("err = %v", err)
	}
	for i, e := range edits[:3] {
		if res[i].Written() || readString(t, filepath.Join(dir, e.Path)) != fmt.Sprintf("# N%d\nold\n", i) {
			t.Errorf("%s written", e.Path)
		}
	}
}

// A failure stops the batch: no note starts after it.
func TestEditNotesStops(t *testing.T) {
	v, dir, edits := batchVault(t, 6)
	edits[2].Edit = func([]byte) ([]byte, error) { return nil, errors.New("no") }
	res, err := v.EditNotes(context.Background(), edits, BatchOptions{Workers: 1})
	if err == nil || res[2].Err == nil {
		t.Fatalf("err = %v", err)
	}
	for i, e := range edits {
		if i > 2 && (!errors.Is(res[i].Err, ErrNotTried) || readString(t, filepath.Join(dir, e.Path)) != fmt.Sprintf("# N%d\nold\n", i)) {
			t.Errorf("%s: %v", e.Path, res[i].Err)
		}
		if i < 2 && !res[i].Written() {
			t.Errorf("%s: %+v", e.Path, res[i])
		}
	}
}

// A folder's sweep of killed writers' temporary files is over before any
// note of the batch is written there: a sweep beside a write would remove
// that write's temporary file, which after the exchange holds the note
// replaced, with its old mtime, as a dead writer's.
func TestEditNotesSweepsBeforeWriting(t *testing.T) {
	files := map[string]string{}
	var edits []NoteEdit
	for i := range 24 {
		p := fmt.Sprintf("d/n%02d.md", i)
		files[p] = fmt.Sprintf("# N%d\nold\n", i)
		edits = append(edits, NoteEdit{Path: p, Edit: replaceEdit("old\n", "new text\n")})
	}
	v, dir := writeVault(t, files)
	// Left by a writer whose pid cannot be read: stale at once.
	for i := range 3000 {
		if err := os.WriteFile(filepath.Join(dir, "d", fmt.Sprintf("%sx-%d", tempPrefix, i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	testOnlyBeforeWriteOf = func(target string) {
		ents, _ := os.ReadDir(filepath.Join(dir, "d"))
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), tempPrefix+"x-") {
				mu.Lock()
				t.Errorf("%s written while the sweep of its folder is under way", target)
				mu.Unlock()
				return
			}
		}
	}
	t.Cleanup(func() { testOnlyBeforeWriteOf = nil })
	if _, err := v.EditNotes(context.Background(), edits, BatchOptions{Workers: 4}); err != nil {
		t.Fatal(err)
	}
}

// A batch whose context ends stops between notes, as a failure stops it:
// no note starts after, those under way finish whole, none leaves a
// temporary file, and the error is the context's. Counted by the writes
// that finish after the cancel, not by time: with one worker none, with
// four at most the three under way.
func TestEditNotesStopsWhenCancelled(t *testing.T) {
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			v, dir, edits := batchVault(t, 40)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			const cancelAt = 5
			after := 0
			res, err := v.EditNotes(ctx, edits, BatchOptions{Workers: workers, After: func(n int) {
				if n == cancelAt {
					cancel()
				} else if n > cancelAt {
					after++
				}
			}})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if after > workers-1 {
				t.Errorf("%d notes written after the cancel, want at most %d", after, workers-1)
			}
			written := 0
			for i, e := range edits {
				got := readString(t, filepath.Join(dir, e.Path))
				switch {
				case res[i].Written() && got == fmt.Sprintf("# N%d\nnew text\n", i):
					written++
				case errors.Is(res[i].Err, ErrNotTried) && got == fmt.Sprintf("# N%d\nold\n", i):
				default:
					t.Errorf("%s = %q, result %+v", e.Path, got, res[i])
				}
			}
			if written != cancelAt+after {
				t.Errorf("%d notes written, want %d", written, cancelAt+after)
			}
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
					t.Errorf("temporary file left: %s", p)
				}
				return nil
			})
		})
	}
}
