package vault

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zk-claims/zk/vault/vaulttest"
)

// TestReadSys: notes read by their folders' descriptors are what the
// os.Root path reads, note for note and reason for reason: files in the
// root and in folders, an empty one, one over the cap, a symlinked note,
// and, after the walk, a note made a symlink out of its folder (which its
// folder's os.Root refuses), one made a FIFO (refused without blocking),
// one made a folder and one removed.
func TestReadSys(t *testing.T) {
	files := map[string]string{"a.md": "# A\n[[b]]\n", "empty.md": "", "big.md": strings.Repeat("x", 200)}
	for _, n := range []string{"b", "c", "d", "e", "f"} {
		files["sub/deeper/"+n+".md"] = "note " + n + "\n"
	}
	dir := vaulttest.Dir(t, files)
	if err := os.Symlink("../a.md", filepath.Join(dir, "sub", "link.md")); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	v.MaxNoteSize = 100
	notes, _, err := v.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 9 {
		t.Fatalf("files %v", notes)
	}
	deeper := filepath.Join(dir, "sub", "deeper")
	if err := os.Remove(filepath.Join(deeper, "c.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../a.md", filepath.Join(deeper, "c.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(deeper, "d.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(deeper, "d.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(deeper, "e.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(deeper, "e.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(deeper, "f.md")); err != nil {
		t.Fatal(err)
	}
	read := func(portable bool) []string {
		v.portableWalk = portable
		out := make([]string, len(notes))
		reasons := v.Each(context.Background(), notes, func(i int, n *Note) { out[i] = "src " + string(n.Src) })
		for i, r := range reasons {
			if r != "" {
				out[i] = "skipped: " + r
			}
		}
		return out
	}
	got, want := read(false), read(true)
	for i, f := range notes {
		if got[i] != want[i] {
			t.Errorf("%s: read %q, os.Root path %q", f.Path, got[i], want[i])
		}
	}
	for i, w := range map[string]string{"a.md": "src # A\n[[b]]\n", "sub/link.md": "src # A\n[[b]]\n",
		"sub/deeper/d.md": "skipped: sub/deeper/d.md: not a regular file", "sub/deeper/b.md": "src note b\n"} {
		for k, f := range notes {
			if f.Path == i && got[k] != w {
				t.Errorf("%s: read %q, want %q", i, got[k], w)
			}
		}
	}
}
