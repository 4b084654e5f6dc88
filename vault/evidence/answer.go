package evidence

import (
	"errors"
	"strings"
	"time"
)

// What answers a refutation (docs/falsifiers.md, "A refutation stands
// until it is answered"). A verdict is a claim about a claim: it must
// survive edits of the note, and a refutation must never be let go of
// silently. A later run that supports the claim answers a standing
// refutation only when it meets the data that refuted it:
//
//   - judged by the criterion the refutation was judged by (and the same
//     captures, numbers and confidence), it answers, as it always did;
//   - judged by another, it answers only if that criterion, applied to
//     the refuting run's own output (its log, judged again as a changed
//     criterion is: the Rejudger, seeded from the run's id), still
//     refutes the claim: a stricter criterion answers, one moved past the
//     refuting data does not. When the log cannot be judged again (gone,
//     unreadable, past the check's budget) the refutation stands: what
//     the record's statement says of the output is not the output;
//   - unless a judgement again of the refuting run under that criterion
//     (zk run --rejudge) was recorded after the refutation and before the
//     run, in this note as the ledger places it: the revision of the
//     criterion is then on record in the note, dated, and the run under
//     the revised criterion answers. The judgement again alone answers
//     nothing;
//   - a result attached from a file last modified before the refuting run
//     was measured (Run.Measured) answers nothing, whatever its criterion:
//     an older result answers no newer refutation;
//   - a run the ledger does not place in this note answers nothing, when
//     the ledger places the refutation here: a block is copied with its
//     note (cp), and a supporting run of the copy pasted back into the
//     original would answer the original's refutation with a run made
//     elsewhere (Answer.Foreign). A refutation the ledger does not know
//     (recorded before the ledger, or the ledger gone) is answered by
//     its blocks alone, as it always was: there is nothing to place it
//     by. A run whose ledger line could not be written answers nothing
//     either, which errs on the side of the refutation.

// Answer is what a run that supported the claim (Run) does to the
// refutation standing before it.
type Answer struct {
	Run     Run
	Answers bool
	// Revised, when it answers under a criterion the refuting output
	// passes, is the judgement again that recorded that revision first.
	Revised Run
	// Criterion is the criterion Run was judged by, when it is not the
	// refutation's and the refuting output was judged under it (Judged,
	// without its Result) or could not be (Err). Of is the run whose
	// output was judged: the refutation's, or the run a refuting
	// judgement again judged.
	Criterion string
	Of        Run
	Judged    Judgement
	Err       error
	// Changes say what judged Run besides Criterion's expression
	// otherwise than the refutation was judged (its captures, numbers
	// or confidence, as JudgingChanges words them: "its confidence was
	// `90%`, now `99%`"): the same expression quoted alone would say
	// nothing changed. Empty when only the expression did.
	Changes []string
	// Early, for a result attached from a file modified before the
	// refuting run was measured, is when that run was measured.
	Early time.Time
	// Foreign says the ledger places the refutation in this note and not
	// Run: its block came from another note, or the ledger never took it.
	// RecordedIn is the note the ledger places Run in, when it knows it
	// (PlaceForeign); empty when the ledger does not know the run.
	Foreign    bool
	RecordedIn string
}

// answer is what l.Runs[k], a run that supported the claim, does to
// l.Refuting; rj judges the refuting output again (nil: no log is read);
// own are the ids of the runs the ledger places in this note (nil: the
// ledger says nothing of it).
func (l *Latest) answer(k int, rj *Rejudger, own map[string]bool) Answer {
	y, ref := l.Runs[k], l.Refuting
	a := Answer{Run: y}
	if own[ref.ID] && !own[y.ID] {
		a.Foreign = true
		return a
	}
	if at := l.measuredAt(ref); y.Attached && !y.Measured.IsZero() && !at.IsZero() && y.Measured.Before(at) {
		a.Early = at
		return a
	}
	yc, ok := StatedCriterion(y.Criterion)
	if !ok || sameJudging(ref, y) {
		// A block recorded before criteria (its verdict its exit code)
		// states none to compare: it answers as it always did.
		a.Answers = true
		return a
	}
	of := ref.ID
	if ref.Rejudges != "" {
		of = ref.Rejudges
	}
	since := false
	for _, j := range l.Runs[:k] {
		if j.ID == ref.ID {
			since = true
			continue
		}
		if since && j.Rejudges == of && j.Verdict != VerdictRefutes && sameJudging(j, y) && l.placed(j) {
			a.Answers, a.Revised = true, j
			return a
		}
	}
	a.Criterion = yc
	f, err := l.answering(y, yc)
	if err != nil {
		a.Err = err
		return a
	}
	if ref.FalsifierID != "" && y.FalsifierID != "" {
		a.Changes = judgedWithChanges(ref, f, codeOrNone)
	}
	if rj == nil {
		rj = &Rejudger{} // reads no log: Err says so
	}
	got := rj.Rejudge(Latest{Falsifier: f, Run: ref, Runs: l.Runs})
	a.Of, a.Judged, a.Err = got.Of, got.Now, got.Err
	a.Answers = got.Err == nil && got.Now.Verdict == VerdictRefutes
	return a
}

// placed says the ledger places record j in this note, or may: it
// places the standing refutation here and j too, or it does not know the
// refutation (recorded before the ledger, or the ledger gone), which is
// then answered by blocks alone. A judgement again pasted from a copy of
// the note (which holds the same refuting block, and so names the same
// run) records a revision made elsewhere: it answers nothing here, as a
// pasted run does not.
func (l *Latest) placed(j Run) bool {
	return !l.own[l.Refuting.ID] || l.own[j.ID]
}

// measuredAt is when the output of record r was measured: a run's start,
// an attached result's file time (its attach time when the block does
// not say), the judged run's for a judgement again; zero when unknown.
func (l *Latest) measuredAt(r Run) time.Time {
	if r.Rejudges != "" {
		for _, x := range l.Runs {
			if x.ID == r.Rejudges && x.Rejudges == "" {
				return l.measuredAt(x)
			}
		}
		return time.Time{}
	}
	if r.Attached && !r.Measured.IsZero() {
		return r.Measured
	}
	return r.Started
}

// sameJudging says records a and b were judged alike: the same criterion,
// stated by both, and the same captures, numbers and confidence where
// both record them (blocks with a falsifier id do).
func sameJudging(a, b Run) bool {
	ac, ok := StatedCriterion(a.Criterion)
	bc, ok2 := StatedCriterion(b.Criterion)
	if !ok || !ok2 || !SameCriterion(ac, bc) {
		return false
	}
	return a.FalsifierID == "" || b.FalsifierID == "" || sameJudgedWith(a.JudgedWith, b.JudgedWith)
}

// answering is the falsifier as record y was judged: its stated
// criterion yc, and the captures, numbers and confidence its Judged with
// field names (the falsifier's own for a block that records none).
func (l *Latest) answering(y Run, yc string) (Falsifier, error) {
	f := l.Falsifier
	g := Falsifier{N: f.N, Text: f.Text, ID: f.ID, Criterion: yc}
	if judgedWithAsNow(y, f) {
		g.Captures, g.CaptureLines, g.Numbers, g.Confidence, g.defaults = f.Captures, f.CaptureLines, f.Numbers, f.Confidence, f.defaults
		return g, nil
	}
	// What the record does not state judged it by the built-in
	// defaults (JudgedWith), whatever the config says now.
	g = g.Under(Settings{})
	caps, numbers, conf, ok := parseJudgedWith(y.JudgedWith)
	g.Captures, g.CaptureLines, g.Numbers, g.Confidence = caps, make([]int, len(caps)), numbers, conf
	if !ok || oneLine(g.JudgedWith()) != oneLine(y.JudgedWith) {
		return g, errors.New("what judged it besides its criterion (its Judged with field) cannot be read back")
	}
	return g, nil
}

// parseJudgedWith reads back what Falsifier.JudgedWith writes: "capture
// `C` · numbers `N` · confidence `P`", each part optional, each value a
// code span.
func parseJudgedWith(s string) (caps []string, numbers, conf string, ok bool) {
	for s != "" {
		word, rest, found := strings.Cut(s, " ")
		n := 0
		for n < len(rest) && rest[n] == '`' {
			n++
		}
		if !found || n == 0 {
			return nil, "", "", false
		}
		end := -1
		for i := n; i < len(rest); {
			j := strings.IndexByte(rest[i:], '`')
			if j < 0 {
				break
			}
			j += i
			m := j
			for m < len(rest) && rest[m] == '`' {
				m++
			}
			if m-j == n && (m == len(rest) || strings.HasPrefix(rest[m:], " · ")) {
				end = m
				break
			}
			i = m
		}
		if end < 0 {
			return nil, "", "", false
		}
		v := uninlineCode(rest[:end])
		switch word {
		case "capture":
			caps = append(caps, v)
		case "numbers":
			numbers = v
		case "confidence":
			conf = v
		default:
			return nil, "", "", false
		}
		s = strings.TrimPrefix(rest[end:], " · ")
	}
	return caps, numbers, conf, true
}

// ToJudge is l as zk run --rejudge judges it again under the criterion as
// written now: with its standing refutation as the record judged, when
// the refutation is not the latest record, was judged by another
// criterion than the one written now, and no judgement again under that
// one has been recorded since (judging it puts the revision of the
// criterion on record: a run after it answers); else l, its latest
// record judged.
func (l Latest) ToJudge() Latest {
	r, f := l.Refuting, l.Falsifier
	if r.ID == "" || r.ID == l.Run.ID || f.N == 0 || f.Criterion == "" || judgedAsWritten(r, f) {
		return l
	}
	of := r.ID
	if r.Rejudges != "" {
		of = r.Rejudges
	}
	since := false
	for _, j := range l.Runs {
		since = since || j.ID == r.ID
		if since && j.Rejudges == of && j.ID != r.ID && judgedAsWritten(j, f) && l.placed(j) {
			return l
		}
	}
	l.Run = r
	return l
}

// judgedAsWritten says record r was judged by f's criterion as written,
// with its captures, numbers and confidence where r records them.
func judgedAsWritten(r Run, f Falsifier) bool {
	c, ok := StatedCriterion(r.Criterion)
	if !ok || !SameCriterion(f.Criterion, c) {
		return false
	}
	return judgedWithAsNow(r, f)
}
