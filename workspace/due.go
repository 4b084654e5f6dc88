package workspace

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"time"

	"github.com/zk-claims/zk/internal/ownfile"
	"github.com/zk-claims/zk/runner"
	"github.com/zk-claims/zk/trust"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
)

// dueLock is the lock Due holds, so two schedules never overlap.
const dueLock = evidence.RunsDir + "/due.lock"

// DueRequest is zk run --due's (--all's, with All).
type DueRequest struct {
	// All runs every note's approved commands, not only the notes due
	// for tending.
	All bool
	// Timeout, MaxLog and Tend are each run's, as in RunRequest.
	Timeout time.Duration
	MaxLog  int64
	Tend    bool
	// DryRun decides what would run, and runs and writes nothing: each
	// command is listed as "would run".
	DryRun bool
	// Ran, when set, is told of each run once it is recorded: a front
	// end's progress.
	Ran func(RunResult)
}

// DueRow is one line of the summary: a falsifier run, or one that was
// not (not approved, unreadable, not recorded).
type DueRow struct {
	Note string
	N    int
	// Verdict is the run's verdict ("no verdict" for none), or why there
	// is none: "not approved", "unreadable", "not recorded", "?".
	Verdict string
	// Statement is the criterion's statement, or what to do or what went
	// wrong.
	Statement string
}

// DueResult is what Due did.
type DueResult struct {
	Rows []DueRow
	// Runs is how many falsifiers were to run, in Notes notes.
	Runs, Notes int
	// Refuted: a run refuted its claim. Failed: a run could not be
	// recorded.
	Refuted, Failed bool
}

// Due runs every approved falsifier command of the notes due for tending
// (every note with All), one at a time, since measurements taken at once
// would disturb each other, and records each as Run does, over this one
// workspace. Commands not yet approved are listed, never run. It holds
// .zk/runs/due.lock, so two schedules never overlap; a second is a
// RefusedError.
func (w *Workspace) Due(ctx context.Context, req DueRequest) (DueResult, error) {
	v := w.Vault
	// The folder and the lock came with the vault: neither is followed
	// through a symlink (a due.lock linked to the user's journal key had
	// zk create and truncate it), and a FIFO is refused, not waited on.
	if err := ownfile.MkdirAll(v.Root(), evidence.RunsDir, 0o755); err != nil {
		return DueResult{}, fmt.Errorf("create %s: %w", evidence.RunsDir, err)
	}
	unlock, err := ownfile.Lock(v.Root(), dueLock, 0)
	if errors.Is(err, ownfile.ErrBusy) {
		return DueResult{}, &RefusedError{Err: fmt.Errorf("another zk run --due holds %s; not starting a second", dueLock)}
	}
	if err != nil {
		return DueResult{}, fmt.Errorf("due lock: %w", err)
	}
	defer unlock()

	files, _, err := v.Files(ctx)
	if err != nil {
		return DueResult{}, err
	}
	var paths []string
	if req.All {
		_, notes := vault.SplitFiles(files)
		for _, f := range notes {
			paths = append(paths, f.Path)
		}
	} else {
		r, err := w.stale(ctx, files, vault.Interval{})
		if err != nil {
			return DueResult{}, err
		}
		for _, d := range r.Notes {
			paths = append(paths, d.Path)
		}
	}
	// What to run is decided before anything runs: a run edits its note.
	type job struct {
		note string
		f    evidence.Falsifier
	}
	var jobs []job
	out := DueResult{Notes: len(paths)}
	// A file many falsifiers name is hashed once for them all; each run
	// still checks its approval against the files as they are then.
	memo := trust.NewMemo()
	for _, p := range paths {
		src, err := v.ReadFile(p, v.MaxNoteSize)
		if err != nil {
			out.Rows = append(out.Rows, DueRow{Note: p, Verdict: "unreadable", Statement: err.Error()})
			continue
		}
		for _, f := range evidence.Falsifiers(vault.NewParser().Parse(p, src)) {
			if f.Command == "" {
				continue
			}
			argv, err := runner.Split(f.Command)
			if err != nil {
				out.Rows = append(out.Rows, DueRow{Note: p, N: f.N, Verdict: "unreadable", Statement: err.Error()})
				continue
			}
			store, a, _, err := ApprovalScope(v, memo, p, f.Command, argv)
			if err != nil {
				// One falsifier whose files cannot be hashed (a tree over
				// the bounds, a file over 64 MiB) is that falsifier's
				// failure, not the schedule's: the others still run.
				out.Rows = append(out.Rows, DueRow{Note: p, N: f.N, Verdict: "not recorded", Statement: err.Error()})
				out.Failed = true
				continue
			}
			if trusted, err := store.Trusted(a); err != nil {
				return DueResult{}, err
			} else if !trusted {
				out.Rows = append(out.Rows, DueRow{Note: p, N: f.N, Verdict: "not approved",
					Statement: "zk trust " + runner.Quote([]string{p}) + " --falsifier " + strconv.Itoa(f.N)})
				continue
			}
			jobs = append(jobs, job{p, f})
		}
	}
	out.Runs = len(jobs)

	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		row := DueRow{Note: j.note, N: j.f.N}
		if req.DryRun {
			argv, _ := runner.Split(j.f.Command) // split above
			row.Verdict, row.Statement = "would run", runner.Quote(argv)
			out.Rows = append(out.Rows, row)
			continue
		}
		// The note is read again: an earlier run may have recorded into it.
		res, err := w.dueRun(ctx, j.note, j.f.N, req)
		if err != nil {
			row.Verdict, row.Statement, out.Failed = "not recorded", err.Error(), true
		} else {
			if req.Ran != nil {
				req.Ran(res)
			}
			row.Verdict, row.Statement = w.latestVerdict(j.note, j.f.N)
		}
		out.Refuted = out.Refuted || row.Verdict == string(evidence.VerdictRefutes)
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}

// dueRun runs falsifier n of the note at vault path p, as Run would with
// no command given.
func (w *Workspace) dueRun(ctx context.Context, p string, n int, req DueRequest) (RunResult, error) {
	timeout, maxLog := req.Timeout, req.MaxLog
	if timeout <= 0 {
		timeout = runner.DefaultTimeout
	}
	if maxLog <= 0 {
		maxLog = runner.DefaultMaxLog
	}
	e, err := w.readEvidenceNote(p, "runs", strconv.Itoa(n), req.Tend)
	if err != nil {
		return RunResult{}, err
	}
	return w.run(ctx, e, RunRequest{Note: p, Falsifier: strconv.Itoa(n), Timeout: timeout, MaxLog: maxLog, Tend: req.Tend})
}

// latestVerdict reads back the verdict just recorded for falsifier n of
// the note at p, and its statement: the note, not the run in memory, is
// the record.
func (w *Workspace) latestVerdict(p string, n int) (string, string) {
	src, err := w.Vault.ReadFile(p, w.Vault.MaxNoteSize)
	if err != nil {
		return "?", err.Error()
	}
	for _, l := range evidence.LatestRuns(vault.NewParser().Parse(p, src), nil, nil).Falsifiers {
		if l.Falsifier.N == n && l.Run.ID != "" {
			v := string(l.Run.Verdict)
			if l.Run.Verdict == evidence.VerdictNone {
				v = "no verdict"
			}
			return v, l.Run.Criterion
		}
	}
	return "?", "the run is not in " + path.Base(p)
}
