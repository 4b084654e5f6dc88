package workspace

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/zk-claims/zk/result"
	"github.com/zk-claims/zk/runner"
	"github.com/zk-claims/zk/vault/evidence"
)

// AttachRequest is zk attach's: a result made elsewhere (Data, read from
// the file Name, as the user named it), recorded against a note's falsifier.
type AttachRequest struct {
	Note, Falsifier string
	Name            string
	Data            []byte
	// Modified is when the file was last modified: the latest its result
	// can have been measured, recorded in the block (Measured), so that
	// an older result answers no newer refutation; zero when unknown.
	Modified time.Time
	Tend     bool
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
	r.Attached, r.Verdict, r.Falsifier, r.FalsifierID, r.Command = true, evidence.VerdictAttached, fals.Text, fals.ID, attachedName(v.Dir, req.Name)
	if !req.Modified.IsZero() {
		r.Measured = req.Modified.UTC().Truncate(time.Second)
	}
	_, err = copyFile.Write(req.Data)
	if ferr := copyFile.Finish(); err == nil {
		err = ferr
	}
	if err != nil {
		return RunResult{}, fmt.Errorf("write %s: %w", r.Log, err)
	}
	r.LogSums = []string{evidence.LogSum(req.Data)}
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
		settings := w.Config.Judging(r.ID)
		j := evidence.Judge(fals, evidence.Outcome{Exit: -1}, req.Data, settings)
		r.Verdict, r.Criterion, r.JudgedWith = j.Verdict, j.Statement, fals.Under(settings).JudgedWith()
	}
	if r, err = w.record(e, r); err != nil {
		return RunResult{}, err
	}
	return RunResult{Note: p, Falsifier: fals, Dir: v.Dir, Run: r}, nil
}

// attachedName is how the note names an attached file: its path from the
// vault's folder when it lies inside the vault, else only its name. The
// note is shared and synced: the absolute path of a file on the machine
// that attached it means nothing elsewhere and tells readers where its
// owner keeps things.
func attachedName(vaultDir, name string) string {
	abs, err := filepath.Abs(name)
	if err != nil {
		return filepath.Base(name)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	top := vaultDir
	if real, err := filepath.EvalSymlinks(vaultDir); err == nil {
		top = real
	}
	if rel, err := filepath.Rel(top, abs); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(name)
}
