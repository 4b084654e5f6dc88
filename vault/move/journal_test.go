package move

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// A journal that arrived with the vault is never acted on, whatever it
// names and however it is shaped: it is set aside and reported, and the
// vault is left exactly as it was.
func TestRecoverRefusesForeignJournals(t *testing.T) {
	otherKey := []byte(strings.Repeat("k", KeySize))
	sealedWith := func(key []byte, j journal) func(dir string) error {
		return func(dir string) error {
			data, err := seal(key, dir, j)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, ".zk", "journal", "mv-1-1.json"), data, 0o600)
		}
	}
	raw := func(s string) func(dir string) error {
		return func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ".zk", "journal", "mv-1-1.json"), []byte(s), 0o600)
		}
	}
	toHooks := journal{Version: journalVersion, State: stateApply, Renames: []Rename{{From: "e.md", To: ".git/hooks/pre-commit"}}}
	notesAway := journal{Version: journalVersion, State: stateApply, Renames: []Rename{{From: "notes", To: ".trash/notes", Folder: true}}}
	gitConfig := journal{Version: journalVersion, State: stateApply, Files: []journalFile{{Path: ".git/config", Old: []byte("[core]\n"), New: []byte("[core]\nfsmonitor = touch pwned\n")}}}
	editBase := journal{Version: journalVersion, State: stateApply, Files: []journalFile{{Path: "x.base", Old: []byte("views: []\n"), New: []byte("pwned\n")}}}
	tests := []struct {
		name string
		make func(dir string) error
	}{
		{"version 1, unsealed (the shape zk wrote before)", raw(`{"version":1,"files":[],"renames":[{"from":"e.md","to":".git/hooks/pre-commit"}]}`)},
		{"sealed by another machine", sealedWith(otherKey, toHooks)},
		{"a forged seal", raw(`{"mac":"00","journal":{"version":2,"state":"apply","renames":[{"from":"e.md","to":"f.md"}]}}`)},
		{"sealed here, into .git", sealedWith(testKey, toHooks)},
		{"sealed here, notes into .trash", sealedWith(testKey, notesAway)},
		{"sealed here, editing .git/config", sealedWith(testKey, gitConfig)},
		{"sealed here, editing a base", sealedWith(testKey, editBase)},
		{"a symlink to a note", func(dir string) error {
			return os.Symlink("../../e.md", filepath.Join(dir, ".zk", "journal", "mv-1-1.json"))
		}},
		{"larger than a journal can be", func(dir string) error {
			f, err := os.Create(filepath.Join(dir, ".zk", "journal", "mv-1-1.json"))
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(3 << 30) // sparse: 3 GB that take no disk
		}},
	}
	if runtime.GOOS != "windows" {
		tests = append(tests, struct {
			name string
			make func(dir string) error
		}{"a FIFO", func(dir string) error {
			return mkfifo(filepath.Join(dir, ".zk", "journal", "mv-1-1.json"), 0o600)
		}})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := vaulttest.Dir(t, map[string]string{"e.md": "# E\n", "notes/n.md": "# N\n", "x.base": "views: []\n"})
			for _, d := range []string{".zk/journal", ".git/hooks", ".trash"} {
				os.MkdirAll(filepath.Join(dir, d), 0o755)
			}
			os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n"), 0o644)
			if err := tc.make(dir); err != nil {
				t.Fatal(err)
			}
			v, _ := open(t, dir)
			recs, err := Recover(context.Background(), v, vault.WriteOptions{}, testKey)
			if err != nil || len(recs) != 1 || recs[0].Foreign == "" {
				t.Fatalf("Recover = %+v, %v; want one journal set aside", recs, err)
			}
			if read(t, dir, "e.md") != "# E\n" || read(t, dir, "notes/n.md") != "# N\n" || read(t, dir, ".git/config") != "[core]\n" || read(t, dir, "x.base") != "views: []\n" {
				t.Error("the vault changed")
			}
			if exists(dir, ".git/hooks/pre-commit") || exists(dir, ".trash/notes") {
				t.Error("a file was moved into a dot folder")
			}
			if !exists(dir, ".zk/journal/mv-1-1.foreign.json") || exists(dir, ".zk/journal/mv-1-1.json") {
				t.Errorf("not set aside: %v", journals(t, dir))
			}
			if recs, err := Recover(context.Background(), v, vault.WriteOptions{}, testKey); err != nil || len(recs) != 0 {
				t.Errorf("set aside, it is read again: %+v, %v", recs, err)
			}
		})
	}
}

// Without a key (no move was ever made on this machine) every journal is
// foreign; with .zk/journal a symlink, nothing under it is read.
func TestRecoverWithoutKeyOrWithLinkedFolder(t *testing.T) {
	dir := vaulttest.Dir(t, twoNotes)
	v, fs := open(t, dir)
	p, _ := Move(context.Background(), v, fs, "Old.md", "New.md", Format{})
	applyCrashing(t, v, p, 1)
	recs, err := Recover(context.Background(), v, vault.WriteOptions{}, nil)
	if err != nil || len(recs) != 1 || recs[0].Foreign == "" {
		t.Fatalf("no key: %+v, %v", recs, err)
	}

	dir = vaulttest.Dir(t, twoNotes)
	os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755)
	os.WriteFile(filepath.Join(dir, "elsewhere", "mv-1-1.json"), []byte("{}"), 0o600)
	os.MkdirAll(filepath.Join(dir, ".zk"), 0o755)
	os.Symlink("../elsewhere", filepath.Join(dir, ".zk", "journal"))
	v, _ = open(t, dir)
	recs, err = Recover(context.Background(), v, vault.WriteOptions{}, testKey)
	if err != nil || len(recs) != 1 || recs[0].Foreign == "" {
		t.Fatalf("linked folder: %+v, %v", recs, err)
	}
	if !exists(dir, "elsewhere/mv-1-1.json") {
		t.Error("a file through the link was touched")
	}
}

// manyBacklinks is a vault of n notes linking to Old.
func manyBacklinks(n int) map[string]string {
	files := map[string]string{"Old.md": "# Old\n"}
	for i := range n {
		files[fmt.Sprintf("b/%04d.md", i)] = fmt.Sprintf("# %d\n\n[[Old]]\n", i)
	}
	return files
}

// A move of 1,000 files that fails late (the last backlinker read-only)
// is undone whole: zk puts back every file it wrote, not only those the
// own-writes record remembers, and no journal is left for the next
// command to roll forward.
func TestApplyUndoesAThousandFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 files")
	}
	files := manyBacklinks(1000)
	dir := vaulttest.Dir(t, files)
	last := filepath.Join(dir, "b", "0999.md")
	if err := os.Chmod(last, 0o444); err != nil {
		t.Fatal(err)
	}
	// Every file older than an hour, and an hour's quiet window: only
	// knowing its own writes lets zk put a file back, on any machine,
	// however slow.
	old := time.Now().Add(-2 * time.Hour)
	for p := range files {
		os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), old, old)
	}
	v, fs := open(t, dir)
	p, err := Move(context.Background(), v, fs, "Old.md", "New.md", Format{})
	if err != nil {
		t.Fatal(err)
	}
	err = Apply(context.Background(), v, p, ApplyOptions{Key: testKey, Workers: 4, Write: vault.WriteOptions{Quiet: time.Hour}})
	if !errors.Is(err, vault.ErrReadOnly) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("err = %v", err)
	}
	sameAs(t, dir, files)
	if j := journals(t, dir); len(j) != 0 {
		t.Errorf("journals left: %v", j)
	}
}

// An editor that saves a backlinker during the move (its buffer, with
// the old link) would leave the link broken: the move is undone, and the
// editor's save kept.
func TestApplyUndoesWhenAnEditorSavesDuringIt(t *testing.T) {
	files := manyBacklinks(300)
	dir := vaulttest.Dir(t, files)
	v, fs := open(t, dir)
	p, err := Move(context.Background(), v, fs, "Old.md", "New.md", Format{})
	if err != nil {
		t.Fatal(err)
	}
	saved := "# 7\n\n[[Old]] and a line the editor added\n"
	err = Apply(context.Background(), v, p, ApplyOptions{Key: testKey, BeforeVerify: func() {
		os.WriteFile(filepath.Join(dir, "b", "0007.md"), []byte(saved), 0o644)
	}})
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "0007.md is kept") {
		t.Fatalf("err = %v", err)
	}
	files["b/0007.md"] = saved
	sameAs(t, dir, files)
	if j := journals(t, dir); len(j) != 0 {
		t.Errorf("journals left: %v", j)
	}
}

// A crash while a failed move is being undone: the next command finishes
// the undo, never the move.
func TestRecoverFinishesAnUndo(t *testing.T) {
	files := manyBacklinks(5)
	dir := vaulttest.Dir(t, files)
	v, fs := open(t, dir)
	p, _ := Move(context.Background(), v, fs, "Old.md", "New.md", Format{})
	// The move done whole, then its journal marked for undoing, as Apply
	// does just before it undoes: the state a crash there leaves.
	j := journal{Version: journalVersion, State: stateApply, Renames: p.Renames}
	for _, fe := range p.Files {
		j.Files = append(j.Files, journalFile{Path: fe.Path, Old: fe.Old, New: fe.New})
	}
	if err := Apply(context.Background(), v, p, ApplyOptions{Key: testKey}); err != nil {
		t.Fatal(err)
	}
	j.State = stateUndo
	if err := writeJournal(context.Background(), v, testKey, journalName(1), j); err != nil {
		t.Fatal(err)
	}
	recs, err := Recover(context.Background(), v, vault.WriteOptions{}, testKey)
	if err != nil || len(recs) != 1 || !recs[0].Undone || len(recs[0].Conflicts) != 0 {
		t.Fatalf("%+v, %v", recs, err)
	}
	sameAs(t, dir, files)
}

// sameAs checks that every file of want holds its content, and that
// New.md does not exist.
func sameAs(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	bad := 0
	for p, c := range want {
		if got := read(t, dir, p); got != c {
			if bad++; bad <= 3 {
				t.Errorf("%s = %q, want %q", p, got, c)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d files differ from the vault before the move", bad, len(want))
	}
	if exists(dir, "New.md") {
		t.Error("New.md exists")
	}
}

// An editor saving a backlinker at any moment of a move: over repeated
// trials, the vault ends as it was before the move or as the move leaves
// it, never between; only the file the editor saved holds the editor's
// version.
func TestApplyWithAnEditorEndsBeforeOrAfter(t *testing.T) {
	if testing.Short() {
		t.Skip("repeated moves")
	}
	const n, trials = 200, 12
	for trial := range trials {
		files := manyBacklinks(n)
		dir := vaulttest.Dir(t, files)
		old := time.Now().Add(-time.Hour)
		for p := range files {
			os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), old, old)
		}
		v, fs := open(t, dir)
		p, err := Move(context.Background(), v, fs, "Old.md", "New.md", Format{})
		if err != nil {
			t.Fatal(err)
		}
		edited := fmt.Sprintf("b/%04d.md", (trial*37)%n)
		saved := strings.Replace(files[edited], "\n\n", "\n\nthe editor's line\n", 1)
		at := (trial * 23) % (n + 2) // after that many steps of the move
		err = Apply(context.Background(), v, p, ApplyOptions{Key: testKey, Workers: 1, AfterFile: func(i int) {
			if i == at {
				os.WriteFile(filepath.Join(dir, filepath.FromSlash(edited)), []byte(saved), 0o644)
			}
		}})
		moved := err == nil
		for f, before := range files {
			if f == edited || f == "Old.md" {
				continue
			}
			want := before
			if moved {
				want = strings.Replace(before, "[[Old]]", "[[New]]", 1)
			}
			if got := read(t, dir, f); got != want {
				t.Fatalf("trial %d (editor after step %d, moved %v, err %v): %s = %q, want %q", trial, at, moved, err, f, got, want)
			}
		}
		if exists(dir, "New.md") != moved || exists(dir, "Old.md") == moved {
			t.Fatalf("trial %d: moved %v but Old.md/New.md disagree", trial, moved)
		}
		if got := read(t, dir, edited); got != saved && !moved {
			t.Errorf("trial %d: the editor's save lost: %q", trial, got)
		}
		if j := journals(t, dir); len(j) != 0 {
			t.Errorf("trial %d: journals left: %v", trial, j)
		}
	}
}
