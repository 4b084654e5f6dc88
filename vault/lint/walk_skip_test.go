package lint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault"
)

// A folder the walk may not read is a skip the checker reports
// (file/skipped), never silent: its notes would otherwise vanish and the
// links into it read as broken.
func TestUnreadableFolderIsSkipped(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root reads a 0000 folder")
	}
	dir := t.TempDir()
	for p, text := range map[string]string{"a.md": "# A\n\n[[locked/B]]\n", "locked/B.md": "# B\n"} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(text), 0o644)
	}
	locked := filepath.Join(dir, "locked")
	os.Chmod(locked, 0)
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	files, skips, err := v.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(skips) != 1 || skips[0].Path != "locked" || !skips[0].Folder || !strings.Contains(skips[0].Reason, "permission denied") {
		t.Fatalf("skips = %+v, want the folder locked, permission denied", skips)
	}
	rep, err := Check(context.Background(), v, files, skips, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Rule == RuleFileSkipped && f.Path == "locked" && strings.Contains(f.Message, "permission denied") {
			found = true
		}
	}
	if !found {
		t.Errorf("findings = %+v, want file/skipped for the folder locked", rep.Findings)
	}
}
