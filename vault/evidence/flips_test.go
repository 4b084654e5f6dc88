package evidence

import (
	"testing"
)

// TestFlips: a falsifier's verdict alternating over its judged runs
// under its criterion as judged now is flaky from two flips on; runs
// under another criterion, inconclusive ones and judgements again are no
// readings of it.
func TestFlips(t *testing.T) {
	const now = "rate < 100"
	// run is a record: its verdict by letter (R refutes, S supports, I
	// inconclusive), judged by criterion.
	run := func(v byte, criterion string) Run {
		verdict := map[byte]Verdict{'R': VerdictRefutes, 'S': VerdictSupports, 'I': VerdictInconclusive}[v]
		return Run{Verdict: verdict, Runs: 1, Criterion: "rate = 1; refuted if `" + criterion + "`: " + string(verdict)}
	}
	runs := func(vs string, criterion string) []Run {
		var out []Run
		for i := range len(vs) {
			out = append(out, run(vs[i], criterion))
		}
		return out
	}
	cat := func(rs ...[]Run) []Run {
		var out []Run
		for _, r := range rs {
			out = append(out, r...)
		}
		return out
	}
	rejudged := run('R', now)
	rejudged.Rejudges = "20261201T000000Z-0001"
	edited := run('R', now)
	edited.Problem = "checksum mismatch"
	repeated := run('S', now)
	repeated.Runs = 5
	attached := run('R', now)
	attached.Attached = true
	tests := []struct {
		name      string
		falsifier Falsifier
		runs      []Run
		want      Flips
	}{
		{"none", Falsifier{N: 1, Criterion: now}, nil, Flips{}},
		{"R S: one flip, the normal course", Falsifier{N: 1, Criterion: now}, runs("RS", now), Flips{Runs: 2, Refutes: 1, Supports: 1, Flips: 1}},
		{"S R: one flip", Falsifier{N: 1, Criterion: now}, runs("SR", now), Flips{Runs: 2, Refutes: 1, Supports: 1, Flips: 1}},
		{"R S R: flaky", Falsifier{N: 1, Criterion: now}, runs("RSR", now), Flips{Runs: 3, Refutes: 2, Supports: 1, Flips: 2}},
		{"S R S R S: flaky", Falsifier{N: 1, Criterion: now}, runs("SRSRS", now), Flips{Runs: 5, Refutes: 2, Supports: 3, Flips: 4}},
		{"steady", Falsifier{N: 1, Criterion: now}, runs("SSSS", now), Flips{Runs: 4, Supports: 4}},
		{"R R S S: one flip", Falsifier{N: 1, Criterion: now}, runs("RRSS", now), Flips{Runs: 4, Refutes: 2, Supports: 2, Flips: 1}},
		{"runs under an older criterion are not counted", Falsifier{N: 1, Criterion: now},
			cat(runs("RSR", "rate < 50"), runs("SS", now)), Flips{Runs: 2, Supports: 2}},
		{"the criterion as written, spacing aside", Falsifier{N: 1, Criterion: "rate  <  100"}, runs("RSR", now), Flips{Runs: 3, Refutes: 2, Supports: 1, Flips: 2}},
		{"inconclusive runs are no flip", Falsifier{N: 1, Criterion: now}, runs("RISIIR", now), Flips{Runs: 3, Refutes: 2, Supports: 1, Flips: 2}},
		{"inconclusive between the same verdict", Falsifier{N: 1, Criterion: now}, runs("RIRIS", now), Flips{Runs: 3, Refutes: 2, Supports: 1, Flips: 1}},
		{"a judgement again is no reading", Falsifier{N: 1, Criterion: now}, cat(runs("RS", now), []Run{rejudged}), Flips{Runs: 2, Refutes: 1, Supports: 1, Flips: 1}},
		{"an edited block is no reading", Falsifier{N: 1, Criterion: now}, cat(runs("RS", now), []Run{edited}), Flips{Runs: 2, Refutes: 1, Supports: 1, Flips: 1}},
		{"an attached result counts", Falsifier{N: 1, Criterion: now}, cat(runs("RS", now), []Run{attached}), Flips{Runs: 3, Refutes: 2, Supports: 1, Flips: 2}},
		{"runs before repeat: were judged otherwise", Falsifier{N: 1, Criterion: now, Repeat: "5"},
			cat(runs("RSRS", now), []Run{repeated}), Flips{Runs: 1, Supports: 1}},
		{"only the latest FlipWindow runs", Falsifier{N: 1, Criterion: now},
			runs("RSR"+"SSSSSSSSSS", now), Flips{Runs: 10, Supports: 10}},
		{"a flip inside the window", Falsifier{N: 1, Criterion: now},
			runs("RRS"+"SSSSSSSS", now), Flips{Runs: 10, Refutes: 1, Supports: 9, Flips: 1}},
		{"no criterion", Falsifier{N: 1}, runs("RSR", now), Flips{}},
		{"a deleted falsifier", Falsifier{Criterion: now}, runs("RSR", now), Flips{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Latest{Falsifier: tt.falsifier, Runs: tt.runs}.Flips()
			if got != tt.want {
				t.Errorf("Flips() = %+v, want %+v", got, tt.want)
			}
			if got.Flaky() != (tt.want.Flips >= 2) {
				t.Errorf("Flaky() = %v at %d flips", got.Flaky(), got.Flips)
			}
		})
	}
}
