package probe

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// analyse turns one level's samples into its figures.
func analyse(run levelRun, mode string) Level {
	open, close := window(&run)
	lv := Level{Concurrency: run.concurrency, Partial: run.partial, WindowClosedBy: run.closedBy,
		Warmup: Value{Unit: "sec", Avg: (open - run.start).Seconds()},
		Window: Value{Unit: "sec", Avg: (close - open).Seconds()},
		Drain:  Value{Unit: "sec", Avg: max(run.end-close, 0).Seconds()},
	}
	in := func(t time.Duration) bool { return t > open && t <= close }
	errs, errsOutside := map[string]int{}, map[string]int{}
	var inFlight, decoding time.Duration
	var tokens, decodeTokens float64
	var ttft, itl []float64
	contributed, usage := 0, 0
	for _, log := range run.streams {
		for _, s := range log.samples {
			lv.Sent++
			if s.retried {
				lv.Retried++
			}
			inFlight += overlap(s.start, s.end, open, close)
			if s.failed && !in(s.end) {
				lv.FailedOutsideWindow++
				errsOutside[log.errMsgs[s.err-1]]++
			}
			switch {
			case s.end <= open:
				lv.BeforeWindow++
			case s.end <= close && s.failed:
				lv.Failed++
				errs[log.errMsgs[s.err-1]]++
			case s.end <= close && !s.cut:
				lv.Completed++
			default:
				lv.AfterWindow++
				if !s.failed && !s.cut {
					lv.CompletedAfterWindow++
				}
			}
			if s.failed || s.first == 0 {
				continue
			}
			// Tokens count where they arrived, whichever phase their
			// request ended in; so does each request's decode rate, over
			// its tokens in the window after its first there.
			k, after := 0, 0.0
			var fw, lw time.Duration
			for _, e := range log.events[s.from:s.to] {
				if !in(e.at) {
					continue
				}
				if k == 0 {
					fw = e.at
				} else if e.at > fw {
					after += e.units // not with the first: see decodeRate
				}
				lw = e.at
				tokens += e.units
				k++
			}
			if k == 0 {
				continue
			}
			contributed++
			if s.usage {
				usage++
			}
			if in(s.first) {
				ttft = append(ttft, ms(s.first-s.start))
			}
			if gen := lw - fw; k > 1 && gen > 0 && after > 0 && !s.burst {
				decoding += gen
				decodeTokens += after
				itl = append(itl, ms(gen)/after)
			}
		}
	}
	lv.ErrorSummary = errorSummary(errs)
	lv.ErrorSummaryOutsideWindow = errorSummary(errsOutside)
	window := lv.Window.Avg
	if window <= 0 {
		return lv
	}
	lv.AchievedConcurrency = inFlight.Seconds() / window
	lv.RequestThroughput = Value{Unit: "requests/sec", Avg: float64(lv.Completed) / window}

	measured := func(yield func(sample) bool) {
		for _, log := range run.streams {
			for _, s := range log.samples {
				if !s.failed && !s.cut && in(s.end) && !yield(s) {
					return
				}
			}
		}
	}
	var latency []float64
	for s := range measured {
		latency = append(latency, ms(s.end-s.start))
	}
	lv.RequestLatency = newStat("ms", latency)

	if UnitOf(mode) == UnitRequests {
		var perStream []float64
		for _, log := range run.streams {
			n := 0
			for _, s := range log.samples {
				if !s.failed && !s.cut && in(s.end) {
					n++
				}
			}
			perStream = append(perStream, float64(n)/window)
		}
		lv.RequestThroughputPerUser = sampled("requests/sec/user", "streams", perStream)
		completions := func(log streamLog) []event {
			var ev []event
			for _, s := range log.samples {
				if !s.failed && !s.cut && in(s.end) {
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

	var e2e, osl, decode []float64
	if lv.Completed > 0 {
		// The source is the completed requests' when there are any: a
		// request cut at the close never got its usage block, and would
		// make every level "mixed" on a server that sends one token a
		// chunk anyway.
		contributed, usage = 0, 0
	}
	for s := range measured {
		contributed++
		if s.usage {
			usage++
		}
		osl = append(osl, s.units)
		if r, ok := decodeRate(s); ok {
			decode = append(decode, r)
		} else if s.burst {
			lv.DecodeBursts++
		}
		if lat := (s.end - s.start).Seconds(); s.first != 0 && lat > 0 {
			e2e = append(e2e, s.units/lat)
		}
	}
	switch {
	case contributed == 0:
	case usage == contributed:
		lv.TokensSource = "usage"
	case usage == 0:
		lv.TokensSource = "chunks"
	default:
		lv.TokensSource = "mixed"
	}
	lv.OutputTokens = &tokens
	lv.OutputTokenThroughput = &Value{Unit: "tokens/sec", Avg: tokens / window}
	lv.DecodingConcurrency = decoding.Seconds() / window
	tokenEvents := func(log streamLog) []event {
		var ev []event
		for _, s := range log.samples {
			if !s.failed {
				for _, e := range log.events[s.from:s.to] {
					if in(e.at) {
						ev = append(ev, e)
					}
				}
			}
		}
		return ev
	}
	if r, ok := steadyRate(run, tokenEvents); ok {
		lv.SteadyOutputTokenThroughput = &Value{Unit: "tokens/sec", Avg: r}
	}
	lv.Server = serverAccount(measured)
	// One stream's rate is each request's decode rate, over the requests
	// that completed in the window: the same requests as latency and the
	// server's account, each whole, none cut at an edge. Their rates are
	// the samples a criterion is judged on.
	of := "requests completed in the window"
	if lv.DecodeBursts > 0 {
		of = fmt.Sprintf("requests completed in the window (less %d read in a burst)", lv.DecodeBursts)
	}
	lv.OutputTokenThroughputPerUser = sampled("tokens/sec/user", of, decode)
	lv.OutputTokenThroughputPerUserE2E = newStat("tokens/sec/user", e2e)
	lv.TimeToFirstToken = newStat("ms", ttft)
	lv.InterTokenLatency = newStat("ms", itl)
	lv.OutputSequenceLength = newStat("tokens", osl)
	if d := lv.OutputTokenThroughputPerUser; d != nil && d.P50 > 0 && lv.DecodingConcurrency > 0 {
		ratio := (decodeTokens / window) / (lv.DecodingConcurrency * d.P50)
		lv.Consistency = &Consistency{Ratio: ratio, Tolerance: consistencyTolerance,
			Flagged: math.Abs(1-ratio) > consistencyTolerance}
	}
	return lv
}

// window is when run's window opened and closed: it closes run.duration
// after it opened when the duration closed it, at the end of the
// run.requests-th request to end in it when the request bound did
// (unless that came after the duration), and when the sweep stopped
// otherwise. It settles run.closedBy accordingly.
func window(run *levelRun) (open, close time.Duration) {
	open = run.open
	switch run.closedBy {
	case ClosedByDuration:
		return open, open + run.duration
	case ClosedByRequests:
		var ends []time.Duration
		for _, log := range run.streams {
			for _, s := range log.samples {
				if !s.cut && s.end > open {
					ends = append(ends, s.end)
				}
			}
		}
		if len(ends) >= run.requests && run.requests > 0 {
			slices.Sort(ends)
			close = ends[run.requests-1]
			if run.duration > 0 && close > open+run.duration {
				run.closedBy = ClosedByDuration
				close = open + run.duration
			}
			return open, close
		}
	}
	return open, max(run.stopped, open)
}

// overlap is how much of [from, to] lies in [open, close].
func overlap(from, to, open, close time.Duration) time.Duration {
	return max(min(to, close)-max(from, open), 0)
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

// serverAccount sets the server's decode rate for the requests measured
// that carried one beside the probe's, request by request. A request the
// probe read in a burst has no rate of the probe's: the server's figure
// for it stands (the server timed it whatever the client did), and the
// comparison is over the rest.
func serverAccount(measured func(func(sample) bool)) *ServerAccount {
	var rates, ratios []float64
	for s := range measured {
		if s.serverDecode <= 0 || s.to-s.from < 2 {
			continue
		}
		rates = append(rates, float64(s.serverDecode))
		// The request's tokens after its first over the time between its
		// first and last, all of them: this compares whole requests, not
		// the part of one inside the window.
		if probe, ok := decodeRate(s); ok {
			ratios = append(ratios, probe/float64(s.serverDecode))
		}
	}
	if len(rates) == 0 {
		return nil
	}
	a := &ServerAccount{Source: "llama.cpp timings", Requests: len(rates),
		DecodePerUser: newStat("tokens/sec/user", rates), NotCompared: len(rates) - len(ratios)}
	if len(ratios) > 0 {
		slices.Sort(ratios)
		a.Ratio = percentile(ratios, 50)
	}
	return a
}

// decodeRate is a whole request's decode rate: its tokens that arrived
// after its first over the time from its first token to its last, the
// tokens spread evenly over its chunks (a server's usage block counts
// them, the chunks time them). Tokens that came in the first token's read
// are not after it: they were waiting with it, and counting them would
// credit the decode with time the client lost before that read. False for
// a request with fewer than two chunks, or whose chunks came in a burst
// (its decode was not timed).
func decodeRate(s sample) (float64, bool) {
	n := s.to - s.from
	if n < 2 || s.burst || s.last <= s.first || s.lead >= n {
		return 0, false
	}
	per := s.units / float64(n)
	return per * float64(n-max(s.lead, 1)) / (s.last - s.first).Seconds(), true
}
