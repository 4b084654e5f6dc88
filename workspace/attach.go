package workspace

import (
	"context"
	"fmt"
	"strings"

	"github.com/zk-claims/zk/result"
	"github.com/zk-claims/zk/runner"
	"github.com/zk-claims/zk/vault/evidence"
)

// AttachRequest is zk attach's: a result made elsewhere (Data, read from
// the file Name), recorded against a note's falsifier.
type AttachRequest struct {
	Note, Falsifier string
	Name            string
	Data            []byte
	Tend            bool
}

// Attach records a result made elsewhere in the note's Evidence section,
// as a run is recorded: a copy of it under .zk/runs/, rendered as a table
// when zk knows its format (zk probe JSON, hyperfine JSON, Go benchmark
// output), and judged by the falsifier's criterion.
func (w *Workspace) Attach(ctx context.Context, req AttachRequest) (RunResult, error) {
	e, err := w.evidenceNote(ctx, req.Note, "results", req.Falsifier, req.Tend)
	if err != nil {
		return RunResult{}, err
	}
	v, p, fals := w.Vault, e.path, e.falsifier
	if err := checkCriterion(p, fals); err != nil {
		return RunResult{}, err
	}
	r, copyFile, err := evidence.NewRun(v, w.environment())
	if err != nil {
		return RunResult{}, err
	}
	r.Attached, r.Verdict, r.Falsifier, r.FalsifierID, r.Command = true, evidence.VerdictAttached, fals.Text, fals.ID, req.Name
	_, err = copyFile.Write(req.Data)
	if ferr := copyFile.Finish(); err == nil {
		err = ferr
	}
	if err != nil {
		return RunResult{}, fmt.Errorf("write %s: %w", r.Log, err)
	}
	if md, ok, err := probeEvidence(v, p, r.ID, req.Data); err != nil {
		return RunResult{}, err
	} else if ok {
		r.Format, r.Table = "zk probe", strings.Split(strings.TrimRight(md, "\n"), "\n")
	} else if kind, table, ok := result.Render(req.Data); ok {
		r.Format, r.Table = string(kind), table
	} else {
		lines, tail := runner.Tail(req.Data, 20, 0)
		r.Output = &evidence.Output{Lines: lines, Bytes: int64(len(req.Data)), Tail: tail}
	}
	if fals.Criterion != "" {
		j := evidence.Judge(fals, evidence.Outcome{Exit: -1}, req.Data, w.Config.Judging(r.ID))
		r.Verdict, r.Criterion, r.JudgedWith = j.Verdict, j.Statement, fals.JudgedWith()
	}
	if r, err = w.record(e, r); err != nil {
		return RunResult{}, err
	}
	return RunResult{Note: p, Falsifier: fals, Dir: v.Dir, Run: r}, nil
}
