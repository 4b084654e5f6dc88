package measure

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
)

// MaxRepeat bounds a falsifier's repeat: N.
const MaxRepeat = 100

// ReadRuns reads the outputs of one command run several times (a
// falsifier's "repeat: N") as one measurement whose samples are pooled:
// a distribution's samples (zk probe's per-request rates, hyperfine's
// times) are put together and its statistics computed over all of them;
// go test -bench runs are put together as -count would; every other
// number (a capture, a JSON figure, a probe's aggregate rate) is the mean
// over the runs, each run one sample, unless every run gave it alike. exit is the runs' (the caller's
// choice of one). A shape one run lacks is absent, naming the run.
func ReadRuns(outputs [][]byte, exit int, captures []Capture) Env {
	if len(outputs) == 1 {
		return Read(outputs[0], exit, captures)
	}
	runs := make([]Env, len(outputs))
	for i, o := range outputs {
		runs[i] = Read(o, exit, captures)
	}
	of := fmt.Sprintf("runs (repeat: %d)", len(outputs))
	e := Env{Values: map[string]any{Exit: exit}, Absent: map[string]string{}, Runs: runs}
	var scalars []*Sampled
	if vals, why := each(runs, JSON); why == "" {
		e.setJSON(pool(vals, of, &scalars))
	} else {
		e.Absent[JSON] = why
	}
	e.finish(bytes.Join(outputs, []byte("\n")))
	e.Sampled = append(e.Sampled, scalars...)
	for _, c := range captures {
		vals, why := each(runs, c.Name)
		if why != "" {
			e.Absent[c.Name] = why
			continue
		}
		xs := make([]float64, len(vals))
		for i, v := range vals {
			xs[i] = v.(float64)
		}
		if alike(xs) {
			e.Values[c.Name] = xs[0]
			continue
		}
		e.Values[c.Name] = mean(xs)
		e.Sampled = append(e.Sampled, newSampled(of, xs, e.Values, c.Name, statMean))
	}
	return e
}

// each is every run's value of name, or why a run has none.
func each(runs []Env, name string) ([]any, string) {
	vals := make([]any, len(runs))
	for i, r := range runs {
		v, ok := r.Values[name]
		if !ok {
			return nil, fmt.Sprintf("run %d of %d: %s", i+1, len(runs), r.Absent[name])
		}
		vals[i] = v
	}
	return vals, ""
}

// pool puts the runs' JSON values together (see ReadRuns); the numbers
// it averages are added to scalars, as samples of runs.
func pool(vals []any, of string, scalars *[]*Sampled) any {
	switch first := vals[0].(type) {
	case map[string]any:
		ms := make([]map[string]any, len(vals))
		for i, v := range vals {
			m, ok := v.(map[string]any)
			if !ok {
				return first
			}
			ms[i] = m
		}
		for _, d := range []struct {
			field string
			kind  statKind
		}{{"samples", statProbe}, {"times", statHyperfine}} {
			if xs, ok := concat(ms, d.field); ok {
				out := maps.Clone(first)
				out[d.field] = toAny(xs)
				s := &Sampled{obj: out, kind: d.kind}
				s.write(slices.Sorted(slices.Values(xs)))
				return out
			}
		}
		out := map[string]any{}
		for _, k := range slices.Sorted(maps.Keys(first)) {
			kids := make([]any, 0, len(ms))
			for _, m := range ms {
				if v, ok := m[k]; ok {
					kids = append(kids, v)
				}
			}
			if len(kids) < len(ms) {
				out[k] = first[k]
				continue
			}
			if xs, ok := floats(kids); ok && alike(xs) {
				out[k] = xs[0]
				continue
			}
			if xs, ok := floats(kids); ok {
				out[k] = mean(xs)
				*scalars = append(*scalars, newSampled(of, xs, out, k, statMean))
				continue
			}
			out[k] = pool(kids, of, scalars)
		}
		return out
	case []any:
		for _, v := range vals {
			if a, ok := v.([]any); !ok || len(a) != len(first) {
				return first
			}
		}
		out := make([]any, len(first))
		for i := range first {
			kids := make([]any, len(vals))
			for j, v := range vals {
				kids[j] = v.([]any)[i]
			}
			if xs, ok := floats(kids); ok {
				// An array of numbers has no field to resample through:
				// its element is the mean, one reading.
				out[i] = mean(xs)
				continue
			}
			out[i] = pool(kids, of, scalars)
		}
		return out
	}
	return vals[0]
}

// concat is the runs' number arrays under field, put together; false
// unless every run has one.
func concat(ms []map[string]any, field string) ([]float64, bool) {
	var all []float64
	for _, m := range ms {
		xs, ok := numbers(m[field])
		if !ok {
			return nil, false
		}
		all = append(all, xs...)
	}
	return all, true
}

// alike says every run gave the same number. Such a number shows no
// spread to resample, as a string every run gave shows none: it is that
// number, and the criterion states it as all alike (criterion's alike
// checks each run), judged on it as one reading is. A count of failing
// tests, 0 in each of three runs, was three samples, too few to judge at
// 95%, where one run of it gets a verdict. Numbers that differ are
// samples of what varies, whole numbers too: zk cannot tell a count
// from a latency printed in whole milliseconds, and a count that changed
// between runs is no exact count.
func alike(xs []float64) bool {
	for _, x := range xs[1:] {
		if x != xs[0] {
			return false
		}
	}
	return true
}

func floats(vals []any) ([]float64, bool) {
	xs := make([]float64, len(vals))
	for i, v := range vals {
		f, ok := v.(float64)
		if !ok {
			return nil, false
		}
		xs[i] = f
	}
	return xs, true
}

func toAny(xs []float64) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
