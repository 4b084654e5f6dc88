package vault

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWalkBirthTime: the walk's statx gives each file's birth time (Bases'
// file.ctime reads no other), and a note's mtime set a year ahead leaves
// it; the portable walk, as on other systems, gives none.
func TestWalkBirthTime(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "n.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &st); err != nil || st.Mask&unix.STATX_BTIME == 0 {
		t.Skip("the temporary folder's file system keeps no birth time (statx gives no STATX_BTIME)")
	}
	want := st.Btime.Sec*1e9 + int64(st.Btime.Nsec)
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for _, portable := range []bool{false, true} {
		v.portableWalk = portable
		files, _, err := v.Files(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 {
			t.Fatalf("portable=%v: files %v", portable, files)
		}
		if w := want * int64(btoi(!portable)); files[0].Birth != w {
			t.Errorf("portable=%v: Birth %d, want %d", portable, files[0].Birth, w)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestDirentMode holds the folder listing's types to the modes a stat
// gives, every byte value: a type the listing does not name asks for a
// stat.
func TestDirentMode(t *testing.T) {
	want := map[byte]fs.FileMode{
		unix.DT_REG:  0,
		unix.DT_DIR:  fs.ModeDir,
		unix.DT_LNK:  fs.ModeSymlink,
		unix.DT_FIFO: fs.ModeNamedPipe,
		unix.DT_SOCK: fs.ModeSocket,
		unix.DT_CHR:  fs.ModeDevice | fs.ModeCharDevice,
		unix.DT_BLK:  fs.ModeDevice,
	}
	for i := range 256 {
		b := byte(i)
		w, ok := want[b]
		if !ok {
			w = unknownType
		}
		if got := direntMode(b); got != w {
			t.Errorf("direntMode(%d) = %v, want %v", b, got, w)
		}
	}
}

// TestDirentCount: the walk sizes a folder's list by the records of its
// first read, "." and ".." among them; a folder that takes several reads
// (long names past the buffer) still lists every file.
func TestDirentCount(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("n", 200)
	const n = 400 // 400 records of over 200 bytes: past one 32 KB read
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s%03d.md", long, i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	buf := make([]byte, 1<<20)
	got, err := unix.Getdents(fd, buf)
	if err != nil {
		t.Fatal(err)
	}
	if k := direntCount(buf[:got]); k != n+2 {
		t.Errorf("direntCount = %d, want %d", k, n+2)
	}
	if k := direntCount(buf[:10]); k != 0 {
		t.Errorf("direntCount of a cut record = %d", k)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := v.Files(context.Background())
	if err != nil || len(files) != n {
		t.Fatalf("Files: %d files (%v), want %d", len(files), err, n)
	}
}
