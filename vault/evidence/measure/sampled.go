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

	obj    map[string]any // the object holding the figure
	key    string         // the field a mean is written to; "" for a distribution's fields
	kind   statKind
	orig   map[string]any  // the fields as the output had them
	only   map[string]bool // the fields Resample writes; nil: all
	sorted []float64       // Samples, sorted
	counts []int
	rng    *rand.Rand
	buf    []float64
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
	s := &Sampled{Of: of, Samples: xs, obj: obj, key: key, kind: kind, orig: map[string]any{},
		sorted: slices.Sorted(slices.Values(xs))}
	for _, f := range s.fields() {
		s.orig[f] = obj[f]
	}
	return s
}

// Computed says the figure is a mean zk computed from the samples, not
// one the output wrote (a probe's or hyperfine's statistics): its float
// noise is no digit read.
func (s *Sampled) Computed() bool { return s.kind == statMean }

// Fieldnames lists the statistics Resample may write.
func (s *Sampled) Fieldnames() []string { return s.fields() }

// Only limits Resample to the named statistics (nil: all of them): what
// a criterion does not read need not be computed 2,000 times.
func (s *Sampled) Only(fields []string) {
	s.only = nil
	if fields != nil {
		s.only = map[string]bool{}
		for _, f := range fields {
			s.only[f] = true
		}
	}
}

// PoisonField writes NaN in place of one statistic; Restore undoes it.
func (s *Sampled) PoisonField(f string) { s.obj[f] = math.NaN() }

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
//
// The resample is drawn as counts of each sorted sample, so it comes out
// sorted without sorting: percentiles cost one pass.
func (s *Sampled) Resample() {
	n := len(s.sorted)
	if cap(s.buf) < n {
		s.buf, s.counts = make([]float64, n), make([]int, n)
	}
	counts := s.counts[:n]
	clear(counts)
	for range n {
		counts[s.rng.IntN(n)]++
	}
	b := s.buf[:0]
	for i, c := range counts {
		for range c {
			b = append(b, s.sorted[i])
		}
	}
	s.write(b)
}

// Recompute writes the statistics of the samples themselves, unresampled:
// the output's own figures, when zk computes them as the output's writer
// did (a test holds zk probe's and this package's to each other).
func (s *Sampled) Recompute() {
	s.write(s.sorted)
}

// Fields returns the statistics as they stand now, by name.
func (s *Sampled) Fields() map[string]any {
	out := map[string]any{}
	for _, f := range s.fields() {
		out[f] = s.obj[f]
	}
	return out
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

// write sets the statistics of xs, sorted (the fields Only named).
func (s *Sampled) write(xs []float64) {
	n := float64(len(xs))
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= n
	if math.IsInf(mean, 0) {
		// The sum overflowed (samples near the largest float): the mean
		// of each sample's share does not, where the sum of all does.
		mean = 0
		for _, x := range xs {
			mean += x / n
		}
	}
	set := func(f string, v func() float64) {
		if s.only == nil || s.only[f] {
			s.obj[f] = v()
		}
	}
	std := func(ddof float64) func() float64 {
		return func() float64 {
			if n-ddof <= 0 {
				return 0
			}
			ss := 0.0
			for _, x := range xs {
				ss += (x - mean) * (x - mean)
			}
			return math.Sqrt(ss / (n - ddof))
		}
	}
	pct := func(p float64) func() float64 { return func() float64 { return Percentile(xs, p) } }
	avg := func() float64 { return mean }
	switch s.kind {
	case statMean:
		set(s.key, avg)
	case statProbe:
		set("count", func() float64 { return n })
		set("avg", avg)
		set("p10", pct(10))
		set("p50", pct(50))
		set("p90", pct(90))
		set("p99", pct(99))
		set("min", pct(0))
		set("max", pct(100))
		set("std", std(0))
	case statHyperfine:
		set("mean", avg)
		set("stddev", std(1))
		set("median", pct(50))
		set("min", pct(0))
		set("max", pct(100))
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

// MaxSamples bounds the samples of one figure zk resamples: a criterion
// that reads a figure of more is not judged (criterion.Result.Unjudged).
// A figure of fewer than its confidence needs is not either: each is
// registered whatever its count, so that the verdict can say so.
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
				if !ok {
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
			if !ok {
				continue
			}
			cmd, _ := rm["command"].(string)
			e.Sampled = append(e.Sampled, newSampled(fmt.Sprintf("hyperfine runs of %q", cmd), xs, rm, "", statHyperfine))
		}
	}
}
