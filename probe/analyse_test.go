package probe

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// at is ms milliseconds after the epoch plus one second (zero means never).
func at(ms float64) time.Duration {
	return time.Second + time.Duration(ms*float64(time.Millisecond))
}

// streams lays out a level's samples by hand: per stream, its samples and
// their events in order.
func streams(per ...[]sample) []streamLog {
	logs := make([]streamLog, len(per))
	for i, ss := range per {
		logs[i].samples = append(logs[i].samples, ss...)
	}
	return logs
}

// tokenRequest appends to log a streamed request sent at start, with one
// token per tick from first, n tokens in all, ending at the last token.
func tokenRequest(log *streamLog, start, first, tick float64, n int) {
	s := sample{start: at(start), first: at(first), units: float64(n), usage: true, from: int32(len(log.events))}
	for i := range n {
		log.events = append(log.events, event{at: at(first + tick*float64(i)), units: 1})
	}
	s.to = int32(len(log.events))
	s.last = log.events[s.to-1].at
	s.end = s.last
	log.samples = append(log.samples, s)
}

func near(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

func TestAnalyseOpenAI(t *testing.T) {
	// Two streams, each sends two requests back to back. Each request
	// waits 100 ms for its first token, then gets 11 tokens 10 ms apart:
	// a decode rate of 10 tokens / 100 ms = 100 tok/s per stream, 200 ms
	// per request, 44 tokens in 400 ms of window.
	// No warm-up; the window closes at the fourth completion.
	run := levelRun{concurrency: 2, start: at(0), open: at(0), closedBy: ClosedByRequests, requests: 4,
		end: at(400), streams: make([]streamLog, 2)}
	for i := range run.streams {
		tokenRequest(&run.streams[i], 0, 100, 10, 11)
		tokenRequest(&run.streams[i], 200, 300, 10, 11)
	}
	log := &run.streams[1]
	log.samples = append(log.samples, sample{start: at(400), end: at(400), failed: true, err: log.errIndex("HTTP 503")})
	lv := analyse(run, ModeOpenAI)
	if lv.Completed != 4 || lv.Failed != 1 {
		t.Fatalf("completed/failed = %d/%d, want 4/1", lv.Completed, lv.Failed)
	}
	near(t, "window", lv.Window.Avg, 0.4)
	near(t, "achieved concurrency", lv.AchievedConcurrency, 2)
	near(t, "aggregate tok/s", lv.OutputTokenThroughput.Avg, 44/0.4)
	near(t, "request throughput", lv.RequestThroughput.Avg, 4/0.4)
	near(t, "per-stream decode p50", lv.OutputTokenThroughputPerUser.P50, 100)
	near(t, "per-stream e2e p50", lv.OutputTokenThroughputPerUserE2E.P50, 11/0.2)
	near(t, "TTFT p50 ms", lv.TimeToFirstToken.P50, 100)
	near(t, "ITL p50 ms", lv.InterTokenLatency.P50, 10)
	// Steady state: from the later first token (100 ms) to the earlier
	// last token (400 ms), both streams deliver: 2 × (10 + 11) tokens after
	// 100 ms up to 400 ms, over 300 ms.
	near(t, "steady tok/s", lv.SteadyOutputTokenThroughput.Avg, 42/0.3)
	if lv.TokensSource != "usage" {
		t.Errorf("tokens source = %q, want usage", lv.TokensSource)
	}
	// Streams spend half their time waiting for a first token: two in
	// flight, one decoding on average. The check compares decode with
	// decode, 10 tokens after the first per request, 40 in 400 ms, against
	// one decoding stream × 100 tok/s, and agrees. (Achieved concurrency ×
	// decode rate, 2 × 100, would call the 110 tok/s aggregate 45% short.)
	near(t, "decoding concurrency", lv.DecodingConcurrency, 1)
	c := lv.Consistency
	near(t, "consistency ratio", c.Ratio, (40/0.4)/(1*100))
	if c.Flagged {
		t.Errorf("consistency flagged at ratio %.2f although decode agrees with decode", c.Ratio)
	}
	if len(lv.ErrorSummary) != 1 || lv.ErrorSummary[0] != (ErrorCount{"HTTP 503", 1}) {
		t.Errorf("error summary = %v", lv.ErrorSummary)
	}
}

// TestAnalyseWindowIsTime: the window is the span asked for, not the
// requests that happen to overlap it. One stream, one warm-up request,
// then a 300 ms window: the request straddling the close gives the window
// only its tokens up to the close, and the level's time is warm-up +
// window + drain.
func TestAnalyseWindowIsTime(t *testing.T) {
	run := levelRun{concurrency: 1, start: at(0), open: at(200), closedBy: ClosedByDuration,
		duration: 300 * time.Millisecond, end: at(560), streams: make([]streamLog, 1)}
	log := &run.streams[0]
	tokenRequest(log, 0, 100, 10, 11)   // warm-up: ends as the window opens
	tokenRequest(log, 200, 300, 10, 11) // in the window
	// Cut at the close: six tokens from 500 ms, cancelled at 560 ms.
	cut := sample{start: at(400), first: at(500), last: at(550), end: at(560), cut: true, units: 6, from: int32(len(log.events))}
	for i := range 6 {
		log.events = append(log.events, event{at: at(500 + 10*float64(i)), units: 1})
	}
	cut.to = int32(len(log.events))
	log.samples = append(log.samples, cut)

	lv := analyse(run, ModeOpenAI)
	near(t, "warm-up s", lv.Warmup.Avg, 0.2)
	near(t, "window s", lv.Window.Avg, 0.3)
	near(t, "drain s", lv.Drain.Avg, 0.06)
	if lv.Sent != 3 || lv.BeforeWindow != 1 || lv.Completed != 1 || lv.AfterWindow != 1 || lv.CompletedAfterWindow != 0 {
		t.Errorf("sent %d, before %d, completed %d, in flight at close %d, completed in drain %d; want 3, 1, 1, 1, 0",
			lv.Sent, lv.BeforeWindow, lv.Completed, lv.AfterWindow, lv.CompletedAfterWindow)
	}
	// 11 tokens of the request in the window and the cut one's token at
	// 500 ms (the warm-up's last, at 200 ms, is the window's open edge).
	near(t, "output tokens", *lv.OutputTokens, 12)
	near(t, "aggregate tok/s", lv.OutputTokenThroughput.Avg, 12/0.3)
	// In flight: 200 ms of the second request, 100 of the cut one.
	near(t, "achieved concurrency", lv.AchievedConcurrency, 1)
	near(t, "decoding concurrency", lv.DecodingConcurrency, 0.1/0.3)
	// One stream's decode rate stands on the request that completed in
	// the window, whole; not on the one cut at the close. Its samples are
	// in the output, saying what they are.
	if d := lv.OutputTokenThroughputPerUser; d == nil || d.Count != 1 || len(d.Samples) != 1 || d.Of != "requests completed in the window" {
		t.Errorf("per-stream decode %+v, want one sample: the request completed in the window", d)
	}
	if lv.OutputSequenceLength.Count != 1 {
		t.Errorf("per-request stats over %d requests, want the one that completed in the window", lv.OutputSequenceLength.Count)
	}
}

// TestAnalyseFailureOutsideWindowSaysWhy: a warm-up request that fails is
// counted outside the window, and its message is kept, so a reader of the
// JSON learns why (against a real Ollama, one warm-up request at 16
// streams failed and the output said only failed_outside_window: 1).
func TestAnalyseFailureOutsideWindowSaysWhy(t *testing.T) {
	run := levelRun{concurrency: 1, start: at(0), open: at(200), closedBy: ClosedByDuration,
		duration: 300 * time.Millisecond, end: at(500), streams: make([]streamLog, 1)}
	log := &run.streams[0]
	log.samples = append(log.samples, sample{start: at(0), end: at(150), failed: true, err: log.errIndex("no response within 1m0s")})
	tokenRequest(log, 200, 300, 10, 11) // in the window
	lv := analyse(run, ModeOpenAI)
	if lv.Failed != 0 || lv.FailedOutsideWindow != 1 || len(lv.ErrorSummary) != 0 {
		t.Errorf("failed %d, outside the window %d, in-window errors %v; want 0, 1, none", lv.Failed, lv.FailedOutsideWindow, lv.ErrorSummary)
	}
	if want := []ErrorCount{{"no response within 1m0s", 1}}; !slices.Equal(lv.ErrorSummaryOutsideWindow, want) {
		t.Errorf("errors outside the window = %v, want %v", lv.ErrorSummaryOutsideWindow, want)
	}
}

func TestAnalyseHTTP(t *testing.T) {
	req := func(start, end float64) sample {
		return sample{start: at(start), first: at(end), end: at(end), units: 1}
	}
	// Stream 0 completes 4 requests of 10 ms, stream 1 two of 20 ms: 100
	// and 50 requests per second per stream, 150 in aggregate.
	run := levelRun{concurrency: 2, start: at(0), open: at(0), closedBy: ClosedByDuration, duration: 40 * time.Millisecond,
		end: at(40), streams: streams(
			[]sample{req(0, 10), req(10, 20), req(20, 30), req(30, 40)},
			[]sample{req(0, 20), req(20, 40)},
		)}
	lv := analyse(run, ModeHTTP)
	near(t, "window", lv.Window.Avg, 0.04)
	near(t, "aggregate req/s", lv.RequestThroughput.Avg, 6/0.04)
	near(t, "achieved concurrency", lv.AchievedConcurrency, 2)
	ps := lv.RequestThroughputPerUser
	near(t, "per-stream min", ps.Min, 50)
	near(t, "per-stream max", ps.Max, 100)
	near(t, "latency p50", lv.RequestLatency.P50, 10)
	// Steady: completions after 20 ms (stream 1's first) up to 40 ms
	// (both last): stream 0 at 30 and 40, stream 1 at 40, over 20 ms.
	near(t, "steady req/s", lv.SteadyRequestThroughput.Avg, 3/0.02)
	if lv.OutputTokenThroughput != nil || lv.Consistency != nil {
		t.Error("token metrics in http mode")
	}
}

func TestAnalyseNothingCompleted(t *testing.T) {
	run := levelRun{concurrency: 4, start: at(0), open: at(0), closedBy: ClosedByFailures, stopped: at(5), end: at(5),
		streams: streams([]sample{{start: at(0), end: at(5), failed: true, err: 1}}, nil, nil, nil)}
	run.streams[0].errMsgs = []string{"refused"}
	lv := analyse(run, ModeOpenAI)
	if lv.Completed != 0 || lv.Failed != 1 || lv.OutputTokenThroughputPerUser != nil ||
		lv.SteadyOutputTokenThroughput != nil || lv.Consistency != nil {
		t.Errorf("level with no completions = %+v", lv)
	}
}

func TestStatPercentiles(t *testing.T) {
	tests := []struct {
		xs                 []float64
		p10, p50, p90, std float64
	}{
		{[]float64{7}, 7, 7, 7, 0},
		{[]float64{4, 1, 3, 2, 5}, 1.4, 3, 4.6, math.Sqrt2},
		{[]float64{10, 20}, 11, 15, 19, 5},
	}
	for _, tt := range tests {
		s := newStat("x", tt.xs)
		near(t, "p10", s.P10, tt.p10)
		near(t, "p50", s.P50, tt.p50)
		near(t, "p90", s.P90, tt.p90)
		near(t, "std", s.Std, tt.std)
	}
	if newStat("x", nil) != nil {
		t.Error("a stat of nothing is not nil")
	}
}

func TestErrorSummaryIsBounded(t *testing.T) {
	errs := map[string]int{"common": 50}
	for i := range 30 {
		errs[fmt.Sprintf("dial 127.0.0.1:%d: refused", 40000+i)] = 1
	}
	got := errorSummary(errs)
	if len(got) != maxErrorKinds || got[0] != (ErrorCount{"common", 50}) ||
		got[len(got)-1] != (ErrorCount{"other errors", 30 - (maxErrorKinds - 2)}) {
		t.Errorf("summary = %v", got)
	}
}

// TestAnalyseServerAccount: where the server reports its own decode rate
// per request (llama.cpp's timings), the level sets it beside the probe's
// for the same requests, request by request; a level whose server says
// nothing has no account, and requests outside the window do not count.
func TestAnalyseServerAccount(t *testing.T) {
	run := levelRun{concurrency: 2, start: at(0), open: at(0), closedBy: ClosedByRequests, requests: 4,
		end: at(400), streams: make([]streamLog, 2)}
	for i := range run.streams {
		tokenRequest(&run.streams[i], 0, 100, 10, 11) // 10 tokens after the first in 100 ms: 100 tok/s
		tokenRequest(&run.streams[i], 200, 300, 10, 11)
	}
	if lv := analyse(run, ModeOpenAI); lv.Server != nil {
		t.Fatalf("a server that gave no timings has an account: %+v", lv.Server)
	}
	for i, rate := range []float32{100, 80} { // stream 0 agrees with the probe; stream 1's server says 80
		for j := range run.streams[i].samples {
			run.streams[i].samples[j].serverDecode = rate
		}
	}
	lv := analyse(run, ModeOpenAI)
	a := lv.Server
	if a == nil {
		t.Fatal("no server account")
	}
	if a.Requests != 4 || a.Source != "llama.cpp timings" {
		t.Errorf("requests %d, source %q; want 4, llama.cpp timings", a.Requests, a.Source)
	}
	near(t, "server decode p50", a.DecodePerUser.P50, 90)
	near(t, "probe ÷ server, median", a.Ratio, (1+1.25)/2)
}

// TestAnalyseLeavesBurstsOut: a request whose chunks the client read in a
// burst has no decode rate; it is left out of per-stream decode, ITL,
// decoding concurrency, the check and the server's account's comparison,
// counted and said in the samples' description, and its tokens still
// count in the aggregate.
func TestAnalyseLeavesBurstsOut(t *testing.T) {
	run := levelRun{concurrency: 1, start: at(0), open: at(0), closedBy: ClosedByRequests, requests: 3,
		end: at(700), streams: make([]streamLog, 1)}
	log := &run.streams[0]
	tokenRequest(log, 0, 100, 10, 11) // 100 tok/s
	tokenRequest(log, 200, 300, 10, 11)
	// The third request's 11 tokens came in one read at 600 ms.
	tokenRequest(log, 400, 600, 0, 11)
	b := &log.samples[2]
	b.burst, b.lead = true, 11
	for i := range log.samples {
		log.samples[i].serverDecode = 100
	}
	lv := analyse(run, ModeOpenAI)
	if lv.Completed != 3 || lv.DecodeBursts != 1 {
		t.Fatalf("completed %d, bursts %d; want 3, 1", lv.Completed, lv.DecodeBursts)
	}
	d := lv.OutputTokenThroughputPerUser
	if d.Count != 2 || len(d.Samples) != 2 || d.Max != 100 || d.Of != "requests completed in the window (less 1 read in a burst)" {
		t.Errorf("per-stream decode: count %d, max %v, of %q", d.Count, d.Max, d.Of)
	}
	if lv.InterTokenLatency.Count != 2 || lv.OutputSequenceLength.Count != 3 {
		t.Errorf("ITL over %d requests, output length over %d; want 2, 3", lv.InterTokenLatency.Count, lv.OutputSequenceLength.Count)
	}
	near(t, "output tokens", *lv.OutputTokens, 33)
	near(t, "decoding concurrency", lv.DecodingConcurrency, 0.2/0.6)
	near(t, "consistency ratio", lv.Consistency.Ratio, 1)
	// The server timed all three; the probe's rate is compared on two.
	if a := lv.Server; a == nil || a.Requests != 3 || a.NotCompared != 1 || a.Ratio != 1 {
		t.Errorf("server account %+v, want 3 requests, 1 not compared, ratio 1", a)
	}
	r := &Result{Mode: ModeOpenAI, Levels: []Level{lv}}
	for _, out := range []string{RenderText(r), RenderMarkdown(r)} {
		if !strings.Contains(out, "1 of 3 at concurrency 1") {
			t.Errorf("the rendering does not say what was left out:\n%s", out)
		}
	}
}
