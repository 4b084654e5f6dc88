// Package measure reads what a falsifier's command printed (or the file
// zk attach records) into the named values a criterion is written against:
// zk probe's JSON, hyperfine's --export-json, go test -bench output, any
// JSON, and numbers captured from plain text by a regular expression the
// note gives.
package measure

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/zk-claims/zk/internal/lazyre"
)

// The names a criterion reads. Each is set only when the output has that
// shape; Names lists them all, so a criterion compiles before it runs.
const (
	// Exit is the command's exit code (-1 when it did not exit by itself
	// or nothing was run, as for an attached file).
	Exit = "exit"
	// JSON is the output parsed as one JSON value.
	JSON = "json"
	// Probe is zk probe --format json output (schema zk-probe/v1).
	Probe = "probe"
	// Hyperfine is hyperfine --export-json output.
	Hyperfine = "hyperfine"
	// Bench is go test -bench output: benchmark name (without the -N
	// GOMAXPROCS suffix, unless the output holds it at several; with its
	// package first when several packages hold it) → unit (ns/op, B/op,
	// a custom metric) → the mean over its runs.
	Bench = "bench"
)

// ProbeSchema is the schema string of zk probe's JSON.
const ProbeSchema = "zk-probe/v1"

// Capture is a named number read from plain text: the first submatch of
// the first line Re matches.
type Capture struct {
	Name string
	Re   *regexp.Regexp
	// Numbers is how the number is written (see ParseNumber).
	Numbers Numbers
}

var captureRe = lazyre.New(`^([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*(.+)$`)

// reserved names a capture may not take.
var reserved = []string{Exit, JSON, Probe, Hyperfine, Bench, "level", "true", "false", "nil", "not", "and", "or", "in", "matches", "contains"}

// ParseCapture reads the text after "capture:": NAME = REGEXP, where the
// expression has one group, the number. A surrounding code span is allowed
// (Obsidian shows the pattern as written).
func ParseCapture(s string) (Capture, error) {
	s = unquote(strings.TrimSpace(s))
	m := captureRe().FindStringSubmatch(s)
	if m == nil {
		return Capture{}, errors.New("a capture is NAME = REGEXP, such as rate = ([0-9.]+) tok/s")
	}
	if slices.Contains(reserved, m[1]) {
		return Capture{}, fmt.Errorf("capture name %q is taken; choose another", m[1])
	}
	re, err := regexp.Compile(m[2])
	if err != nil {
		return Capture{}, fmt.Errorf("capture %s: %w", m[1], err)
	}
	if re.NumSubexp() < 1 {
		return Capture{}, fmt.Errorf("capture %s: the expression needs a group around the number, such as ([0-9.]+)", m[1])
	}
	return Capture{Name: m[1], Re: re}, nil
}

// unquote removes one code span around s: `x` or “x“.
func unquote(s string) string {
	n := 0
	for n < len(s) && s[n] == '`' {
		n++
	}
	if n == 0 || len(s) < 2*n || s[len(s)-n:] != strings.Repeat("`", n) || strings.Contains(s[n:len(s)-n], strings.Repeat("`", n)) {
		return s
	}
	return strings.TrimSpace(s[n : len(s)-n])
}

// Env is the values read from one output, by name, and why a name that a
// criterion may use is absent.
type Env struct {
	Values map[string]any
	// Absent says, for each name not in Values, why.
	Absent map[string]string
	// Sampled are the figures in Values that are statistics of samples
	// the output carries, in the order the output gives them.
	Sampled []*Sampled
	// Runs are each run's own values when the output is that of a
	// command run several times (ReadRuns): Values holds the first run's
	// value of what cannot be averaged (a string), which stands for the
	// runs only if every run gave it.
	Runs []Env
}

// Read reads data, the output of a command that exited with exit (-1:
// none), in every way it can be read, and the captures from it.
func Read(data []byte, exit int, captures []Capture) Env {
	e := Env{Values: map[string]any{Exit: exit}, Absent: map[string]string{}}
	trimmed := bytes.TrimSpace(data)
	var v any
	switch n := jsonValues(trimmed, MaxJSONValues); {
	case n > MaxJSONValues:
		e.Absent[JSON] = fmt.Sprintf("the output is JSON of over %d values, more than zk decodes", MaxJSONValues)
	case json.Unmarshal(trimmed, &v) == nil && len(trimmed) > 0:
		e.setJSON(v)
	default:
		e.Absent[JSON] = "the output is not one JSON value"
	}
	e.finish(data)
	for _, c := range captures {
		if f, err := capture(data, c); err != nil {
			e.Absent[c.Name] = err.Error()
		} else {
			e.Values[c.Name] = f
		}
	}
	return e
}

// MaxJSONValues is the most values (objects, arrays and the scalars in
// them) of an output zk decodes as JSON. Decoded whole into Go's maps
// and slices, a value costs some 330 bytes: a 64 MiB log of small
// objects, within a log's cap, took 2.2 GB and ran zk out of memory, as
// zk check judging it again. Half a million is some 170 MB, and more
// than any output of hyperfine, go test -bench or zk probe holds.
const MaxJSONValues = 1 << 19

// jsonValues counts the values of b read as JSON, up to one past max:
// the objects and arrays opened and the values after a comma, outside
// strings. It needs no valid JSON (Unmarshal says that) and allocates
// nothing.
func jsonValues(b []byte, max int) int {
	n, inString := 1, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[' || c == ',':
			if n++; n > max {
				return n
			}
		}
	}
	return n
}

// setJSON sets the output's JSON value, and what it is: zk probe's,
// hyperfine's.
func (e *Env) setJSON(v any) {
	e.Values[JSON] = v
	if m, ok := v.(map[string]any); ok {
		if m["schema"] == ProbeSchema {
			e.Values[Probe] = m
		}
		if rs, ok := m["results"].([]any); ok && len(rs) > 0 {
			if r0, ok := rs[0].(map[string]any); ok && r0["mean"] != nil && r0["command"] != nil {
				e.Values[Hyperfine] = m
			}
		}
	}
}

// finish says why the shapes the output lacks are absent, registers the
// sampled figures of its JSON, and reads go test -bench results from
// data.
func (e *Env) finish(data []byte) {
	if _, ok := e.Values[Probe]; !ok {
		e.Absent[Probe] = "the output is not zk probe --format json"
	}
	if _, ok := e.Values[Hyperfine]; !ok {
		e.Absent[Hyperfine] = "the output is not hyperfine --export-json"
	}
	e.findSampled()
	if b, runs, ok := readBench(data); ok {
		e.Values[Bench] = b
		for _, name := range slices.Sorted(maps.Keys(runs)) {
			for _, unit := range slices.Sorted(maps.Keys(runs[name])) {
				if xs := runs[name][unit]; len(xs) > 0 {
					e.Sampled = append(e.Sampled, newSampled(fmt.Sprintf("go test runs of %s (-count)", name), xs, b[name].(map[string]any), unit, statMean))
				}
			}
		}
	} else {
		e.Absent[Bench] = "the output has no go test -bench results"
	}
}

// capture finds c's number in data.
func capture(data []byte, c Capture) (float64, error) {
	m := c.Re.FindSubmatchIndex(data)
	if m == nil {
		return 0, fmt.Errorf("no line of the output matches %s", c.Re)
	}
	if m[2] < 0 {
		return 0, fmt.Errorf("%s matched, but not its group around the number", c.Re)
	}
	start, end := m[2], m[3]
	// A group that stops inside a number reads part of it: ([0-9.]+)
	// reads 234.5 of 1,234.5. Refused, with the way out.
	if whole := numberAround(data, start, end); whole != string(data[start:end]) {
		return 0, fmt.Errorf("%s matched %q, part of the number %q: let its group take the separators, such as ([0-9.,]+)", c.Re, data[start:end], whole)
	}
	f, err := ParseNumber(string(data[start:end]), c.Numbers)
	if err != nil {
		return 0, err
	}
	return f, nil
}

// numberAround widens data[start:end] over digits, and over a point or
// comma between digits, on either side: the whole number the match is
// in.
func numberAround(data []byte, start, end int) string {
	digit := func(i int) bool { return i >= 0 && i < len(data) && data[i] >= '0' && data[i] <= '9' }
	sep := func(i int) bool { return i >= 0 && i < len(data) && (data[i] == ',' || data[i] == '.') }
	for start > 0 && (digit(start-1) || sep(start-1) && digit(start-2)) {
		start--
	}
	for end < len(data) && (digit(end) || sep(end) && digit(end+1)) {
		end++
	}
	return string(data[start:end])
}

// ReadBench reads go test -bench output: name → unit → mean over runs
// (a map[string]float64), as maps of any so that a name or unit that is
// not there reads as missing rather than zero.
func ReadBench(data []byte) (map[string]any, bool) {
	b, _, ok := readBench(data)
	return b, ok
}

// readBench is ReadBench, with each mean's runs: name → unit → values.
func readBench(data []byte) (map[string]any, map[string]map[string][]float64, bool) {
	rd := benchfmt.NewReader(bytes.NewReader(data), "")
	// Runs are pooled by package, name and GOMAXPROCS: -count's runs of
	// one benchmark are samples of one figure, and two packages'
	// BenchmarkParse, or -cpu 1,2,4's three, are not.
	type bench struct{ pkg, name, procs string }
	runs := map[bench]map[string][]float64{}
	var order []bench
	for rd.Scan() {
		r, ok := rd.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		// benchfmt drops the "Benchmark" prefix; a criterion names the
		// benchmark as go test prints it.
		k := bench{pkg: r.GetConfig("pkg"), name: "Benchmark" + string(r.Name.Full())}
		if i := strings.LastIndexByte(k.name, '-'); i > 0 {
			if _, err := strconv.Atoi(k.name[i+1:]); err == nil {
				k.name, k.procs = k.name[:i], k.name[i:]
			}
		}
		if runs[k] == nil {
			runs[k] = map[string][]float64{}
			order = append(order, k)
		}
		for _, v := range r.Values {
			val, unit := v.Value, v.Unit
			if v.OrigUnit != "" {
				val, unit = v.OrigValue, v.OrigUnit
			}
			runs[k][unit] = append(runs[k][unit], val)
		}
	}
	// A benchmark is named as go test prints it, without its -N, when
	// that names one; else with its -N when that does (-cpu 1,2,4), else
	// with its package ("example.com/p.BenchmarkParse-2").
	pkgs, procs := map[string]map[string]bool{}, map[string]map[string]bool{}
	for _, k := range order {
		if pkgs[k.name] == nil {
			pkgs[k.name], procs[k.name] = map[string]bool{}, map[string]bool{}
		}
		pkgs[k.name][k.pkg], procs[k.name][k.pkg+"\x00"+k.procs] = true, true
	}
	sums := map[string]map[string][]float64{}
	for _, k := range order {
		name := k.name
		switch {
		case len(procs[k.name]) == 1:
		case len(pkgs[k.name]) == 1:
			name += k.procs
		default:
			name = k.pkg + "." + name + k.procs
		}
		sums[name] = runs[k]
	}
	if len(sums) == 0 || rd.Err() != nil {
		return nil, nil, false
	}
	out := make(map[string]any, len(sums))
	for name, units := range sums {
		means := map[string]any{}
		for u, vs := range units {
			s := 0.0
			for _, v := range vs {
				s += v
			}
			means[u] = s / float64(len(vs))
		}
		out[name] = means
	}
	return out, sums, true
}

// RefreshLevel sets the short names of a level Level returned that copy a
// value (aggregate) from the level's own figures again: resampling writes
// those figures in place.
func RefreshLevel(lv map[string]any) {
	if v, ok := lv["output_token_throughput"].(map[string]any); ok {
		lv["aggregate"] = v["avg"]
	}
}

// Level returns the level of zk probe output p measured at concurrency c,
// with two short names added for the figures a claim usually reads:
// per_stream (output_token_throughput_per_user, a distribution: p50, avg…)
// and aggregate (output_token_throughput.avg, all streams together).
func Level(p any, c int) (map[string]any, error) {
	m, ok := p.(map[string]any)
	if !ok {
		return nil, errors.New("level: the output is not zk probe --format json")
	}
	levels, _ := m["levels"].([]any)
	var have []string
	for _, l := range levels {
		lm, ok := l.(map[string]any)
		if !ok {
			continue
		}
		cc, _ := lm["concurrency"].(float64)
		have = append(have, strconv.FormatFloat(cc, 'f', -1, 64))
		if int(cc) != c || cc != float64(int(cc)) {
			continue
		}
		out := maps.Clone(lm)
		if v, ok := lm["output_token_throughput_per_user"]; ok {
			out["per_stream"] = v
		}
		if v, ok := lm["output_token_throughput"].(map[string]any); ok {
			if u, ok := v["unit"].(string); ok {
				out["units"] = map[string]any{"aggregate": u + " (all streams)"}
			}
		}
		RefreshLevel(out)
		return out, nil
	}
	if len(have) == 0 {
		return nil, fmt.Errorf("level(%d): the probe measured no levels", c)
	}
	return nil, fmt.Errorf("level(%d): the probe measured no level at concurrency %d (it measured %s)", c, c, strings.Join(have, ", "))
}
