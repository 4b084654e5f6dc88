package base

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zk-claims/zk/vault"
)

// TestCTimeIsBirthTime: file.ctime is when the file was made, not when it
// was last changed: a note whose mtime is set a year ahead keeps its
// birth time as ctime.
func TestCTimeIsBirthTime(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "n.md")
	if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	future := time.Now().AddDate(1, 0, 0)
	if err := os.Chtimes(p, future, future); err != nil {
		t.Fatal(err)
	}
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, p, 0, unix.STATX_BTIME, &st); err != nil || st.Mask&unix.STATX_BTIME == 0 {
		t.Skip("the temporary folder's file system keeps no birth time")
	}
	birth := time.Unix(st.Btime.Sec, int64(st.Btime.Nsec))
	s := loadDir(t, dir, time.UTC, nil)
	f := s.File("n.md")
	if !f.CTime.Equal(birth) || f.MTime.Year() != future.Year() {
		t.Errorf("ctime %v, mtime %v: want ctime the birth time %v", f.CTime, f.MTime, birth)
	}
}

// TestCTimeOfACopy: a note replaced by a copy that keeps its size and
// modification time (cp -p, rsync -a: a new file, a new birth time) shows
// the copy's birth time, though its entry comes from the cache unchanged.
func TestCTimeOfACopy(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "n.md")
	mtime := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	write := func(name string) time.Time {
		if err := os.WriteFile(name, []byte("---\nk: 1\n---\nx\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(name, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		var st unix.Statx_t
		if err := unix.Statx(unix.AT_FDCWD, name, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &st); err != nil || st.Mask&unix.STATX_BTIME == 0 {
			t.Skip("the temporary folder's file system keeps no birth time (statx gives no STATX_BTIME)")
		}
		return time.Unix(st.Btime.Sec, int64(st.Btime.Nsec))
	}
	old := write(p)
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	read := func(reuse func(string) (*File, bool)) *Snapshot {
		files, _, err := v.Files(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Read(ctx, v, files, time.UTC, nil, reuse, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := read(nil)
	if got := first.File("n.md").CTime; !got.Equal(old) {
		t.Fatalf("ctime %v, want the birth time %v", got, old)
	}
	cached, err := EncodeNotes(first.Notes())
	if err != nil {
		t.Fatal(err)
	}

	time.Sleep(20 * time.Millisecond) // a birth time the file system tells apart
	copied := write(p + ".tmp")
	if err := os.Rename(p+".tmp", p); err != nil {
		t.Fatal(err)
	}
	if copied.Equal(old) {
		t.Skip("the copy's birth time is the note's: the file system's clock did not move")
	}
	entries, err := DecodeNotes(cached, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	reused := false
	s := read(func(path string) (*File, bool) {
		for _, f := range entries {
			if f.Path == path {
				reused = true
				return f, true
			}
		}
		return nil, false
	})
	f := s.File("n.md")
	if !reused || f.Size != first.File("n.md").Size || !f.MTime.Equal(mtime) {
		t.Fatalf("reused %v, size %d, mtime %v: the copy should keep the note's size and time and its cached entry", reused, f.Size, f.MTime)
	}
	if !f.CTime.Equal(copied) {
		t.Errorf("ctime %v (the note's was %v), want the copy's birth time %v", f.CTime, old, copied)
	}
}
