package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault"
)

func TestProbeEvidence(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755)
	os.WriteFile(filepath.Join(dir, ".obsidian", "app.json"), []byte(`{"attachmentFolderPath":"Assets"}`), 0o644)
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	out, err := os.ReadFile("../probe/testdata/openai.json")
	if err != nil {
		t.Fatal(err)
	}

	md, ok, err := probeEvidence(v, "Notes/Claim.md", "20261202T140312Z-3f9c", out)
	if err != nil || !ok {
		t.Fatalf("probeEvidence = %v, %v", ok, err)
	}
	if !strings.HasPrefix(md, "| concurrency requested / achieved |") ||
		!strings.HasSuffix(md, "\n![[Assets/zk-probe-20261202T140312Z-3f9c.svg]]\n") {
		t.Errorf("markdown:\n%s", md)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "Assets", "zk-probe-20261202T140312Z-3f9c.svg"))
	if err != nil || !strings.HasPrefix(string(svg), "<svg ") {
		t.Errorf("chart: %v", err)
	}

	// Output that is not probe JSON is not probe evidence, and writes nothing.
	for _, other := range []string{"PASS\n", `{"results":[]}`} {
		if _, ok, err := probeEvidence(v, "Notes/Claim.md", "x", []byte(other)); ok || err != nil {
			t.Errorf("probeEvidence(%q) = %v, %v", other, ok, err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "Assets")); len(entries) != 1 {
		t.Errorf("Assets holds %d files, want 1", len(entries))
	}
}
