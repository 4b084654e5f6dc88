package view

import (
	"time"

	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/query"
	"github.com/zk-claims/zk/workspace"
)

// Run is one run in zk runs --format json (the README's shape).
type Run struct {
	ID      string `json:"id"`
	Started string `json:"started"`
	Exit    *int   `json:"exit"`
	// Status is how a command that did not exit by itself ended, as the
	// record's title says it: "timed out after 10m0s", "interrupted",
	// "killed by SIGKILL", "could not start". Without it a run that timed
	// out read as one that ran and was judged nothing (exit null, verdict
	// none or inconclusive), to an agent that had asked for a timeout.
	Status    string  `json:"status,omitempty"`
	Duration  float64 `json:"duration_s"`
	Falsifier string  `json:"falsifier"`
	// FalsifierID is the falsifier's block id, as the block carries it.
	FalsifierID string `json:"falsifier_id,omitempty"`
	Command     string `json:"command"`
	// Rejudges, for a judgement again, is the run it judged.
	Rejudges string           `json:"rejudges,omitempty"`
	Verdict  evidence.Verdict `json:"verdict"`
	// Statement is the criterion Verdict was computed with, the values it
	// read and what it found.
	Statement string `json:"statement,omitempty"`
	Edited    string `json:"edited,omitempty"`
}

// NewRun is the view of a run as its record holds it: no exit status
// for an attached result or a judgement again.
func NewRun(r evidence.Run) Run {
	v := Run{ID: r.ID, Started: r.Started.UTC().Format(time.RFC3339), Duration: r.Duration.Seconds(),
		Falsifier: r.Falsifier, FalsifierID: r.FalsifierID, Command: r.Command, Rejudges: r.Rejudges,
		Verdict: r.Verdict, Statement: r.Criterion, Edited: r.Problem, Status: r.Status}
	if r.Exit >= 0 && !r.Attached && r.Rejudges == "" {
		exit := r.Exit
		v.Exit = &exit
	}
	return v
}

// NoteRuns is zk runs NOTE --format json, and what the MCP runs tool
// returns: the note's runs, and what they say of each falsifier.
type NoteRuns struct {
	Runs       []Run     `json:"runs"`
	Falsifiers []History `json:"falsifiers"`
}

// History is one falsifier's verdict and its history: its measurements
// oldest first, with the values each read, and how the latest differs
// from the one before.
type History struct {
	VerdictRow
	Series []Point         `json:"series"`
	Change evidence.Change `json:"change,omitempty"`
	// Unanswered says why a later run that supported the claim does not
	// answer the refutation that stands (evidence.Answer), as
	// falsifiers/refuted says it; empty when there is none.
	Unanswered string `json:"unanswered,omitempty"`
}

// Point is one measurement of a falsifier's history.
type Point struct {
	Run     string           `json:"run"`
	Started string           `json:"started"`
	Verdict evidence.Verdict `json:"verdict"`
	// Criterion is the criterion the record was judged by.
	Criterion string  `json:"criterion,omitempty"`
	Values    []Value `json:"values"`
}

// Value is one value a record's statement gives, with its interval
// [lo, hi] and sample count when it gives them.
type Value struct {
	Expr     string    `json:"expr"`
	Value    float64   `json:"value"`
	Unit     string    `json:"unit,omitempty"`
	Interval []float64 `json:"interval,omitempty"`
	N        int       `json:"n,omitempty"`
}

// NewValues are the views of a statement's values.
func NewValues(vs []evidence.Value) []Value {
	out := make([]Value, len(vs))
	for i, v := range vs {
		out[i] = Value{Expr: v.Expr, Value: v.Value, Unit: v.Unit, N: v.N}
		if v.Interval {
			out[i].Interval = []float64{v.Lo, v.Hi}
		}
	}
	return out
}

// NewRuns is the view of a note's runs, the step a standing refutation
// proposes worded by word (lint.Wording).
func NewRuns(nr workspace.NoteRuns, word lint.Wording) NoteRuns {
	out := NoteRuns{Runs: make([]Run, len(nr.Runs)), Falsifiers: []History{}}
	for i, r := range nr.Runs {
		out.Runs[i] = NewRun(r)
	}
	add := func(l evidence.Latest) {
		hv := History{VerdictRow: NewVerdictRow(nr.Path, query.FalsifierOf(l)), Series: []Point{}}
		if rj, ok := nr.Rejudged[l.Falsifier.N]; ok && l.Falsifier.N > 0 {
			hv.CriterionChanged = NewChanged(l.Falsifier.Criterion, rj)
		}
		measured, change := l.History()
		for _, r := range measured {
			c, _ := evidence.StatedCriterion(r.Criterion)
			vs := NewValues(evidence.StatedValues(r.Criterion))
			hv.Series = append(hv.Series, Point{Run: r.ID, Started: r.Started.UTC().Format(time.RFC3339), Verdict: r.Verdict, Criterion: c, Values: vs})
		}
		hv.Change = change
		if l.Refuting.ID != "" && l.Unanswered.Run.ID != "" {
			hv.Unanswered = "the refutation by run " + l.Refuting.ID + " stands" + lint.UnansweredText(nr.Path, l, word)
		}
		out.Falsifiers = append(out.Falsifiers, hv)
	}
	for _, l := range nr.Standing.Falsifiers {
		if l.Run.ID != "" {
			add(l)
		}
	}
	for _, l := range nr.Standing.Deleted {
		if l.Refuting.ID != "" {
			add(l)
		}
	}
	return out
}

// VerdictRow is one falsifier in zk runs --format json without a note.
type VerdictRow struct {
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
	// N is the fewest samples a value the statement gives stands on: 1
	// for one reading (a capture, a JSON number printed once), so that
	// a verdict on one reading is told from one on resamples without
	// parsing the statement; 0 when it gives none (not evaluated).
	N int `json:"n,omitempty"`
	// CriterionChanged is set when the falsifier's criterion as written
	// now is not the one its latest run was judged by: that run judged
	// again under it.
	CriterionChanged *Changed `json:"criterion_changed,omitempty"`
	// Flaky is set when its verdict flipped between refutes and supports
	// twice or more over its latest judged runs under its criterion
	// (falsifiers/flaky): how many runs, how they split, how many flips.
	Flaky *Flaky `json:"flaky,omitempty"`
}

// Flaky is how a flaky falsifier's verdict alternated (evidence.Flips).
type Flaky struct {
	Runs     int `json:"runs"`
	Refutes  int `json:"refutes"`
	Supports int `json:"supports"`
	Flips    int `json:"flips"`
}

// NewVerdictRow is the row of falsifier f of the note at notePath.
func NewVerdictRow(notePath string, f query.Falsifier) VerdictRow {
	vv := VerdictRow{Note: notePath, Falsifier: f.N, ID: f.ID, Text: f.Text, Deleted: f.N == 0, Criterion: f.Criterion, Verdict: "never-run"}
	if f.Run != "" {
		vv.Run, vv.Started, vv.Verdict, vv.Statement = f.Run, f.Started.UTC().Format(time.RFC3339), string(f.Verdict), f.Statement
		vv.Criterion, _ = evidence.StatedCriterion(f.Statement)
		for _, v := range evidence.StatedValues(f.Statement) {
			if v.N > 0 && (vv.N == 0 || v.N < vv.N) {
				vv.N = v.N
			}
		}
	}
	if fl := f.Flips; fl.Flaky() {
		vv.Flaky = &Flaky{Runs: fl.Runs, Refutes: fl.Refutes, Supports: fl.Supports, Flips: fl.Flips}
	}
	return vv
}

// Changed is a falsifier's latest run judged again under its criterion
// as written now (evidence.Rejudgement).
type Changed struct {
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
	// Changes name what judged Run besides its criterion's expression
	// that the falsifier judges by otherwise now: its captures, numbers,
	// confidence or repeat, was and now (evidence.JudgingChanges).
	Changes []string `json:"changes,omitempty"`
}

// NewChanged is the view of a run judged again under criterion.
func NewChanged(criterion string, rj evidence.Rejudgement) *Changed {
	c := &Changed{Criterion: criterion, Run: rj.Of.ID, Was: string(rj.Was.Verdict), WasCriterion: rj.WasCriterion, Changes: rj.Changes}
	if rj.Err != nil {
		c.Error = rj.Err.Error()
	} else {
		c.Verdict, c.Statement = string(rj.Now.Verdict), rj.Now.Statement
	}
	return c
}

// Verdicts is zk runs --format json without a note: every falsifier of
// the vault.
type Verdicts struct {
	Falsifiers []VerdictRow `json:"falsifiers"`
}

// NewVerdicts is the view of the vault's falsifiers.
func NewVerdicts(verdicts []workspace.Verdict) Verdicts {
	out := Verdicts{Falsifiers: make([]VerdictRow, 0, len(verdicts))}
	for _, v := range verdicts {
		out.Falsifiers = append(out.Falsifiers, NewVerdict(v))
	}
	return out
}

// NewVerdict is the row of one falsifier of the vault, as NewVerdicts
// makes it: for a front end that prints the rows one by one, without a
// slice of them all.
func NewVerdict(v workspace.Verdict) VerdictRow {
	vv := NewVerdictRow(v.Note, v.Falsifier)
	if v.Rejudged != nil {
		vv.CriterionChanged = NewChanged(v.Criterion, *v.Rejudged)
	}
	return vv
}
