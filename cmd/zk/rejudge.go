package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/workspace"
)

// runRejudge is zk run --rejudge, an adapter over the workspace's
// RejudgeRuns: it says what was judged again and exits by the worst
// verdict recorded, 2 (as for an inconclusive one) when falsifiers were
// left unjudged past the budget of logs read and none refutes.
func runRejudge(ctx context.Context, opts *runOptions, s *streams) error {
	switch {
	case opts.argv != nil:
		return usageError{errors.New("run: --rejudge runs nothing: give no command after --")}
	case opts.tend:
		return usageError{errors.New("run: --rejudge records no measurement: --tend goes with a run")}
	}
	w, err := opts.root.open(ctx, s, workspace.Writing, opts.note)
	if err != nil {
		return err
	}
	defer w.Close()
	res, err := w.RejudgeRuns(ctx, workspace.RejudgeRequest{Note: opts.note, Falsifier: opts.falsifier, DryRun: opts.dryRun})
	if err != nil {
		return err
	}
	// The falsifiers past the budget of logs read are named, and count
	// as an inconclusive judgement: what was asked is not all done.
	var worst evidence.Verdict
	defer func() {
		for _, j := range res.Left {
			fmt.Fprintf(s.err, "falsifier %d: run %s not judged again here (%v): zk run %s --rejudge --falsifier %d judges it\n",
				j.Falsifier.N, j.Of.ID, j.Err, printable.Of(shellArg(res.Note)), j.Falsifier.N)
		}
	}()
	if len(res.Left) > 0 {
		worst = evidence.VerdictInconclusive
	}
	for _, l := range res.Rerun {
		fmt.Fprintf(s.err, "falsifier %d: run %s not judged again%s: %v; zk run %s --falsifier %d runs it again\n",
			l.Falsifier.N, l.Run.ID, lint.ChangesPhrase(evidence.JudgingChanges(l)), evidence.ErrRepeatChanged, printable.Of(shellArg(res.Note)), l.Falsifier.N)
	}
	if len(res.Judged) == 0 && len(res.Left) == 0 && len(res.Rerun) > 0 {
		return nil
	}
	if len(res.Judged) == 0 && len(res.Left) == 0 {
		fmt.Fprintf(s.err, "%s: nothing to judge again: every falsifier's latest run was judged by its criterion as written\n", printable.Of(res.Note))
		return nil
	}
	if opts.dryRun {
		for _, j := range res.Judged {
			fmt.Fprintf(s.out, "falsifier %d: run %s judged again %s: %s\n", j.Falsifier.N, j.Of.ID, lint.VerdictPhrase(j.Now.Verdict), printable.Of(j.Now.Statement))
		}
		return verdictErr(worst)
	}
	for i, r := range res.Runs {
		fmt.Fprintf(s.err, "recorded judgement %s in %s: falsifier %d, run %s judged again: %s\n", r.ID, printable.Of(res.Note), res.Judged[i].Falsifier.N, r.Rejudges, verdictWord(r.Verdict))
		fmt.Fprintf(s.err, "%s\n", printable.Of(r.Criterion))
		switch {
		case r.Verdict == evidence.VerdictRefutes:
			worst = r.Verdict
		case worst != evidence.VerdictRefutes && (r.Verdict == evidence.VerdictInconclusive || r.Verdict == evidence.VerdictError):
			worst = r.Verdict
		}
	}
	return verdictErr(worst)
}
