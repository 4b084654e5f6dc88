// Package evidencetest writes notes with recorded runs for the tests of
// the front ends (zk lsp, zk mcp) that report what the runs say.
package evidencetest

import (
	"fmt"
	"strings"
	"time"

	"github.com/zk-claims/zk/vault/evidence"
)

// FlakyNote is a note titled title with one falsifier (id f-0001, at
// line 5, criterion `x > 0`) and a run recorded for each verdict, in
// order, a minute apart on 2026-12-01, each judged as its verdict says:
// three that alternate make falsifiers/flaky's two flips.
func FlakyNote(title string, verdicts ...evidence.Verdict) string {
	var b strings.Builder
	b.WriteString("# " + title + "\n\n## Tests / falsifiers\n\n- The rate falls. ^f-0001\n  - refuted if: `x > 0`\n\n## Evidence\n\n")
	for m, v := range verdicts {
		found := "x = 0; refuted if `x > 0`: not refuted"
		if v == evidence.VerdictRefutes {
			found = "x = 1; refuted if `x > 0`: refuted"
		}
		b.Write(evidence.RenderRun(evidence.Run{ID: fmt.Sprintf("20261201T10%02d00Z-%04x", m, m), Started: time.Date(2026, 12, 1, 10, m, 0, 0, time.UTC),
			Verdict: v, Falsifier: "The rate falls.", FalsifierID: "f-0001", Command: "true", Criterion: found}, "\n"))
		b.WriteString("\n")
	}
	return b.String()
}
