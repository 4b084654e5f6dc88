package evidence

// Flips is how a falsifier's verdicts alternate over its latest judged
// runs under its criterion as judged now (Latest.Flips): a claim whose
// runs refute and support it by turns is read once, each time, off
// noise. The latest judged run still answers an earlier refutation; Flips
// states the doubt beside it (falsifiers/flaky).
type Flips struct {
	// Runs is how many runs are counted, FlipWindow at most; Refutes and
	// Supports how many of them gave each verdict.
	Runs, Refutes, Supports int
	// Flips is how many times a run's verdict is not the one before it.
	Flips int
}

// Flaky says the verdict flipped at least twice: once is the normal
// course of a claim (refuted, the system fixed, supported), twice is a
// reading that cannot tell the claim from noise.
func (f Flips) Flaky() bool { return f.Flips >= 2 }

// FlipWindow is how many of a falsifier's latest judged runs Flips
// counts: a falsifier made steady (the system fixed) stops being flaky
// once its flips are older than that, where counting every run would
// warn of them for ever.
const FlipWindow = 10

// Flips counts how l's verdict alternates over its latest FlipWindow
// measurements judged under the falsifier's criterion as judged now
// (judgedAsNow). An inconclusive run or one with no verdict is no
// reading either way and is skipped; so are a judgement again, which
// reads an output already counted, and a block edited or gone, whose
// record no longer states what judged it.
func (l Latest) Flips() Flips {
	var verdicts []Verdict
	for _, r := range l.Runs {
		if r.Rejudges != "" || r.Problem != "" || r.Gone {
			continue
		}
		if r.Verdict != VerdictRefutes && r.Verdict != VerdictSupports {
			continue
		}
		if judgedAsNow(l.Falsifier, r) {
			verdicts = append(verdicts, r.Verdict)
		}
	}
	verdicts = verdicts[max(0, len(verdicts)-FlipWindow):]
	var out Flips
	for k, v := range verdicts {
		out.Runs++
		if v == VerdictRefutes {
			out.Refutes++
		} else {
			out.Supports++
		}
		if k > 0 && v != verdicts[k-1] {
			out.Flips++
		}
	}
	return out
}

// judgedAsNow says run r was judged as falsifier f judges now: by the
// same criterion (with the same captures, number convention and
// confidence, for a block that records them, as CriterionChanged
// compares), and from as many runs of its command as f's repeat: asks
// (an attached result is its own samples), so that giving a flaky
// falsifier repeat: N starts its count anew.
func judgedAsNow(f Falsifier, r Run) bool {
	if f.N == 0 || f.Criterion == "" {
		return false
	}
	stated, ok := StatedCriterion(r.Criterion)
	if !ok || !SameCriterion(f.Criterion, stated) {
		return false
	}
	if !judgedWithAsNow(r, f) {
		return false
	}
	if r.Attached {
		return true
	}
	want, err := f.Repeats()
	return err == nil && max(r.Runs, 1) == want
}
