package workspace

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zk-claims/zk/vault/evidence"
)

// RejudgeRequest is zk run --rejudge's: judge a falsifier's latest run
// again under its criterion as written now, and record that. Nothing
// runs.
type RejudgeRequest struct {
	// Note is the note argument; Falsifier (field "falsifier") picks the
	// falsifier: its number or a piece of its text, "" for every one
	// whose criterion changed since its latest run.
	Note, Falsifier string
	// DryRun judges and records nothing.
	DryRun bool
}

// RejudgeResult is what a judgement again did.
type RejudgeResult struct {
	// Note is the note's vault path.
	Note string
	// Judged are the falsifiers judged again, each with its judgement;
	// Runs the records written, in the same order (none for a dry run).
	Judged []Judged
	Runs   []evidence.Run
	// Left are the falsifiers whose criterion changed that were not
	// judged again: the logs read for those before them spent the
	// command's budget (evidence.ErrRejudgeBudget, their Err). A request
	// naming one (Falsifier) judges it.
	Left []Judged
	// Rerun are the falsifiers whose latest run was judged over another
	// number of runs than their repeat: asks now, and nothing else
	// changed: judging its output again cannot give it other runs
	// (evidence.ErrRepeatChanged), so they are named, not judged.
	Rerun []evidence.Latest
}

// Judged is one falsifier judged again.
type Judged struct {
	Falsifier evidence.Falsifier
	evidence.Rejudgement
}

// RejudgeRuns judges again, under the criterion as written now, the latest
// run of the falsifier req names, or of every falsifier whose criterion
// changed since it ran (its standing refutation instead, when a later
// run did not answer it: evidence.Latest.ToJudge), and records each
// judgement as a "Judged again" block (evidence.Rejudgement.Run) in one
// write, noting it in the ledger.
// A falsifier without a criterion or a run, and a run whose log is gone,
// are refused (UsageError, error) before anything is written. It reads
// at most evidence.RejudgeBudget of logs, past one log, as zk check
// does: the falsifiers past it are Left, each judged by a request of
// its own.
func (w *Workspace) RejudgeRuns(ctx context.Context, req RejudgeRequest) (RejudgeResult, error) {
	pick := req.Falsifier
	if pick == "" {
		pick = anyFalsifier
	}
	e, err := w.evidenceNote(ctx, req.Note, "judgements", pick, false)
	if err != nil {
		return RejudgeResult{}, err
	}
	p := e.path
	out := RejudgeResult{Note: p}
	rejudger := w.rejudger()
	st := evidence.LatestRuns(e.note, w.ledger(nil)[p], rejudger)
	var todo []evidence.Latest
	for _, l := range st.Falsifiers {
		// A standing refutation judged by another criterion than the one
		// written now is what is judged again: the record of that
		// revision lets a run under it answer the refutation.
		revises := l.ToJudge().Run.ID != l.Run.ID
		l = l.ToJudge()
		switch {
		case req.Falsifier == "" && (revises || l.ExpressionChanged()):
			todo = append(todo, l)
		case req.Falsifier == "" && l.RepeatChanged():
			out.Rerun = append(out.Rerun, l)
		case req.Falsifier != "" && l.Falsifier.N == e.falsifier.N:
			if l.Falsifier.Criterion == "" {
				return out, usage(fmt.Errorf("falsifier %d of %s has no criterion (- refuted if: `EXPR`) to judge by", l.Falsifier.N, p))
			}
			if l.Run.ID == "" {
				return out, usage(fmt.Errorf("falsifier %d of %s has no recorded run to judge again", l.Falsifier.N, p))
			}
			todo = append(todo, l)
		}
	}
	for _, l := range todo {
		if err := checkCriterion(p, l.Falsifier); err != nil {
			return out, err
		}
		rj := rejudger.Rejudge(l)
		if req.Falsifier == "" && errors.Is(rj.Err, evidence.ErrRejudgeBudget) {
			out.Left = append(out.Left, Judged{Falsifier: l.Falsifier, Rejudgement: rj})
			continue
		}
		if rj.Err != nil {
			return out, fmt.Errorf("falsifier %d of %s: run %s cannot be judged again: %w; run it again", l.Falsifier.N, p, rj.Of.ID, rj.Err)
		}
		out.Judged = append(out.Judged, Judged{Falsifier: l.Falsifier, Rejudgement: rj})
	}
	if req.DryRun || len(out.Judged) == 0 {
		return out, nil
	}
	runs := make([]evidence.Run, len(out.Judged))
	for i, j := range out.Judged {
		now := time.Now()
		runs[i] = j.Run(j.Falsifier, evidence.NewID(now), now, w.environment())
	}
	recorded, err := evidence.RecordAll(w.Vault, p, e.base, runs, nil)
	if err != nil {
		return out, refused(err)
	}
	for i, r := range recorded {
		w.ledgerAppend(p, r, out.Judged[i].Falsifier)
	}
	out.Runs = recorded
	return out, nil
}
