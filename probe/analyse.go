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
	errs := map[string]int{}
	end := run.start
	var inFlight time.Duration
	for _, log := range run.streams {
		for msg, n := range log.errs {
			errs[msg] += n
		}
		for _, s := range log.samples {
			end = max(end, s.end)
			inFlight += s.end - s.start
			if s.failed {
				lv.Failed++
			} else {
				lv.Completed++
			}
		}
	}
	lv.ErrorSummary = errorSummary(errs)
	window := (end - run.start).Seconds()
	lv.Window = Value{Unit: "sec", Avg: window}
	if window <= 0 {
		return lv
	}
	lv.AchievedConcurrency = inFlight.Seconds() / window
	lv.RequestThroughput = Value{Unit: "requests/sec", Avg: float64(lv.Completed) / window}

	var latency []float64
	for s := range succeeded(run) {
		latency = append(latency, ms(s.end-s.start))
	}
	lv.RequestLatency = newStat("ms", latency)

	if mode == ModeHTTP {
		lv.RequestThroughputPerUser = newStat("requests/sec/user", perStreamRequestRates(run))
		completions := func(log streamLog) []event {
			var ev []event
			for _, s := range log.samples {
				if !s.failed {
					ev = append(ev, event{at: s.end, units: 1})
				}
			}
			return ev
		}
		if r, ok := steadyRate(run, completions); ok {
			lv.SteadyRequestThroughput = &Value{Unit: "requests/sec", Avg: r}
		}
		return lv
	}

	var tokens float64
	var decode, e2e, ttft, itl, osl []float64
	usage := 0
	for s := range succeeded(run) {
		tokens += s.units
		osl = append(osl, s.units)
		if s.usage {
			usage++
		}
		if s.first == 0 {
			continue // no token arrived: nothing to time
		}
		ttft = append(ttft, ms(s.first-s.start))
		if lat := (s.end - s.start).Seconds(); lat > 0 {
			e2e = append(e2e, s.units/lat)
		}
		if gen := (s.last - s.first).Seconds(); s.units > 1 && gen > 0 {
			decode = append(decode, (s.units-1)/gen)
			itl = append(itl, gen*1000/(s.units-1))
		}
	}
	switch {
	case lv.Completed == 0:
	case usage == lv.Completed:
		lv.TokensSource = "usage"
	case usage == 0:
		lv.TokensSource = "chunks"
	default:
		lv.TokensSource = "mixed"
	}
	lv.OutputTokenThroughput = &Value{Unit: "tokens/sec", Avg: tokens / window}
	aggregate := lv.OutputTokenThroughput.Avg
	tokenEvents := func(log streamLog) []event {
		var ev []event
		for _, s := range log.samples {
			if !s.failed {
				ev = append(ev, log.events[s.from:s.to]...)
			}
		}
		return ev
	}
	if r, ok := steadyRate(run, tokenEvents); ok {
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

// succeeded yields the level's requests that did not fail.
func succeeded(run levelRun) func(yield func(sample) bool) {
	return func(yield func(sample) bool) {
		for _, log := range run.streams {
			for _, s := range log.samples {
				if !s.failed && !yield(s) {
					return
				}
			}
		}
	}
}

// perStreamRequestRates is each stream's completed requests over the time
// from its first send to its last receive.
func perStreamRequestRates(run levelRun) []float64 {
	var rates []float64
	for _, log := range run.streams {
		n := 0
		from, to := time.Duration(math.MaxInt64), time.Duration(0)
		for _, s := range log.samples {
			if !s.failed {
				n++
				from, to = min(from, s.start), max(to, s.end)
			}
		}
		if d := (to - from).Seconds(); n > 0 && d > 0 {
			rates = append(rates, float64(n)/d)
		}
	}
	return rates
}

// steadyRate counts the units that arrived while every stream was between
// its first and last arrival, and divides by that span. It reports false
// when some stream never delivered or the span is empty.
func steadyRate(run levelRun, events func(streamLog) []event) (float64, bool) {
	per := make([][]event, len(run.streams))
	from, to := time.Duration(0), time.Duration(math.MaxInt64)
	for i, log := range run.streams {
		ev := events(log)
		if len(ev) == 0 {
			return 0, false
		}
		first, last := ev[0].at, ev[0].at
		for _, e := range ev {
			first, last = min(first, e.at), max(last, e.at)
		}
		from, to = max(from, first), min(to, last)
		per[i] = ev
	}
	d := (to - from).Seconds()
	if d <= 0 {
		return 0, false
	}
	var units float64
	for _, ev := range per {
		for _, e := range ev {
			if e.at > from && e.at <= to {
				units += e.units
			}
		}
	}
	return units / d, true
}

// maxErrorKinds bounds the error summary: errors that differ in every
// message (a port, a request id) must not make the result grow with them.
const maxErrorKinds = 10

// errorSummary lists errors most frequent first, the rarest beyond
// maxErrorKinds counted together as "other errors".
func errorSummary(errs map[string]int) []ErrorCount {
	var out []ErrorCount
	for msg, n := range errs {
		out = append(out, ErrorCount{Message: msg, Count: n})
	}
	slices.SortFunc(out, func(a, b ErrorCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Message, b.Message))
	})
	if len(out) > maxErrorKinds {
		other := ErrorCount{Message: "other errors"}
		for _, e := range out[maxErrorKinds-1:] {
			other.Count += e.Count
		}
		out = append(out[:maxErrorKinds-1], other)
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
