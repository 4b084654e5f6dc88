package evidence

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zk-claims/zk/internal/ownfile"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence/criterion"
	"github.com/zk-claims/zk/vault/evidence/measure"
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
// captures, number convention and confidence, as its items give them,
// else as the config gives them (Under) when that is not the built-in
// default (none, 95%); empty when it has none. A record keeps it
// (Run.JudgedWith), so a change to any of them, in the note or in the
// config, is a changed criterion too; a record without a number
// convention or a confidence was judged by the built-in defaults.
func (f Falsifier) JudgedWith() string {
	var parts []string
	for _, c := range f.Captures {
		parts = append(parts, "capture "+inlineCode(uninlineCode(c)))
	}
	switch {
	case f.Numbers != "":
		parts = append(parts, "numbers "+inlineCode(uninlineCode(f.Numbers)))
	case f.defaults.numbers != measure.NumbersAny && len(f.Captures) > 0:
		// The config's convention reads captures, and nothing else: a
		// JSON criterion's runs are no different under another.
		parts = append(parts, "numbers "+inlineCode(string(f.defaults.numbers)))
	}
	switch c := f.defaults.confidence; {
	case f.Confidence != "":
		parts = append(parts, "confidence "+inlineCode(uninlineCode(f.Confidence)))
	case c != 0 && c != criterion.DefaultConfidence:
		parts = append(parts, "confidence "+inlineCode(percentOf(c)))
	}
	return strings.Join(parts, " · ")
}

// CriterionChanged says l's falsifier has a criterion, and it is not the
// one its latest record was judged by: another expression, or other
// captures, number convention or confidence (compared for blocks that
// carry a falsifier id, which record them), or none at all then (a run
// recorded before the criterion was written), or another number of runs
// than its repeat: asks now (RepeatChanged). A criterion deleted is no
// change to judge again by: the record's verdict stands, beside its own
// criterion.
func (l Latest) CriterionChanged() bool {
	return l.ExpressionChanged() || l.RepeatChanged()
}

// ExpressionChanged is CriterionChanged but for the number of runs: what
// a judgement again of the record's output can judge otherwise (zk run
// --rejudge records it).
func (l Latest) ExpressionChanged() bool {
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
	return !judgedWithAsNow(r, f)
}

// RepeatChanged says l's latest record was judged over another number of
// runs of its command than the falsifier's repeat: asks now (none: one):
// its verdict was reached on that many readings, and judging its output
// again cannot give it others (ErrRepeatChanged). An attached result is
// its own samples; a block edited or gone states nothing to compare.
func (l Latest) RepeatChanged() bool {
	was, ok := l.judgedRepeat()
	if !ok || l.Falsifier.N == 0 || l.Falsifier.Criterion == "" {
		return false
	}
	want, err := l.Falsifier.Repeats()
	return err == nil && want != was
}

// judgedRepeat is the repeat: the output of l's latest record was run
// with: a judgement again's is the run's it judged; false for an
// attached result, a block edited or gone, or a record with no criterion
// (nothing judged).
func (l Latest) judgedRepeat() (int, bool) {
	r := l.Run
	if r.ID == "" || r.Problem != "" || r.Gone || r.Attached || r.Criterion == "" {
		return 0, false
	}
	if r.Rejudges != "" {
		for _, x := range l.Runs {
			if x.ID == r.Rejudges && x.Rejudges == "" {
				r = x
			}
		}
		if r.Rejudges != "" || r.Problem != "" || r.Gone || r.Attached {
			return 0, false
		}
	}
	return max(r.Repeat, r.Runs, 1), true
}

// ErrRepeatChanged is why a record judged over another number of runs
// than its falsifier's repeat: asks now is not judged again: its output
// is that of the runs it had.
var ErrRepeatChanged = errors.New("its output is that of the runs it had, and judging it again cannot give it others")

// JudgingChanges says what judged l's latest record besides its
// criterion's expression that its falsifier judges by otherwise now: its
// captures, number convention, confidence or repeat, each as "its
// confidence was `90%`, now `99%`" ("none" for one not given). A change
// of these alone makes CriterionChanged true while both criteria read the
// same, and a message quoting only them would say nothing changed. zk
// check's falsifiers/criterion-changed and zk runs say them in these
// words (Rejudgement.Changes). Empty when nothing else changed, or the
// record does not say (captures, numbers and confidence are recorded by
// blocks with a falsifier id).
func JudgingChanges(l Latest) []string {
	r, f := l.Run, l.Falsifier
	var out []string
	code := codeOrNone
	if !judgedWithAsNow(r, f) {
		out = append(out, judgedWithChanges(r, f, code)...)
	}
	if l.RepeatChanged() {
		was, _ := l.judgedRepeat()
		wasCode := "none"
		if was > 1 {
			wasCode = inlineCode(strconv.Itoa(was))
		}
		out = append(out, "its repeat was "+wasCode+", now "+code(uninlineCode(f.Repeat)))
	}
	return out
}

// judgedWithChanges is JudgingChanges of record r's captures, numbers
// and confidence (its Judged with field) against f's.
func judgedWithChanges(r Run, f Falsifier, code func(string) string) []string {
	caps, numbers, conf, ok := parseJudgedWith(oneLine(r.JudgedWith))
	if !ok {
		return []string{"what judged it besides its criterion was " + oneLine(r.JudgedWith) + ", now " + orNone(f.JudgedWith())}
	}
	var out []string
	nowCaps := make([]string, len(f.Captures))
	for i, c := range f.Captures {
		nowCaps[i] = uninlineCode(c)
	}
	was, _ := meaningOf(r.JudgedWith)
	now, _ := meaningOf(f.JudgedWith())
	if !slices.Equal(was.caps, now.caps) {
		word := "capture was"
		if len(caps) > 1 || len(nowCaps) > 1 {
			word = "captures were"
		}
		list := func(cs []string) string {
			if len(cs) == 0 {
				return "none"
			}
			q := make([]string, len(cs))
			for i, c := range cs {
				q[i] = inlineCode(c)
			}
			return strings.Join(q, ", ")
		}
		out = append(out, "its "+word+" "+list(caps)+", now "+list(nowCaps))
	}
	// Now's as f judges: its items, else the config's (Under), which
	// the message names, as the note does not say them.
	_, n, c, _ := parseJudgedWith(oneLine(f.JudgedWith()))
	fromConfig := func(item, v string) string {
		if item == "" && v != "" {
			return " (the config's)"
		}
		return ""
	}
	if was.numbers != now.numbers {
		out = append(out, "its numbers were "+code(numbers)+", now "+code(n)+fromConfig(f.Numbers, n))
	}
	if was.conf != now.conf {
		out = append(out, "its confidence was "+code(conf)+", now "+code(c)+fromConfig(f.Confidence, c))
	}
	return out
}

// codeOrNone is v in a code span, or "none" when it is empty.
func codeOrNone(v string) string {
	if v == "" {
		return "none"
	}
	return inlineCode(v)
}

// orNone is s, or "none" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
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
	// Changes, set by Changed, say what judged Was besides its
	// criterion's expression that the falsifier judges by otherwise now
	// (JudgingChanges).
	Changes []string
}

// RejudgeBudget is how many bytes of logs a command reads to judge runs
// again (a Rejudger's budget): twice the largest log it reads (LogMax).
// A log is read whole and decoded (a JSON output of 24 MB takes 3 s and
// 460 MB), so a vault of notes each naming a log of its own, one log
// under criteria each of its own, or one note of many falsifiers each
// naming a log (zk runs NOTE, zk run NOTE --rejudge) costs a command no
// more than this.
const RejudgeBudget = 2 * LogMax

// ErrRejudgeBudget is why a Rejudger judges a run no more: its budget of
// bytes of logs is spent.
var ErrRejudgeBudget = fmt.Errorf("%d MB of logs read to judge runs again, the most for one command", RejudgeBudget>>20)

// A Rejudger judges runs again for one command: a check, zk runs, zk
// run --rejudge. Notes share runs (a note copied keeps its
// blocks, and with them the name of their log), and each note read the
// log and decoded it again: a Rejudger judges a run under a criterion
// once, its logs read and decoded once, and the notes that ask again get
// that judgement. A run judged under criteria of their own is read for
// each, and every read counts against a budget of bytes, past which it
// reads no more. It judges one run at a time, so that the memory a
// command takes is that of one judgement, however many of its notes
// judge at once. It is safe for use from several goroutines.
type Rejudger struct {
	read     func(id string, k int) ([]byte, error)
	settings Settings
	mu       sync.Mutex
	judged   map[judgeKey]judged
	// left is how many bytes of logs it may still read; negative: any.
	left int64
}

// Changed is l's latest record judged again because its criterion
// changed (CriterionChanged), as zk check's falsifiers/criterion-changed
// and zk runs report it, with what changed besides the expression
// (Changes). A record whose only change is its number of runs is not
// judged again: its output is that of the runs it had (ErrRepeatChanged),
// and a judgement of it under the same expression would only repeat its
// verdict as if it answered the repeat: asked now.
func (r *Rejudger) Changed(l Latest) Rejudgement {
	var rj Rejudgement
	if l.ExpressionChanged() {
		rj = r.Rejudge(l)
	} else {
		rj = Rejudgement{Was: l.Run, Of: l.Run, Err: ErrRepeatChanged}
		rj.WasCriterion, _ = StatedCriterion(l.Run.Criterion)
		if id := l.Run.Rejudges; id != "" {
			for _, x := range l.Runs {
				if x.ID == id {
					rj.Of = x
				}
			}
		}
	}
	rj.Changes = JudgingChanges(l)
	return rj
}

// judged is a judgement again and why there is none (Rejudgement's Now
// and Err).
type judged struct {
	now Judgement
	err error
}

// judgeKey is what a judgement again depends on: the run judged (its
// log's name and how its command ended) and the falsifier's criterion
// and the items that judge with it. A falsifier's lines do not count:
// no judgement says them.
type judgeKey struct {
	run, status   string
	sums          string
	exit, runs    int
	cut, stopped  bool
	n             int
	criterion     string
	captures      string
	numbers, conf string
	defaults      defaults
	repeat        string
}

// NewRejudger is a Rejudger reading logs with read (ReadLog) and judging
// by settings (their RunID is set to the run judged, which seeds the
// resampling, so the judgement is the same each time), reading budget
// bytes of logs at most (negative: any; RejudgeBudget for a command).
func NewRejudger(read func(id string, k int) ([]byte, error), settings Settings, budget int64) *Rejudger {
	return &Rejudger{read: read, settings: settings, judged: map[judgeKey]judged{}, left: budget}
}

// Rejudge judges the output of l's latest run (or of the run its latest
// judgement again names) under l's criterion as written now, once for
// each run and criterion. Its Now has no Result (a command reads the
// verdict and the statement): a Result holds values of the output, which
// the Rejudger would otherwise keep until the command ends.
func (r *Rejudger) Rejudge(l Latest) Rejudgement {
	rj := Rejudgement{Was: l.Run, Of: l.Run}
	rj.WasCriterion, _ = StatedCriterion(l.Run.Criterion)
	if id := l.Run.Rejudges; id != "" {
		rj.Of = Run{}
		for _, run := range l.Runs {
			if run.ID == id {
				rj.Of = run
			}
		}
		if rj.Of.ID == "" {
			rj.Err = fmt.Errorf("the block of run %s, which it judged again, is gone", id)
			return rj
		}
	}
	if rj.Of.Gone {
		// Its log may be there, but not how its command ended, which
		// judging it needs: its block said.
		rj.Err = fmt.Errorf("the block of run %s is gone from the note", rj.Of.ID)
		return rj
	}
	if r.read == nil {
		rj.Err = errors.New("its log is not read here")
		return rj
	}
	f := l.Falsifier
	k := judgeKey{run: rj.Of.ID, sums: strings.Join(rj.Of.LogSums, " "), status: rj.Of.Status, exit: rj.Of.Exit, runs: rj.Of.Runs, cut: rj.Of.LogCut, stopped: rj.Of.Stopped,
		n: f.N, criterion: f.Criterion, captures: fmt.Sprintf("%q", f.Captures), numbers: f.Numbers, conf: f.Confidence, defaults: f.defaults, repeat: f.Repeat}
	r.mu.Lock()
	defer r.mu.Unlock()
	j, ok := r.judged[k]
	if !ok {
		j.now, j.err = r.judge(rj.Of, f)
		j.now.Result = criterion.Result{}
		r.judged[k] = j
	}
	rj.Now, rj.Err = j.now, j.err
	return rj
}

// judge judges the output of the run of, read from its logs, under f's
// criterion as written now. The caller holds mu.
func (r *Rejudger) judge(of Run, f Falsifier) (Judgement, error) {
	o := Outcome{Exit: of.Exit, Failed: of.Status}
	switch {
	case of.LogCut:
		o.Failed = "printed more than its log kept"
	case of.Stopped:
		o.Failed = "was repeated, and a repeat failed"
	}
	// A falsifier's repeat: N ran the command several times, each stdout
	// its own log; their samples are pooled again, as they were.
	outcomes, outputs := []Outcome{o}, [][]byte{nil}
	for k := 2; k <= of.Runs; k++ {
		outcomes, outputs = append(outcomes, Outcome{}), append(outputs, nil)
	}
	if o.Failed == "" {
		for k := range outputs {
			if r.left == 0 {
				return Judgement{}, ErrRejudgeBudget
			}
			data, err := r.read(of.ID, k+1)
			if err != nil {
				return Judgement{}, err
			}
			if k < len(of.LogSums) {
				if got := LogSum(data); got != of.LogSums[k] {
					// Not the output the run gave: a criterion judged
					// on it would say what the run never measured.
					p, _ := LogOf(of.ID, k+1)
					return Judgement{}, fmt.Errorf("its log %s was changed since the run: %s, where its block recorded %s", p, got, of.LogSums[k])
				}
			}
			if r.left > 0 {
				// A log read past the budget is still judged: the budget
				// bounds what is read after it is spent, by one log.
				r.left = max(0, r.left-int64(len(data)))
			}
			outputs[k] = data
		}
	}
	settings := r.settings
	settings.RunID = of.ID
	return JudgeRuns(f, outcomes, outputs, settings), nil
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
