package evidence

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/ownfile"
	"github.com/zk-claims/zk/vault"
)

// A changed criterion is judged again (docs/falsifiers.md). A run's
// record states the criterion it was judged by; when the falsifier's
// criterion as written now is another, the verdict beside the record's
// criterion stays true of that criterion only. zk check then judges the
// run's recorded output (its log, .zk/runs/ID.log, kept for this) under
// the criterion as written now and reports both (falsifiers/
// criterion-changed), and zk run --rejudge records that judgement as a
// block of its own, "Judged again", which names the run it judged: a
// judgement of an old output, not a measurement, so it can refute the
// claim but answers no refutation.

// LogMax caps the log zk reads to judge a run again: a log larger than
// this (zk run --max-output raised past it) is not judged again.
const LogMax = 64 << 20

// LogOf is the vault path of the log of run k (1 for the first, more
// for a falsifier's repeat: N) of run id, and false for an id zk does not
// make (a block is the vault's, and names no file zk reads by it).
func LogOf(id string, k int) (string, bool) {
	if !runIDRe().MatchString(id) || k < 1 {
		return "", false
	}
	if k > 1 {
		return path.Join(RunsDir, RepeatLogName(id, k)), true
	}
	return path.Join(RunsDir, id+".log"), true
}

// ReadLog reads the log of run k of run id (LogOf) as zk's own file:
// through no symlink, a regular file only, at most LogMax bytes. Its
// bytes are the command's output, as hostile as any: only a criterion
// reads them.
func ReadLog(v *vault.Vault, id string, k int) ([]byte, error) {
	p, ok := LogOf(id, k)
	if !ok {
		return nil, fmt.Errorf("%q is not a run id", id)
	}
	b, err := ownfile.Read(v.Root(), p, LogMax)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("its log %s is gone", p)
	}
	if err != nil {
		return nil, fmt.Errorf("its log %s cannot be read: %w", p, err)
	}
	return b, nil
}

// JudgedWith writes what judges f's runs besides its criterion: its
// captures, number convention and confidence, as its items give them;
// empty when it has none. A record keeps it (Run.JudgedWith), so a
// change to any of them is a changed criterion too.
func (f Falsifier) JudgedWith() string {
	var parts []string
	for _, c := range f.Captures {
		parts = append(parts, "capture "+inlineCode(uninlineCode(c)))
	}
	if f.Numbers != "" {
		parts = append(parts, "numbers "+inlineCode(uninlineCode(f.Numbers)))
	}
	if f.Confidence != "" {
		parts = append(parts, "confidence "+inlineCode(uninlineCode(f.Confidence)))
	}
	return strings.Join(parts, " · ")
}

// CriterionChanged says l's falsifier has a criterion, and it is not the
// one its latest record was judged by: another expression, or other
// captures, number convention or confidence (compared for blocks that
// carry a falsifier id, which record them), or none at all then (a run
// recorded before the criterion was written). A criterion deleted is no
// change to judge again by: the record's verdict stands, beside its own
// criterion.
func (l Latest) CriterionChanged() bool {
	r, f := l.Run, l.Falsifier
	// An edited block (counted for the ledger's refutation) states no
	// criterion that is the record's.
	if r.ID == "" || f.N == 0 || f.Criterion == "" || r.Problem != "" {
		return false
	}
	if r.Criterion == "" {
		return true
	}
	stated, ok := StatedCriterion(r.Criterion)
	if !ok {
		return false // it did not compile: nothing to compare
	}
	if !SameCriterion(f.Criterion, stated) {
		return true
	}
	return r.FalsifierID != "" && oneLine(r.JudgedWith) != oneLine(f.JudgedWith())
}

// Rejudgement is a falsifier's latest record judged again under its
// criterion as written now.
type Rejudgement struct {
	// Of is the run whose output is judged: the latest record's, or the
	// run a judgement again names.
	Of Run
	// Was is the latest record, whose verdict and statement hold under
	// the criterion it was judged by (WasCriterion, "" for none).
	Was          Run
	WasCriterion string
	// Now is the judgement under the criterion as written now; zero when
	// Err says why there is none.
	Now Judgement
	Err error
}

// Rejudge judges the output of l's latest run again under l's criterion
// as written now. read reads a run's log by its id (ReadLog); settings
// are the config's (their RunID is set to the run judged, which seeds
// the resampling, so the judgement is the same each time).
func Rejudge(l Latest, read func(id string, k int) ([]byte, error), settings Settings) Rejudgement {
	rj := Rejudgement{Was: l.Run, Of: l.Run}
	rj.WasCriterion, _ = StatedCriterion(l.Run.Criterion)
	if id := l.Run.Rejudges; id != "" {
		rj.Of = Run{}
		for _, r := range l.Runs {
			if r.ID == id {
				rj.Of = r
			}
		}
		if rj.Of.ID == "" {
			rj.Err = fmt.Errorf("the block of run %s, which it judged again, is gone", id)
			return rj
		}
	}
	if read == nil {
		rj.Err = errors.New("its log is not read here")
		return rj
	}
	o := Outcome{Exit: rj.Of.Exit, Failed: rj.Of.Status}
	switch {
	case rj.Of.LogCut:
		o.Failed = "printed more than its log kept"
	case rj.Of.Stopped:
		o.Failed = "was repeated, and a repeat failed"
	}
	// A falsifier's repeat: N ran the command several times, each stdout
	// its own log; their samples are pooled again, as they were.
	outcomes, outputs := []Outcome{o}, [][]byte{nil}
	for k := 2; k <= rj.Of.Runs; k++ {
		outcomes, outputs = append(outcomes, Outcome{}), append(outputs, nil)
	}
	if o.Failed == "" {
		for k := range outputs {
			data, err := read(rj.Of.ID, k+1)
			if err != nil {
				rj.Err = err
				return rj
			}
			outputs[k] = data
		}
	}
	settings.RunID = rj.Of.ID
	rj.Now = JudgeRuns(l.Falsifier, outcomes, outputs, settings)
	return rj
}

// Run is the record of rj: a block, "Judged again", of the judgement
// under the criterion as written now, naming the run it judged and what
// the falsifier's latest record said before; id and started are its own.
func (rj Rejudgement) Run(f Falsifier, id string, started time.Time, environment string) Run {
	r := Run{
		ID:          id,
		Started:     started.UTC(),
		Rejudges:    rj.Of.ID,
		Exit:        -1,
		Verdict:     rj.Now.Verdict,
		Falsifier:   f.Text,
		FalsifierID: f.ID,
		Criterion:   rj.Now.Statement,
		JudgedWith:  f.JudgedWith(),
		Environment: environment,
	}
	r.Log, _ = LogOf(rj.Of.ID, 1)
	if rj.Was.ID != "" {
		r.Before = string(rj.Was.Verdict)
		if rj.Was.Criterion != "" {
			r.Before += ": " + rj.Was.Criterion
		}
	}
	return r
}
