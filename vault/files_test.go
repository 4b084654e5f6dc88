package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault/vaulttest"
)

// TestFiles walks a vault of nested folders, dot folders, ignored paths,
// symlinks of every kind and a pipe: the list must be the same, sorted,
// whichever goroutine reads which folder first, and whichever reader
// reads the folders (the system's own, or the os.Root's fs.FS).
func TestFiles(t *testing.T) {
	for _, portable := range []bool{false, true} {
		t.Run(fmt.Sprintf("portable=%v", portable), func(t *testing.T) { testFiles(t, portable) })
	}
}

func testFiles(t *testing.T, portable bool) {
	dir := t.TempDir()
	outside := t.TempDir()
	for _, p := range []string{"a.md", "b/c.md", "b/d/e.md", "b/d/f/g.png", "z.md", ".obsidian/app.json",
		"b/.trash/old.md", "Archive/x.md", "b/Archive/y.md"} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("no"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"b/link.md":   "../a.md",
		"b/dirlink":   "d",
		"b/gone.md":   "nowhere.md",
		"b/escape.md": filepath.Join(outside, "secret.md"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skip("no symlinks here:", err)
		}
	}
	if err := mkfifo(filepath.Join(dir, "b", "pipe")); err != nil {
		t.Log("no pipe:", err)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	v.portableWalk = portable
	v.Ignore = func(p string) bool { return p == "Archive" || strings.HasSuffix(p, "/Archive") }

	for range 5 { // the folders are read in parallel; the answer must not vary
		files, skips, err := v.Files(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range files {
			if f.Size <= 0 || f.ModTime.IsZero() {
				t.Errorf("%s: size %d, mtime %v", f.Path, f.Size, f.ModTime)
			}
			if f.Symlink != (f.Path == "b/link.md") {
				t.Errorf("%s: Symlink = %v", f.Path, f.Symlink)
			}
			got = append(got, f.Path)
		}
		want := []string{"a.md", "b/c.md", "b/d/e.md", "b/d/f/g.png", "b/link.md", "z.md"}
		if !slices.Equal(got, want) {
			t.Fatalf("Files = %q, want %q", got, want)
		}
		var skipped []string
		for _, s := range skips {
			if !strings.HasPrefix(s.Reason, "symlink: ") {
				t.Errorf("skip %s: reason %q", s.Path, s.Reason)
			}
			skipped = append(skipped, s.Path)
		}
		if want := []string{"b/escape.md", "b/gone.md"}; !slices.Equal(skipped, want) {
			t.Fatalf("skips = %q, want %q", skipped, want)
		}
		// The paths alone: the same files, symlinks and skips.
		paths, pskips, err := v.FilePaths(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(paths, files, func(a, b File) bool { return a.Path == b.Path && a.Symlink == b.Symlink }) {
			t.Errorf("FilePaths = %v, want the paths of %v", paths, files)
		}
		if !slices.Equal(pskips, skips) {
			t.Errorf("FilePaths' skips = %v, want %v", pskips, skips)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := v.Files(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Files on a cancelled context: %v, want context.Canceled", err)
	}
}

// TestJoinBytes: a path made from a name in a getdents buffer is made with
// one allocation.
func TestJoinBytes(t *testing.T) {
	name := []byte("note.md")
	for _, tt := range []struct{ dir, want string }{{".", "note.md"}, {"a/b", "a/b/note.md"}} {
		if got := joinBytes(tt.dir, name); got != tt.want {
			t.Errorf("joinBytes(%q) = %q, want %q", tt.dir, got, tt.want)
		}
		if n := testing.AllocsPerRun(100, func() { joinBytes(tt.dir, name) }); n > 1 {
			t.Errorf("joinBytes(%q): %v allocations, want 1", tt.dir, n)
		}
	}
}

// TestFilesOrder: the list is sorted by path as strings compare, across
// folders whose names sort around "/" (" ", "-", "." before it, "0" and
// letters after), whichever reader reads the folders.
func TestFilesOrder(t *testing.T) {
	want := []string{"B.md", "a.md", "b c/y.md", "b c.md", "b-c.md", "b-c/w.md", "b.md", "b/c d/f.md", "b/c-d.md",
		"b/c/e.md", "b/c0.md", "b0.md", "b0/a.md", "bb/z.md", "é.md", "é/x.md"}
	files := map[string]string{}
	for _, p := range want {
		files[p] = "x"
	}
	dir := vaulttest.Dir(t, files)
	want = slices.Sorted(slices.Values(want))
	for _, portable := range []bool{false, true} {
		v, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		v.portableWalk = portable
		got, _, err := v.Files(context.Background())
		v.Close()
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, f := range got {
			paths = append(paths, f.Path)
		}
		if !slices.Equal(paths, want) {
			t.Errorf("portable=%v: Files =\n%q\nwant\n%q", portable, paths, want)
		}
	}
}

// TestFilesDeep: a note whose path is longer than the system takes in one
// call (PATH_MAX, 4096 bytes on Linux) is listed all the same, as os.Root
// reaches it a folder at a time.
func TestFilesDeep(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	deep := strings.Repeat(strings.Repeat("d", 200)+"/", 25) // 5,025 bytes
	if err := root.MkdirAll(deep, 0o755); err != nil {
		t.Skip("no deep folders here:", err)
	}
	if err := root.WriteFile(deep+"n.md", []byte("# n\n"), 0o644); err != nil {
		t.Skip("no deep files here:", err)
	}
	for _, portable := range []bool{false, true} {
		v, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		v.portableWalk = portable
		files, skips, err := v.Files(context.Background())
		v.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 || files[0].Path != deep+"n.md" || len(skips) != 0 {
			t.Errorf("portable=%v: %d files, skips %v; want the deep note alone", portable, len(files), skips)
		}
	}
}

// TestFilePathsUnsearchable: in a folder that can be listed but not
// searched, whose entries cannot be stat-ed, FilePaths skips each file as
// Files does, not listing files a command could not read.
func TestFilePathsUnsearchable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root searches every folder")
	}
	dir := vaulttest.Dir(t, map[string]string{"a.md": "x", "b/c.md": "x", "b/d.md": "x"})
	locked := filepath.Join(dir, "b")
	if err := os.Chmod(locked, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	files, skips, err := v.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	paths, pskips, err := v.FilePaths(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(files) || !slices.Equal(pskips, skips) || len(skips) != 2 {
		t.Errorf("FilePaths = %v, %v; Files = %v, %v", paths, pskips, files, skips)
	}
}
