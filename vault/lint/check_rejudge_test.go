package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// sharedRunNote is a note whose falsifier's latest run, recorded under
// `json.a[0] > 2`, names run id; its criterion is now `json.a[0] > 1`.
func sharedRunNote(t *testing.T, title, id string) string {
	t.Helper()
	return changedNote(title, id, "json.a[0] = 1.5; refuted if `json.a[0] > 2`: not refuted", "json.a[0] > 1")
}

// changedNote is a note whose falsifier's latest run, id, states
// statement; its criterion is now criterion.
func changedNote(title, id, statement, criterion string) string {
	block := evidence.RenderRun(evidence.Run{ID: id, Started: time.Date(2026, 12, 3, 13, 30, 32, 0, time.UTC),
		Exit: 0, Verdict: evidence.VerdictSupports, Falsifier: "A is over 2.", FalsifierID: "f-1a2b",
		Criterion: statement, Log: ".zk/runs/" + id + ".log"}, "\n")
	return "# " + title + "\n\n## Tests / falsifiers\n\n- A is over 2. ^f-1a2b\n  - run: `echo`\n  - refuted if: `" + criterion + "`\n\n## Evidence\n\n" +
		string(block) + "\n"
}

// TestCriterionChangedReadsASharedLogOnce: 30 notes share a run (a note
// copied keeps its blocks) whose criterion changed since. Check, its
// notes judged in parallel, and a Recheck of them all read the run's log
// once, not once for each note (each read of a 24 MB JSON log decoded it
// again: 3 s and 460 MB, and 21 notes ran zk check out of memory); each
// note's finding has the judgement.
func TestCriterionChangedReadsASharedLogOnce(t *testing.T) {
	const n, id = 30, "20261203T133032Z-2d8e"
	ctx := context.Background()
	notes := map[string]string{}
	for i := range n {
		notes[fmt.Sprintf("c%02d.md", i)] = sharedRunNote(t, fmt.Sprintf("c%02d", i), id)
	}
	v, err := vault.Open(vaulttest.Dir(t, notes))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	files, _, err := v.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	reads := map[string]int{}
	opts := Options{States: true, ReadLog: func(id string, k int) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		reads[fmt.Sprintf("%s/%d", id, k)]++
		return []byte(`{"a":[1.5,1.5]}`), nil
	}}
	judged := func(fs []Finding) int {
		k := 0
		for _, f := range fs {
			if f.Rule == RuleCriterionChanged && strings.Contains(f.Message, "judged again by `json.a[0] > 1` on the same output it refutes the claim") {
				k++
			}
		}
		return k
	}
	rep, err := Check(ctx, v, files, nil, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := judged(rep.Findings); got != n {
		t.Errorf("Check judged %d notes' run again, want %d", got, n)
	}
	if reads[id+"/1"] != 1 || len(reads) != 1 {
		t.Errorf("Check read the logs %v, want %s/1 once", reads, id)
	}

	// Every note changed: a Recheck checks them all again, on one session.
	clear(reads)
	var changed []string
	for p, src := range notes {
		if err := os.WriteFile(filepath.Join(v.Dir, p), []byte(src+"\nEdited.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		changed = append(changed, p)
	}
	files, _, err = v.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	again, ok, err := Recheck(ctx, v, files, nil, opts, rep.Previous(), changed, nil)
	if err != nil || !ok {
		t.Fatalf("recheck: ok %v, %v", ok, err)
	}
	if got := judged(again.Findings); got != n {
		t.Errorf("Recheck judged %d notes' run again, want %d", got, n)
	}
	if reads[id+"/1"] != 1 || len(reads) != 1 {
		t.Errorf("Recheck read the logs %v, want %s/1 once", reads, id)
	}
}

// TestCriterionChangedStatementClipped: the judgement again quotes the
// values it read, a string of the output whole; every note sharing the
// run repeats it, so the message quotes its first characters only.
func TestCriterionChangedStatementClipped(t *testing.T) {
	const id = "20261203T133032Z-2d8e"
	ctx := context.Background()
	v, err := vault.Open(vaulttest.Dir(t, map[string]string{
		"c.md": changedNote("c", id, "json.s = \"x\"; refuted if `json.s == \"y\"`: not refuted", `json.s == "x"`),
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	files, _, err := v.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	long := []byte(`{"s":"` + strings.Repeat("x", 100_000) + `"}`)
	rep, err := Check(ctx, v, files, nil, Options{ReadLog: func(string, int) ([]byte, error) { return long, nil }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Rule == RuleCriterionChanged {
			found = true
			if len(f.Message) > 3000 || !strings.Contains(f.Message, "on the same output it supports the claim (json.s = \"xxx") {
				t.Errorf("the message: %.300q… (%d bytes)", f.Message, len(f.Message))
			}
		}
	}
	if !found {
		t.Errorf("no %s in %+v", RuleCriterionChanged, rep.Findings)
	}
}
