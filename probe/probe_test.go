package probe_test

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zk-claims/zk/probe"
	"github.com/zk-claims/zk/probe/probetest"
)

// These tests run against probetest's SIMULATED server: a token budget
// shared by the streams in flight. They assert what the sweep must show
// whatever the machine's speed: which source the tokens came from, what
// was counted, and that per-stream and aggregate part ways as streams share
// the budget.

func simulate(t *testing.T, sim *probetest.Simulator) string {
	t.Helper()
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func TestOpenAIPerStreamAndAggregatePartWays(t *testing.T) {
	// 800 tok/s, not faster: a stream's tokens 1.25 ms apart, which a
	// loaded client still reads a few at a time (see Level.DecodeBursts).
	url := simulate(t, &probetest.Simulator{Budget: 800, PerStream: 800})
	res, err := probe.OpenAI(context.Background(),
		probe.OpenAITarget{BaseURL: url, Model: "m", MaxTokens: 40},
		probe.Config{Concurrency: []int{1, 8}, Requests: 16, Warmup: 1, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Schema != probe.Schema || !res.Simulated || len(res.Levels) != 2 {
		t.Fatalf("schema %q, simulated %v, %d levels", res.Schema, res.Simulated, len(res.Levels))
	}
	one, eight := res.Levels[0], res.Levels[1]
	for _, lv := range res.Levels {
		if lv.Completed != 16 || lv.Failed != 0 || lv.TokensSource != "usage" {
			t.Errorf("c=%d: %d ok, %d failed, tokens from %q; want 16, 0, usage", lv.Concurrency, lv.Completed, lv.Failed, lv.TokensSource)
		}
		if lv.OutputSequenceLength.Min != 40 || lv.OutputSequenceLength.Max != 40 {
			t.Errorf("c=%d: output lengths %v..%v, want 40", lv.Concurrency, lv.OutputSequenceLength.Min, lv.OutputSequenceLength.Max)
		}
	}
	// Eight streams share what one stream had alone: each gets an eighth,
	// so well under half, while the aggregate does not shrink with them.
	if one.OutputTokenThroughputPerUser == nil || eight.OutputTokenThroughputPerUser == nil {
		t.Fatalf("no per-stream decode rate: %d and %d requests read in a burst at c=1 and c=8", one.DecodeBursts, eight.DecodeBursts)
	}
	if p1, p8 := one.OutputTokenThroughputPerUser.P50, eight.OutputTokenThroughputPerUser.P50; !(p8 < p1/2) {
		t.Errorf("per-stream p50: %.0f tok/s at c=1, %.0f at c=8; want c=8 under half of c=1", p1, p8)
	}
	if a1, a8 := one.OutputTokenThroughput.Avg, eight.OutputTokenThroughput.Avg; !(a8 > a1/2) {
		t.Errorf("aggregate: %.0f tok/s at c=1, %.0f at c=8; want it not to fall with the per-stream rate", a1, a8)
	}
}

// TestOpenAIWindowIsTheDurationAsked: each level's window is as long as
// Duration, although every request takes most of it; the warm-up before
// it and the drain after it are reported apart, and every request sent is
// in exactly one phase.
func TestOpenAIWindowIsTheDurationAsked(t *testing.T) {
	url := simulate(t, &probetest.Simulator{Budget: 1000, PerStream: 200})
	for _, drain := range []time.Duration{0, time.Minute} {
		res, err := probe.OpenAI(context.Background(),
			probe.OpenAITarget{BaseURL: url, Model: "m", MaxTokens: 40}, // 200 ms a request alone
			probe.Config{Concurrency: []int{1, 4}, Duration: 300 * time.Millisecond, Warmup: 1, Drain: drain,
				Timeout: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		for _, lv := range res.Levels {
			if lv.WindowClosedBy != probe.ClosedByDuration || math.Abs(lv.Window.Avg-0.3) > 1e-9 {
				t.Errorf("drain %v, c=%d: window %v s closed by %s; want 0.3 s closed by duration",
					drain, lv.Concurrency, lv.Window.Avg, lv.WindowClosedBy)
			}
			if lv.Warmup.Avg <= 0 || lv.Drain.Avg < 0 {
				t.Errorf("drain %v, c=%d: warm-up %v s, drain %v s", drain, lv.Concurrency, lv.Warmup.Avg, lv.Drain.Avg)
			}
			if lv.BeforeWindow < lv.Concurrency || lv.Sent != lv.BeforeWindow+lv.Completed+lv.Failed+lv.AfterWindow {
				t.Errorf("drain %v, c=%d: %d sent, %d before, %d ok, %d failed, %d after", drain, lv.Concurrency,
					lv.Sent, lv.BeforeWindow, lv.Completed, lv.Failed, lv.AfterWindow)
			}
			// The aggregate is the tokens that arrived in the window over it.
			if got := lv.OutputTokenThroughput.Avg * lv.Window.Avg; math.Abs(got-*lv.OutputTokens) > 1e-6 {
				t.Errorf("drain %v, c=%d: aggregate × window = %v, output tokens %v", drain, lv.Concurrency, got, *lv.OutputTokens)
			}
			// With a drain far longer than a request, every request in
			// flight at the close finishes; without, none is waited for.
			if drain > 0 && lv.CompletedAfterWindow != lv.AfterWindow {
				t.Errorf("drain %v, c=%d: %d of %d requests after the window finished", drain, lv.Concurrency,
					lv.CompletedAfterWindow, lv.AfterWindow)
			}
		}
		if res.DrainS != drain.Seconds() {
			t.Errorf("drain_s %v, want %v", res.DrainS, drain.Seconds())
		}
	}
}

// TestOpenAIServerClosingAfterEachStream: a server that closes the
// connection after each streamed response while advertising keep-alive
// (llama.cpp's llama-server) costs no request: the one that finds its
// reused connection dead before any response byte is sent once more on a
// fresh one, and counted as retried.
func TestOpenAIServerClosingAfterEachStream(t *testing.T) {
	url := simulate(t, &probetest.Simulator{Budget: 4000, PerStream: 1000, CloseAfterStream: true})
	res, err := probe.OpenAI(context.Background(),
		probe.OpenAITarget{BaseURL: url, Model: "m", MaxTokens: 8},
		probe.Config{Concurrency: []int{1, 4}, Requests: 12, Warmup: 2, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	retried := 0
	for _, lv := range res.Levels {
		if lv.Completed != 12 || lv.Failed != 0 || lv.FailedOutsideWindow != 0 {
			t.Errorf("c=%d: %d ok, %d failed, %d failed outside the window, %v; want 12, 0, 0",
				lv.Concurrency, lv.Completed, lv.Failed, lv.FailedOutsideWindow, lv.ErrorSummary)
		}
		retried += lv.Retried
	}
	// The first stream's second request finds its connection closed;
	// from then on every request dials its own.
	if retried < 1 || !res.DialPerRequest {
		t.Errorf("%d requests retried, dial per request %v; want at least 1, true", retried, res.DialPerRequest)
	}
}

func TestOpenAICountsChunksWithoutUsage(t *testing.T) {
	url := simulate(t, &probetest.Simulator{Budget: 5000, TokensPerChunk: 4, IgnoreUsage: true})
	res, err := probe.OpenAI(context.Background(),
		probe.OpenAITarget{BaseURL: url, Model: "m", MaxTokens: 20, Endpoint: probe.EndpointCompletions},
		probe.Config{Concurrency: []int{2}, Requests: 4, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	lv := res.Levels[0]
	// Without a usage block the probe can only count chunks: 20 tokens in
	// chunks of 4 look like 5, and the result says where the count came from.
	if lv.TokensSource != "chunks" || lv.OutputSequenceLength.P50 != 5 {
		t.Errorf("tokens from %q, output length %v; want chunks, 5", lv.TokensSource, lv.OutputSequenceLength.P50)
	}
}

func TestOpenAIServerErrorsAreCounted(t *testing.T) {
	url := simulate(t, &probetest.Simulator{Budget: 5000, Model: "served"})
	_, err := probe.OpenAI(context.Background(),
		probe.OpenAITarget{BaseURL: url, Model: "other", MaxTokens: 5},
		probe.Config{Concurrency: []int{1}, Requests: 3, Warmup: 1, Timeout: 30 * time.Second})
	if err == nil {
		t.Fatal("a model the server does not have did not fail the warm-up")
	}
	res, err := probe.OpenAI(context.Background(),
		probe.OpenAITarget{BaseURL: url, Model: "other", MaxTokens: 5},
		probe.Config{Concurrency: []int{1}, Requests: 3, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if lv := res.Levels[0]; lv.Completed != 0 || lv.Failed != 3 || len(lv.ErrorSummary) != 1 {
		t.Errorf("%d ok, %d failed, errors %v; want 0, 3, one kind", lv.Completed, lv.Failed, lv.ErrorSummary)
	}
}

func TestInterruptKeepsWhatWasMeasured(t *testing.T) {
	url := simulate(t, &probetest.Simulator{Budget: 100, PerStream: 100})
	ctx, cancel := context.WithCancel(context.Background())
	levels := 0
	cfg := probe.Config{Concurrency: []int{1, 2}, Requests: 2, Timeout: 30 * time.Second,
		Progress: func(p probe.Progress) {
			if p.Concurrency == 2 {
				cancel() // interrupt as the second level starts
			}
			levels = max(levels, p.Concurrency)
		}}
	res, err := probe.OpenAI(ctx, probe.OpenAITarget{BaseURL: url, Model: "m", MaxTokens: 3}, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !res.WasCancelled || len(res.Levels) == 0 || res.Levels[0].Completed != 2 {
		t.Fatalf("cancelled %v, levels %+v; want the first level kept", res.WasCancelled, res.Levels)
	}
	if n := len(res.Levels); n == 2 && !res.Levels[1].Partial {
		t.Error("the interrupted level is not marked partial")
	}
}

func TestHTTP(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Server", "test")
		w.Write([]byte("hello"))
	}))
	defer srv.Close()
	res, err := probe.HTTP(context.Background(), probe.HTTPTarget{URL: srv.URL + "/"},
		probe.Config{Concurrency: []int{1, 3}, Requests: 30, Warmup: 2, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Server != "test" || res.Simulated {
		t.Errorf("server %q, simulated %v", res.Server, res.Simulated)
	}
	sent, answered := 0, 0
	for _, lv := range res.Levels {
		if lv.Completed != 30 || lv.Failed != 0 || lv.RequestThroughputPerUser == nil {
			t.Errorf("c=%d: %d ok, %d failed", lv.Concurrency, lv.Completed, lv.Failed)
		}
		// Warm-up is sent and not counted: 2 per stream end before the
		// window opens.
		if lv.BeforeWindow < 2*lv.Concurrency {
			t.Errorf("c=%d: %d requests before the window, want at least %d", lv.Concurrency, lv.BeforeWindow, 2*lv.Concurrency)
		}
		if lv.Sent != lv.BeforeWindow+lv.Completed+lv.Failed+lv.AfterWindow {
			t.Errorf("c=%d: %d sent = %d before + %d ok + %d failed + %d after?", lv.Concurrency,
				lv.Sent, lv.BeforeWindow, lv.Completed, lv.Failed, lv.AfterWindow)
		}
		sent += lv.Sent
		answered += lv.BeforeWindow + lv.Completed + lv.Failed
	}
	// Every request the server saw is accounted for in some phase (some
	// cancelled at a window's close never reached it).
	if n := int(hits.Load()); n > sent || n < answered {
		t.Errorf("server saw %d requests, the levels report %d sent, %d answered", n, sent, answered)
	}
	res, err = probe.HTTP(context.Background(), probe.HTTPTarget{URL: srv.URL + "/missing"},
		probe.Config{Concurrency: []int{2}, Requests: 4, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if lv := res.Levels[0]; lv.Completed != 0 || lv.Failed != 4 || lv.ErrorSummary[0].Message != "HTTP 404 Not Found" {
		t.Errorf("404s: %d ok, %d failed, %v", lv.Completed, lv.Failed, lv.ErrorSummary)
	}
}

// TestHTTPFraming sends responses of every framing the probe's reader
// knows through real connections: each must complete without an error,
// and a server that closes after each response must be redialled.
func TestHTTPFraming(t *testing.T) {
	big := strings.Repeat("x", 200<<10) // several reads of the 32 KiB buffer
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/chunked":
			w.Write([]byte("part one"))
			w.(http.Flusher).Flush() // no Content-Length: chunked
			w.Write([]byte(big))
		case "/close":
			w.Header().Set("Connection", "close")
			w.Write([]byte("bye"))
		case "/big":
			w.Write([]byte(big))
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer srv.Close()
	for _, path := range []string{"/chunked", "/close", "/big", "/empty"} {
		res, err := probe.HTTP(context.Background(), probe.HTTPTarget{URL: srv.URL + path},
			probe.Config{Concurrency: []int{1, 2}, Requests: 20, Warmup: 1, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, lv := range res.Levels {
			if lv.Completed != 20 || lv.Failed != 0 {
				t.Errorf("%s c=%d: %d ok, %d failed, %v", path, lv.Concurrency, lv.Completed, lv.Failed, lv.ErrorSummary)
			}
		}
	}
}

func TestHTTPS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("secure"))
	}))
	defer srv.Close()
	cfg := probe.Config{Concurrency: []int{2}, Requests: 6, Timeout: 10 * time.Second}
	tlsConfig := srv.Client().Transport.(*http.Transport).TLSClientConfig
	res, err := probe.HTTP(context.Background(), probe.HTTPTarget{URL: srv.URL, TLS: tlsConfig}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if lv := res.Levels[0]; lv.Completed != 6 || lv.Failed != 0 {
		t.Errorf("https: %d ok, %d failed, %v", lv.Completed, lv.Failed, lv.ErrorSummary)
	}
	// An unknown certificate is an error, never skipped.
	_, err = probe.HTTP(context.Background(), probe.HTTPTarget{URL: srv.URL},
		probe.Config{Concurrency: []int{1}, Requests: 1, Warmup: 1, Timeout: 10 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("untrusted certificate: err = %v", err)
	}
}

func TestBadConfigIsRefusedBeforeSending(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	bad := probe.Config{Duration: time.Second, Timeout: time.Second} // no levels
	if _, err := probe.HTTP(context.Background(), probe.HTTPTarget{URL: srv.URL}, bad); err == nil {
		t.Error("HTTP accepted a config without levels")
	}
	if _, err := probe.OpenAI(context.Background(), probe.OpenAITarget{BaseURL: srv.URL, Model: "m", MaxTokens: 1}, bad); err == nil {
		t.Error("OpenAI accepted a config without levels")
	}
	if hits.Load() != 0 {
		t.Errorf("%d requests sent on a bad config", hits.Load())
	}
}

// TestHTTPTimeout: a server that accepts and never answers costs each
// request its timeout, reported as such, and the sweep still ends.
func TestHTTPTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, silent, until the test ends
		}
	}()
	res, err := probe.HTTP(context.Background(), probe.HTTPTarget{URL: "http://" + ln.Addr().String() + "/"},
		probe.Config{Concurrency: []int{2}, Requests: 4, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	lv := res.Levels[0]
	if lv.Completed != 0 || lv.Failed != 4 || len(lv.ErrorSummary) != 1 || lv.ErrorSummary[0].Message != "no response within 50ms" {
		t.Errorf("%d ok, %d failed, %+v", lv.Completed, lv.Failed, lv.ErrorSummary)
	}
}

// TestOpenAIBurstIsNoRate: a client descheduled through a request's decode
// reads its chunks at once when it wakes. A server that writes each
// response in one go stands for it: every request arrives in a burst, and
// none may give a per-stream decode rate (timed over the parsing, they
// came out at hundreds of thousands of tok/s); each is counted as left
// out, and said so, while the aggregate counts their tokens.
func TestOpenAIBurstIsNoRate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		time.Sleep(2 * time.Millisecond) // a prefill, and a decode the client does not see
		body := strings.Repeat("data: {\"choices\":[{\"delta\":{\"content\":\" tok\"}}]}\n\n", 24) +
			"data: {\"choices\":[],\"usage\":{\"completion_tokens\":24}}\n\ndata: [DONE]\n\n"
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	res, err := probe.OpenAI(context.Background(),
		probe.OpenAITarget{BaseURL: srv.URL + "/v1", Model: "m", MaxTokens: 24},
		probe.Config{Concurrency: []int{1}, Requests: 8, Warmup: 1, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	lv := res.Levels[0]
	if lv.Completed != 8 || lv.DecodeBursts != 8 {
		t.Errorf("%d completed, %d left out as bursts; want 8, 8", lv.Completed, lv.DecodeBursts)
	}
	if d := lv.OutputTokenThroughputPerUser; d != nil {
		t.Errorf("per-stream decode from requests read at once: p50 %.0f, max %.0f %s", d.P50, d.Max, d.Unit)
	}
	if lv.InterTokenLatency != nil || lv.Consistency != nil {
		t.Errorf("ITL %+v, check %+v from requests read at once", lv.InterTokenLatency, lv.Consistency)
	}
	if lv.OutputTokens == nil || *lv.OutputTokens != 8*24 {
		t.Errorf("output tokens %v, want the window's", lv.OutputTokens)
	}
	if out := probe.RenderText(res); !strings.Contains(out, "Read in a burst, not timed: 8 of 8 at concurrency 1") {
		t.Errorf("the table does not say what was left out:\n%s", out)
	}
}
