package vault

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
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

// TestWalkNestedLinear: each folder is opened by its name in its parent,
// one path element, where the walk opened it by its path from the
// vault's root: 300 nested folders resolved 45,000 elements, and 4,000
// (past PATH_MAX, opened through the os.Root an element at a time) cost
// zk check 30 s of CPU. A vault of more folders than the walk keeps open
// holds no more than heldMax of them open, and lists what the portable
// walk lists.
func TestWalkNestedLinear(t *testing.T) {
	for _, tc := range []struct {
		name          string
		wide, deep    int
		maxElems      int
		checkOpenFDs  bool
		wantFileCount int
	}{
		{"300 nested", 1, 300, 2 * 301, false, 1},
		{"600 chains of 3", 2*heldMax + 88, 3, 2 * (2*heldMax + 88) * 4, true, 2*heldMax + 88},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			for i := range tc.wide {
				p := fmt.Sprintf("w%d", i) + strings.Repeat("/d", tc.deep-1)
				if err := root.MkdirAll(p, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := root.WriteFile(p+"/n.md", []byte("# n\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			fds := func() int {
				ents, err := os.ReadDir("/proc/self/fd")
				if err != nil {
					t.Skip("no /proc/self/fd:", err)
				}
				return len(ents)
			}
			var want []string
			for _, portable := range []bool{true, false} {
				v, err := Open(dir)
				if err != nil {
					t.Fatal(err)
				}
				v.portableWalk = portable
				var mu sync.Mutex
				elems, opens, most, before := 0, 0, 0, fds()
				v.walkOpened = func(_ string, n int) {
					mu.Lock()
					defer mu.Unlock()
					elems += n
					opens++
					if tc.checkOpenFDs && opens%16 == 0 {
						most = max(most, fds()-before)
					}
				}
				files, skips, err := v.Files(context.Background())
				v.Close()
				if err != nil || len(skips) != 0 || len(files) != tc.wantFileCount {
					t.Fatalf("portable=%v: %d files, skips %v, %v", portable, len(files), skips, err)
				}
				var paths []string
				for _, f := range files {
					paths = append(paths, f.Path)
				}
				if portable {
					want = paths
					continue
				}
				if !reflect.DeepEqual(paths, want) {
					t.Errorf("the walk and the portable walk list other files")
				}
				if elems > tc.maxElems {
					t.Errorf("%d opens resolved %d path elements, want at most %d", opens, elems, tc.maxElems)
				}
				if most > heldMax+Workers()+8 {
					t.Errorf("%d descriptors open at once, want at most %d kept and %d reading", most, heldMax, Workers())
				}
			}
		})
	}
}

// TestWalkRefusesFolderSwappedForSymlink: a subfolder replaced by a
// symlink between its parent's listing and its own open is not followed,
// whether the link leads out of the vault or to a folder in it; the
// folder is skipped, as one not read.
func TestWalkRefusesFolderSwappedForSymlink(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("# secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, inVault := range []bool{false, true} {
		dir := t.TempDir()
		for _, p := range []string{"a/b/n.md", "other/o.md"} {
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, p), []byte("# n\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		target := outside
		if inVault {
			target = "../other" // relative: openat2 beneath the root followed it
		}
		v, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		v.walkOpened = func(p string, _ int) {
			if p == "a/b" {
				if err := os.RemoveAll(filepath.Join(dir, "a/b")); err != nil {
					t.Error(err)
				}
				if err := os.Symlink(target, filepath.Join(dir, "a/b")); err != nil {
					t.Error(err)
				}
			}
		}
		files, skips, err := v.Files(context.Background())
		v.Close()
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, f := range files {
			paths = append(paths, f.Path)
		}
		if !reflect.DeepEqual(paths, []string{"other/o.md"}) || len(skips) != 1 || skips[0].Path != "a/b" || !skips[0].Folder {
			t.Errorf("in the vault %v: files %v, skips %+v; want other/o.md, a/b skipped", inVault, paths, skips)
		}
	}
}

// TestWalkStamps: the walk's statx gives each file's ctime, device and
// inode as stat(2) does, so the system walk and the portable one (a
// folder past openat2's reach is read through the os.Root in the same
// walk) stamp a file alike; a symlinked note's are its target's.
func TestWalkStamps(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "n.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("sub", "n.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	want := File{ChangeTime: st.Ctim.Nano(), Dev: st.Dev, Ino: st.Ino}
	if want.ChangeTime == 0 || want.Ino == 0 {
		t.Fatalf("stat gives no ctime or inode: %+v", st)
	}
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
		if len(files) != 2 {
			t.Fatalf("portable=%v: files %+v", portable, files)
		}
		for _, f := range files {
			if f.ChangeTime != want.ChangeTime || f.Dev != want.Dev || f.Ino != want.Ino {
				t.Errorf("portable=%v: %s stamped ctime %d dev %d ino %d, want %d %d %d", portable, f.Path, f.ChangeTime, f.Dev, f.Ino, want.ChangeTime, want.Dev, want.Ino)
			}
		}
	}
}

// TestReadNestedLinear: the notes' reader opens a folder by its name in
// its parent, as the walk does, where it opened each by its path from
// the vault's root: 300 nested folders with a note in each resolved
// 45,000 path elements, and 4,000 cost zk check 31 s of CPU.
func TestReadNestedLinear(t *testing.T) {
	const deep = 300
	dir := t.TempDir()
	p := dir
	for i := range deep {
		p = filepath.Join(p, "d")
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, fmt.Sprintf("n%d.md", i)), []byte("# n\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	files, _, err := v.Files(context.Background())
	if err != nil || len(files) != deep {
		t.Fatalf("%d files: %v", len(files), err)
	}
	var mu sync.Mutex
	elems := 0
	v.walkOpened = func(_ string, n int) {
		mu.Lock()
		defer mu.Unlock()
		elems += n
	}
	var read atomic.Int64
	reasons := v.Each(context.Background(), files, func(_ int, n *Note) {
		if n != nil {
			read.Add(1)
		}
	})
	for i, why := range reasons {
		if why != "" {
			t.Fatalf("%s: %s", files[i].Path, why)
		}
	}
	if read.Load() != deep || elems > 2*(deep+1) {
		t.Errorf("%d notes read resolving %d path elements, want %d notes and at most %d", read.Load(), elems, deep, 2*(deep+1))
	}
}
