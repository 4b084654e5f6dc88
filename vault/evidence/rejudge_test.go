package evidence

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
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
