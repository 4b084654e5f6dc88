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
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	s, err := Load(context.Background(), v, time.UTC, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := s.File("n.md")
	if !f.CTime.Equal(birth) || f.MTime.Year() != future.Year() {
		t.Errorf("ctime %v, mtime %v: want ctime the birth time %v", f.CTime, f.MTime, birth)
	}
}
