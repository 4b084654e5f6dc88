package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The check tool's paths that are no note of the vault (a commit's
// .github/pull_request_template.md) are not checked, as zk check PATH
// says on stderr: the tool says so in its warnings, where it said
// nothing and an agent took the file for checked and clean.
func TestMCPCheckPassedOver(t *testing.T) {
	cs, _ := newMCPSessionWith(t, func(dir string) {
		if err := os.MkdirAll(filepath.Join(dir, ".github"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeOld(t, filepath.Join(dir, ".github", "pull_request_template.md"), "# PR\n[[Nowhere]]\n")
	})
	var page checkPage
	callTool(t, cs, "check", map[string]any{"paths": []string{".github/pull_request_template.md"}}, &page, false)
	want := []string{".github/pull_request_template.md: not checked: in a dot folder, which zk does not read"}
	if !slices.Equal(page.Warnings, want) || len(page.Findings) != 0 {
		t.Errorf("check of a file in a dot folder: warnings %q, findings %+v, want %q and none", page.Warnings, page.Findings, want)
	}
}
