package ownfile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// vault makes a folder with .zk/ files of every shape a shipped vault
// can hold, and opens it as a root.
func vault(t *testing.T) *os.Root {
	t.Helper()
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, ".zk", "backups"), 0o755))
	must(os.MkdirAll(filepath.Join(dir, "notes"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "notes", "Victim.md"), []byte("# Victim\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, ".zk", "config.toml"), []byte("[claims]\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, ".zk", "big"), make([]byte, 1000), 0o644))
	must(os.Symlink("../notes/Victim.md", filepath.Join(dir, ".zk", "ledger.jsonl")))
	must(os.Symlink("../../notes", filepath.Join(dir, ".zk", "backups", "notes")))
	must(os.Symlink("../notes", filepath.Join(dir, ".zk", "runs")))
	if runtime.GOOS != "windows" {
		must(mkfifo(filepath.Join(dir, ".zk", "fifo"), 0o644))
	}
	root, err := os.OpenRoot(dir)
	must(err)
	t.Cleanup(func() { root.Close() })
	return root
}

func TestRead(t *testing.T) {
	root := vault(t)
	for _, tc := range []struct {
		rel  string
		max  int64
		want error // nil: read
	}{
		{".zk/config.toml", 1 << 20, nil},
		{".zk/big", 1000, nil},
		{".zk/big", 999, ErrTooLarge},
		{".zk/ledger.jsonl", 0, ErrSymlink},
		{".zk/backups/notes/Victim.md", 0, ErrSymlink},
		{".zk/runs/Victim.md", 0, ErrSymlink},
		{".zk/fifo", 0, ErrNotRegular},
		{".zk/backups", 0, ErrNotRegular},
		{".zk/missing", 0, os.ErrNotExist},
	} {
		if tc.rel == ".zk/fifo" && runtime.GOOS == "windows" {
			continue
		}
		_, err := Read(root, tc.rel, tc.max)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("Read(%s, %d) = %v, want %v", tc.rel, tc.max, err, tc.want)
		}
	}
}

// TestOpenRegular: a note is opened through a symlink that stays inside
// the root, with the size its stat gave; a FIFO or a folder is refused
// (a FIFO without blocking on it).
func TestOpenRegular(t *testing.T) {
	root := vault(t)
	for _, tc := range []struct {
		rel  string
		size int64
		want error // nil: opened
	}{
		{"notes/Victim.md", 9, nil},
		{".zk/ledger.jsonl", 9, nil},
		{".zk/big", 1000, nil},
		{".zk/fifo", 0, ErrNotRegular},
		{".zk/backups", 0, ErrNotRegular},
		{".zk/missing", 0, os.ErrNotExist},
	} {
		if tc.rel == ".zk/fifo" && runtime.GOOS == "windows" {
			continue
		}
		f, info, err := OpenRegular(root, filepath.FromSlash(tc.rel))
		if tc.want != nil {
			if !errors.Is(err, tc.want) || f != nil {
				t.Errorf("OpenRegular(%s) = %v, %v, want %v", tc.rel, f, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("OpenRegular(%s): %v", tc.rel, err)
			continue
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil || info.Size() != tc.size || int64(len(b)) != tc.size {
			t.Errorf("OpenRegular(%s): size %d, read %d bytes (%v), want %d", tc.rel, info.Size(), len(b), err, tc.size)
		}
	}
}

func TestMkdirAllRefusesALinkOnTheWay(t *testing.T) {
	root := vault(t)
	if err := MkdirAll(root, ".zk/backups/notes/Victim.md", 0o700); !errors.Is(err, ErrSymlink) {
		t.Fatalf("MkdirAll through a symlinked folder: %v, want ErrSymlink", err)
	}
	if _, err := root.Lstat(filepath.Join("notes", "Victim.md", "x")); err == nil {
		t.Fatal("a folder was made in notes/")
	}
	if err := MkdirAll(root, ".zk/backups/other/a b", 0o700); err != nil {
		t.Fatal(err)
	}
	if info, err := root.Lstat(filepath.Join(".zk", "backups", "other", "a b")); err != nil || !info.IsDir() {
		t.Fatalf("not made: %v", err)
	}
}

func TestOpenFileAppendsOnlyToARegularFile(t *testing.T) {
	root := vault(t)
	if _, err := OpenFile(root, ".zk/ledger.jsonl", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); !errors.Is(err, ErrSymlink) {
		t.Fatalf("append through a symlink: %v", err)
	}
	b, _ := root.ReadFile(filepath.Join("notes", "Victim.md"))
	if string(b) != "# Victim\n" {
		t.Fatalf("the note changed: %q", b)
	}
	f, err := OpenFile(root, ".zk/new.jsonl", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestLock: a lock file is opened as OpenFile opens one: a symlink (to a
// note, or to a file outside that does not exist yet) is refused and
// nothing is made where it points, as is a FIFO (without waiting on it)
// or a folder; a regular one is locked, and a second taker is told it is
// busy, or stops when its context is done.
func TestLock(t *testing.T) {
	root := vault(t)
	outside := filepath.Join(t.TempDir(), "journal.key")
	if err := os.Symlink(outside, filepath.Join(root.Name(), ".zk", "outside.lock")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rel  string
		want error
	}{
		{".zk/ledger.jsonl", ErrSymlink},
		{".zk/outside.lock", ErrSymlink},
		{".zk/runs/due.lock", ErrSymlink},
		{".zk/fifo", ErrNotRegular},
		{".zk/backups", ErrNotRegular},
	} {
		if tc.rel == ".zk/fifo" && runtime.GOOS == "windows" {
			continue
		}
		if unlock, err := Lock(root, tc.rel, 0); !errors.Is(err, tc.want) {
			if err == nil {
				unlock()
			}
			t.Errorf("Lock(%s) = %v, want %v", tc.rel, err, tc.want)
		}
	}
	if _, err := os.Lstat(outside); err == nil {
		t.Error("the lock's symlink was followed: its target was made")
	}
	if _, err := root.Lstat(filepath.Join("notes", "due.lock")); err == nil {
		t.Error("the lock was made through the symlinked folder")
	}
	if b, _ := root.ReadFile(filepath.Join("notes", "Victim.md")); string(b) != "# Victim\n" {
		t.Errorf("the note changed: %q", b)
	}

	unlock, err := Lock(root, ".zk/write.lock", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(root, ".zk/write.lock", 20*time.Millisecond); !errors.Is(err, ErrBusy) {
		t.Errorf("a second Lock while held: %v, want ErrBusy", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	if _, err := LockContext(ctx, root, ".zk/write.lock", time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("LockContext while held, cancelled: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("LockContext returned %v after its context was cancelled", d)
	}
	unlock()
	unlock, err = Lock(root, ".zk/write.lock", 0)
	if err != nil {
		t.Fatalf("Lock after the unlock: %v", err)
	}
	unlock()
}
