package main

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/query"
	"github.com/zk-claims/zk/workspace"
)

// verdictView is one falsifier in zk runs --format json without a note.
type verdictView struct {
	Note string `json:"note"`
	// Falsifier is its number in the note, 0 for one deleted since its
	// runs (Deleted).
	Falsifier int    `json:"falsifier"`
	ID        string `json:"id,omitempty"`
	Text      string `json:"text"`
	Deleted   bool   `json:"deleted,omitempty"`
	// Criterion is the criterion Verdict was computed with (the record's;
	// for a falsifier never run, the note's).
	Criterion string `json:"criterion,omitempty"`
	Run       string `json:"run,omitempty"`
	Started   string `json:"started,omitempty"`
	// Verdict is the falsifier's (a standing refutation, else its latest
	// record's), or "never-run".
	Verdict   string `json:"verdict"`
	Statement string `json:"statement,omitempty"`
	// CriterionChanged is set when the falsifier's criterion as written
	// now is not the one its latest run was judged by: that run judged
	// again under it.
	CriterionChanged *changedView `json:"criterion_changed,omitempty"`
}

// changedView is a falsifier's latest run judged again under its
// criterion as written now (evidence.Rejudgement).
type changedView struct {
	// Criterion is the criterion as written now, Run the run judged
	// again, Was and WasCriterion what that run's record said and the
	// criterion it was judged by ("" for none).
	Criterion    string `json:"criterion"`
	Run          string `json:"run"`
	Was          string `json:"was"`
	WasCriterion string `json:"was_criterion"`
	// Verdict and Statement are the judgement under Criterion; Error
	// says why there is none (the log is gone).
	Verdict   string `json:"verdict,omitempty"`
	Statement string `json:"statement,omitempty"`
	Error     string `json:"error,omitempty"`
}

func newChangedView(criterion string, rj evidence.Rejudgement) *changedView {
	c := &changedView{Criterion: criterion, Run: rj.Of.ID, Was: string(rj.Was.Verdict), WasCriterion: rj.WasCriterion}
	if rj.Err != nil {
		c.Error = rj.Err.Error()
	} else {
		c.Verdict, c.Statement = string(rj.Now.Verdict), rj.Now.Statement
	}
	return c
}

// sentence says the change as zk runs prints it: both criteria, both
// verdicts.
func (c *changedView) sentence(vv historyView) string {
	was := "no criterion"
	if c.WasCriterion != "" {
		was = "`" + c.WasCriterion + "`"
	}
	out := fmt.Sprintf("criterion changed: run %s, judged by %s, %s", c.Run, was, lint.VerdictPhrase(evidence.Verdict(c.Was)))
	if c.Error != "" {
		return out + fmt.Sprintf("; by `%s` it cannot be judged again: %s", c.Criterion, c.Error)
	}
	return out + fmt.Sprintf("; judged again by `%s` it %s (%s); zk run --rejudge %s --falsifier %d records that",
		c.Criterion, lint.VerdictPhrase(evidence.Verdict(c.Verdict)), c.Statement, shellArg(vv.Note), vv.Falsifier)
}

// newVerdictView is the row of falsifier f of the note at notePath.
func newVerdictView(notePath string, f query.Falsifier) verdictView {
	vv := verdictView{Note: notePath, Falsifier: f.N, ID: f.ID, Text: f.Text, Deleted: f.N == 0, Criterion: f.Criterion, Verdict: "never-run"}
	if f.Run != "" {
		vv.Run, vv.Started, vv.Verdict, vv.Statement = f.Run, f.Started.UTC().Format(time.RFC3339), string(f.Verdict), f.Statement
		vv.Criterion, _ = evidence.StatedCriterion(f.Statement)
	}
	return vv
}

// runVerdicts lists the latest verdict of every falsifier in the vault.
func runVerdicts(ctx context.Context, opts *runsOptions, s *streams) error {
	w, err := opts.root.open(s, workspace.Reading, "")
	if err != nil {
		return err
	}
	defer w.Close()
	verdicts, err := w.Verdicts(ctx)
	if err != nil {
		return err
	}
	views := make([]verdictView, 0, len(verdicts))
	for _, v := range verdicts {
		vv := newVerdictView(v.Note, v.Falsifier)
		if v.Rejudged != nil {
			vv.CriterionChanged = newChangedView(v.Criterion, *v.Rejudged)
		}
		views = append(views, vv)
	}
	if opts.format == "json" {
		if views == nil {
			views = []verdictView{}
		}
		return writeJSON(s.out, struct {
			Falsifiers []verdictView `json:"falsifiers"`
		}{views})
	}
	if len(views) == 0 {
		fmt.Fprintln(s.err, "no falsifiers in the vault")
		return nil
	}
	t := table{header: []string{"NOTE", "N", "VERDICT", "STARTED", "CRITERION"}, right: map[int]bool{1: true}}
	for _, vv := range views {
		started, stated := vv.Started, vv.Statement
		if started == "" {
			started = "-"
		}
		if stated == "" && vv.Criterion != "" {
			stated = "refuted if " + vv.Criterion
		}
		n := strconv.Itoa(vv.Falsifier)
		if vv.Deleted {
			n, stated = "-", stated+" (falsifier deleted: "+cmp.Or(vv.ID, strconv.Quote(vv.Text))+")"
		}
		t.add(printable.Of(vv.Note), n, printable.Of(vv.Verdict), started, printable.Of(stated))
		if c := vv.CriterionChanged; c != nil {
			now, stated := "now "+c.Verdict, c.Statement
			if c.Error != "" {
				now, stated = "now ?", "refuted if `"+c.Criterion+"`: cannot be judged again: "+c.Error
			}
			t.add(printable.Of(vv.Note), n, printable.Of(now), "criterion-changed", printable.Of(stated+" (zk run --rejudge records it)"))
		}
	}
	return t.write(s.out, opts.root.outWidth(s))
}
