package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/gofrs/flock"

	"github.com/zk-claims/zk/internal/english"
	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/runner"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/tending"
	"github.com/zk-claims/zk/workspace"
)

// dueLock is the lock zk run --due holds, so two schedules never overlap.
const dueLock = evidence.RunsDir + "/due.lock"

// dueRow is one line of zk run --due's summary.
type dueRow struct {
	note      string
	n         int
	verdict   string
	statement string
}

// runDue runs every approved falsifier command of the notes due for
// tending (every note with --all), one at a time: measurements taken at
// once would disturb each other. Each run is recorded as zk run records
// it; commands not yet approved are listed, never run.
func runDue(ctx context.Context, opts *runOptions, s *streams) error {
	w, err := opts.root.open(s, workspace.Writing, "")
	if err != nil {
		return err
	}
	v := w.Vault
	dir := v.Dir
	if err := v.Root().MkdirAll(filepath.FromSlash(evidence.RunsDir), 0o755); err != nil {
		w.Close()
		return fmt.Errorf("create %s: %w", evidence.RunsDir, err)
	}
	lock := flock.New(filepath.Join(dir, filepath.FromSlash(dueLock)), flock.SetPermissions(0o600))
	ok, err := lock.TryLock()
	if err != nil {
		w.Close()
		return fmt.Errorf("lock %s: %w", dueLock, err)
	}
	if !ok {
		w.Close()
		return fmt.Errorf("another zk run --due holds %s; not starting a second", dueLock)
	}
	defer lock.Unlock()

	files, _, err := v.Files(ctx)
	if err != nil {
		w.Close()
		return err
	}
	var paths []string
	if opts.all {
		_, notes := vault.SplitFiles(files)
		for _, f := range notes {
			paths = append(paths, f.Path)
		}
	} else {
		r, err := tending.Stale(ctx, v, files, tending.StaleOptions{Today: w.Today, Types: w.Types, Interval: w.Config.Interval(), Keys: w.Config.TendedKeys})
		if err != nil {
			w.Close()
			return err
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
	var rows []dueRow
	for _, p := range paths {
		src, err := v.ReadFile(p, v.MaxNoteSize)
		if err != nil {
			rows = append(rows, dueRow{note: p, verdict: "unreadable", statement: err.Error()})
			continue
		}
		for _, f := range evidence.Falsifiers(vault.NewParser().Parse(p, src)) {
			if f.Command == "" {
				continue
			}
			argv, err := runner.Split(f.Command)
			if err != nil {
				rows = append(rows, dueRow{note: p, n: f.N, verdict: "unreadable", statement: err.Error()})
				continue
			}
			store, a, err := approvalOf(v, p, f.Command, argv)
			if err != nil {
				w.Close()
				return err
			}
			if trusted, err := store.Trusted(a); err != nil {
				w.Close()
				return err
			} else if !trusted {
				rows = append(rows, dueRow{note: p, n: f.N, verdict: "not approved",
					statement: "zk trust " + shellArg(p) + " --falsifier " + strconv.Itoa(f.N)})
				continue
			}
			jobs = append(jobs, job{p, f})
		}
	}
	w.Close()

	refuted, failed := false, false
	quiet := *s
	quiet.out = io.Discard // the summary is the output; each log is kept
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		one := *opts
		one.note, one.falsifier, one.argv = j.note, strconv.Itoa(j.f.N), nil
		err := runRun(ctx, &one, &quiet)
		row := dueRow{note: j.note, n: j.f.N}
		switch {
		case err == nil, errors.Is(err, errFindings), errors.Is(err, errInconclusive):
			row.verdict, row.statement = latestVerdict(opts.root, s, j.note, j.f.N)
		default:
			row.verdict, row.statement, failed = "not recorded", err.Error(), true
		}
		refuted = refuted || row.verdict == string(evidence.VerdictRefutes)
		rows = append(rows, row)
	}
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NOTE\tN\tVERDICT\tVALUE")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", printable.Of(r.note), r.n, printable.Of(r.verdict), printable.Of(r.statement))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	which := "due for tending"
	if opts.all {
		which = "(all)"
	}
	fmt.Fprintf(s.err, "%s run in %s %s\n", english.Plural(len(jobs), "falsifier"), english.Plural(len(paths), "note"), which)
	switch {
	case refuted:
		return errFindings
	case failed || ctx.Err() != nil:
		return errInconclusive
	}
	return nil
}

// latestVerdict reads back the verdict just recorded for falsifier n.
func latestVerdict(root *rootOptions, s *streams, note string, n int) (string, string) {
	w, err := root.open(s, workspace.Reading, "")
	if err != nil {
		return "?", err.Error()
	}
	defer w.Close()
	src, err := w.Vault.ReadFile(note, w.Vault.MaxNoteSize)
	if err != nil {
		return "?", err.Error()
	}
	for _, l := range evidence.LatestRuns(vault.NewParser().Parse(note, src), nil).Falsifiers {
		if l.Falsifier.N == n && l.Run.ID != "" {
			v := string(l.Run.Verdict)
			if l.Run.Verdict == evidence.VerdictNone {
				v = "no verdict"
			}
			return v, l.Run.Criterion
		}
	}
	return "?", "the run is not in " + path.Base(note)
}
