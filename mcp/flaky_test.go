package mcp

import (
	"path/filepath"
	"testing"

	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/evidence/evidencetest"
	"github.com/zk-claims/zk/view"
)

// TestMCPFlaky: an agent's check reports a falsifier whose verdict
// flipped twice (falsifiers/flaky), and its runs say so, as zk check and
// zk runs do.
func TestMCPFlaky(t *testing.T) {
	note := evidencetest.FlakyNote("F", evidence.VerdictSupports, evidence.VerdictRefutes, evidence.VerdictSupports)
	cs, _ := newMCPSessionWith(t, func(dir string) { writeOld(t, filepath.Join(dir, "F.md"), note) })
	var page checkPage
	callTool(t, cs, "check", map[string]any{"paths": []string{"F.md"}}, &page, false)
	if len(page.Findings) != 1 || page.Findings[0].Rule != "falsifiers/flaky" || page.Findings[0].Line != 5 {
		t.Fatalf("check = %+v, want falsifiers/flaky alone, at line 5", page.Findings)
	}
	var runs view.NoteRuns
	callTool(t, cs, "runs", map[string]any{"note": "F.md"}, &runs, false)
	if len(runs.Falsifiers) != 1 || runs.Falsifiers[0].Flaky == nil || *runs.Falsifiers[0].Flaky != (view.Flaky{Runs: 3, Refutes: 1, Supports: 2, Flips: 2}) {
		t.Fatalf("runs' falsifiers = %+v, want one flaky over 3 runs", runs.Falsifiers)
	}
}
