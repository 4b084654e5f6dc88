package criterion

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault/evidence/measure"
)

// normal draws n samples of a normal distribution, the same every time.
func normal(n int, mean, sd float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = mean + sd*r.NormFloat64()
	}
	return xs
}

// hyperfineJSON is hyperfine --export-json output for one command whose
// times are xs, its mean and spread computed as hyperfine computes them.
func hyperfineJSON(t testing.TB, xs []float64) []byte {
	t.Helper()
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	b, err := json.Marshal(map[string]any{"results": []any{map[string]any{
		"command": "zk check", "mean": mean, "stddev": 0.0, "median": mean, "min": 0.0, "max": 0.0, "times": xs,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func eval(t testing.TB, crit string, out []byte, opt Options) Result {
	t.Helper()
	c, err := Compile(crit, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Eval(measure.Read(out, 0, nil), opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

var opt95 = Options{Resamples: 2000, Confidence: 0.95, Seed: "20261203T163225Z-c3c9"}

// TestBootstrapKnownDistributions: on samples of a known normal
// distribution, the share of resamples that refute and the interval of
// the mean are what theory says. The mean of n samples of sd σ has a
// standard error σ/√n; its 95% interval is about ±1.96 standard errors.
func TestBootstrapKnownDistributions(t *testing.T) {
	xs := normal(100, 10, 1, 7) // standard error 0.1
	out := hyperfineJSON(t, xs)
	mean := eval(t, "hyperfine.results[0].mean > 0", out, Options{}).Read[0].Value.(float64)
	for _, tc := range []struct {
		name      string
		threshold float64 // refuted if mean > threshold
		lo, hi    float64 // the share of resamples that refute lies in [lo, hi]
		decided   bool
	}{
		{"far below: all refute", mean - 0.5, 1, 1, true},            // 5 standard errors
		{"far above: none refute", mean + 0.5, 0, 0, false},          // the mirror image
		{"at the mean: a coin toss", mean, 0.4, 0.6, false},          // half either way
		{"one standard error above", mean + 0.1, 0.10, 0.22, false},  // normal tail past 1 SE: 16%
		{"two standard errors below", mean - 0.2, 0.95, 0.995, true}, // past 2 SE: 97.7%
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := eval(t, "hyperfine.results[0].mean > "+ftoa(tc.threshold), out, opt95)
			f := float64(res.Refuting) / float64(res.Resamples)
			if res.Resamples != 2000 || f < tc.lo || f > tc.hi {
				t.Errorf("%d of %d resamples refute (%.3f), want a share in [%.3f, %.3f]", res.Refuting, res.Resamples, f, tc.lo, tc.hi)
			}
			if tc.name == "far above: none refute" {
				tc.decided = true // none refute: 100% agree it does not
			}
			if res.Decided() != tc.decided {
				t.Errorf("Decided = %v at %.3f refuting", res.Decided(), f)
			}
		})
	}
	// The interval of the mean: mean ± 1.96 × 0.1, within sampling error.
	rd := eval(t, "hyperfine.results[0].mean > 0", out, opt95).Read[0]
	if w := rd.Hi - rd.Lo; math.Abs(w-2*1.96*0.1) > 0.06 || rd.Lo > mean || rd.Hi < mean {
		t.Errorf("interval %.4f–%.4f (width %.4f) around %.4f, want width near 0.392", rd.Lo, rd.Hi, w, mean)
	}
	if len(rd.Of) != 1 || rd.Of[0].N != 100 || !strings.Contains(rd.Of[0].Of, `hyperfine runs of "zk check"`) {
		t.Errorf("samples %+v", rd.Of)
	}
	// The median's interval is wider than the mean's for a normal
	// distribution (its standard error is √(π/2) ≈ 1.25 times larger).
	med := eval(t, "hyperfine.results[0].median > 0", out, opt95).Read[0]
	if ratio := (med.Hi - med.Lo) / (rd.Hi - rd.Lo); ratio < 1.0 || ratio > 1.7 {
		t.Errorf("median interval / mean interval = %.2f, want about 1.25", ratio)
	}
}

// TestBootstrapDeterministic: the same record judged again gives the same
// answer; another run's id draws other resamples.
func TestBootstrapDeterministic(t *testing.T) {
	out := hyperfineJSON(t, normal(30, 1, 0.2, 3))
	crit := "hyperfine.results[0].mean > 1"
	a, b := eval(t, crit, out, opt95), eval(t, crit, out, opt95)
	if a.Refuting != b.Refuting || a.Read[0].Lo != b.Read[0].Lo || a.Read[0].Hi != b.Read[0].Hi {
		t.Errorf("judged twice: %d vs %d refuting, intervals %v–%v vs %v–%v", a.Refuting, b.Refuting, a.Read[0].Lo, a.Read[0].Hi, b.Read[0].Lo, b.Read[0].Hi)
	}
	other := opt95
	other.Seed = "20261203T163225Z-ffff"
	if c := eval(t, crit, out, other); c.Refuting == a.Refuting && c.Read[0].Lo == a.Read[0].Lo {
		t.Errorf("another seed drew the same resamples: %d refuting", c.Refuting)
	}
	// The output's own values are back after judging.
	e := measure.Read(out, 0, nil)
	before, _ := json.Marshal(e.Values)
	c, _ := Compile(crit, nil)
	if _, err := c.Eval(e, opt95); err != nil {
		t.Fatal(err)
	}
	if after, _ := json.Marshal(e.Values); string(after) != string(before) {
		t.Errorf("values changed by judging:\n%s\n%s", before, after)
	}
}

// TestBootstrapOnlyWhatIsSampled: a criterion reading a value that
// carries no samples is judged on its one reading; one sample is no
// distribution either.
func TestBootstrapOnlyWhatIsSampled(t *testing.T) {
	out := hyperfineJSON(t, normal(20, 5, 1, 1))
	if res := eval(t, `hyperfine.results[0].command == "zk check"`, out, opt95); res.Resamples != 0 {
		t.Errorf("a string compared was resampled: %+v", res)
	}
	if res := eval(t, "hyperfine.results[0].mean > 0", hyperfineJSON(t, []float64{1}), opt95); res.Resamples != 0 {
		t.Errorf("one time was resampled: %+v", res)
	}
	// A ratio of two sampled figures depends on both.
	two := []byte(`{"results":[{"command":"a","mean":1,"times":[1,1.1,0.9]},{"command":"b","mean":2,"times":[2,2.2,1.8,2]}]}`)
	res := eval(t, "hyperfine.results[1].mean / hyperfine.results[0].mean > 1.5", two, opt95)
	if len(res.Read) != 1 || len(res.Read[0].Of) != 2 || res.Read[0].Of[0].N != 3 || res.Read[0].Of[1].N != 4 {
		t.Errorf("readings %+v", res.Read)
	}
}

// TestBootstrapBench: go test -count=N runs are samples of each
// benchmark's mean.
func TestBootstrapBench(t *testing.T) {
	var b strings.Builder
	for _, x := range normal(10, 1000, 50, 9) {
		b.WriteString("BenchmarkParse-8 \t 1000\t " + ftoa(x) + " ns/op\n")
	}
	res := eval(t, `bench.BenchmarkParse["ns/op"] > 900`, []byte(b.String()), opt95)
	if res.Resamples != 2000 || !res.Refuted || !res.Decided() || res.Read[0].Of[0].N != 10 ||
		!strings.Contains(res.Read[0].Of[0].Of, "go test runs of BenchmarkParse (-count)") {
		t.Errorf("result %+v", res)
	}
}

func TestDescribeResampled(t *testing.T) {
	out := hyperfineJSON(t, normal(40, 0.25, 0.02, 5))
	mean := eval(t, "hyperfine.results[0].mean > 0", out, Options{}).Read[0].Value.(float64)
	res := eval(t, "hyperfine.results[0].mean > "+ftoa(mean), out, opt95)
	d := res.Describe("`x`")
	if !strings.Contains(d, "within noise, ") || !strings.Contains(d, "of 2,000 resamples refute, ") || !strings.Contains(d, "(95% needed either way)") ||
		!strings.Contains(d, "(95% interval ") || !strings.Contains(d, `n = 40: hyperfine runs of "zk check")`) {
		t.Errorf("Describe = %q", d)
	}
	far := eval(t, "hyperfine.results[0].mean > 1", out, opt95).Describe("`x`")
	if !strings.HasSuffix(far, ": not refuted, 100% of 2,000 resamples agree (95% needed)") {
		t.Errorf("Describe = %q", far)
	}
}

func TestFormatValueExact(t *testing.T) {
	for v, want := range map[float64]string{1234.5: "1234.5", 99.98348712: "99.98348712", 0.1: "0.1", 3: "3", 1e-9: "1e-09", 12345678.9: "12345678.9"} {
		if got := FormatValue(v); got != want {
			t.Errorf("FormatValue(%v) = %q, want %q", v, got, want)
		}
	}
	if roundDown(99.98348) != "99.98" || roundUp(99.98348) != "99.99" || roundUp(100.0001) != "100.1" {
		t.Errorf("interval rounding: %s %s %s", roundDown(99.98348), roundUp(99.98348), roundUp(100.0001))
	}
}

func ftoa(f float64) string { return FormatValue(f) }

// threeLevels is zk probe output of three levels whose per-stream
// distributions carry their samples: as many requests as the seed note's
// simulator run completed (11, 46 and 58).
func threeLevels(tb testing.TB) []byte {
	tb.Helper()
	var levels []any
	for i, lv := range []struct {
		c, n     int
		mean, sd float64
	}{{1, 11, 100, 2}, {4, 46, 99, 3}, {16, 58, 31.4, 1}} {
		xs := normal(lv.n, lv.mean, lv.sd, uint64(i))
		levels = append(levels, map[string]any{
			"concurrency":             lv.c,
			"output_token_throughput": map[string]any{"unit": "tokens/sec", "avg": lv.mean * float64(lv.c)},
			"output_token_throughput_per_user": map[string]any{"unit": "tokens/sec/user", "count": lv.n, "p50": lv.mean,
				"of": "requests completed in the window", "samples": xs},
		})
	}
	b, err := json.Marshal(map[string]any{"schema": "zk-probe/v1", "levels": levels})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// BenchmarkJudgeProbe: reading a three-level probe output and judging a
// criterion on 2,000 resamples, as zk run does once a run: the seed's
// criterion (one level) and one that reads all three.
func BenchmarkJudgeProbe(b *testing.B) {
	out := threeLevels(b)
	for _, crit := range []string{
		"level(1).per_stream.p50 >= 250",
		"level(16).per_stream.p50 / level(1).per_stream.p50 > 0.5 or level(4).per_stream.p50 < 50",
	} {
		c, err := Compile(crit, nil)
		if err != nil {
			b.Fatal(err)
		}
		name := "one-level"
		if strings.Contains(crit, "level(16)") {
			name = "three-levels"
		}
		b.Run(name, func(b *testing.B) {
			// On a machine shared with other work, wall time per
			// judgement counts the others' too; CPU time is this one's.
			cpu := cpuTime()
			for b.Loop() {
				res, err := c.Eval(measure.Read(out, 0, nil), opt95)
				if err != nil || res.Resamples != 2000 {
					b.Fatalf("%+v, %v", res, err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}

// TestThreeLevelsResampled: every level a criterion reads is resampled,
// and only those.
func TestThreeLevelsResampled(t *testing.T) {
	res := eval(t, "level(16).per_stream.p50 / level(1).per_stream.p50 > 0.5 or level(4).per_stream.p50 < 50", threeLevels(t), opt95)
	if len(res.Read) != 2 || len(res.Read[0].Of) != 2 || len(res.Read[1].Of) != 1 || res.Read[1].Of[0].N != 46 || res.Refuting != 0 {
		t.Errorf("result %+v", res)
	}
	one := eval(t, "level(1).per_stream.p50 >= 250", threeLevels(t), opt95)
	if len(one.Read[0].Of) != 1 || one.Read[0].Of[0].N != 11 || one.Read[0].Of[0].Of != "requests completed in the window at concurrency 1" {
		t.Errorf("result %+v", one)
	}
}

// TestMinSamples: the fewest samples whose widest interval, least to
// greatest, holds the middle with at least the confidence (1 − 2·0.5ⁿ).
func TestMinSamples(t *testing.T) {
	for _, tc := range []struct {
		confidence float64
		want       int
	}{{0.51, 3}, {0.75, 3}, {0.76, 4}, {0.9, 5}, {0.95, 6}, {0.96875, 6}, {0.97, 7}, {0.99, 8}, {0.999, 11}} {
		if got := MinSamples(tc.confidence); got != tc.want {
			t.Errorf("MinSamples(%v) = %d, want %d", tc.confidence, got, tc.want)
		}
	}
}

// TestTooFewSamples: a figure of fewer samples than the confidence needs
// gives no verdict, however far from the threshold they all lie, and the
// statement says how many it needs; one sample more decides. One sample
// (a hyperfine run, a benchmark run once) is counted, not one reading.
func TestTooFewSamples(t *testing.T) {
	for _, tc := range []struct {
		name    string
		out     []byte
		crit    string
		decided bool
		n       int
	}{
		{"one hyperfine run", hyperfineJSON(t, []float64{0.25}), "hyperfine.results[0].mean > 0.2", false, 1},
		{"two hyperfine runs", hyperfineJSON(t, []float64{0.21, 0.22}), "hyperfine.results[0].mean > 0.2", false, 2},
		{"five hyperfine runs", hyperfineJSON(t, []float64{0.3, 0.31, 0.3, 0.32, 0.3}), "hyperfine.results[0].mean > 0.2", false, 5},
		{"six hyperfine runs", hyperfineJSON(t, []float64{0.3, 0.31, 0.3, 0.32, 0.3, 0.31}), "hyperfine.results[0].mean > 0.2", true, 6},
		{"a benchmark run once", []byte("BenchmarkParse-8 \t 1000\t 2500000 ns/op\n"), `bench.BenchmarkParse["ns/op"] > 2e6`, false, 1},
	} {
		res := eval(t, tc.crit, tc.out, opt95)
		if res.Decided() != tc.decided || len(res.Read) != 1 || len(res.Read[0].Of) != 1 || res.Read[0].Of[0].N != tc.n {
			t.Errorf("%s: decided %v, read %+v; want decided %v on n = %d", tc.name, res.Decided(), res.Read, tc.decided, tc.n)
			continue
		}
		d := res.Describe("`x`")
		if few := strings.HasSuffix(d, ": too few samples to judge at 95% (6 needed)"); few == tc.decided || !strings.Contains(d, fmt.Sprintf("n = %d: ", tc.n)) {
			t.Errorf("%s: %q", tc.name, d)
		}
	}
}

// TestNotANumberIsNotEvaluated: a value compared that is NaN or infinite
// (go test prints a metric of 0/0 as NaN) is no measurement: NaN compares
// false, and would support the claim.
func TestNotANumberIsNotEvaluated(t *testing.T) {
	for _, v := range []string{"NaN", "+Inf", "-Inf"} {
		var b strings.Builder
		for range 6 {
			b.WriteString("BenchmarkParse-2 \t 100\t " + v + " ns/op\n")
		}
		c, err := Compile(`bench.BenchmarkParse["ns/op"] > 2e6`, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Eval(measure.Read([]byte(b.String()), 0, nil), opt95)
		if err == nil || !strings.Contains(err.Error(), "not a measurement") {
			t.Errorf("%s ns/op: %v, want not evaluated", v, err)
		}
	}
}

// TestHugeSamples: samples near the largest float are judged, not turned
// into NaN by a sum that overflows (three at 1e308 gave an interval
// "NaN–NaN" and a stddev of identical samples "within noise").
func TestHugeSamples(t *testing.T) {
	xs := []float64{1e308, 1e308, 1e308, 1e308, 1e308, 1e308}
	b, err := json.Marshal(map[string]any{"results": []any{map[string]any{
		"command": "x", "mean": 1e308, "stddev": 0.0, "median": 1e308, "min": 1e308, "max": 1e308, "times": xs}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, crit := range []string{"hyperfine.results[0].mean > 1e307", "hyperfine.results[0].stddev > 0.2"} {
		res := eval(t, crit, b, opt95)
		if !res.Decided() || res.Refuted != strings.Contains(crit, "mean") || math.IsNaN(res.Read[0].Lo) {
			t.Errorf("%s: %s", crit, res.Describe("`x`"))
		}
	}
}
