package vault

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzEditNote: for any note and any one splice of it, EditNote writes
// exactly the bytes the edit returned, keeps exactly the old ones as the
// backup and leaves no temp file; or it refuses and changes nothing.
func FuzzEditNote(f *testing.F) {
	f.Add([]byte("# A\n- Last tended: 2026-01-01\n"), uint16(18), uint16(10), []byte("2026-12-02"))
	f.Add([]byte("\ufeff# A\r\nbody"), uint16(4), uint16(0), []byte("\r\nnew\r\n"))
	f.Add([]byte("# Ä\n\xff\n"), uint16(0), uint16(3), []byte(""))
	f.Add([]byte("x\x00y"), uint16(1), uint16(1), []byte("z"))
	f.Fuzz(func(t *testing.T, src []byte, at, n uint16, with []byte) {
		if len(src) == 0 {
			return
		}
		from := int(at) % (len(src) + 1)
		to := from + int(n)%(len(src)-from+1)
		want := SpliceBytes(src, from, to, string(with))
		dir := t.TempDir()
		p := filepath.Join(dir, "n.md")
		if err := os.WriteFile(p, src, 0o640); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		os.Chtimes(p, old, old)
		v, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer v.Close()
		res, err := v.EditNote("n.md", func([]byte) ([]byte, error) { return want, nil }, WriteOptions{})
		got, rerr := os.ReadFile(p)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err != nil {
			if !errors.Is(err, ErrNotText) {
				t.Fatalf("EditNote: %v", err)
			}
			if !bytes.Equal(got, src) {
				t.Fatalf("a refused write changed the note")
			}
			return
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("wrote %q, want %q", got, want)
		}
		if res.Unchanged != bytes.Equal(src, want) {
			t.Fatalf("Unchanged = %v", res.Unchanged)
		}
		if !res.Unchanged {
			backup, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(res.Backup)))
			if err != nil || !bytes.Equal(backup, src) {
				t.Fatalf("backup %q, %v; want the old note", backup, err)
			}
		}
		if info, err := os.Stat(p); err != nil || info.Mode().Perm() != 0o640 {
			t.Fatalf("mode %v, %v; want 0640", info.Mode().Perm(), err)
		}
		if tmps, _ := filepath.Glob(filepath.Join(dir, tempPrefix+"*")); len(tmps) > 0 {
			t.Fatalf("temp files left: %v", tmps)
		}
	})
}
