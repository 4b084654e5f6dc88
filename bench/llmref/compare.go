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
	// ServerDecodes and ServerAggregates are each round's server figures:
	// how far they move from round to round is the server's drift, which
	// is not the probe's error.
	ServerDecodes, ServerAggregates []float64
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

// DecodeRatio is the probe's per-stream decode over the server's, the two
// columns beside it in the table (medians over rounds); the rounds' own
// ratios are DecodeRatios.
func (r Row) DecodeRatio() float64 { return ratio(r.ProbePerStream, r.ServerDecode) }

// AggregateRatio is the probe's aggregate over the server's, the two
// columns beside it.
func (r Row) AggregateRatio() float64 { return ratio(r.ProbeAggregate, r.ServerAggregate) }

// Drift is how far the server's own figures moved across rounds: the
// largest over the smallest, less 1 (0.3 is 30%), for its per-request
// decode rate and its aggregate; NaN with fewer than two rounds.
func (r Row) Drift() (decode, aggregate float64) {
	return spread(r.ServerDecodes), spread(r.ServerAggregates)
}

func spread(xs []float64) float64 {
	if len(xs) < 2 || slices.Min(xs) <= 0 {
		return math.NaN()
	}
	return slices.Max(xs)/slices.Min(xs) - 1
}

// Windows is how the probe's windows and the reference's lay in time.
type Windows string

const (
	// Adjacent windows, one right after the other: the server can drift
	// between them, so their ratios mix drift with the probe's error and
	// are reported, not judged.
	Adjacent Windows = "adjacent"
	// Simultaneous windows, probe and reference sending at once: both see
	// the same server, so their ratios are the probe's error.
	Simultaneous Windows = "simultaneous"
)

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
			row.ServerDecodes = append(row.ServerDecodes, sd)
			row.ServerAggregates = append(row.ServerAggregates, sa)
			if a := pl.Server; a != nil && a.Requests > a.NotCompared {
				row.SameRequestRatios = append(row.SameRequestRatios, a.Ratio)
				row.SameRequests += a.Requests - a.NotCompared // those the probe timed too
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

// Within reports whether the probe's error is within tol (0.10 is 10%)
// wherever it can be told from the server's drift, no request failed on
// either side, every reference request returned its full token budget and
// the probe's consistency check never fired; when not, it says which.
// Per-stream decode is judged on the server's account of the probe's own
// requests where there is one (the same requests: no drift enters it),
// else on simultaneous windows; the aggregate on simultaneous windows.
// Ratios of adjacent windows carry the server's drift between them and
// are not judged (Unjudged says so).
func Within(rows []Row, tol float64, w Windows) (bool, []string) {
	var why []string
	for _, r := range rows {
		type judged struct {
			name  string
			ratio float64
		}
		var fs []judged
		switch {
		case len(r.SameRequestRatios) > 0:
			fs = append(fs, judged{"same-request decode", median(r.SameRequestRatios)})
		case w == Simultaneous:
			fs = append(fs, judged{"per-stream decode", r.DecodeRatio()})
		}
		if w == Simultaneous {
			fs = append(fs, judged{"aggregate", r.AggregateRatio()})
		}
		for _, f := range fs {
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

// Unjudged says, level by level, which ratios Within could not tell from
// the server's drift (adjacent windows), and how far the server drifted
// across rounds: drift is reported apart from error, never as a failure.
func Unjudged(rows []Row, w Windows) []string {
	var out []string
	for _, r := range rows {
		var not []string
		if w != Simultaneous {
			if len(r.SameRequestRatios) == 0 {
				not = append(not, "per-stream decode")
			}
			not = append(not, "aggregate")
		}
		d, a := r.Drift()
		line := fmt.Sprintf("%d streams: the server drifted %s (decode) and %s (aggregate) across %d rounds", r.Concurrency, pct(d), pct(a), r.Rounds)
		if len(not) > 0 {
			line += "; " + strings.Join(not, " and ") + " not judged: adjacent windows, whose ratio holds that drift as well as the probe's error"
		}
		out = append(out, line)
	}
	return out
}

func pct(x float64) string {
	if math.IsNaN(x) {
		return "– (one round)"
	}
	return fmt.Sprintf("%.0f%%", x*100)
}

// Markdown renders rows as the table docs/performance.md records.
func Markdown(rows []Row) string {
	var b strings.Builder
	b.WriteString("| streams | probe per-stream decode (tok/s) | server per-request decode (tok/s) | ratio [rounds] | probe aggregate (tok/s) | server aggregate (tok/s) | ratio [rounds] | server drift (decode / aggregate) | failed (probe / server) | retried |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		d, a := r.Drift()
		fmt.Fprintf(&b, "| %d | %.1f | %.1f | %.2f [%s] | %.1f | %.1f | %.2f [%s] | %s / %s | %d / %d | %d |\n",
			r.Concurrency, r.ProbePerStream, r.ServerDecode, r.DecodeRatio(), span(r.DecodeRatios),
			r.ProbeAggregate, r.ServerAggregate, r.AggregateRatio(), span(r.AggregateRatios), pctShort(d), pctShort(a),
			r.ProbeFailed, r.ServerFailed, r.ProbeRetried)
	}
	b.WriteString("\nThe figures are medians over rounds, and each ratio is the column before it over the one before that; " +
		"[rounds] is the range of the rounds' own ratios. Server drift is the server's own figures' largest over smallest across rounds, less 1. Denominators: ")
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

func pctShort(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", x*100)
}
