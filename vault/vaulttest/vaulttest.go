// Package vaulttest writes vaults for tests: the vault's own packages
// (vault, lint, tending, evidence) and the index test against real files.
package vaulttest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Dir writes files (vault path → content) into a new temporary folder and
// returns it. Every file's mtime is an hour old, past any quiet window.
func Dir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(full, old, old); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
