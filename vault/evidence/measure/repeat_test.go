package measure

import (
	"strings"
	"testing"
)

// TestReadRuns: repeat: N pools the runs: a distribution's samples put
// together, every other number the mean of the runs, each run a sample.
func TestReadRuns(t *testing.T) {
	rate, _ := ParseCapture("rate = ([0-9.]+) tok/s")
	e := ReadRuns([][]byte{[]byte("rate = 90 tok/s"), []byte("rate = 100 tok/s"), []byte("rate = 110 tok/s")}, 0, []Capture{rate})
	if e.Values["rate"] != 100.0 || len(e.Sampled) != 1 || len(e.Sampled[0].Samples) != 3 || e.Sampled[0].Of != "runs (repeat: 3)" {
		t.Errorf("captures: rate %v, sampled %+v", e.Values["rate"], e.Sampled)
	}

	probeRun := func(agg string, xs string) []byte {
		return []byte(`{"schema":"zk-probe/v1","levels":[{"concurrency":1,"output_token_throughput":{"unit":"tokens/sec","avg":` + agg +
			`},"output_token_throughput_per_user":{"unit":"tokens/sec/user","count":2,"p50":0,"of":"requests completed in the window","samples":[` + xs + `]}}]}`)
	}
	e = ReadRuns([][]byte{probeRun("90", "10,20"), probeRun("110", "30,40")}, 0, nil)
	lv, err := Level(e.Values[Probe], 1)
	if err != nil {
		t.Fatal(err)
	}
	ps := lv["per_stream"].(map[string]any)
	if ps["count"] != 4.0 || ps["p50"] != 25.0 || lv["aggregate"] != 100.0 {
		t.Errorf("pooled level: per_stream %v, aggregate %v", ps, lv["aggregate"])
	}
	var ofs []string
	for _, s := range e.Sampled {
		ofs = append(ofs, s.Of)
	}
	if got := strings.Join(ofs, "|"); !strings.Contains(got, "requests completed in the window at concurrency 1") || !strings.Contains(got, "runs (repeat: 2)") {
		t.Errorf("sampled: %s", got)
	}

	h := func(xs string) []byte {
		return []byte(`{"results":[{"command":"x","mean":0,"times":[` + xs + `]}]}`)
	}
	e = ReadRuns([][]byte{h("1,2"), h("3")}, 0, nil)
	r0 := e.Values[Hyperfine].(map[string]any)["results"].([]any)[0].(map[string]any)
	if r0["mean"] != 2.0 || len(r0["times"].([]any)) != 3 {
		t.Errorf("pooled hyperfine result %v", r0)
	}

	// A run without the figure: absent, naming the run.
	e = ReadRuns([][]byte{[]byte("rate = 1 tok/s"), []byte("nothing")}, 0, []Capture{rate})
	if why := e.Absent["rate"]; !strings.HasPrefix(why, "run 2 of 2: no line of the output matches") {
		t.Errorf("absent: %q", why)
	}
	// go test -bench runs of the repeats are pooled as -count pools them.
	e = ReadRuns([][]byte{[]byte("BenchmarkX-2 10 100 ns/op\n"), []byte("BenchmarkX-2 10 300 ns/op\n")}, 0, nil)
	if b := e.Values[Bench].(map[string]any)["BenchmarkX"].(map[string]any); b["ns/op"] != 200.0 {
		t.Errorf("bench %v", b)
	}
}

// A number every run gave alike is that number, with no samples to
// resample (the criterion states it all alike); one that differs is the
// runs' mean, each run a sample, whole numbers too.
func TestReadRunsAlike(t *testing.T) {
	n, _ := ParseCapture("failing = ([0-9]+)")
	e := ReadRuns([][]byte{[]byte("failing = 0"), []byte("failing = 0"), []byte("failing = 0")}, 0, []Capture{n})
	if e.Values["failing"] != 0.0 || len(e.Sampled) != 0 {
		t.Errorf("alike capture: %v, sampled %d", e.Values["failing"], len(e.Sampled))
	}
	e = ReadRuns([][]byte{[]byte(`{"failed":2,"ms":120}`), []byte(`{"failed":2,"ms":131}`)}, 0, nil)
	j := e.Values[JSON].(map[string]any)
	if j["failed"] != 2.0 || j["ms"] != 125.5 || len(e.Sampled) != 1 {
		t.Errorf("JSON: %v, sampled %d", j, len(e.Sampled))
	}
	e = ReadRuns([][]byte{[]byte("failing = 3"), []byte("failing = 3"), []byte("failing = 4")}, 0, []Capture{n})
	if len(e.Sampled) != 1 || len(e.Sampled[0].Samples) != 3 {
		t.Errorf("a count that varies: sampled %+v", e.Sampled)
	}
}
