//go:build unix

package workspace

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zk-claims/zk/vault"
)

// TestLocateNamesASkippedFile: a note argument naming a named pipe of the
// vault (x.md made with mkfifo) is refused saying what it is, where it
// said "no such note" of a file ls lists.
func TestLocateNamesASkippedFile(t *testing.T) {
	w, _ := open(t, map[string]string{".obsidian/app.json": "{}", "Only.md": "# Only\n"}, Reading)
	if err := syscall.Mkfifo(filepath.Join(w.Vault.Dir, "x.md"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	for _, locate := range []func(context.Context, *vault.Vault, string) (string, []vault.File, error){Locate, LocatePaths} {
		_, _, err := locate(context.Background(), w.Vault, "x.md")
		var ue *UsageError
		if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), "x.md: not a regular file (a named pipe)") {
			t.Errorf("x.md, a named pipe: %v, want a UsageError naming the named pipe", err)
		}
	}
	if _, _, err := Locate(context.Background(), w.Vault, "Nowhere.md"); !errors.Is(err, vault.ErrNotFound) {
		t.Errorf("Nowhere.md: %v, want ErrNotFound", err)
	}
}
