package measure

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
)

// Sampled is a figure of the output that is a statistic of samples the
// output carries: a zk probe distribution with its samples (each
// request's decode rate), a hyperfine result with its times, a go test
// -bench mean over -count runs. Resampling the samples with replacement
// and computing the figure again (the bootstrap) shows how much of the
// figure is noise: criterion.rs's confidence intervals and benchstat's "~"
// rest on the same idea.
//
// A Sampled changes the Env's values in place: Resample writes the
// statistics of a resample where the output's were, Restore writes them
// back. An Env is one reading of one output, so nothing else sees it.
type Sampled struct {
	// Of says what the samples are, for the record: "requests completed
	// in the window at concurrency 1", "hyperfine runs of `sleep 0.1`".
	Of      string
	Samples []float64

	obj  map[string]any // the object holding the figure
	key  string         // the field a mean is written to; "" for a distribution's fields
	kind statKind
	orig map[string]any // the fields as the output had them
	rng  *rand.Rand
	buf  []float64
}

type statKind int

const (
	// statProbe is zk probe's Stat: count, avg, p10, p50, p90, p99, min,
	// max and std (the population's), percentiles interpolated linearly
	// between order statistics as numpy does.
	statProbe statKind = iota
	// statHyperfine is a hyperfine result: mean, stddev (the sample's),
	// median, min, max.
	statHyperfine
	// statMean is one field, the mean of the samples (go test -bench
	// with -count).
	statMean
)

// fields lists what a kind recomputes.
func (s *Sampled) fields() []string {
	switch s.kind {
	case statProbe:
		return []string{"count", "avg", "p10", "p50", "p90", "p99", "min", "max", "std"}
	case statHyperfine:
		return []string{"mean", "stddev", "median", "min", "max"}
	}
	return []string{s.key}
}

func newSampled(of string, xs []float64, obj map[string]any, key string, kind statKind) *Sampled {
	s := &Sampled{Of: of, Samples: xs, obj: obj, key: key, kind: kind, orig: map[string]any{}}
	for _, f := range s.fields() {
		s.orig[f] = obj[f]
	}
	return s
}

// Seed makes every figure's resampling a function of the run it was
// measured in: seed names the run (its id), and each figure draws from
// its own stream, so the same record judged again gives the same answer
// whatever else the criterion reads.
func (e Env) Seed(seed string) {
	for i, s := range e.Sampled {
		h := sha256.Sum256([]byte(seed + "\x00" + strconv.Itoa(i)))
		s.rng = rand.New(rand.NewPCG(binary.LittleEndian.Uint64(h[:8]), binary.LittleEndian.Uint64(h[8:16])))
	}
}

// Resample draws len(Samples) samples with replacement and writes their
// statistics in place of the output's. Seed must have been called.
func (s *Sampled) Resample() {
	n := len(s.Samples)
	if cap(s.buf) < n {
		s.buf = make([]float64, n)
	}
	b := s.buf[:n]
	for i := range b {
		b[i] = s.Samples[s.rng.IntN(n)]
	}
	s.write(b)
}

// Poison writes NaN in place of every statistic: what reads the figure
// reads NaN, which shows what depends on it.
func (s *Sampled) Poison() {
	for _, f := range s.fields() {
		s.obj[f] = math.NaN()
	}
}

// Restore writes back the output's own statistics.
func (s *Sampled) Restore() {
	for f, v := range s.orig {
		if v == nil {
			delete(s.obj, f)
		} else {
			s.obj[f] = v
		}
	}
}

// write sets the statistics of xs, which it may reorder.
func (s *Sampled) write(xs []float64) {
	n := float64(len(xs))
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= n
	if s.kind == statMean {
		s.obj[s.key] = mean
		return
	}
	slices.Sort(xs)
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	switch s.kind {
	case statProbe:
		s.obj["count"] = n
		s.obj["avg"] = mean
		s.obj["p10"] = Percentile(xs, 10)
		s.obj["p50"] = Percentile(xs, 50)
		s.obj["p90"] = Percentile(xs, 90)
		s.obj["p99"] = Percentile(xs, 99)
		s.obj["min"] = xs[0]
		s.obj["max"] = xs[len(xs)-1]
		s.obj["std"] = math.Sqrt(ss / n)
	case statHyperfine:
		s.obj["mean"] = mean
		sd := 0.0
		if n > 1 {
			sd = math.Sqrt(ss / (n - 1))
		}
		s.obj["stddev"] = sd
		s.obj["median"] = Percentile(xs, 50)
		s.obj["min"] = xs[0]
		s.obj["max"] = xs[len(xs)-1]
	}
}

// Percentile is the p-th percentile of sorted, a non-empty slice,
// interpolated linearly between order statistics (numpy's default, and
// zk probe's).
func Percentile(sorted []float64, p float64) float64 {
	rank := p / 100 * float64(len(sorted)-1)
	lo := int(math.Floor(rank))
	hi := int(math.Ceil(rank))
	if lo == hi {
		return sorted[lo]
	}
	return sorted[lo] + (sorted[hi]-sorted[lo])*(rank-float64(lo))
}

// numbers reads a JSON array of numbers; false if v is not one, or is
// empty.
func numbers(v any) ([]float64, bool) {
	a, ok := v.([]any)
	if !ok || len(a) == 0 {
		return nil, false
	}
	out := make([]float64, len(a))
	for i, x := range a {
		f, ok := x.(float64)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		out[i] = f
	}
	return out, true
}

// MaxSamples bounds the samples of one figure zk resamples: beyond it
// the figure is read as one value.
const MaxSamples = 100_000

// findSampled registers the figures of e's values that carry samples.
func (e *Env) findSampled() {
	if p, ok := e.Values[Probe].(map[string]any); ok {
		levels, _ := p["levels"].([]any)
		for _, l := range levels {
			lm, ok := l.(map[string]any)
			if !ok {
				continue
			}
			c, _ := lm["concurrency"].(float64)
			keys := make([]string, 0, len(lm))
			for k := range lm {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				st, ok := lm[k].(map[string]any)
				if !ok {
					continue
				}
				xs, ok := numbers(st["samples"])
				if !ok || len(xs) < 2 || len(xs) > MaxSamples {
					continue
				}
				of, _ := st["of"].(string)
				if of == "" {
					of = "samples"
				}
				e.Sampled = append(e.Sampled, newSampled(fmt.Sprintf("%s at concurrency %g", of, c), xs, st, "", statProbe))
			}
		}
	}
	if h, ok := e.Values[Hyperfine].(map[string]any); ok {
		rs, _ := h["results"].([]any)
		for _, r := range rs {
			rm, ok := r.(map[string]any)
			if !ok {
				continue
			}
			xs, ok := numbers(rm["times"])
			if !ok || len(xs) < 2 || len(xs) > MaxSamples {
				continue
			}
			cmd, _ := rm["command"].(string)
			e.Sampled = append(e.Sampled, newSampled(fmt.Sprintf("hyperfine runs of %q", cmd), xs, rm, "", statHyperfine))
		}
	}
}
