package base

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
)

// TestLoadSkipped: a note zk cannot read (not text) is still a row, as a
// file, and Load says why it has no properties.
func TestLoadSkipped(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bin.md"), []byte("---\na: 1\n---\n\x00\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ok.md"), []byte("---\na: 1\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	s, err := Load(context.Background(), v, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if s.Skipped["bin.md"] == "" || s.Skipped["ok.md"] != "" {
		t.Errorf("skipped %q, want bin.md alone", s.Skipped)
	}
	if f := s.File("bin.md"); f == nil || f.Props != nil {
		t.Errorf("bin.md: %+v, want a row without properties", f)
	}
	if got := s.File("ok.md").Props["a"]; got != 1.0 {
		t.Errorf("ok.md a = %v", got)
	}
}
