package llmref

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/zk-claims/zk/probe"
)

// Round is one probe result and the reference measured next to it, at
// the same concurrency levels, one right after the other.
type Round struct {
	Probe *probe.Result
	Ref   []Level
}

// Row sets one concurrency level of the probe beside the server's account,
// over every round that measured it.
type Row struct {
	Concurrency int
	Rounds      int
	// ProbePerStream is the median over rounds of the probe's median
	// per-stream decode rate; ServerDecode the same for the server's
	// median per-request decode rate.
	ProbePerStream, ServerDecode float64
	// ProbeAggregate is the median over rounds of the probe's tokens in
	// its window over the window; ServerAggregate of the server's
	// streams × Σ tokens ÷ Σ request time.
	ProbeAggregate, ServerAggregate float64
	// DecodeRatios and AggregateRatios are each round's probe ÷ server.
	DecodeRatios, AggregateRatios []float64
	// SameRequestRatios are each round's probe ÷ server per-request decode
	// rate over the very requests the probe sent, where the server
	// accounted for them in its responses (llama.cpp's timings: zk
	// probe's server_account); SameRequests counts those requests.
	SameRequestRatios []float64
	SameRequests      int
	// What the figures rest on, summed over rounds.
	ProbeCompleted, ProbeFailed, ProbeRetried int
	ProbeTokens, ProbeWindow                  float64
	ConsistencyFlagged                        int
	ServerRequests, ServerFailed, ServerShort int
	ServerTokens                              int
	// Errors are the messages of the failed requests, both sides.
	Errors []string
}

// DecodeRatio is the median of the rounds' per-stream ratios.
func (r Row) DecodeRatio() float64 { return medianOrNaN(r.DecodeRatios) }

// AggregateRatio is the median of the rounds' aggregate ratios.
func (r Row) AggregateRatio() float64 { return medianOrNaN(r.AggregateRatios) }

func medianOrNaN(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return median(xs)
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// Compare sets each probe level beside the reference level of the same
// concurrency in its round, and summarises by level, in the order the
// levels first appear. A probe level its round's reference lacks is an
// error.
func Compare(rounds ...Round) ([]Row, error) {
	byC := map[int]*Row{}
	var order []int
	type figs struct{ ps, sd, pa, sa []float64 }
	f := map[int]*figs{}
	for i, rd := range rounds {
		for _, pl := range rd.Probe.Levels {
			idx := slices.IndexFunc(rd.Ref, func(l Level) bool { return l.Concurrency == pl.Concurrency })
			if idx < 0 {
				return nil, fmt.Errorf("round %d: the reference has no level at concurrency %d", i+1, pl.Concurrency)
			}
			rl := rd.Ref[idx]
			row, ok := byC[pl.Concurrency]
			if !ok {
				row = &Row{Concurrency: pl.Concurrency}
				byC[pl.Concurrency], f[pl.Concurrency] = row, &figs{}
				order = append(order, pl.Concurrency)
			}
			var ps, pa float64
			if s := pl.OutputTokenThroughputPerUser; s != nil {
				ps = s.P50
			}
			if v := pl.OutputTokenThroughput; v != nil {
				pa = v.Avg
			}
			sd, sa := rl.MedianDecode(), rl.Aggregate()
			fg := f[pl.Concurrency]
			fg.ps, fg.sd, fg.pa, fg.sa = append(fg.ps, ps), append(fg.sd, sd), append(fg.pa, pa), append(fg.sa, sa)
			row.DecodeRatios = append(row.DecodeRatios, ratio(ps, sd))
			row.AggregateRatios = append(row.AggregateRatios, ratio(pa, sa))
			if a := pl.Server; a != nil {
				row.SameRequestRatios = append(row.SameRequestRatios, a.Ratio)
				row.SameRequests += a.Requests
			}
			row.Rounds++
			row.ProbeCompleted += pl.Completed
			row.ProbeFailed += pl.Failed + pl.FailedOutsideWindow
			row.ProbeRetried += pl.Retried
			if pl.OutputTokens != nil {
				row.ProbeTokens += *pl.OutputTokens
			}
			row.ProbeWindow += pl.Window.Avg
			if pl.Consistency != nil && pl.Consistency.Flagged {
				row.ConsistencyFlagged++
			}
			for _, e := range append(pl.ErrorSummary, pl.ErrorSummaryOutsideWindow...) {
				row.Errors = append(row.Errors, fmt.Sprintf("probe: %s (%d)", e.Message, e.Count))
			}
			for _, e := range rl.Errors {
				row.Errors = append(row.Errors, "reference: "+e)
			}
			row.ServerRequests += len(rl.Requests)
			row.ServerFailed += rl.Failed
			row.ServerShort += rl.Short
			row.ServerTokens += rl.Tokens()
		}
	}
	rows := make([]Row, 0, len(order))
	for _, c := range order {
		row, fg := byC[c], f[c]
		row.ProbePerStream, row.ServerDecode = median(fg.ps), median(fg.sd)
		row.ProbeAggregate, row.ServerAggregate = median(fg.pa), median(fg.sa)
		rows = append(rows, *row)
	}
	return rows, nil
}

// Within reports whether every row agrees within tol (0.10 is 10%) on
// both ratios, no request failed on either side, every reference request
// returned its full token budget and the probe's consistency check never
// fired; when not, it says which. Where the server accounted for the
// probe's own requests, per-stream decode is judged on those (the same
// requests, so no drift between two windows enters it).
func Within(rows []Row, tol float64) (bool, []string) {
	var why []string
	for _, r := range rows {
		decode := struct {
			name  string
			ratio float64
		}{"per-stream decode", r.DecodeRatio()}
		if len(r.SameRequestRatios) > 0 {
			decode.name, decode.ratio = "same-request decode", median(r.SameRequestRatios)
		}
		for _, f := range []struct {
			name  string
			ratio float64
		}{decode, {"aggregate", r.AggregateRatio()}} {
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
		if r.ConsistencyFlagged > 0 {
			why = append(why, fmt.Sprintf("%d streams: the probe's consistency check fired in %d of %d rounds", r.Concurrency, r.ConsistencyFlagged, r.Rounds))
		}
	}
	return len(why) == 0, why
}

// Markdown renders rows as the table docs/performance.md records.
func Markdown(rows []Row) string {
	var b strings.Builder
	b.WriteString("| streams | probe per-stream decode (tok/s) | server per-request decode (tok/s) | ratio [rounds] | probe aggregate (tok/s) | server aggregate (tok/s) | ratio [rounds] | failed (probe / server) | retried |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %d | %.1f | %.1f | %.2f [%s] | %.1f | %.1f | %.2f [%s] | %d / %d | %d |\n",
			r.Concurrency, r.ProbePerStream, r.ServerDecode, r.DecodeRatio(), span(r.DecodeRatios),
			r.ProbeAggregate, r.ServerAggregate, r.AggregateRatio(), span(r.AggregateRatios), r.ProbeFailed, r.ServerFailed, r.ProbeRetried)
	}
	b.WriteString("\nMedians over rounds; each round's ratio is the probe's figure over the server's in the window next to it. Denominators: ")
	for i, r := range rows {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%d streams: %d rounds, probe %d requests completed and %.0f tokens in %.0f s of windows (consistency check fired in %d), server %d requests and %d tokens",
			r.Concurrency, r.Rounds, r.ProbeCompleted, r.ProbeTokens, r.ProbeWindow, r.ConsistencyFlagged, r.ServerRequests, r.ServerTokens)
	}
	b.WriteString(".\n")
	var same []string
	for _, r := range rows {
		if len(r.SameRequestRatios) > 0 {
			same = append(same, fmt.Sprintf("%.2f [%s] at %d streams (%d requests)",
				median(r.SameRequestRatios), span(r.SameRequestRatios), r.Concurrency, r.SameRequests))
		}
	}
	if len(same) > 0 {
		b.WriteString("\nThe same requests, as the server accounted for them in its responses (llama.cpp timings): the probe's " +
			"per-request decode rate ÷ the server's, median over requests, then over rounds [rounds]: " + strings.Join(same, "; ") + ".\n")
	}
	for _, r := range rows {
		for _, e := range r.Errors {
			fmt.Fprintf(&b, "\n%d streams, failed: %s", r.Concurrency, e)
		}
	}
	return b.String()
}

// span is "min–max" of xs.
func span(xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f–%.2f", slices.Min(xs), slices.Max(xs))
}
