package evidence

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// rejudgeLatest is a falsifier under criterion whose latest run, id,
// was judged under another.
func rejudgeLatest(id, criterion string) Latest {
	r := Run{ID: id, Exit: 0, Runs: 1, Verdict: VerdictSupports, Criterion: "json.a[0] = 1.5; refuted if `json.a[0] > 2`: not refuted"}
	return Latest{Falsifier: Falsifier{N: 1, Text: "A is over 2.", Criterion: criterion}, Run: r, Runs: []Run{r}}
}

// countingRead reads every log as out, counting the reads by log.
type countingRead struct {
	mu    sync.Mutex
	out   []byte
	reads map[string]int
}

func (c *countingRead) read(id string, k int) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reads == nil {
		c.reads = map[string]int{}
	}
	c.reads[fmt.Sprintf("%s/%d", id, k)]++
	return c.out, nil
}

// A Rejudger judges a run under a criterion once, whoever asks and from
// however many goroutines at once, and keeps no Result; another
// criterion is another judgement.
func TestRejudgerJudgesOnce(t *testing.T) {
	c := &countingRead{out: []byte(`{"a":[1.5,1.5]}`)}
	r := NewRejudger(c.read, Settings{}, RejudgeBudget)
	const id = "20261203T133032Z-2d8e"
	var wg sync.WaitGroup
	got := make([]Rejudgement, 16)
	for i := range got {
		wg.Go(func() { got[i] = r.Rejudge(rejudgeLatest(id, "json.a[0] > 1")) })
	}
	wg.Wait()
	for _, rj := range got {
		if rj.Err != nil || rj.Now.Verdict != VerdictRefutes || !strings.Contains(rj.Now.Statement, "refuted if `json.a[0] > 1`: refuted") {
			t.Fatalf("judged again: %+v", rj)
		}
		if rj.Now.Result.Read != nil {
			t.Errorf("the judgement keeps its Result: %+v", rj.Now.Result)
		}
	}
	if c.reads[id+"/1"] != 1 {
		t.Errorf("16 judgements of one run read its log %v, want once", c.reads)
	}
	if rj := r.Rejudge(rejudgeLatest(id, "json.a[0] > 3")); rj.Now.Verdict != VerdictSupports || c.reads[id+"/1"] != 2 {
		t.Errorf("another criterion: %+v, reads %v", rj, c.reads)
	}
}

// A Rejudger reads logs up to its budget, the last read past it
// judged; then it reads none, and says why.
func TestRejudgerBudget(t *testing.T) {
	c := &countingRead{out: []byte(`{"a":[1.5,1.5]}` + strings.Repeat(" ", 45))} // 60 bytes
	r := NewRejudger(c.read, Settings{}, 100)
	for i := range 3 {
		id := fmt.Sprintf("20261203T13303%dZ-2d8e", i)
		rj := r.Rejudge(rejudgeLatest(id, "json.a[0] > 1"))
		switch {
		case i < 2 && (rj.Err != nil || rj.Now.Verdict != VerdictRefutes):
			t.Errorf("run %d, within the budget: %+v", i, rj)
		case i == 2 && !errors.Is(rj.Err, ErrRejudgeBudget):
			t.Errorf("run %d, past the budget: %+v", i, rj)
		}
	}
	if len(c.reads) != 2 {
		t.Errorf("read %v, want the first two logs only", c.reads)
	}
}

// A Rejudger judges a log only as the run wrote it: a record that says
// what each of its logs held (Log sum) is not judged again on a log that
// holds something else since, which would give a verdict on an output the
// run never gave; a record from before the sums is judged as it was.
func TestRejudgerReadsOnlyTheRunsLog(t *testing.T) {
	const id = "20261203T133032Z-2d8e"
	wrote, now := []byte(`{"a":[1.5,1.5]}`), []byte(`{"a":[2.5,2.5]}`)
	tests := []struct {
		name    string
		sums    []string
		runs    int
		logs    map[int][]byte
		wantErr string // "" judged
	}{
		{"unchanged", []string{LogSum(wrote)}, 1, map[int][]byte{1: wrote}, ""},
		{"changed", []string{LogSum(wrote)}, 1, map[int][]byte{1: now}, "its log .zk/runs/" + id + ".log was changed since the run: " + LogSum(now) + ", where its block recorded " + LogSum(wrote)},
		{"before sums: judged as it is", nil, 1, map[int][]byte{1: now}, ""},
		{"repeat: the second log changed", []string{LogSum(wrote), LogSum(wrote)}, 2, map[int][]byte{1: wrote, 2: now}, "its log .zk/runs/" + id + ".2.log was changed since the run"},
		{"repeat: each as written", []string{LogSum(wrote), LogSum(wrote)}, 2, map[int][]byte{1: wrote, 2: wrote}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			read := func(_ string, k int) ([]byte, error) { return tt.logs[k], nil }
			l := rejudgeLatest(id, "json.a[0] > 1")
			l.Run.LogSums, l.Run.Runs = tt.sums, tt.runs
			l.Runs = []Run{l.Run}
			rj := NewRejudger(read, Settings{}, RejudgeBudget).Rejudge(l)
			switch {
			case tt.wantErr == "" && (rj.Err != nil || rj.Now.Verdict != VerdictRefutes):
				t.Errorf("judged again: %+v, want refutes", rj)
			case tt.wantErr != "" && (rj.Err == nil || !strings.Contains(rj.Err.Error(), tt.wantErr)):
				t.Errorf("error %v, want %q", rj.Err, tt.wantErr)
			}
		})
	}
}

// A record's log sums are in its block, inside its checksum, and read
// back as written; a judgement again names the log it read, not its sums.
func TestLogSumsRoundTrip(t *testing.T) {
	// sha256sum of "a": ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb
	if got := LogSum([]byte("a")); got != "sha256:ca978112ca1bbdca" {
		t.Fatalf("LogSum %q", got)
	}
	r := Run{ID: "20261203T133032Z-2d8e", Started: time.Date(2026, 12, 3, 13, 30, 32, 0, time.UTC), Verdict: VerdictSupports,
		Command: "true", Log: ".zk/runs/20261203T133032Z-2d8e.log", Output: &Output{Lines: 1, Tail: []string{"x"}},
		LogSums: []string{LogSum([]byte("a")), LogSum([]byte("b"))}}
	src := "# N\n\n## Evidence\n\n" + string(RenderRun(r, "\n")) + "\n"
	got := ParseRuns([]byte(src))
	if len(got) != 1 || got[0].Problem != "" || !slices.Equal(got[0].LogSums, r.LogSums) {
		t.Fatalf("read back %+v, want sums %v", got, r.LogSums)
	}
	if !strings.Contains(src, "> - **Log sum:** "+r.LogSums[0]+", "+r.LogSums[1]+"\n") {
		t.Errorf("block:\n%s", src)
	}
	if edited := strings.Replace(src, r.LogSums[0], LogSum([]byte("c")), 1); ParseRuns([]byte(edited))[0].Problem == "" {
		t.Errorf("a sum edited in the block is not an edit of the record")
	}
	r.Rejudges, r.Output = "20261203T120000Z-0001", nil
	if strings.Contains(string(RenderRun(r, "\n")), "Log sum") {
		t.Errorf("a judgement again states sums of a log it did not write")
	}
}

// A record judged over another number of runs than the falsifier's
// repeat: asks now is a changed criterion, named as its repeat; a
// judgement again is compared by the run it judged, a run stopped short
// by what it asked, and an attached result never (its own samples).
func TestRepeatChanged(t *testing.T) {
	const stated = "rate = 50; refuted if `rate < 100`: refuted"
	run := func(id string, runs, repeat int) Run {
		return Run{ID: id, Runs: runs, Repeat: repeat, Verdict: VerdictRefutes, Criterion: stated}
	}
	again := Run{ID: "b", Rejudges: "a", Runs: 1, Repeat: 1, Verdict: VerdictRefutes, Criterion: stated}
	attached := run("a", 1, 1)
	attached.Attached = true
	for _, tc := range []struct {
		name   string
		repeat string
		runs   []Run
		want   string // JudgingChanges, joined; "" for no change
	}{
		{"once, none asked", "", []Run{run("a", 1, 1)}, ""},
		{"once, now three", "3", []Run{run("a", 1, 1)}, "its repeat was none, now `3`"},
		{"three, now none", "", []Run{run("a", 3, 3)}, "its repeat was `3`, now none"},
		{"three, now six", "6", []Run{run("a", 3, 3)}, "its repeat was `3`, now `6`"},
		{"stopped at two of three", "3", []Run{run("a", 2, 3)}, ""},
		{"a judgement again of three runs", "3", []Run{run("a", 3, 3), again}, ""},
		{"a judgement again of one run, now three", "3", []Run{run("a", 1, 1), again}, "its repeat was none, now `3`"},
		{"attached", "3", []Run{attached}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := Latest{Falsifier: Falsifier{N: 1, Criterion: "rate < 100", Repeat: tc.repeat}, Run: tc.runs[len(tc.runs)-1], Runs: tc.runs}
			got := strings.Join(JudgingChanges(l), "; ")
			if got != tc.want || l.RepeatChanged() != (tc.want != "") || l.CriterionChanged() != (tc.want != "") || l.ExpressionChanged() {
				t.Errorf("JudgingChanges = %q, RepeatChanged %v, CriterionChanged %v, ExpressionChanged %v; want %q",
					got, l.RepeatChanged(), l.CriterionChanged(), l.ExpressionChanged(), tc.want)
			}
			rj := NewRejudger(nil, Settings{}, -1).Changed(l)
			if tc.want != "" && !errors.Is(rj.Err, ErrRepeatChanged) {
				t.Errorf("Changed's error = %v, want ErrRepeatChanged", rj.Err)
			}
		})
	}
}
