package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const rejudgeNote = `# C

## Claim

The decode rate stays under 50 tok/s.

## Tests / falsifiers

- The rate stays under 50.
  - run: ` + "`sh -c 'echo rate = 99.91 tok/s'`" + `
  - capture: ` + "`rate = ([0-9.]+) tok/s`" + `
  - refuted if: ` + "`rate < 50`" + `

## Evidence
`

// A finding's next step is worded as this server's tool that takes it,
// and the rejudge tool takes it: an agent has no zk command line.
func TestMCPRejudge(t *testing.T) {
	cs, dir := newMCPSessionWith(t, func(dir string) {
		writeOld(t, filepath.Join(dir, "C.md"), rejudgeNote)
	})
	approve(t, dir, "C.md", "echo rate = 99.91 tok/s")
	var ran runFalsifierOutput
	callTool(t, cs, "run_falsifier", map[string]any{"note": "C.md", "falsifier": 1}, &ran, false)
	if ran.Run.Verdict != "supports" {
		t.Fatalf("run_falsifier = %+v, want supports", ran)
	}

	// The criterion edited: check proposes the rejudge tool.
	p := filepath.Join(dir, "C.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	writeOld(t, p, strings.Replace(string(b), "refuted if: `rate < 50`", "refuted if: `rate >= 50`", 1))
	var page checkPage
	callTool(t, cs, "check", map[string]any{"paths": []string{"C.md"}}, &page, false)
	if len(page.Findings) != 1 || page.Findings[0].Rule != "falsifiers/criterion-changed" {
		t.Fatalf("check = %+v, want falsifiers/criterion-changed alone", page.Findings)
	}
	msg := page.Findings[0].Message
	if !strings.HasSuffix(msg, `; rejudge {"note":"C.md","falsifier":1} records that`) || strings.Contains(msg, "zk run") {
		t.Errorf("the finding proposes %q, want the rejudge tool and no command line", msg)
	}

	if text := callTool(t, cs, "rejudge", map[string]any{"note": "C.md", "falsifier": 0}, nil, true); !strings.Contains(text, "rejudge: falsifier 0 is not") {
		t.Errorf("rejudge of falsifier 0 says %q", text)
	}
	var out rejudgeOutput
	callTool(t, cs, "rejudge", map[string]any{"note": "C.md", "falsifier": 1}, &out, false)
	if out.Note != "C.md" || len(out.Runs) != 1 || out.Runs[0].Rejudges != ran.Run.ID || out.Runs[0].Verdict != "refutes" {
		t.Fatalf("rejudge = %+v, want one judgement of %s that refutes", out, ran.Run.ID)
	}
	callTool(t, cs, "check", map[string]any{"paths": []string{"C.md"}}, &page, false)
	if len(page.Findings) != 1 || page.Findings[0].Rule != "falsifiers/refuted" {
		t.Errorf("check after rejudge = %+v, want falsifiers/refuted alone", page.Findings)
	}
	// Nothing changed since: nothing to judge again, nothing written.
	callTool(t, cs, "rejudge", map[string]any{"note": "C.md"}, &out, false)
	if len(out.Runs) != 0 {
		t.Errorf("a second rejudge recorded %+v", out.Runs)
	}
}

// writeOld writes a note as edited a minute ago: older than the second
// zk's write waits for after an edit.
func writeOld(t *testing.T, p, text string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
}
