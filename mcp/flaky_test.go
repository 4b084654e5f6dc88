package mcp

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/view"
)

// TestMCPFlaky: an agent's check reports a falsifier whose verdict
// flipped twice (falsifiers/flaky), and its runs say so, as zk check and
// zk runs do.
func TestMCPFlaky(t *testing.T) {
	note := "# F\n\n## Tests / falsifiers\n\n- The rate falls. ^f-0001\n  - refuted if: `x > 0`\n\n## Evidence\n\n"
	for m, v := range []evidence.Verdict{evidence.VerdictSupports, evidence.VerdictRefutes, evidence.VerdictSupports} {
		found := map[evidence.Verdict]string{evidence.VerdictRefutes: "x = 1; refuted if `x > 0`: refuted", evidence.VerdictSupports: "x = 0; refuted if `x > 0`: not refuted"}[v]
		note += string(evidence.RenderRun(evidence.Run{ID: fmt.Sprintf("20261201T10%02d00Z-%04x", m, m), Started: time.Date(2026, 12, 1, 10, m, 0, 0, time.UTC),
			Verdict: v, Falsifier: "The rate falls.", FalsifierID: "f-0001", Command: "true", Criterion: found}, "\n")) + "\n"
	}
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
