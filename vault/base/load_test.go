package base

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/property"
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
	s := loadDir(t, dir, time.UTC, nil)
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

// TestLoadDeclaredText: a value that reads as a date stays text where the
// vault declares its property text, and is a date where it does not.
func TestLoadDeclaredText(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "n.md"), []byte("---\ncode: 2024-01-02\nwhen: 2024-01-02\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := loadDir(t, dir, time.UTC, map[string]property.Type{"code": property.Text})
	props := s.File("n.md").Props
	if got, ok := props["code"].(string); !ok || got != "2024-01-02" {
		t.Errorf("code = %#v, want the text 2024-01-02", props["code"])
	}
	if _, ok := props["when"].(Date); !ok {
		t.Errorf("when = %#v, want a date", props["when"])
	}
}

// TestLookupCaseVariantsIsStable: a note whose properties differ only in
// case (STATUS and Status) gives note.status the same one every time, as
// Obsidian gives one value; zk picked whichever its map gave first, so a
// view of such a note changed from run to run.
func TestLookupCaseVariantsIsStable(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "n.md"), []byte("---\nSTATUS: upper\nStatus: title\nsTaTuS: mixed\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := loadDir(t, dir, time.UTC, nil)
	n := s.File("n.md")
	seen := map[any]bool{}
	for range 64 {
		for _, x := range []string{`status`, `note.status`, `note["status"]`, `this.status`, `this.note.status`} {
			got, err := Value(s, nil, n, x, Options{Now: testNow, This: n})
			if err != nil {
				t.Fatalf("%s: %v", x, err)
			}
			seen[got] = true
		}
	}
	if len(seen) != 1 || !seen["upper"] {
		t.Errorf("status read as %v, want upper alone (the first of the names in byte order)", seen)
	}
}

// loadDir is Load of the vault in dir, which the test's cleanup closes.
func loadDir(t testing.TB, dir string, loc *time.Location, declared map[string]property.Type) *Snapshot {
	t.Helper()
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	s, err := Load(context.Background(), v, loc, declared)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
