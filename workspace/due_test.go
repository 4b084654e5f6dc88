package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/runner"
	"github.com/zk-claims/zk/vault/vaulttest"
)

const dueNote = `# Due

## Claim

A claim.

## Tests / falsifiers

- First.
  - run: ` + "`sh -c 'echo one'`" + `
- Second.
  - run: ` + "`sh -c 'echo two'`" + `
- Third, with no command.

## Evidence

## Maintenance

- Last tended: 2026-01-01
`

// approve approves falsifier command of note, as zk trust would.
func approve(t *testing.T, w *Workspace, note, command string) {
	t.Helper()
	argv, err := runner.Split(command)
	if err != nil {
		t.Fatal(err)
	}
	store, a, err := ApprovalOf(w.Vault, note, command, argv)
	if err != nil {
		t.Fatal(err)
	}
	a.Approved = time.Now()
	if err := store.Approve(a); err != nil {
		t.Fatal(err)
	}
}

// A command not approved is refused with a NotApprovedError, a falsifier
// without one with a NoCommandError; Due runs only the approved one, over
// the one workspace, each run recorded in the note in turn.
func TestRunRefusalsAndDue(t *testing.T) {
	w, _ := open(t, map[string]string{".obsidian/app.json": "{}", "Due.md": dueNote}, Writing)
	ctx := context.Background()
	_, err := w.Run(ctx, RunRequest{Note: "Due", Falsifier: "1"})
	var na *NotApprovedError
	if !errors.As(err, &na) || na.Note != "Due.md" || na.Falsifier != 1 || len(na.Changed) != 0 {
		t.Fatalf("run of an unapproved command: %v, want a NotApprovedError for falsifier 1 of Due.md", err)
	}
	_, err = w.Run(ctx, RunRequest{Note: "Due", Falsifier: "3"})
	var nc *NoCommandError
	if !errors.As(err, &nc) || nc.Falsifier != 3 {
		t.Fatalf("run of a falsifier without a command: %v, want a NoCommandError", err)
	}
	_, err = w.Run(ctx, RunRequest{Note: "Due"})
	var ue *UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("run naming no falsifier of three: %v, want a UsageError", err)
	}

	approve(t, w, "Due.md", "sh -c 'echo one'")
	var ran []RunResult
	res, err := w.Due(ctx, DueRequest{Ran: func(r RunResult) { ran = append(ran, r) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Notes != 1 || res.Runs != 1 || len(ran) != 1 || ran[0].Falsifier.N != 1 || res.Refuted || res.Failed {
		t.Fatalf("due = %+v, ran %d; want falsifier 1 of the one due note run", res, len(ran))
	}
	rows := map[int]string{}
	for _, r := range res.Rows {
		rows[r.N] = r.Verdict
	}
	if rows[1] != "no verdict" || rows[2] != "not approved" || len(rows) != 2 {
		t.Errorf("rows = %+v, want 1 run (no verdict), 2 not approved", res.Rows)
	}
	nr, err := w.Runs(ctx, "Due")
	runs := nr.Runs
	if err != nil || len(runs) != 1 || runs[0].ID != ran[0].Run.ID {
		t.Errorf("runs in the note: %+v, %v; want the one run %s", runs, err, ran[0].Run.ID)
	}
}

// manyFalsifiers is a note whose n falsifiers all run command.
func manyFalsifiers(n int, command string) string {
	var b strings.Builder
	b.WriteString("# Due\n\n## Claim\n\nA claim.\n\n## Tests / falsifiers\n\n")
	for i := range n {
		fmt.Fprintf(&b, "- Falsifier %d.\n  - run: `%s`\n", i+1, command)
	}
	b.WriteString("\n## Evidence\n\n## Maintenance\n\n- Last tended: 2026-01-01\n")
	return b.String()
}

// Due, choosing what to run, hashes a file many falsifiers name once, not
// once per falsifier (200 naming a 60 MB file read 12 GB).
func TestDueHashesEachFileOnce(t *testing.T) {
	const n, size = 20, 1 << 20
	w, _ := open(t, map[string]string{".obsidian/app.json": "{}", "Due.md": manyFalsifiers(n, "cat b.bin"),
		"b.bin": strings.Repeat("x", size)}, Writing)
	approve(t, w, "Due.md", "cat b.bin")
	before := vaulttest.BytesRead(t)
	res, err := w.Due(context.Background(), DueRequest{All: true, DryRun: true})
	read := vaulttest.BytesRead(t) - before
	if err != nil || res.Runs != n {
		t.Fatalf("due = %+v, %v; want %d would run", res, err, n)
	}
	if read > 2*size {
		t.Errorf("%d falsifiers naming a %d-byte file read %d bytes, want it read once", n, size, read)
	}
}
