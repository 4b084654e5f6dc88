package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "state.json")
	for _, content := range []string{"one\n", "two, longer\n"} {
		if err := Write(name, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil || string(got) != content {
			t.Fatalf("read back %q, %v; want %q", got, err, content)
		}
	}
	if st, _ := os.Stat(name); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files left in the folder, want only the one written", len(entries))
	}
	if err := Write(filepath.Join(dir, "missing", "x"), nil, 0o600); err == nil {
		t.Error("wrote into a folder that does not exist")
	}
}

// TestWriteFrom: what fill writes, in pieces, replaces the file; an error
// from fill leaves the file as it was and no temporary file behind.
func TestWriteFrom(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "model.cache")
	big := make([]byte, 200<<10) // past the buffer: written through it uncopied
	for i := range big {
		big[i] = byte(i)
	}
	fill := func(w io.Writer) error {
		for _, p := range [][]byte{[]byte("head"), big, []byte("tail")} {
			if _, err := w.Write(p); err != nil {
				return err
			}
		}
		return nil
	}
	if err := WriteFrom(name, 0o600, fill); err != nil {
		t.Fatal(err)
	}
	want := string("head") + string(big) + "tail"
	if got, err := os.ReadFile(name); err != nil || string(got) != want {
		t.Fatalf("read back %d bytes, %v; want %d", len(got), err, len(want))
	}
	broken := errors.New("encoding failed")
	err := WriteFrom(name, 0o600, func(w io.Writer) error {
		w.Write(big)
		return broken
	})
	if !errors.Is(err, broken) {
		t.Fatalf("err = %v, want fill's error", err)
	}
	if got, _ := os.ReadFile(name); string(got) != want {
		t.Errorf("after a failed fill the file holds %d bytes, want the %d written before", len(got), len(want))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder, want 1", len(entries))
	}
}

// TestWriteInCheck: a failing Check leaves the file as it was and no
// temporary file behind; Like gives the new file the old one's mode.
func TestWriteInCheck(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := os.WriteFile(filepath.Join(dir, "n.md"), []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(filepath.Join(dir, "n.md"))
	refuse := errors.New("changed")
	err = WriteIn(root, "n.md", []byte("new"), Options{Like: info, Check: func() error { return refuse }})
	if !errors.Is(err, refuse) {
		t.Fatalf("err = %v, want the Check's error", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "n.md")); string(got) != "old" {
		t.Errorf("after a refused write the file holds %q", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder, want 1", len(entries))
	}
	if err := WriteIn(root, "n.md", []byte("new"), Options{Like: info}); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(filepath.Join(dir, "n.md"))
	if got, _ := os.ReadFile(filepath.Join(dir, "n.md")); string(got) != "new" || st.Mode().Perm() != 0o640 {
		t.Errorf("after the write: %q, mode %v; want \"new\", 0640", got, st.Mode().Perm())
	}
}

// TestSweep removes the temporary files of dead writers and of old ones,
// and keeps a live writer's and every other file.
func TestSweep(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	live := TempPrefix + strconv.Itoa(os.Getpid()) + "-abcd"
	files := []string{TempPrefix + "999999999-abcd", TempPrefix + "notapid", "keep" + TempPrefix + "1-abcd", live}
	for _, n := range files {
		os.WriteFile(filepath.Join(dir, n), nil, 0o600)
	}
	Sweep(root, ".", time.Now(), time.Hour)
	for _, n := range files {
		_, err := os.Stat(filepath.Join(dir, n))
		if kept := err == nil; kept != (n == live || n == files[2]) {
			t.Errorf("%s kept = %v", n, kept)
		}
	}
	Sweep(root, ".", time.Now().Add(2*time.Hour), time.Hour)
	if _, err := os.Stat(filepath.Join(dir, live)); err == nil {
		t.Error("a temporary file older than maxAge was kept")
	}
}
