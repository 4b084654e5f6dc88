package probe

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// analyse turns one level's samples into its figures.
func analyse(run levelRun, mode string) Level {
	lv := Level{Concurrency: run.concurrency, Partial: run.partial}
	var ok []sample
	errs := map[string]int{}
	end := run.start
	var inFlight time.Duration
	for _, s := range run.samples {
		if s.end.After(end) {
			end = s.end
		}
		inFlight += s.end.Sub(s.start)
		if s.err != nil {
			lv.Failed++
			errs[s.err.Error()]++
			continue
		}
		ok = append(ok, s)
	}
	lv.Completed = len(ok)
	lv.ErrorSummary = errorSummary(errs)
	window := end.Sub(run.start).Seconds()
	lv.Window = Value{Unit: "sec", Avg: window}
	if window <= 0 {
		return lv
	}
	lv.AchievedConcurrency = inFlight.Seconds() / window
	lv.RequestThroughput = Value{Unit: "requests/sec", Avg: float64(len(ok)) / window}

	var latency []float64
	for _, s := range ok {
		latency = append(latency, ms(s.end.Sub(s.start)))
	}
	lv.RequestLatency = newStat("ms", latency)

	if mode == ModeHTTP {
		lv.RequestThroughputPerUser = newStat("requests/sec/user", perStreamRequestRates(ok))
		if r, ok := steadyRate(ok, run.concurrency, func(s sample) []event {
			return []event{{at: s.end, units: 1}}
		}); ok {
			lv.SteadyRequestThroughput = &Value{Unit: "requests/sec", Avg: r}
		}
		return lv
	}

	var tokens float64
	var decode, e2e, ttft, itl, osl []float64
	usage := 0
	for _, s := range ok {
		tokens += s.units
		osl = append(osl, s.units)
		if s.usage {
			usage++
		}
		if s.first.IsZero() {
			continue // no token arrived: nothing to time
		}
		ttft = append(ttft, ms(s.first.Sub(s.start)))
		if lat := s.end.Sub(s.start).Seconds(); lat > 0 {
			e2e = append(e2e, s.units/lat)
		}
		if gen := s.last.Sub(s.first).Seconds(); s.units > 1 && gen > 0 {
			decode = append(decode, (s.units-1)/gen)
			itl = append(itl, gen*1000/(s.units-1))
		}
	}
	switch {
	case len(ok) == 0:
	case usage == len(ok):
		lv.TokensSource = "usage"
	case usage == 0:
		lv.TokensSource = "chunks"
	default:
		lv.TokensSource = "mixed"
	}
	lv.OutputTokenThroughput = &Value{Unit: "tokens/sec", Avg: tokens / window}
	aggregate := lv.OutputTokenThroughput.Avg
	if r, ok := steadyRate(ok, run.concurrency, func(s sample) []event { return s.events }); ok {
		lv.SteadyOutputTokenThroughput = &Value{Unit: "tokens/sec", Avg: r}
		aggregate = r
	}
	lv.OutputTokenThroughputPerUser = newStat("tokens/sec/user", decode)
	lv.OutputTokenThroughputPerUserE2E = newStat("tokens/sec/user", e2e)
	lv.TimeToFirstToken = newStat("ms", ttft)
	lv.InterTokenLatency = newStat("ms", itl)
	lv.OutputSequenceLength = newStat("tokens", osl)
	if d := lv.OutputTokenThroughputPerUser; d != nil && d.P50 > 0 && lv.AchievedConcurrency > 0 {
		ratio := aggregate / (lv.AchievedConcurrency * d.P50)
		lv.Consistency = &Consistency{Ratio: ratio, Tolerance: consistencyTolerance,
			Flagged: math.Abs(1-ratio) > consistencyTolerance}
	}
	return lv
}

// perStreamRequestRates is each stream's completed requests over the time
// from its first send to its last receive.
func perStreamRequestRates(ok []sample) []float64 {
	type span struct {
		from, to time.Time
		n        int
	}
	streams := map[int]*span{}
	for _, s := range ok {
		sp := streams[s.stream]
		if sp == nil {
			sp = &span{from: s.start, to: s.end}
			streams[s.stream] = sp
		}
		if s.start.Before(sp.from) {
			sp.from = s.start
		}
		if s.end.After(sp.to) {
			sp.to = s.end
		}
		sp.n++
	}
	var rates []float64
	for _, sp := range streams {
		if d := sp.to.Sub(sp.from).Seconds(); d > 0 {
			rates = append(rates, float64(sp.n)/d)
		}
	}
	return rates
}

// steadyRate counts the units that arrived while every one of n streams was
// between its first and last arrival, and divides by that span. It reports
// false when some stream never delivered or the span is empty.
func steadyRate(ok []sample, n int, events func(sample) []event) (float64, bool) {
	type span struct{ first, last time.Time }
	streams := map[int]*span{}
	var all []event
	for _, s := range ok {
		for _, e := range events(s) {
			all = append(all, e)
			sp := streams[s.stream]
			if sp == nil {
				sp = &span{first: e.at, last: e.at}
				streams[s.stream] = sp
			}
			if e.at.Before(sp.first) {
				sp.first = e.at
			}
			if e.at.After(sp.last) {
				sp.last = e.at
			}
		}
	}
	if len(streams) < n {
		return 0, false
	}
	var from, to time.Time
	for _, sp := range streams {
		if from.IsZero() || sp.first.After(from) {
			from = sp.first
		}
		if to.IsZero() || sp.last.Before(to) {
			to = sp.last
		}
	}
	d := to.Sub(from).Seconds()
	if d <= 0 {
		return 0, false
	}
	var units float64
	for _, e := range all {
		if e.at.After(from) && !e.at.After(to) {
			units += e.units
		}
	}
	return units / d, true
}

func errorSummary(errs map[string]int) []ErrorCount {
	var out []ErrorCount
	for msg, n := range errs {
		out = append(out, ErrorCount{Message: msg, Count: n})
	}
	slices.SortFunc(out, func(a, b ErrorCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Message, b.Message))
	})
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
