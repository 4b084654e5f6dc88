package probe

import (
	"math"
	"slices"

	"github.com/aclements/go-moremath/stats"
)

// Stat summarises a distribution in the shape AIPerf exports each metric
// (profile_export_aiperf.json): a unit, the mean, percentiles and spread.
// Percentiles interpolate linearly between order statistics, as numpy's
// default (and so vLLM's benchmark) does.
type Stat struct {
	Unit  string `json:"unit"`
	Count int    `json:"count"`
	// Of says what the Count samples are ("requests completed in the
	// window"), and Samples lists them, for a distribution a falsifier's
	// criterion may judge on resamples (zk run's bootstrap); both empty
	// for the rest.
	Of      string    `json:"of,omitempty"`
	Samples []float64 `json:"samples,omitempty"`
	Avg     float64   `json:"avg"`
	P10     float64   `json:"p10"`
	P50     float64   `json:"p50"`
	P90     float64   `json:"p90"`
	P99     float64   `json:"p99"`
	Min     float64   `json:"min"`
	Max     float64   `json:"max"`
	Std     float64   `json:"std"`
}

// Value is one figure for a whole level (an aggregate rate, a window), in
// AIPerf's shape for metrics that have no distribution.
type Value struct {
	Unit string  `json:"unit"`
	Avg  float64 `json:"avg"`
}

// newStat summarises xs, or returns nil when there is nothing to summarise:
// an absent metric is absent, not zero.
func newStat(unit string, xs []float64) *Stat {
	if len(xs) == 0 {
		return nil
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := float64(len(s))
	return &Stat{
		Unit:  unit,
		Count: len(s),
		Avg:   stats.Mean(s),
		P10:   percentile(s, 10),
		P50:   percentile(s, 50),
		P90:   percentile(s, 90),
		P99:   percentile(s, 99),
		Min:   s[0],
		Max:   s[len(s)-1],
		// numpy's std, as AIPerf writes it: the population's (ddof=0),
		// from the library's sample variance.
		Std: math.Sqrt(stats.Variance(s) * (n - 1) / n),
	}
}

// sampled is newStat(unit, xs) carrying its samples, xs, which are of
// what of says.
func sampled(unit, of string, xs []float64) *Stat {
	st := newStat(unit, xs)
	if st != nil && len(xs) <= maxSamples {
		st.Of, st.Samples = of, slices.Clone(xs)
	}
	return st
}

// maxSamples bounds the samples a Stat carries in the output.
const maxSamples = 10_000

// percentile returns the p-th percentile of sorted, a non-empty slice.
func percentile(sorted []float64, p float64) float64 {
	rank := p / 100 * float64(len(sorted)-1)
	lo := int(math.Floor(rank))
	hi := int(math.Ceil(rank))
	if lo == hi {
		return sorted[lo]
	}
	frac := rank - float64(lo)
	return sorted[lo] + (sorted[hi]-sorted[lo])*frac
}
