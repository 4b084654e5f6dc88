package evidence

import (
	"fmt"

	"github.com/zk-claims/zk/vault"
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
// it has no criterion.
func (f Falsifier) Compile() (*criterion.Criterion, []measure.Capture, error) {
	if f.Criterion == "" {
		if len(f.Captures) > 0 {
			return nil, nil, &CriterionError{Line: f.CaptureLines[0], Err: fmt.Errorf("falsifier %d has a capture but no \"refuted if:\" to use it", f.N)}
		}
		return nil, nil, nil
	}
	var caps []measure.Capture
	for i, c := range f.Captures {
		cp, err := measure.ParseCapture(c)
		if err != nil {
			return nil, nil, &CriterionError{Line: f.CaptureLines[i], Err: fmt.Errorf("capture: %w", err)}
		}
		caps = append(caps, cp)
	}
	c, err := criterion.Compile(f.Criterion, caps)
	if err != nil {
		return nil, nil, &CriterionError{Line: f.CriterionLine, Err: fmt.Errorf("refuted if: %w", err)}
	}
	return c, caps, nil
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

// Judge decides the verdict of a run of f from how its command ended and
// what it printed (or the attached file), and states the criterion, the
// values it read and what it found, for the record. Without a criterion
// there is no verdict: VerdictNone and no statement.
//
//	criterion holds                          refutes
//	criterion evaluated, does not hold       supports
//	command failed, timed out, killed;
//	criterion does not compile or cannot
//	be evaluated (a value is missing)        inconclusive
//
// A command that exits non-zero is a failed measurement unless the
// criterion reads exit itself (refuted if: exit != 0), for tests whose
// exit status is their verdict; exit 125 stays git bisect run's "cannot
// decide" either way.
func Judge(f Falsifier, o Outcome, output []byte) (Verdict, string) {
	c, caps, err := f.Compile()
	if c == nil && err == nil {
		return VerdictNone, ""
	}
	if err != nil {
		return VerdictInconclusive, "not evaluated: " + err.Error()
	}
	stated := "refuted if " + inlineCode(c.Source)
	notEvaluated := func(why string) (Verdict, string) {
		return VerdictInconclusive, stated + ": not evaluated: " + why
	}
	switch {
	case o.Failed != "":
		return notEvaluated("the command " + o.Failed)
	case o.Exit == ExitInconclusive:
		return notEvaluated(fmt.Sprintf("the command exited %d (cannot decide)", o.Exit))
	case o.Exit > 0 && !c.UsesExit():
		return notEvaluated(fmt.Sprintf("the command exited %d, so its output is no measurement", o.Exit))
	}
	res, err := c.Eval(measure.Read(output, o.Exit, caps))
	if err != nil {
		return notEvaluated(err.Error())
	}
	v := VerdictSupports
	if res.Refuted {
		v = VerdictRefutes
	}
	return v, res.Describe(inlineCode(c.Source))
}

// Latest is a falsifier and its latest recorded run; Run.ID is empty when
// it was never recorded.
type Latest struct {
	Falsifier Falsifier
	Run       Run
}

// LatestRuns pairs each falsifier of n with its latest run, matched by the
// falsifier's text as the record quotes it. A block edited since it was
// recorded is not counted (evidence/run-edited reports it): its verdict is
// no longer the record's.
func LatestRuns(n *vault.Note) []Latest { return LatestRunsOf(n, Falsifiers(n)) }

// LatestRunsOf is LatestRuns for the note's falsifiers fs, read already.
func LatestRunsOf(n *vault.Note, fs []Falsifier) []Latest {
	if len(fs) == 0 {
		return nil
	}
	out := make([]Latest, len(fs))
	for i, f := range fs {
		out[i].Falsifier = f
	}
	for _, r := range ParseRuns(n.Src) {
		if r.Problem != "" || r.Falsifier == "" {
			continue
		}
		for i := range out {
			if oneLine(out[i].Falsifier.Text) == oneLine(r.Falsifier) && !r.Started.Before(out[i].Run.Started) {
				out[i].Run = r
			}
		}
	}
	return out
}
