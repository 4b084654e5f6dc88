package evidence

import (
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	rate := Falsifier{N: 1, Criterion: "rate < 100", Captures: []string{"rate = ([0-9.]+) tok/s"}, CaptureLines: []int{3}}
	tests := []struct {
		name   string
		f      Falsifier
		o      Outcome
		out    string
		want   Verdict
		stated string // a piece of the statement
	}{
		{"no criterion, exit 0", Falsifier{N: 1}, Outcome{}, "hello", VerdictNone, ""},
		{"no criterion, exit 1", Falsifier{N: 1}, Outcome{Exit: 1}, "", VerdictNone, ""},
		{"holds", rate, Outcome{}, "rate = 66 tok/s", VerdictRefutes, "rate = 66 (n = 1: one reading, noise unknown); refuted if `rate < 100`: refuted"},
		{"does not hold", rate, Outcome{}, "rate = 266 tok/s", VerdictSupports, "rate = 266 (n = 1: one reading, noise unknown); refuted if `rate < 100`: not refuted"},
		{"missing", rate, Outcome{}, "nothing", VerdictInconclusive, "not evaluated: rate is missing"},
		{"exit 1 is no measurement", rate, Outcome{Exit: 1}, "rate = 266 tok/s", VerdictInconclusive, "exited 1"},
		{"timed out", rate, Outcome{Exit: -1, Failed: "timed out after 1s"}, "rate = 266 tok/s", VerdictInconclusive, "the command timed out after 1s"},
		{"interrupted", rate, Outcome{Exit: -1, Failed: "interrupted"}, "", VerdictInconclusive, "not evaluated: the command was interrupted"},
		{"killed", rate, Outcome{Exit: -1, Failed: "killed by SIGKILL"}, "", VerdictInconclusive, "not evaluated: the command was killed by SIGKILL"},
		{"exit criterion refutes", Falsifier{Criterion: "exit != 0"}, Outcome{Exit: 1}, "", VerdictRefutes, "exit = 1"},
		{"exit criterion supports", Falsifier{Criterion: "exit != 0"}, Outcome{Exit: 0}, "", VerdictSupports, "not refuted"},
		{"exit 125 cannot decide", Falsifier{Criterion: "exit != 0"}, Outcome{Exit: 125}, "", VerdictInconclusive, "cannot decide"},
		{"does not compile", Falsifier{Criterion: "rate <", CriterionLine: 7}, Outcome{}, "", VerdictInconclusive, "not evaluated: refuted if: unexpected token"},
		{"bad capture", Falsifier{Criterion: "x > 1", Captures: []string{"x = ("}, CaptureLines: []int{2}}, Outcome{}, "", VerdictInconclusive, "capture"},
	}
	for _, tt := range tests {
		j := Judge(tt.f, tt.o, []byte(tt.out), Settings{RunID: "20260101T000000Z-0000"})
		v, stated := j.Verdict, j.Statement
		if v != tt.want || !strings.Contains(stated, tt.stated) || (tt.stated == "") != (stated == "") {
			t.Errorf("%s: Judge = %s, %q; want %s, containing %q", tt.name, v, stated, tt.want, tt.stated)
		}
	}
}

func TestCompileNamesLine(t *testing.T) {
	_, _, err := Falsifier{N: 2, Criterion: "level(1).x >", CriterionLine: 11}.Compile()
	ce, ok := err.(*CriterionError)
	if !ok || ce.Line != 11 {
		t.Fatalf("Compile error = %#v, want a CriterionError on line 11", err)
	}
}

func TestCriterionRoundTrip(t *testing.T) {
	r := sampleRun()
	r.Verdict, r.Criterion = VerdictSupports, "rate = 266; refuted if `rate < 100`: not refuted"
	src, err := InsertRun([]byte("# T\n\n## Evidence\n"), r)
	if err != nil {
		t.Fatal(err)
	}
	got := ParseRuns(src)
	if len(got) != 1 || got[0].Criterion != r.Criterion || got[0].Verdict != VerdictSupports || got[0].Problem != "" {
		t.Fatalf("ParseRuns = %+v", got)
	}
	// The checksum covers the criterion line: turning "not refuted" into
	// "refuted" by hand is an edit.
	edited := strings.Replace(string(src), ": not refuted", ": refuted", 1)
	if got := EditedRuns([]byte(edited)); len(got) != 1 {
		t.Errorf("edited criterion line not caught: %+v", got)
	}
	none := sampleRun()
	none.Verdict = VerdictNone
	src, _ = InsertRun([]byte("# T\n\n## Evidence\n"), none)
	if !strings.Contains(string(src), "> [!note]- Falsifier run") || ParseRuns(src)[0].Verdict != VerdictNone {
		t.Errorf("a run without verdict: %s", src)
	}
}

func TestVanished(t *testing.T) {
	r := sampleRun()
	r.Verdict = VerdictRefutes
	src, err := InsertRun([]byte("# T\n\n## Evidence\n"), r)
	if err != nil {
		t.Fatal(err)
	}
	ledger := ReadLedger(append(append(LedgerLine(LedgerEntry{ID: r.ID, Note: "t.md", Falsifier: 1, Verdict: VerdictRefutes}),
		[]byte("{cut short\n")...), LedgerLine(LedgerEntry{ID: "20260101T000000Z-aaaa", Note: "t.md", Verdict: VerdictSupports})...))
	if len(ledger["t.md"]) != 2 {
		t.Fatalf("ReadLedger = %+v", ledger)
	}
	if got := Vanished(src, ledger["t.md"]); len(got) != 0 {
		t.Errorf("block present, reported vanished: %+v", got)
	}
	if got := Vanished([]byte("# T\n\n## Evidence\n"), ledger["t.md"]); len(got) != 1 || got[0].ID != r.ID {
		t.Errorf("deleted refuting block: Vanished = %+v", got)
	}
}

// TestJudgeAgain: Judge is a function of the record: the same output,
// criterion and run id judged again give the same verdict and statement,
// fraction and interval included (zk run --rejudge relies on it).
func TestJudgeAgain(t *testing.T) {
	f := Falsifier{N: 1, Criterion: "hyperfine.results[0].mean > 0.2"}
	out := []byte(`{"results":[{"command":"zk check","mean":0.20066666666666666,"times":[0.188,0.212,0.195,0.207,0.199,0.203,0.191,0.211,0.197,0.205,0.194,0.206]}]}`)
	s := Settings{RunID: "20261203T163225Z-c3c9"}
	a, b := Judge(f, Outcome{Exit: -1}, out, s), Judge(f, Outcome{Exit: -1}, out, s)
	if a.Verdict != VerdictInconclusive || a.Statement != b.Statement || a.Result.Refuting != b.Result.Refuting {
		t.Errorf("judged twice:\n%s %q\n%s %q", a.Verdict, a.Statement, b.Verdict, b.Statement)
	}
	if !strings.Contains(a.Statement, "within noise") || a.Result.Resamples != 2000 || a.Result.Confidence != 0.95 {
		t.Errorf("judgement %+v", a)
	}
	// A falsifier's confidence: item and the settings' both count; the
	// falsifier's wins.
	f.Confidence = "60%"
	if j := Judge(f, Outcome{Exit: -1}, out, Settings{RunID: s.RunID, Confidence: 0.99}); j.Result.Confidence != 0.6 {
		t.Errorf("confidence %v, want the falsifier's 0.6", j.Result.Confidence)
	}
}

// TestJudgeRunsAlike: a number every run of repeat: N gave alike (a
// count of failing tests, 0 in each of three runs) shows no spread, as a
// string the runs agree on shows none: it is judged on that value and
// says so, where before it was three samples, too few to judge at 95%,
// and repeat: 3 judged less than one run (one reading gets a verdict).
// Numbers the runs give otherwise are samples of what varies: their
// mean, its interval and the samples it needs, whole numbers too.
func TestJudgeRunsAlike(t *testing.T) {
	f := Falsifier{N: 1, Criterion: "failing > 0", Captures: []string{"failing = ([0-9]+)"}, CaptureLines: []int{3}, Repeat: "3"}
	s := Settings{RunID: "20261204T000000Z-0001"}
	ok := []Outcome{{}, {}, {}}
	runs := func(xs ...string) [][]byte {
		out := make([][]byte, len(xs))
		for i, x := range xs {
			out[i] = []byte("failing = " + x + "\n")
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		outs      [][]byte
		verdict   Verdict
		statement string
	}{
		{"none failing in any run", runs("0", "0", "0"), VerdictSupports, "failing = 0 (n = 3: runs (repeat: 3), all alike); refuted if `failing > 0`: not refuted"},
		{"three failing in every run", runs("3", "3", "3"), VerdictRefutes, "failing = 3 (n = 3: runs (repeat: 3), all alike); refuted if `failing > 0`: refuted"},
		{"a count that varies", runs("3", "3", "4"), VerdictInconclusive, "failing = 3.33333333333333 (n = 3: runs (repeat: 3)); refuted if `failing > 0`: too few samples to judge at 95% (6 needed)"},
	} {
		j := JudgeRuns(f, ok, tc.outs, s)
		if j.Verdict != tc.verdict || j.Statement != tc.statement {
			t.Errorf("%s: %s %q, want %s %q", tc.name, j.Verdict, j.Statement, tc.verdict, tc.statement)
		}
	}
	// The same for a JSON number.
	g := Falsifier{N: 1, Criterion: "json.failed > 0", Repeat: "3"}
	outs := [][]byte{[]byte(`{"failed":0}`), []byte(`{"failed":0}`), []byte(`{"failed":0}`)}
	want := "json.failed = 0 (n = 3: runs (repeat: 3), all alike); refuted if `json.failed > 0`: not refuted"
	if j := JudgeRuns(g, ok, outs, s); j.Verdict != VerdictSupports || j.Statement != want {
		t.Errorf("a JSON number alike: %s %q, want supports %q", j.Verdict, j.Statement, want)
	}
}

// TestJudgeRuns: repeat: N pools the runs' captures; each run is one
// sample of the mean, so six runs straddling the threshold are within
// noise, three are too few to judge at 95% whatever they read, and one
// failed run decides nothing.
func TestJudgeRuns(t *testing.T) {
	f := Falsifier{N: 1, Criterion: "rate < 97", Captures: []string{"rate = ([0-9.]+) tok/s"}, CaptureLines: []int{3}, Repeat: "6"}
	outs := [][]byte{[]byte("rate = 90 tok/s"), []byte("rate = 100 tok/s"), []byte("rate = 110 tok/s")}
	outs = append(outs, outs...)
	ok := []Outcome{{}, {}, {}, {}, {}, {}}
	s := Settings{RunID: "20261204T000000Z-0001"}
	j := JudgeRuns(f, ok, outs, s)
	// A resample's mean is under 97 about one time in six.
	if j.Verdict != VerdictInconclusive || !strings.Contains(j.Statement, "rate = 100 (95% interval ") || !strings.Contains(j.Statement, "n = 6: runs (repeat: 6)") ||
		j.Result.Refuting < 150 || j.Result.Refuting > 600 {
		t.Errorf("straddling runs: %s %q (%d refuting)", j.Verdict, j.Statement, j.Result.Refuting)
	}
	f.Criterion = "rate < 120"
	if j := JudgeRuns(f, ok, outs, s); j.Verdict != VerdictRefutes || !strings.Contains(j.Statement, "100% of 2,000 resamples agree") {
		t.Errorf("every run under 120: %s %q", j.Verdict, j.Statement)
	}
	f.Repeat = "3"
	want := "rate = 100 (n = 3: runs (repeat: 3)); refuted if `rate < 120`: too few samples to judge at 95% (6 needed)"
	if j := JudgeRuns(f, ok[:3], outs[:3], s); j.Verdict != VerdictInconclusive || j.Statement != want {
		t.Errorf("three runs, every one under 120: %s %q, want inconclusive %q", j.Verdict, j.Statement, want)
	}
	f.Confidence = "75%" // three samples are enough at 75%
	if j := JudgeRuns(f, ok[:3], outs[:3], s); j.Verdict != VerdictRefutes {
		t.Errorf("three runs at 75%%: %s %q", j.Verdict, j.Statement)
	}
	f.Confidence = ""
	if j := JudgeRuns(f, []Outcome{{}, {Exit: 1}, {}}, outs[:3], s); j.Verdict != VerdictInconclusive || !strings.Contains(j.Statement, "exited 1 (run 2 of 3)") {
		t.Errorf("a failed run: %s %q", j.Verdict, j.Statement)
	}
	f.Repeat = "0"
	if _, err := f.Repeats(); err == nil {
		t.Error("repeat: 0 accepted")
	}
}

// TestRepeatedRunReadBack: a record of a command run several times says
// so, and names every log a judgement of it again must read.
func TestRepeatedRunReadBack(t *testing.T) {
	r := sampleRun()
	r.Output = &Output{Lines: 1, Bytes: 10, Tail: []string{"rate = 90 tok/s"}, Runs: 3, Repeat: 3}
	src, err := InsertRun([]byte("# T\n\n## Evidence\n"), r)
	if err != nil {
		t.Fatal(err)
	}
	got := ParseRuns(src)
	if len(got) != 1 || got[0].Runs != 3 || got[0].Problem != "" {
		t.Fatalf("ParseRuns = %+v\n%s", got, src)
	}
	want := []string{".zk/runs/" + r.ID + ".log", ".zk/runs/" + r.ID + ".2.log", ".zk/runs/" + r.ID + ".3.log"}
	if logs := got[0].Logs(); strings.Join(logs, " ") != strings.Join(want, " ") {
		t.Errorf("Logs = %v, want %v", logs, want)
	}
	r.Output.Runs = 0
	src, _ = InsertRun([]byte("# T\n\n## Evidence\n"), r)
	if got := ParseRuns(src); got[0].Runs != 1 || len(got[0].Logs()) != 1 {
		t.Errorf("a single run: %+v", got[0])
	}
}
