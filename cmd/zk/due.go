package main

import (
	"context"
	"fmt"

	"github.com/zk-claims/zk/internal/english"
	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/workspace"
)

// runDue runs every approved falsifier command of the notes due for
// tending (every note with --all), one at a time (workspace.Due), and
// prints a summary table: each run's output is kept in its log, not
// shown.
func runDue(ctx context.Context, opts *runOptions, s *streams) error {
	req, err := opts.request()
	if err != nil {
		return err
	}
	w, err := opts.root.open(ctx, s, workspace.Writing, "")
	if err != nil {
		return err
	}
	defer w.Close()
	res, err := w.Due(ctx, workspace.DueRequest{All: opts.all, Timeout: req.Timeout, MaxLog: req.MaxLog, Tend: req.Tend, DryRun: req.DryRun,
		Ran: func(r workspace.RunResult) { reportRun(s, r) }})
	if err != nil {
		return err
	}
	if len(res.Rows) > 0 { // nothing due: no table, the line on stderr says so
		t := table{header: []string{"NOTE", "N", "VERDICT", "VALUE"}, right: map[int]bool{1: true}}
		for _, r := range res.Rows {
			t.add(printable.Of(r.Note), fmt.Sprint(r.N), printable.Of(r.Verdict), printable.Of(r.Statement))
		}
		if err := t.write(s.out, opts.root.outWidth(s)); err != nil {
			return err
		}
	}
	which := "due for tending"
	if opts.all {
		which = "(all)"
	}
	fmt.Fprintf(s.err, "%s run in %s %s\n", english.Plural(res.Runs, "falsifier"), english.Plural(res.Notes, "note"), which)
	switch {
	case res.Refuted:
		return errFindings
	case res.Failed || ctx.Err() != nil:
		return errInconclusive
	}
	return nil
}
