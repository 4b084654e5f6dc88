package llmref

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zk-claims/zk/probe"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		kind, body string
		want       Request
		err        string
	}{
		{Ollama, `{"done":true,"eval_count":128,"eval_duration":2540000000,"prompt_eval_count":30,"total_duration":3000000000}`,
			Request{Tokens: 128, PromptTokens: 30, DecodeSeconds: 2.54, TotalSeconds: 3}, ""},
		{Ollama, `{"done":true}`, Request{}, "no eval_count"},
		{LlamaServer, `{"choices":[],"timings":{"prompt_n":31,"prompt_ms":250,"predicted_n":128,"predicted_ms":1270}}`,
			Request{Tokens: 128, PromptTokens: 31, DecodeSeconds: 1.27, TotalSeconds: 1.52}, ""},
		{LlamaServer, `{"choices":[]}`, Request{}, "no timings"},
		{LlamaServer, `not json`, Request{}, "llama-server response"},
	} {
		got, err := parse(tc.kind, []byte(tc.body))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %s: error %v, want %q", tc.kind, tc.body, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s %s: %+v, %v; want %+v", tc.kind, tc.body, got, err, tc.want)
		}
	}
}

func TestRequestDecodeRate(t *testing.T) {
	// 128 tokens: the first comes with the prompt, 127 in 1.27 s.
	if got := (Request{Tokens: 128, DecodeSeconds: 1.27}).DecodeRate(); math.Abs(got-100) > 1e-9 {
		t.Errorf("DecodeRate = %v, want 100", got)
	}
	if got := (Request{Tokens: 1, DecodeSeconds: 1}).DecodeRate(); got != 0 {
		t.Errorf("one token: DecodeRate = %v, want 0 (no interval)", got)
	}
}

func TestLevelFigures(t *testing.T) {
	lv := Level{Concurrency: 4, Requests: []Request{
		{Tokens: 101, DecodeSeconds: 1, TotalSeconds: 2},
		{Tokens: 101, DecodeSeconds: 2, TotalSeconds: 3},
		{Tokens: 101, DecodeSeconds: 4, TotalSeconds: 5},
	}}
	if got := lv.MedianDecode(); got != 50 {
		t.Errorf("MedianDecode = %v, want 50", got)
	}
	// 4 streams × 303 tokens / 10 s of request time.
	if got := lv.Aggregate(); math.Abs(got-121.2) > 1e-9 {
		t.Errorf("Aggregate = %v, want 121.2", got)
	}
	if (Level{Concurrency: 1}).Aggregate() != 0 || (Level{}).MedianDecode() != 0 {
		t.Error("an empty level has figures")
	}
}

// fakeServer answers like Ollama's /api/chat or llama-server's
// /v1/chat/completions: tokens generated at rate per second, after a
// prompt time, reported in the server's own fields.
func fakeServer(t *testing.T, kind string, tokens int, failEvery int64) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &body); err != nil || body["stream"] != false {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if i := n.Add(1); failEvery > 0 && i%failEvery == 0 {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		time.Sleep(5 * time.Millisecond)
		switch {
		case kind == Ollama && r.URL.Path == "/api/chat":
			fmt.Fprintf(w, `{"done":true,"eval_count":%d,"eval_duration":%d,"prompt_eval_count":20,"total_duration":%d}`, tokens, 4_000_000, 5_000_000)
		case kind == LlamaServer && r.URL.Path == "/v1/chat/completions":
			fmt.Fprintf(w, `{"timings":{"prompt_n":20,"prompt_ms":1,"predicted_n":%d,"predicted_ms":4}}`, tokens)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestMeasure(t *testing.T) {
	for _, kind := range []string{Ollama, LlamaServer} {
		srv, n := fakeServer(t, kind, 8, 0)
		lv, err := Measure(context.Background(), Target{Kind: kind, BaseURL: srv.URL, Model: "m", MaxTokens: 8, Prompt: "p"}, 3, 50*time.Millisecond)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if lv.Failed != 0 || lv.Short != 0 || len(lv.Requests) < 3 {
			t.Errorf("%s: %d requests, %d failed, %d short", kind, len(lv.Requests), lv.Failed, lv.Short)
		}
		// Warm-ups (one per stream) are sent and not kept.
		if got := int(n.Load()); got != len(lv.Requests)+3 {
			t.Errorf("%s: server saw %d requests, the level kept %d (+3 warm-ups)", kind, got, len(lv.Requests))
		}
		// 7 tokens after the first in 4 ms; 3 streams × 8 tokens / 5 ms.
		if d, a := lv.MedianDecode(), lv.Aggregate(); math.Abs(d-1750) > 1e-6 || math.Abs(a-4800) > 1e-6 {
			t.Errorf("%s: decode %v, aggregate %v; want 1750, 4800", kind, d, a)
		}
	}
}

func TestMeasureCountsFailuresAndShortAnswers(t *testing.T) {
	srv, _ := fakeServer(t, Ollama, 5, 4)
	lv, err := Measure(context.Background(), Target{Kind: Ollama, BaseURL: srv.URL, Model: "m", MaxTokens: 8, Prompt: "p"}, 2, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if lv.Failed == 0 || len(lv.Errors) == 0 || !strings.Contains(lv.Errors[0], "503") {
		t.Errorf("failed %d, errors %q: the 503s were not counted", lv.Failed, lv.Errors)
	}
	if lv.Short != len(lv.Requests) {
		t.Errorf("%d of %d requests counted short; every answer had 5 of 8 tokens", lv.Short, len(lv.Requests))
	}
}

func TestMeasureRejects(t *testing.T) {
	for _, tgt := range []Target{{Kind: "vllm", MaxTokens: 8}, {Kind: Ollama, MaxTokens: 1}} {
		if _, err := Measure(context.Background(), tgt, 1, time.Second); err == nil {
			t.Errorf("%+v: no error", tgt)
		}
	}
}

func probeLevel(c int, perStream, aggregate float64, failed int) probe.Level {
	tokens := aggregate * 10
	return probe.Level{Concurrency: c, Failed: failed, Completed: 10, Window: probe.Value{Avg: 10},
		OutputTokenThroughputPerUser: &probe.Stat{P50: perStream},
		OutputTokenThroughput:        &probe.Value{Avg: aggregate}, OutputTokens: &tokens}
}

// refLevel is a reference level whose median decode and aggregate are
// decode and aggregate tok/s (101-token requests).
func refLevel(c int, decode, aggregate float64) Level {
	return Level{Concurrency: c, Requests: []Request{{Tokens: 101, DecodeSeconds: 100 / decode, TotalSeconds: float64(c) * 101 / aggregate}}}
}

func TestCompareAndWithin(t *testing.T) {
	// Three rounds; the machine slows down in the second, and both sides
	// see it: each round's ratio is 1 at 1 stream.
	rounds := []Round{
		{&probe.Result{Levels: []probe.Level{probeLevel(1, 150, 140, 0), probeLevel(16, 30, 500, 2)}},
			[]Level{refLevel(1, 150, 140), refLevel(16, 30, 400)}},
		{&probe.Result{Levels: []probe.Level{probeLevel(1, 75, 70, 0), probeLevel(16, 15, 250, 0)}},
			[]Level{refLevel(1, 75, 70), refLevel(16, 15, 200)}},
		{&probe.Result{Levels: []probe.Level{probeLevel(1, 140, 130, 0), probeLevel(16, 28, 480, 0)}},
			[]Level{refLevel(1, 140, 130), refLevel(16, 28, 400)}},
	}
	rows, err := Compare(rounds...)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Concurrency != 1 || rows[1].Concurrency != 16 {
		t.Fatalf("rows %+v", rows)
	}
	r := rows[0]
	if r.Rounds != 3 || math.Abs(r.ServerDecode-140) > 1e-6 || math.Abs(r.ProbePerStream-140) > 1e-6 {
		t.Errorf("1 stream: %d rounds, server decode %v, probe %v; want medians 140", r.Rounds, r.ServerDecode, r.ProbePerStream)
	}
	if math.Abs(r.DecodeRatio()-1) > 1e-6 || math.Abs(r.AggregateRatio()-1) > 1e-6 {
		t.Errorf("1 stream: ratios %v %v; each round agrees, so 1", r.DecodeRatios, r.AggregateRatios)
	}
	if r.ServerRequests != 3 || r.ServerTokens != 303 {
		t.Errorf("1 stream: %d requests, %d tokens: every round counts", r.ServerRequests, r.ServerTokens)
	}
	// The ratio is the columns beside it: the medians 480 over 400, not
	// the median of the rounds' ratios (1.25, 1.25, 1.2).
	if r := rows[1]; math.Abs(r.AggregateRatio()-1.2) > 1e-6 || math.Abs(r.AggregateRatio()-r.ProbeAggregate/r.ServerAggregate) > 1e-9 {
		t.Errorf("16 streams: aggregate ratio %v, want 480 / 400 = 1.2", r.AggregateRatio())
	}
	if d, _ := rows[0].Drift(); math.Abs(d-1) > 1e-6 {
		t.Errorf("1 stream: the server's decode went 150, 75, 140: drift %v, want 1 (100%%)", d)
	}
	// Adjacent windows: the ratios are not judged, the failures are.
	ok, why := Within(rows, 0.10, Adjacent)
	if ok || strings.Contains(strings.Join(why, ""), "ratio") {
		t.Errorf("adjacent windows: Within %v %q; want only the failed requests", ok, why)
	}
	if u := strings.Join(Unjudged(rows, Adjacent), "\n"); !strings.Contains(u, "1 streams: the server drifted 100% (decode)") ||
		!strings.Contains(u, "per-stream decode and aggregate not judged: adjacent windows") {
		t.Errorf("Unjudged does not report the drift apart:\n%s", u)
	}
	ok, why = Within(rows, 0.10, Simultaneous)
	if ok {
		t.Fatal("Within accepted 2 failed requests and a 20% aggregate difference")
	}
	got := strings.Join(why, "\n")
	for _, want := range []string{"16 streams: aggregate ratio 1.20", "16 streams: 2 probe and 0 reference requests failed"} {
		if !strings.Contains(got, want) {
			t.Errorf("Within's reasons lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "1 streams") {
		t.Errorf("1 stream agrees within 10%%, yet:\n%s", got)
	}
	md := Markdown(rows)
	for _, want := range []string{"| 1 | 140.0 | 140.0 | 1.00 [1.00–1.00] | 130.0 | 130.0 | 1.00 [1.00–1.00] | 100% / ", "16 streams: 3 rounds, probe 30 requests completed"} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
	if _, err := Compare(Round{&probe.Result{Levels: []probe.Level{probeLevel(4, 1, 1, 0)}}, []Level{refLevel(1, 1, 1)}}); err == nil {
		t.Error("a probe level missing from the reference was compared")
	}
}

func TestWithinFlagsConsistency(t *testing.T) {
	pl := probeLevel(16, 30, 480, 0)
	pl.Consistency = &probe.Consistency{Ratio: 0.76, Tolerance: 0.15, Flagged: true}
	pl.FailedOutsideWindow = 1
	pl.ErrorSummaryOutsideWindow = []probe.ErrorCount{{Message: "no response within 1m0s", Count: 1}}
	rows, err := Compare(Round{&probe.Result{Levels: []probe.Level{pl}}, []Level{refLevel(16, 30, 480)}})
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := Within(rows, 0.10, Simultaneous); ok || !strings.Contains(strings.Join(why, ""), "consistency check fired in 1 of 1") {
		t.Errorf("Within: %v %q", ok, why)
	}
	if md := Markdown(rows); !strings.Contains(md, "16 streams, failed: probe: no response within 1m0s (1)") {
		t.Errorf("the table does not say why a request failed:\n%s", md)
	}
}

// TestWithinJudgesTheSameRequests: where the probe's levels carry the
// server's account of the probe's own requests, per-stream decode is
// judged on it: two adjacent windows that drifted 30% apart do not fail a
// probe that agrees with the server on the same requests, and one that
// disagrees on them fails however the windows compare.
func TestWithinJudgesTheSameRequests(t *testing.T) {
	level := func(ratio float64) probe.Level {
		pl := probeLevel(4, 39, 150, 0)
		pl.Server = &probe.ServerAccount{Source: "llama.cpp timings", Requests: 20, Ratio: ratio}
		return pl
	}
	rows, err := Compare(Round{&probe.Result{Levels: []probe.Level{level(0.99)}}, []Level{refLevel(4, 30, 150)}},
		Round{&probe.Result{Levels: []probe.Level{level(1.01)}}, []Level{refLevel(4, 30, 150)}})
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := Within(rows, 0.10, Adjacent); !ok {
		t.Errorf("the same requests agree within 1%%, yet: %q", why)
	}
	if md := Markdown(rows); !strings.Contains(md, "1.00 [0.99–1.01] at 4 streams (40 requests)") {
		t.Errorf("the table does not give the same-request ratio:\n%s", md)
	}
	rows, err = Compare(Round{&probe.Result{Levels: []probe.Level{level(0.8)}}, []Level{refLevel(4, 39, 150)}})
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := Within(rows, 0.10, Adjacent); ok || !strings.Contains(strings.Join(why, ""), "same-request decode ratio 0.80") {
		t.Errorf("Within: %v %q", ok, why)
	}
}

// TestMeasureStaggersTheWarmUps: stream k's warm-up asks for (k+1)/N of
// the budget, as zk probe's does, so the reference's streams are not held
// in lockstep while the probe's are spread; every measured request asks
// for the whole budget.
func TestMeasureStaggersTheWarmUps(t *testing.T) {
	for _, kind := range []string{Ollama, LlamaServer} {
		var mu sync.Mutex
		asked := map[int]int{} // request number -> tokens asked for
		seqRE := regexp.MustCompile(`^Request (\d+)\. `)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var body struct {
				MaxTokens int `json:"max_tokens"`
				Options   struct {
					NumPredict int `json:"num_predict"`
				} `json:"options"`
				Messages []struct {
					Content string `json:"content"`
				} `json:"messages"`
			}
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Messages) == 0 {
				http.Error(w, "bad request", http.StatusBadRequest)
				return
			}
			m := seqRE.FindStringSubmatch(body.Messages[0].Content)
			if m == nil {
				http.Error(w, "no request number", http.StatusBadRequest)
				return
			}
			n, _ := strconv.Atoi(m[1])
			tokens := max(body.MaxTokens, body.Options.NumPredict)
			mu.Lock()
			asked[n] = tokens
			mu.Unlock()
			if kind == Ollama {
				fmt.Fprintf(w, `{"done":true,"eval_count":%d,"eval_duration":4000000,"total_duration":5000000}`, tokens)
			} else {
				fmt.Fprintf(w, `{"timings":{"prompt_n":20,"prompt_ms":1,"predicted_n":%d,"predicted_ms":4}}`, tokens)
			}
		}))
		lv, err := Measure(context.Background(), Target{Kind: kind, BaseURL: srv.URL, Model: "m", MaxTokens: 8, Prompt: "p"}, 3, 20*time.Millisecond)
		srv.Close()
		if err != nil || lv.Failed != 0 || lv.Short != 0 {
			t.Fatalf("%s: %v, %d failed, %d short", kind, err, lv.Failed, lv.Short)
		}
		// Requests are numbered as they are sent, each stream's warm-up
		// first: 1–3 are the warm-ups.
		var warm []int
		for n, m := range asked {
			if n <= 3 {
				warm = append(warm, m)
			} else if m != 8 {
				t.Errorf("%s: measured request %d asked for %d tokens, want 8", kind, n, m)
			}
		}
		slices.Sort(warm)
		if want := []int{3, 6, 8}; !slices.Equal(warm, want) {
			t.Errorf("%s: warm-ups asked for %v tokens, want %v", kind, warm, want)
		}
	}
}

// TestMeasureStreamed: with Stream, Ollama is asked for a streamed answer
// and the figures come from its last chunk, the one with done: true.
func TestMeasureStreamed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body["stream"] != true {
			http.Error(w, "want stream: true", http.StatusBadRequest)
			return
		}
		for range 7 {
			fmt.Fprintln(w, `{"message":{"content":"x"},"done":false}`)
		}
		fmt.Fprintln(w, `{"done":true,"eval_count":8,"eval_duration":4000000,"prompt_eval_count":20,"total_duration":5000000}`)
	}))
	defer srv.Close()
	lv, err := Measure(context.Background(), Target{Kind: Ollama, Stream: true, BaseURL: srv.URL, Model: "m", MaxTokens: 8, Prompt: "p"}, 2, 20*time.Millisecond)
	if err != nil || lv.Failed != 0 || len(lv.Requests) == 0 {
		t.Fatalf("%v, %d failed (%q), %d requests", err, lv.Failed, lv.Errors, len(lv.Requests))
	}
	if r := lv.Requests[0]; r.Tokens != 8 || r.PromptTokens != 20 || r.DecodeSeconds != 0.004 || r.TotalSeconds != 0.005 {
		t.Errorf("figures %+v, want the last chunk's", r)
	}
	if _, err := Measure(context.Background(), Target{Kind: LlamaServer, Stream: true, MaxTokens: 8}, 1, time.Second); err == nil {
		t.Error("a streamed llama-server reference was accepted")
	}
}
