package criterion

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault/evidence/measure"
)

const probeOut = `{"schema":"zk-probe/v1","levels":[
 {"concurrency":1,"output_token_throughput":{"unit":"tokens/sec","avg":66},"output_token_throughput_per_user":{"unit":"tokens/sec/user","count":9,"p50":66.0,"avg":65.5}},
 {"concurrency":16,"output_token_throughput":{"unit":"tokens/sec","avg":480.5},"output_token_throughput_per_user":{"unit":"tokens/sec/user","count":90,"p50":31.2}}]}`

const probeSamplesOut = `{"schema":"zk-probe/v1","levels":[
 {"concurrency":1,"output_token_throughput_per_user":{"unit":"tokens/sec/user","count":3,"of":"requests completed in the window","samples":[60,66,70],"p50":66.0,"avg":65.3}}]}`

const hyperfineOut = `{"results":[{"command":"sleep 0.1","mean":0.104,"stddev":0.001,"min":0.1,"max":0.11,"times":[0.1,0.104]}]}`

const benchOut = "goos: linux\nBenchmarkParse-8   \t 1000\t  1500 ns/op\t 20.5 MB/s\nBenchmarkParse-8   \t 1000\t  2500 ns/op\t 19.5 MB/s\nPASS\n"

func TestEval(t *testing.T) {
	rate, err := measure.ParseCapture("`rate = ([0-9.]+) tok/s`")
	if err != nil {
		t.Fatal(err)
	}
	caps := []measure.Capture{rate}
	tests := []struct {
		name, crit, out string
		exit            int
		refuted         bool
		describe        string // a piece of Describe's text
		err             string // a piece of the error, when it cannot be evaluated
	}{
		{name: "probe supports", crit: "level(1).per_stream.p50 >= 250", out: probeOut,
			describe: "level(1).per_stream.p50 = 66 tokens/sec/user (n = 1: one reading, noise unknown: the output counts 9 samples but does not carry them); refuted if level(1).per_stream.p50 >= 250: not refuted"},
		// A count without the samples gives no noise: its verdict is a
		// threshold crossing, and says so, as a single reading's does.
		// A distribution's count is how many samples, of what "of" says,
		// not a figure in the distribution's unit; its other numbers are.
		{name: "probe count", crit: "level(1).per_stream.count < 5", out: probeOut,
			describe: "level(1).per_stream.count = 9 (n = 1: one reading, noise unknown); refuted if"},
		{name: "probe count of samples", crit: "level(1).per_stream.count < 5", out: probeSamplesOut, refuted: true,
			describe: "level(1).per_stream.count = 3 requests completed in the window (n = 1: one reading, noise unknown); refuted if"},
		{name: "probe avg", crit: "level(1).per_stream.avg < 5", out: probeOut,
			describe: "level(1).per_stream.avg = 65.5 tokens/sec/user (n = 1: one reading, noise unknown: the output counts 9 samples but does not carry them); refuted if"},
		{name: "probe unit", crit: `level(1).per_stream.unit == "x"`, out: probeOut,
			describe: `level(1).per_stream.unit = "tokens/sec/user" (n = 1: one reading); refuted if`},
		{name: "probe refutes", crit: "level(16).aggregate > 400", out: probeOut, refuted: true,
			describe: "level(16).aggregate = 480.5 tokens/sec (all streams) (n = 1: one reading, noise unknown); refuted if"},
		{name: "probe ratio", crit: "level(16).aggregate / level(1).aggregate < 2", out: probeOut},
		{name: "probe missing level", crit: "level(4).aggregate > 1", out: probeOut,
			err: "no level at concurrency 4 (it measured 1, 16)"},
		{name: "probe missing field", crit: "level(1).steady_output_token_throughput.avg > 1", out: probeOut,
			err: "level(1).steady_output_token_throughput is missing"},
		{name: "probe on text", crit: "level(1).aggregate > 1", out: "hello\n",
			err: "probe is missing: the output is not zk probe"},
		{name: "hyperfine", crit: "hyperfine.results[0].mean > 0.1", out: hyperfineOut, refuted: true,
			describe: "hyperfine.results[0].mean = 0.104"},
		{name: "hyperfine on probe", crit: "hyperfine.results[0].mean > 0.1", out: probeOut,
			err: "hyperfine is missing"},
		{name: "bench mean of runs", crit: `bench["BenchmarkParse"]["ns/op"] > 1999`, out: benchOut, refuted: true,
			describe: `bench.BenchmarkParse["ns/op"] = 2000`},
		{name: "bench custom metric", crit: `bench.BenchmarkParse["MB/s"] < 10`, out: benchOut},
		{name: "bench missing benchmark", crit: `bench.BenchmarkLex["ns/op"] > 1`, out: benchOut,
			err: "bench.BenchmarkLex is missing"},
		{name: "json", crit: "json.p99_ms > 100 and json.n == 3", out: `{"p99_ms": 120, "n": 3}`, refuted: true},
		{name: "json array", crit: "json[1] == 2", out: `[1,2]`, refuted: true},
		{name: "json missing", crit: "json.p50_ms > 100", out: `{"p99_ms": 120}`, err: "json.p50_ms is missing"},
		{name: "capture", crit: "rate < 100", out: "warming\nrate = 66.5 tok/s\n", refuted: true,
			describe: "rate = 66.5 (n = 1: one reading, noise unknown); refuted if rate < 100: refuted"},
		{name: "capture absent", crit: "rate < 100", out: "no figures\n", err: "rate is missing: no line of the output matches"},
		{name: "exit", crit: "exit != 0", out: "", exit: 3, refuted: true, describe: "exit = 3"},
		{name: "exit zero", crit: "exit != 0", out: "", exit: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compile(tt.crit, caps)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			res, err := c.Eval(measure.Read([]byte(tt.out), tt.exit, caps), Options{})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Eval error = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Eval: %v", err)
			}
			if res.Refuted != tt.refuted {
				t.Errorf("Refuted = %v, want %v", res.Refuted, tt.refuted)
			}
			if d := res.Describe(c.Source); !strings.Contains(d, tt.describe) {
				t.Errorf("Describe = %q, want it to contain %q", d, tt.describe)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct{ crit, err string }{
		{"", "empty"},
		{"level(1).aggregate >", "unexpected token"},
		{"rate < 3", "unknown name rate"},
		{"exit", "expected bool"},
		{"exit < 'a'", "mismatched types"},
		{"level('x').aggregate > 1", "cannot use"},
		{strings.Repeat("1 + ", 300) + "1 > 0", "cap"},
	}
	for _, tt := range tests {
		_, err := Compile(tt.crit, nil)
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("Compile(%.40q) error = %v, want one containing %q", tt.crit, err, tt.err)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("Compile(%.40q) error spans lines: %q", tt.crit, err)
		}
	}
}

func TestUsesExit(t *testing.T) {
	for crit, want := range map[string]bool{"exit != 0": true, "json.exit > 1": false, "json.x > 1 or exit == 1": true} {
		c, err := Compile(crit, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.UsesExit() != want {
			t.Errorf("UsesExit(%q) = %v, want %v", crit, c.UsesExit(), want)
		}
	}
}

// FuzzCompile feeds the criterion and capture parsers arbitrary text: an
// error is fine, a panic or a hang is not, and a compiled criterion
// evaluates against any output without panicking.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{"level(1).per_stream.p50 >= 250", "exit != 0", "json.a[0] > 1", `bench["B"]["ns/op"] < 3`, "rate = ([0-9.]+) tok/s", "rate < 2", "((", "`x = (a)`"} {
		f.Add(s, "rate = 5 tok/s\n"+probeOut)
	}
	f.Fuzz(func(t *testing.T, s, out string) {
		var caps []measure.Capture
		if c, err := measure.ParseCapture(s); err == nil {
			caps = append(caps, c)
		}
		c, err := Compile(s, caps)
		if err != nil {
			return
		}
		_, _ = c.Eval(measure.Read([]byte(out), 0, caps), Options{Resamples: 50, Confidence: 0.95, Seed: "fuzz"})
	})
}

// BenchmarkCompile compiles the seed note's criterion; BenchmarkEval reads
// a two-level probe output and evaluates it (what zk run adds to a run).
func BenchmarkCompile(b *testing.B) {
	for b.Loop() {
		if _, err := Compile("level(1).per_stream.p50 >= 250", nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEval(b *testing.B) {
	c, err := Compile("level(1).per_stream.p50 >= 250", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(probeOut)))
	for b.Loop() {
		if _, err := c.Eval(measure.Read([]byte(probeOut), 0, nil), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// Same compares criteria as expressions: spacing and redundant
// parentheses are not a change, anything else is.
func TestSame(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"rate < 100", "rate < 100", true},
		{"rate<100", "rate < 100", true},
		{"(rate < 100)", "rate < 100", true},
		{"level(1).per_stream.p50 >= 250", "level( 1 ).per_stream.p50>=250", true},
		{"exit == 0 and rate > 1", "exit == 0 && rate > 1", false}, // another operator spelt: kept a change
		{"rate < 100", "rate <= 100", false},
		{"rate < 100", "100 > rate", false},
		{"rate < 100", "rate < 100.0", true}, // compared by value either way
		{"latency > 50", "latency > 5e1", true},
		{"latency > -50", "latency > -50.0", true},
		{"latency > 50", "latency > 50.5", false},
		{"x % 2 == 1", "x % 2.0 == 1", false},                     // % takes integers: 2.0 does not compile
		{"x[1] > 0", "x[1.0] > 0", false},                         // an index must be an integer
		{"x > 9007199254740993", "x > 9007199254740992.0", false}, // beyond 2⁵³ no float holds the integer
		{"rate < 100", "Rate < 100", false},
		{"a - (b - c) > 0", "a - b - c > 0", false},
		{"rate <", "rate <", true},
		{"rate <", "rate  <", false}, // does not parse: compared as text
	}
	for _, tt := range tests {
		if got := Same(tt.a, tt.b); got != tt.same {
			t.Errorf("Same(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}

// A value that is no number, read from a command run several times
// (repeat: N), is not the first run's one reading: when every run gives
// it, the statement says so; when the runs differ, no run's value is the
// measurement, and the criterion is not evaluated, naming them.
func TestEvalRepeatedString(t *testing.T) {
	runs := func(outs ...string) measure.Env {
		bs := make([][]byte, len(outs))
		for i, o := range outs {
			bs[i] = []byte(o)
		}
		return measure.ReadRuns(bs, 0, nil)
	}
	c, err := Compile(`json.status == "fail"`, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Eval(runs(`{"status":"ok"}`, `{"status":"ok"}`, `{"status":"ok"}`), Options{Resamples: DefaultResamples, Confidence: DefaultConfidence, Seed: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Describe("`x`"), `json.status = "ok" (n = 3: runs (repeat: 3), all alike); refuted if `+"`x`"+`: not refuted`; got != want {
		t.Errorf("alike: Describe = %q, want %q", got, want)
	}
	_, err = c.Eval(runs(`{"status":"ok"}`, `{"status":"fail"}`, `{"status":"ok"}`), Options{Resamples: DefaultResamples, Confidence: DefaultConfidence, Seed: "s"})
	if want := `json.status differs between the runs (repeat: 3): "ok" in run 1, "fail" in run 2`; err == nil || err.Error() != want {
		t.Errorf("differing: err = %v, want %q", err, want)
	}
	// One run is one reading, as before.
	res, err = c.Eval(runs(`{"status":"ok"}`), Options{Resamples: DefaultResamples, Confidence: DefaultConfidence, Seed: "s"})
	if err != nil || !strings.Contains(res.Describe("`x`"), `json.status = "ok" (n = 1: one reading)`) {
		t.Errorf("one run: %q, %v", res.Describe("`x`"), err)
	}
}

// A number the runs give that no samples resample (an element of an
// array: the runs' mean) is alike in every run or not judged; a number
// resampled over the runs is judged on its resamples as before.
func TestEvalRepeatedArrayNumber(t *testing.T) {
	runs := func(outs ...string) measure.Env {
		bs := make([][]byte, len(outs))
		for i, o := range outs {
			bs[i] = []byte(o)
		}
		return measure.ReadRuns(bs, 0, nil)
	}
	opt := Options{Resamples: DefaultResamples, Confidence: DefaultConfidence, Seed: "s"}
	c, err := Compile(`json.a[0] > 5`, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Eval(runs(`{"a":[3]}`, `{"a":[3]}`, `{"a":[3]}`), opt)
	if got, want := res.Describe("`x`"), "json.a[0] = 3 (n = 3: runs (repeat: 3), all alike); refuted if `x`: not refuted"; err != nil || got != want {
		t.Errorf("alike: Describe = %q (%v), want %q", got, err, want)
	}
	_, err = c.Eval(runs(`{"a":[3]}`, `{"a":[9]}`, `{"a":[3]}`), opt)
	if want := "json.a[0] differs between the runs (repeat: 3): 3 in run 1, 9 in run 2"; err == nil || err.Error() != want {
		t.Errorf("differing: err = %v, want %q", err, want)
	}
	c, err = Compile(`json.b > 5`, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err = c.Eval(runs(`{"b":3}`, `{"b":4}`, `{"b":3}`), opt)
	if err != nil || !strings.Contains(res.Describe("`x`"), "n = 3: runs (repeat: 3)); refuted if `x`: too few samples") {
		t.Errorf("resampled: %q, %v", res.Describe("`x`"), err)
	}
}

// FuzzSame: a record's stated criterion is the vault's text; comparing it
// never panics, is reflexive and symmetric.
func FuzzSame(f *testing.F) {
	f.Add("rate < 100", "rate<100")
	f.Add("level(1).per_stream.p50 >= 250", "(level(1).per_stream.p50) >= 250")
	f.Add("json[\"a\"] > 1 and exit == 0", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !Same(a, a) || Same(a, b) != Same(b, a) {
			t.Fatalf("Same(%q, %q) is not reflexive or symmetric", a, b)
		}
	})
}

// A mean zk computed is written without its float noise, unless dropping
// it would put the mean on another side of, or onto, a number the
// criterion compares with: a record never contradicts itself.
func TestFormatComputed(t *testing.T) {
	above50 := math.Nextafter(50, 100) // 50.00000000000001
	tests := []struct {
		x    float64
		src  string
		want string
	}{
		{44.775000000000006, "latency > 50", "44.775"},
		{0.20000000000000004, "x > 1", "0.2"},
		{above50, "latency > 50", "50.00000000000001"},
		{above50, "latency > 50.0", "50.00000000000001"},
		{above50, "latency > 60", "50"},
		{-above50, "x < -50", "-50.00000000000001"},
		{above50, "latency >", "50"}, // does not parse: no number to keep apart
		{math.Nextafter(50, 0), "x >= 50", "49.99999999999999"},
		{1e22 + 1e7, "x > 1", "1e+22"},
		{3, "x > 3", "3"},
	}
	for _, tt := range tests {
		if got := FormatComputed(tt.x, tt.src); got != tt.want {
			t.Errorf("FormatComputed(%v, %q) = %q, want %q", tt.x, tt.src, got, tt.want)
		}
	}
}

// The mean of runs of a captured figure is written without float noise
// in the record's statement; each run's value was read as written.
func TestDescribeMeanWithoutFloatNoise(t *testing.T) {
	caps := []measure.Capture{{Name: "latency", Re: regexp.MustCompile(`latency ([0-9.]+)`)}}
	var outs [][]byte
	for i := 0; i < 6; i++ {
		v := "44.7"
		if i%2 == 1 {
			v = "44.85"
		}
		outs = append(outs, []byte("latency "+v+"\n"))
	}
	c, err := Compile("latency > 50", caps)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Eval(measure.ReadRuns(outs, 0, caps), Options{Resamples: 200, Confidence: 0.95, Seed: "x"})
	if err != nil {
		t.Fatal(err)
	}
	got := r.Describe("latency > 50")
	if !strings.HasPrefix(got, "latency = 44.775 (") {
		t.Errorf("Describe = %q, want the mean written 44.775", got)
	}
}
