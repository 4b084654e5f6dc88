package checkcache

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
)

func TestNewKey(t *testing.T) {
	if NewKey([]byte("ab"), []byte("c")) == NewKey([]byte("a"), []byte("bc")) {
		t.Error("keys of differently split parts collide")
	}
}

// A stamp settles a file by its stat only when its size, times, device
// and inode are unchanged and its mtime is older than the racy window
// before the stamp was written; anything else is for the file's bytes to
// settle.
func TestSettled(t *testing.T) {
	written := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	old := written.Add(-time.Hour)
	changed := old.Add(time.Minute).UnixNano()
	stamp := Stamp{Path: "a.md", Size: 4, ModTime: old.UnixNano(), ChangeTime: changed, Dev: 7, Ino: 42}
	file := vault.File{Path: "a.md", Size: 4, ModTime: old, ChangeTime: changed, Dev: 7, Ino: 42}
	with := func(edit func(*vault.File)) vault.File { f := file; edit(&f); return f }
	for _, tt := range []struct {
		name  string
		stamp Stamp
		file  vault.File
		want  bool
	}{
		{"unchanged", stamp, file, true},
		{"another size", stamp, with(func(f *vault.File) { f.Size = 5 }), false},
		{"touched", stamp, with(func(f *vault.File) { f.ModTime = written }), false},
		{"racy: stamped within the window", Stamp{Path: "a.md", Size: 4, ModTime: written.Add(-time.Second).UnixNano(), ChangeTime: changed, Dev: 7, Ino: 42},
			with(func(f *vault.File) { f.ModTime = written.Add(-time.Second) }), false},
		// Edited to bytes of the same size, its mtime set back (touch -r,
		// rsync -t): the kernel moved its ctime.
		{"same size and mtime, another ctime", stamp, with(func(f *vault.File) { f.ChangeTime = written.UnixNano() }), false},
		{"another inode (replaced by a rename)", stamp, with(func(f *vault.File) { f.Ino = 43 }), false},
		{"another device", stamp, with(func(f *vault.File) { f.Dev = 8 }), false},
		// Where the system gives no ctime or inode (Windows), size and
		// mtime settle as before.
		{"no ctime or inode", Stamp{Path: "a.md", Size: 4, ModTime: old.UnixNano()}, vault.File{Path: "a.md", Size: 4, ModTime: old}, true},
		// A stamp of an earlier zk, without them, is never taken for a
		// file that has them (a model file of another version is not read
		// at all: TestModelOfAnEarlierVersionIsAMiss).
		{"a stamp without them, a file with", Stamp{Path: "a.md", Size: 4, ModTime: old.UnixNano()}, file, false},
	} {
		if got := settled(written.UnixNano(), tt.stamp, tt.file); got != tt.want {
			t.Errorf("%s: settled %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A note edited on disk to bytes of the same size, then given back its
// old mtime (os.Chtimes, as touch -r does), is not settled by the stamp
// the walk made of it before: its ctime moved.
func TestSameSizeEditUnderItsOldMtime(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	if err := os.WriteFile(p, []byte("# A\n[[B]]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	walk := func() vault.File {
		t.Helper()
		files, _, err := v.Files(context.Background())
		if err != nil || len(files) != 1 {
			t.Fatalf("files %v, %v", files, err)
		}
		return files[0]
	}
	before := walk()
	stamp := StampOf(before)
	written := time.Now().Add(time.Hour).UnixNano() // past the racy window of anything done now
	if !settled(written, stamp, walk()) {
		t.Fatal("an unchanged file is not settled by its stamp")
	}
	time.Sleep(20 * time.Millisecond) // a ctime apart from the first write's, on the coarsest clock Linux keeps (HZ=100)
	if err := os.WriteFile(p, []byte("# A\n[[C]]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, before.ModTime, before.ModTime); err != nil {
		t.Fatal(err)
	}
	after := walk()
	if after.Size != before.Size || !after.ModTime.Equal(before.ModTime) {
		t.Fatalf("the edit is not of the same size and mtime: %+v, was %+v", after, before)
	}
	if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
		if settled(written, stamp, after) {
			t.Errorf("a same-size edit under its old mtime is settled by the stamp\n%+v\nof\n%+v", stamp, after)
		}
	}
}
