package evidence

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zk-claims/zk/vault/evidence/criterion"
	"github.com/zk-claims/zk/vault/evidence/measure"
)

// CriterionError is a criterion or capture that does not compile, with
// the 0-based note line it is written on.
type CriterionError struct {
	Line int
	Err  error
}

func (e *CriterionError) Error() string { return e.Err.Error() }
func (e *CriterionError) Unwrap() error { return e.Err }

// Compile compiles the falsifier's criterion and captures; nil, nil when
// it has no criterion. Its captures read numbers as its "numbers:" item
// declares, else as conv (the config's).
func (f Falsifier) Compile() (*criterion.Criterion, []measure.Capture, error) {
	return f.compile(measure.NumbersAny)
}

func (f Falsifier) compile(conv measure.Numbers) (*criterion.Criterion, []measure.Capture, error) {
	if f.Criterion == "" {
		if len(f.Captures) > 0 {
			return nil, nil, &CriterionError{Line: f.CaptureLines[0], Err: fmt.Errorf("falsifier %d has a capture but no \"refuted if:\" to use it", f.N)}
		}
		return nil, nil, nil
	}
	s, err := f.settings(Settings{Numbers: conv})
	if err != nil {
		return nil, nil, err
	}
	if _, err := f.Repeats(); err != nil {
		return nil, nil, err
	}
	var caps []measure.Capture
	for i, c := range f.Captures {
		cp, err := measure.ParseCapture(c)
		if err != nil {
			return nil, nil, &CriterionError{Line: f.CaptureLines[i], Err: fmt.Errorf("capture: %w", err)}
		}
		cp.Numbers = s.Numbers
		caps = append(caps, cp)
	}
	c, err := criterion.Compile(f.Criterion, caps)
	if err != nil {
		return nil, nil, &CriterionError{Line: f.CriterionLine, Err: fmt.Errorf("refuted if: %w", err)}
	}
	return c, caps, nil
}

// Settings are what judges a run besides its falsifier and its output:
// the run (its id seeds the resampling) and the config's defaults, which
// a falsifier's own "confidence:" and "numbers:" items override.
type Settings struct {
	// RunID is the id of the run judged: resampling is seeded from it,
	// so the same record judged again gives the same answer.
	RunID string
	// Confidence is the share of bootstrap resamples that must agree for
	// a verdict (0: criterion.DefaultConfidence).
	Confidence float64
	// Resamples is the number of bootstrap resamples (0:
	// criterion.DefaultResamples).
	Resamples int
	// Numbers is how captures read numbers (measure.NumbersAny: as
	// every convention agrees).
	Numbers measure.Numbers
}

// settings is s with the falsifier's own items applied and defaults
// filled in.
func (f Falsifier) settings(s Settings) (Settings, error) {
	if f.defaults.set {
		s.Numbers, s.Confidence = f.defaults.numbers, f.defaults.confidence
	}
	if s.Confidence == 0 {
		s.Confidence = criterion.DefaultConfidence
	}
	if s.Resamples == 0 {
		s.Resamples = criterion.DefaultResamples
	}
	if f.Confidence != "" {
		c, err := ParseConfidence(f.Confidence)
		if err != nil {
			return s, &CriterionError{Line: f.ConfidenceLine, Err: err}
		}
		s.Confidence = c
	}
	if f.Numbers != "" {
		n, err := measure.ParseNumbers(f.Numbers)
		if err != nil {
			return s, &CriterionError{Line: f.NumbersLine, Err: err}
		}
		s.Numbers = n
	}
	return s, nil
}

// Repeats is how many times the falsifier's command runs: its "repeat:
// N" item, 1 without one.
func (f Falsifier) Repeats() (int, error) {
	if f.Repeat == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(uninlineCode(strings.TrimSpace(f.Repeat))))
	if err != nil || n < 1 || n > measure.MaxRepeat {
		return 0, &CriterionError{Line: f.RepeatLine, Err: fmt.Errorf("repeat: %q is not a number of runs from 1 to %d", f.Repeat, measure.MaxRepeat)}
	}
	return n, nil
}

// ParseConfidence reads a confidence: "95%", "0.99". It must lie
// between 50% and 100% (excluded): at 50% or under, a coin decides.
func ParseConfidence(s string) (float64, error) {
	t := strings.TrimSpace(uninlineCode(strings.TrimSpace(s)))
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "%")), 64)
	if pct {
		v /= 100
	}
	if err != nil || !(v > 0.5 && v < 1) {
		return 0, fmt.Errorf("confidence: %q is not a share between 50%% and 100%%, such as 95%% or 0.99", s)
	}
	return v, nil
}

// Outcome is how a command ended, as Judge needs it.
type Outcome struct {
	// Exit is the exit code, or -1 (did not exit by itself, or nothing
	// ran: an attached file).
	Exit int
	// Failed says why the command did not finish by itself ("timed out
	// after 10m0s", "could not start"), empty when it did.
	Failed string
}

// failedAs is an Outcome's Failed as the predicate of "the command …":
// "was interrupted", "was killed by SIGKILL", "timed out after 1s".
func failedAs(failed string) string {
	if failed == "interrupted" || strings.HasPrefix(failed, "killed by ") {
		return "was " + failed
	}
	return failed
}

// Judgement is a run's verdict and what it rests on.
type Judgement struct {
	Verdict Verdict
	// Statement is the record's Criterion field: the values read, each
	// with its interval and samples, the criterion, and what it found,
	// or why it was not evaluated. Empty without a criterion.
	Statement string
	// Result is the evaluated criterion (its readings, resamples and the
	// share that refute); zero when it was not evaluated.
	Result criterion.Result
}

// Judge decides the verdict of a run of f from how its command ended and
// what it printed on stdout (or the attached file), and states the
// criterion, the values it read and what it found, for the record. It
// is a pure function of its arguments: the same record judged again
// (zk run --rejudge) gives the same judgement. Without a criterion
// there is no verdict: VerdictNone and no statement.
//
//	criterion holds                          refutes
//	criterion evaluated, does not hold       supports
//	command failed, timed out, killed;
//	criterion does not compile or cannot
//	be evaluated (a value is missing)        inconclusive
//	values carry samples, and fewer than
//	the confidence asked for of their
//	bootstrap resamples agree                inconclusive (within noise)
//
// A command that exits non-zero is a failed measurement unless the
// criterion reads exit itself (refuted if: exit != 0), for tests whose
// exit status is their verdict; exit 125 stays git bisect run's "cannot
// decide" either way.
func Judge(f Falsifier, o Outcome, output []byte, s Settings) Judgement {
	return JudgeRuns(f, []Outcome{o}, [][]byte{output}, s)
}

// JudgeRuns is Judge for a command run several times (the falsifier's
// "repeat: N"): outcomes and outputs are each run's, in order, and their
// samples are pooled (measure.ReadRuns). One run that failed makes the
// whole inconclusive; exit is the first non-zero exit code, or 0.
func JudgeRuns(f Falsifier, outcomes []Outcome, outputs [][]byte, s Settings) Judgement {
	c, caps, err := f.compile(s.Numbers)
	if c == nil && err == nil {
		return Judgement{Verdict: VerdictNone}
	}
	if err != nil {
		return Judgement{Verdict: VerdictInconclusive, Statement: "not evaluated: " + err.Error()}
	}
	s, _ = f.settings(s) // compile has checked them
	stated := "refuted if " + inlineCode(c.Source)
	notEvaluated := func(why string) Judgement {
		return Judgement{Verdict: VerdictInconclusive, Statement: stated + ": not evaluated: " + why}
	}
	exit := 0
	asked, _ := f.Repeats() // compile has checked it
	asked = max(asked, len(outcomes))
	for i, o := range outcomes {
		which := ""
		if asked > 1 {
			which = fmt.Sprintf(" (run %d of %d)", i+1, asked)
		}
		switch {
		case o.Failed != "":
			return notEvaluated("the command " + failedAs(o.Failed) + which)
		case o.Exit == ExitInconclusive:
			return notEvaluated(fmt.Sprintf("the command exited %d (cannot decide)%s", o.Exit, which))
		case o.Exit > 0 && !c.UsesExit():
			return notEvaluated(fmt.Sprintf("the command exited %d%s, so its output is no measurement", o.Exit, which))
		}
		if exit == 0 {
			exit = o.Exit
		}
	}
	res, err := c.Eval(measure.ReadRuns(outputs, exit, caps), criterion.Options{Resamples: s.Resamples, Confidence: s.Confidence, Seed: s.RunID})
	if err != nil {
		return notEvaluated(err.Error())
	}
	v := VerdictSupports
	switch {
	case !res.Decided():
		v = VerdictInconclusive
	case res.Refuted:
		v = VerdictRefutes
	}
	return Judgement{Verdict: v, Statement: res.Describe(inlineCode(c.Source)), Result: res}
}

// StatedCriterion reads back the criterion a record's statement (its
// Criterion field) was judged by: the code span after "refuted if ". It
// is false for a statement that names none (a criterion that did not
// compile).
func StatedCriterion(stmt string) (string, bool) {
	const key = "refuted if `"
	i := strings.LastIndex(stmt, key)
	if i < 0 {
		return "", false
	}
	i += len(key) - 1
	n := 0
	for i+n < len(stmt) && stmt[i+n] == '`' {
		n++
	}
	closing := strings.Repeat("`", n) + ":"
	for j := i + n; j < len(stmt); {
		k := strings.Index(stmt[j:], closing)
		if k < 0 {
			return "", false
		}
		end := j + k
		if stmt[end-1] != '`' {
			return uninlineCode(stmt[i : end+n]), true
		}
		j = end + 1
	}
	return "", false
}

// SameCriterion says a falsifier's criterion, as written now, is the
// one a record states it was judged by: the same expression, however
// spaced or parenthesised (criterion.Same).
func SameCriterion(now, stated string) bool {
	a, b := oneLine(now), oneLine(stated)
	return a == b || criterion.Same(a, b)
}

// NotEvaluated is the statement of a criterion that was not evaluated,
// and why.
func NotEvaluated(criterion, why string) string {
	return "refuted if " + inlineCode(criterion) + ": not evaluated: " + why
}

// defaults are the config's part of a falsifier's judging (Under); zero
// (set false) until given, which judges by what the caller's Settings
// say.
type defaults struct {
	set        bool
	numbers    measure.Numbers
	confidence float64
}

// Under is f judged under s's numbers and confidence where f has no
// items of its own (the config's: config.Judging; zero Settings are the
// built-in defaults). Its JudgedWith then states what judged it wherever
// that came from, and a record compared with it is compared with what
// judges it now, the config included.
func (f Falsifier) Under(s Settings) Falsifier {
	f.defaults = defaults{set: true, numbers: s.Numbers, confidence: s.Confidence}
	if f.defaults.confidence == 0 {
		f.defaults.confidence = criterion.DefaultConfidence
	}
	return f
}

// ConfidenceAsked is the share of resamples f's verdicts need: its own
// confidence: item, else the config's (Under), else the built-in 95%; a
// confidence zk cannot read (which no run judges by) is taken as 95%.
func (f Falsifier) ConfidenceAsked() float64 {
	s, err := f.settings(Settings{})
	if err != nil {
		return criterion.DefaultConfidence
	}
	return s.Confidence
}

// percentOf writes a confidence as a percentage ("90%"), as a config
// writes it.
func percentOf(c float64) string {
	return strconv.FormatFloat(c*100, 'g', 10, 64) + "%"
}

// BareCaptures are f's captures whose pattern has nothing around its
// number (measure.Capture.Bare), each with its index in f.Captures: each
// reads the first number of any output. A capture that does not parse
// is Compile's to refuse.
func (f Falsifier) BareCaptures() (caps []measure.Capture, at []int) {
	for i, src := range f.Captures {
		if c, err := measure.ParseCapture(src); err == nil && c.Bare() {
			caps, at = append(caps, c), append(at, i)
		}
	}
	return caps, at
}
