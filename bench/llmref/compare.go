package llmref

import (
	"fmt"
	"math"
	"strings"

	"github.com/zk-claims/zk/probe"
)

// Row sets one concurrency level of a probe beside the server's account.
type Row struct {
	Concurrency int
	// ProbePerStream is the probe's median per-stream decode rate;
	// ServerDecode the server's median per-request decode rate (the mean
	// over the reference passes, which bracket the probe's run).
	ProbePerStream, ServerDecode float64
	// ProbeAggregate is the probe's tokens in its window over the window;
	// ServerAggregate the server's streams × Σ tokens ÷ Σ request time.
	ProbeAggregate, ServerAggregate float64
	// ServerSpread is the largest relative difference between two
	// reference passes' decode or aggregate figures: the machine's drift
	// over the run, the noise floor for the ratios.
	ServerSpread float64
	// What the figures rest on.
	ProbeCompleted, ProbeFailed, ProbeRetried int
	ProbeTokens                               float64
	ProbeWindow                               float64
	ProbeConsistency                          *probe.Consistency
	ServerRequests, ServerFailed, ServerShort int
	ServerTokens                              int
}

// DecodeRatio is the probe's per-stream rate over the server's.
func (r Row) DecodeRatio() float64 { return ratio(r.ProbePerStream, r.ServerDecode) }

// AggregateRatio is the probe's aggregate over the server's.
func (r Row) AggregateRatio() float64 { return ratio(r.ProbeAggregate, r.ServerAggregate) }

func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// Compare sets each level of res beside the reference passes' level of
// the same concurrency. A level the references lack is an error.
func Compare(res *probe.Result, refs ...[]Level) ([]Row, error) {
	var rows []Row
	for _, pl := range res.Levels {
		row := Row{Concurrency: pl.Concurrency, ProbeCompleted: pl.Completed, ProbeFailed: pl.Failed + pl.FailedOutsideWindow,
			ProbeRetried: pl.Retried, ProbeWindow: pl.Window.Avg, ProbeConsistency: pl.Consistency}
		if s := pl.OutputTokenThroughputPerUser; s != nil {
			row.ProbePerStream = s.P50
		}
		if v := pl.OutputTokenThroughput; v != nil {
			row.ProbeAggregate = v.Avg
		}
		if pl.OutputTokens != nil {
			row.ProbeTokens = *pl.OutputTokens
		}
		var decs, aggs []float64
		for _, ref := range refs {
			for _, rl := range ref {
				if rl.Concurrency != pl.Concurrency {
					continue
				}
				decs = append(decs, rl.MedianDecode())
				aggs = append(aggs, rl.Aggregate())
				row.ServerRequests += len(rl.Requests)
				row.ServerFailed += rl.Failed
				row.ServerShort += rl.Short
				row.ServerTokens += rl.Tokens()
			}
		}
		if len(decs) == 0 {
			return nil, fmt.Errorf("the reference has no level at concurrency %d", pl.Concurrency)
		}
		row.ServerDecode, row.ServerAggregate = mean(decs), mean(aggs)
		row.ServerSpread = max(spread(decs), spread(aggs))
		rows = append(rows, row)
	}
	return rows, nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// spread is (max-min)/mean.
func spread(xs []float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	if m := mean(xs); m > 0 {
		return (hi - lo) / m
	}
	return 0
}

// Within reports whether every row agrees within tol (0.10 is 10%) on
// both figures and no request failed on either side; when not, it says
// which.
func Within(rows []Row, tol float64) (bool, []string) {
	var why []string
	for _, r := range rows {
		for _, f := range []struct {
			name  string
			ratio float64
		}{{"per-stream decode", r.DecodeRatio()}, {"aggregate", r.AggregateRatio()}} {
			if math.IsNaN(f.ratio) || math.Abs(f.ratio-1) > tol {
				why = append(why, fmt.Sprintf("%d streams: %s ratio %.2f, outside 1±%.2f", r.Concurrency, f.name, f.ratio, tol))
			}
		}
		if r.ProbeFailed > 0 || r.ServerFailed > 0 {
			why = append(why, fmt.Sprintf("%d streams: %d probe and %d reference requests failed", r.Concurrency, r.ProbeFailed, r.ServerFailed))
		}
		if r.ServerShort > 0 {
			why = append(why, fmt.Sprintf("%d streams: %d reference requests ended short of max tokens", r.Concurrency, r.ServerShort))
		}
	}
	return len(why) == 0, why
}

// Markdown renders rows as the table docs/performance.md records.
func Markdown(rows []Row) string {
	var b strings.Builder
	b.WriteString("| streams | probe per-stream decode (tok/s) | server per-request decode (tok/s) | ratio | probe aggregate (tok/s) | server aggregate (tok/s) | ratio | failed (probe / server) | retried | reference drift |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %d | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f | %d / %d | %d | %.0f%% |\n",
			r.Concurrency, r.ProbePerStream, r.ServerDecode, r.DecodeRatio(),
			r.ProbeAggregate, r.ServerAggregate, r.AggregateRatio(), r.ProbeFailed, r.ServerFailed, r.ProbeRetried, 100*r.ServerSpread)
	}
	b.WriteString("\nDenominators: ")
	for i, r := range rows {
		if i > 0 {
			b.WriteString("; ")
		}
		cons := "no consistency check"
		if c := r.ProbeConsistency; c != nil {
			cons = fmt.Sprintf("consistency %.2f", c.Ratio)
			if c.Flagged {
				cons += " (flagged)"
			}
		}
		fmt.Fprintf(&b, "%d streams: probe %d requests completed, %.0f tokens in a %.1f s window, %s; server %d requests, %d tokens",
			r.Concurrency, r.ProbeCompleted, r.ProbeTokens, r.ProbeWindow, cons, r.ServerRequests, r.ServerTokens)
	}
	b.WriteString(".\n")
	return b.String()
}
