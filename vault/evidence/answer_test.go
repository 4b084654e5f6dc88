package evidence

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"
)

// rateItem is a falsifier reading a capture, under criterion.
func rateItem(criterion string) string {
	return "- The rate stays under the bound. ^f-0001\n  - capture: `rate = ([0-9.]+)`\n  - refuted if: `" + criterion + "`\n"
}

// rateRun is a record at minute m of the falsifier rateItem writes: its
// verdict, and its statement of rate under criterion.
type rateRun struct {
	m         int
	v         Verdict
	rate      string
	criterion string
	// judgedWith overrides the record's Judged with (the capture).
	judgedWith string
	rejudges   int // the minute of the run a judgement again judged
	attached   bool
	measured   int // an attached result's file time, in minutes; 0 none
}

func (r rateRun) block() string {
	held := map[bool]string{true: "refuted", false: "not refuted"}[r.v == VerdictRefutes]
	if r.v == VerdictInconclusive {
		held = "not evaluated: rate is missing from the output"
	}
	jw := r.judgedWith
	if jw == "" {
		jw = "capture `rate = ([0-9.]+)`"
	}
	run := Run{
		ID:          runID(r.m),
		Started:     time.Date(2026, 12, 1, 10, r.m, 0, 0, time.UTC),
		Verdict:     r.v,
		Falsifier:   "The rate stays under the bound.",
		FalsifierID: "f-0001",
		Command:     "echo",
		Criterion:   fmt.Sprintf("rate = %s; refuted if `%s`: %s", r.rate, r.criterion, held),
		JudgedWith:  jw,
	}
	if r.rejudges > 0 {
		run.Rejudges, run.Command = runID(r.rejudges), ""
	}
	if r.attached {
		run.Attached = true
	}
	if r.measured > 0 {
		run.Measured = time.Date(2026, 12, 1, 10, r.measured, 0, 0, time.UTC)
	}
	return string(RenderRun(run, "\n")) + "\n"
}

// logsRead reads the logs of the runs it holds, counting the reads; the
// others are gone.
type logsRead struct {
	logs  map[string]string
	reads int
}

func (l *logsRead) read(id string, k int) ([]byte, error) {
	l.reads++
	out, ok := l.logs[id]
	if !ok || k != 1 {
		return nil, fmt.Errorf("its log .zk/runs/%s.log is gone: %w", id, fs.ErrNotExist)
	}
	return []byte(out), nil
}

// A later run that supports the claim answers a refutation when it meets
// the data that refuted it: judged by the same criterion; or by one the
// refuting output still fails (judged again on its log); or after a
// judgement again recorded that output under the criterion it was
// judged by. A criterion moved past the refuting data, a log that cannot
// be judged again, a result older than the refutation answer nothing.
func TestAnswers(t *testing.T) {
	// The claim: the rate stays at 100 or over. Run 1 measured 99.9.
	refuted := rateRun{m: 1, v: VerdictRefutes, rate: "99.9", criterion: "rate < 100"}
	logs := map[string]string{runID(1): "rate = 99.9\n"}
	tests := []struct {
		name      string
		criterion string // the falsifier's, as written now
		runs      []rateRun
		logs      map[string]string
		ledger    []LedgerEntry
		noJudge   bool // LatestRuns without a Rejudger
		// stands is whether the refutation stands; why, what the
		// unanswered run's Answer says (its judgement's statement, its
		// error, or "early"); reads, how many logs were read.
		stands bool
		why    string
		reads  int
	}{
		{"the same criterion answers, reading no log", "rate < 100",
			[]rateRun{refuted, {m: 2, v: VerdictSupports, rate: "120", criterion: "rate < 100"}}, logs, nil, false,
			false, "", 0},
		{"a criterion moved past the refuting data answers nothing", "rate < 90",
			[]rateRun{refuted, {m: 2, v: VerdictSupports, rate: "99.9", criterion: "rate < 90"}}, logs, nil, false,
			true, "rate = 99.9 (n = 1: one reading, noise unknown); refuted if `rate < 90`: not refuted", 1},
		{"a stricter criterion, which the refuting data still fails, answers", "rate < 150",
			[]rateRun{refuted, {m: 2, v: VerdictSupports, rate: "200", criterion: "rate < 150"}}, logs, nil, false,
			false, "", 1},
		{"the refuting log gone: the refutation stands", "rate < 150",
			[]rateRun{refuted, {m: 2, v: VerdictSupports, rate: "200", criterion: "rate < 150"}}, nil, nil, false,
			true, "its log .zk/runs/" + runID(1) + ".log is gone", 1},
		{"no Rejudger: no log read, the refutation stands", "rate < 150",
			[]rateRun{refuted, {m: 2, v: VerdictSupports, rate: "200", criterion: "rate < 150"}}, logs, nil, true,
			true, "its log is not read here", 0},
		{"a criterion under which the refuting output is inconclusive answers nothing", "speed < 1",
			[]rateRun{refuted, {m: 2, v: VerdictSupports, rate: "2", criterion: "speed < 1", judgedWith: "capture `speed = speed: ([0-9.]+)`"}}, logs, nil, false,
			true, "refuted if `speed < 1`: not evaluated: speed is missing", 1},
		{"the revision recorded first (a judgement again of the refuting run): a run under it answers", "rate < 90",
			[]rateRun{refuted, {m: 2, v: VerdictSupports, rate: "99.9", criterion: "rate < 90", rejudges: 1},
				{m: 3, v: VerdictSupports, rate: "95", criterion: "rate < 90"}}, logs, nil, false,
			false, "", 0},
		{"the revision recorded after the run: that run answers nothing", "rate < 90",
			[]rateRun{refuted, {m: 2, v: VerdictSupports, rate: "95", criterion: "rate < 90"},
				{m: 3, v: VerdictSupports, rate: "99.9", criterion: "rate < 90", rejudges: 1}}, logs, nil, false,
			true, "rate = 99.9 (n = 1: one reading, noise unknown); refuted if `rate < 90`: not refuted", 1},
		{"a revision under another criterion than the run's answers nothing", "rate < 90",
			[]rateRun{refuted, {m: 2, v: VerdictSupports, rate: "99.9", criterion: "rate < 80", rejudges: 1},
				{m: 3, v: VerdictSupports, rate: "95", criterion: "rate < 90"}}, logs, nil, false,
			true, "rate = 99.9 (n = 1: one reading, noise unknown); refuted if `rate < 90`: not refuted", 1},
		{"a judgement again alone answers nothing", "rate < 90",
			[]rateRun{refuted, {m: 2, v: VerdictSupports, rate: "99.9", criterion: "rate < 90", rejudges: 1}}, logs, nil, false,
			true, "", 0},
		{"a refuting judgement again: the output of the run it judged is judged", "rate >= 200",
			[]rateRun{{m: 1, v: VerdictSupports, rate: "99.9", criterion: "rate < 50"}, {m: 2, v: VerdictRefutes, rate: "99.9", criterion: "rate >= 50", rejudges: 1},
				{m: 3, v: VerdictSupports, rate: "300", criterion: "rate >= 200"}}, logs, nil, false,
			true, "rate = 99.9 (n = 1: one reading, noise unknown); refuted if `rate >= 200`: not refuted", 1},
		{"an edited block the ledger says refuted: its log judged again under the answering criterion", "rate < 100",
			[]rateRun{refuted, {m: 2, v: VerdictSupports, rate: "120", criterion: "rate < 100"}}, logs,
			[]LedgerEntry{{ID: runID(1), FalsifierID: "f-0001", Verdict: VerdictRefutes}, {ID: runID(2), FalsifierID: "f-0001", Verdict: VerdictSupports}}, false,
			false, "", 1},
		{"an edited block the ledger says refuted, its log gone: it stands", "rate < 100",
			[]rateRun{refuted, {m: 2, v: VerdictSupports, rate: "120", criterion: "rate < 100"}}, nil,
			[]LedgerEntry{{ID: runID(1), FalsifierID: "f-0001", Verdict: VerdictRefutes}, {ID: runID(2), FalsifierID: "f-0001", Verdict: VerdictSupports}}, false,
			true, "is gone", 1},
		// The ledger places the refutation in the note and not the run
		// that supports it: its block was pasted from another note (a
		// copy made with cp), and answers nothing here.
		{"a run the ledger does not place in the note answers nothing", "rate < 100",
			[]rateRun{refuted, {m: 2, v: VerdictSupports, rate: "120", criterion: "rate < 100"}}, logs,
			[]LedgerEntry{{ID: runID(1), FalsifierID: "f-0001", Verdict: VerdictRefutes}}, false,
			true, "foreign", 0},
		{"a result attached from a file older than the refuting run answers nothing", "rate < 100",
			[]rateRun{{m: 5, v: VerdictRefutes, rate: "99.9", criterion: "rate < 100"},
				{m: 6, v: VerdictSupports, rate: "120", criterion: "rate < 100", attached: true, measured: 4}}, logs, nil, false,
			true, "early", 0},
		{"a result attached from a file newer than the refuting run answers", "rate < 100",
			[]rateRun{{m: 5, v: VerdictRefutes, rate: "99.9", criterion: "rate < 100"},
				{m: 7, v: VerdictSupports, rate: "120", criterion: "rate < 100", attached: true, measured: 6}}, logs, nil, false,
			false, "", 0},
		{"a result attached before zk recorded file times answers as it did", "rate < 100",
			[]rateRun{{m: 5, v: VerdictRefutes, rate: "99.9", criterion: "rate < 100"},
				{m: 7, v: VerdictSupports, rate: "120", criterion: "rate < 100", attached: true}}, logs, nil, false,
			false, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var blocks []string
			for _, r := range tt.runs {
				b := r.block()
				if len(tt.ledger) > 0 && r.m == 1 {
					b = strings.Replace(b, "> - **Command:**", "> a line added\n> - **Command:**", 1)
				}
				blocks = append(blocks, b)
			}
			lr := &logsRead{logs: tt.logs}
			var rj *Rejudger
			if !tt.noJudge {
				rj = NewRejudger(lr.read, Settings{}, RejudgeBudget)
			}
			st := LatestRuns(noteOf(rateItem(tt.criterion), blocks...), tt.ledger, rj)
			l := st.Falsifiers[0]
			if got := l.Refuting.ID != ""; got != tt.stands {
				t.Fatalf("stands %v, want %v (refuting %q, unanswered %+v)", got, tt.stands, l.Refuting.ID, l.Unanswered)
			}
			a := l.Unanswered
			var why string
			switch {
			case a.Foreign:
				why = "foreign"
			case !a.Early.IsZero():
				why = "early"
			case a.Err != nil:
				why = a.Err.Error()
			default:
				why = a.Judged.Statement
			}
			if !strings.Contains(why, tt.why) || (tt.why == "") != (a.Run.ID == "") {
				t.Errorf("unanswered %q (run %q), want %q", why, a.Run.ID, tt.why)
			}
			if lr.reads != tt.reads {
				t.Errorf("%d logs read, want %d", lr.reads, tt.reads)
			}
		})
	}
}

// A run judged by captures, numbers or a confidence of its own is judged
// by them again: its Judged with field is read back.
func TestParseJudgedWith(t *testing.T) {
	f := Falsifier{Captures: []string{"`a = (x` y)`", "b = ([0-9]+) · c"}, Numbers: "1,234.5", Confidence: "`99%`"}
	caps, numbers, conf, ok := parseJudgedWith(f.JudgedWith())
	g := Falsifier{Captures: caps, Numbers: numbers, Confidence: conf}
	if !ok || g.JudgedWith() != f.JudgedWith() {
		t.Errorf("read back %q %q %q %v: %q, want %q", caps, numbers, conf, ok, g.JudgedWith(), f.JudgedWith())
	}
	for _, bad := range []string{"capture x", "capture `x", "other `x`", "capture `x` and"} {
		if _, _, _, ok := parseJudgedWith(bad); ok {
			t.Errorf("%q read as what judged a run", bad)
		}
	}
	if _, _, _, ok := parseJudgedWith(""); !ok {
		t.Error("nothing besides the criterion is not read")
	}
}
