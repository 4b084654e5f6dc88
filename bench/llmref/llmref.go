// Package llmref measures an LLM server by its own account, the reference
// zk probe openai is held to in bench/ollama.sh and bench/llama-server.sh.
//
// A probe times tokens as they arrive. A server times them as it makes
// them and says so per request on its native API: Ollama's /api/chat
// answers with eval_count and eval_duration, llama.cpp's llama-server with
// timings.predicted_n and predicted_ms. Measure runs closed-loop streams of
// non-streamed requests (the prompt and the token budget the probe sends)
// and keeps, per request, those figures; Compare sets them beside a
// probe's result like with like:
//
//   - per stream: the probe's median decode rate (tokens after the first
//     over the time after the first) against the median of the server's
//     per-request decode rate, (n-1)/duration: both servers count the
//     first token, made with the prompt, in n, and start the clock when it
//     is made, so n-1 tokens fall in the duration;
//   - aggregate: the probe's tokens arrived in its window over the window,
//     against the server's tokens over its busy time per stream:
//     streams × Σ n ÷ Σ request time (Ollama's total_duration,
//     llama-server's prompt_ms+predicted_ms). In a closed loop every
//     stream is always busy, so this is the server's output rate, free of
//     the window's edges.
package llmref

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// The servers Measure speaks to.
const (
	Ollama      = "ollama"
	LlamaServer = "llama-server"
)

// Target is a server and what to ask of it.
type Target struct {
	Kind      string // Ollama or LlamaServer
	BaseURL   string // http://127.0.0.1:PORT, without /v1
	Model     string
	MaxTokens int
	Prompt    string // each request prefixes "Request N. ", as the probe does
	// Stream asks Ollama for a streamed answer and reads its figures from
	// the last chunk (done: true), so that the reference takes the
	// streamed path the probe takes; Ollama only.
	Stream bool
	Client *http.Client
}

// Request is one request's figures as the server reported them.
type Request struct {
	Tokens        int     `json:"tokens"`         // generated, as the server counts them
	PromptTokens  int     `json:"prompt_tokens"`  // as the server counts them
	DecodeSeconds float64 `json:"decode_seconds"` // from the first generated token to the last
	TotalSeconds  float64 `json:"total_seconds"`  // the server's time on the request
	ClientSeconds float64 `json:"client_seconds"` // the request's wall time at the client
}

// DecodeRate is the request's decode rate by the server's clock: the
// tokens after the first over the time after the first.
func (r Request) DecodeRate() float64 {
	if r.Tokens < 2 || r.DecodeSeconds <= 0 {
		return 0
	}
	return float64(r.Tokens-1) / r.DecodeSeconds
}

// Level is one concurrency level's requests.
type Level struct {
	Concurrency int       `json:"concurrency"`
	Window      float64   `json:"window_s"` // wall seconds from the first measured request's start to the last one's end
	Requests    []Request `json:"requests"`
	Failed      int       `json:"failed"`
	Short       int       `json:"short"` // answered with fewer tokens than asked for
	Errors      []string  `json:"errors,omitempty"`
}

// MedianDecode is the median of the server's per-request decode rates.
func (l Level) MedianDecode() float64 {
	var xs []float64
	for _, r := range l.Requests {
		if d := r.DecodeRate(); d > 0 {
			xs = append(xs, d)
		}
	}
	return median(xs)
}

// Aggregate is the server's output rate: streams × Σ tokens ÷ Σ request
// time (see the package comment).
func (l Level) Aggregate() float64 {
	var n, t float64
	for _, r := range l.Requests {
		n += float64(r.Tokens)
		t += r.TotalSeconds
	}
	if t == 0 {
		return 0
	}
	return float64(l.Concurrency) * n / t
}

// Tokens is the sum of the tokens the server reported generating.
func (l Level) Tokens() int {
	n := 0
	for _, r := range l.Requests {
		n += r.Tokens
	}
	return n
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Measure runs concurrency closed-loop streams against t: one unmeasured
// warm-up request per stream, then requests until window has passed since
// the last warm-up ended (the last ones finish). Stream k's warm-up asks
// for (k+1)/concurrency of the token budget, as zk probe's does, so the
// measured requests begin spread over one request's length: streams
// started together with equal budgets would run in lockstep on a batching
// server (all prefilled in one batch, all finishing together), a load the
// probe's streams do not see. A request that fails ends its stream's level
// early and is counted; the level is still returned.
func Measure(ctx context.Context, t Target, concurrency int, window time.Duration) (Level, error) {
	if concurrency < 1 || window <= 0 || t.MaxTokens < 2 {
		return Level{}, errors.New("llmref: concurrency, window and max tokens (at least 2) must be positive")
	}
	if t.Stream && t.Kind != Ollama {
		return Level{}, errors.New("llmref: a streamed reference is for Ollama only")
	}
	if t.Kind != Ollama && t.Kind != LlamaServer {
		return Level{}, fmt.Errorf("llmref: unknown server kind %q (want %s or %s)", t.Kind, Ollama, LlamaServer)
	}
	if t.Client == nil {
		t.Client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: concurrency}, Timeout: 5 * time.Minute}
	}
	lv := Level{Concurrency: concurrency}
	var (
		mu                sync.Mutex
		open, first, last time.Time
		warming           = concurrency
		seq               = concurrency // 1..concurrency are the warm-ups
		wg                sync.WaitGroup
	)
	next := func() int { mu.Lock(); defer mu.Unlock(); seq++; return seq }
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		lv.Failed++
		if len(lv.Errors) < 5 {
			lv.Errors = append(lv.Errors, err.Error())
		}
	}
	for k := range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			budget := max(1, (t.MaxTokens*(k+1)+concurrency-1)/concurrency)
			// Stream k's warm-up is request k+1 whenever its goroutine
			// runs: a fast stream's first measured request cannot take
			// a slow one's warm-up number.
			_, err := t.do(ctx, k+1, budget)
			mu.Lock()
			if warming--; warming == 0 {
				open = time.Now()
			}
			mu.Unlock()
			if err != nil {
				fail(fmt.Errorf("warm-up: %w", err))
				return
			}
			for {
				t0 := time.Now()
				mu.Lock()
				over := !open.IsZero() && t0.Sub(open) >= window
				if !over && (first.IsZero() || t0.Before(first)) {
					first = t0
				}
				mu.Unlock()
				if over || ctx.Err() != nil {
					return
				}
				r, err := t.do(ctx, next(), t.MaxTokens)
				if err != nil {
					fail(err)
					return
				}
				r.ClientSeconds = time.Since(t0).Seconds()
				mu.Lock()
				lv.Requests = append(lv.Requests, r)
				if r.Tokens < t.MaxTokens {
					lv.Short++
				}
				if end := time.Now(); end.After(last) {
					last = end
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if !first.IsZero() && last.After(first) {
		lv.Window = last.Sub(first).Seconds()
	}
	return lv, ctx.Err()
}

// do sends request number n, asking for maxTokens, and returns the
// server's figures for it.
func (t Target) do(ctx context.Context, n, maxTokens int) (Request, error) {
	prompt := fmt.Sprintf("Request %d. %s", n, t.Prompt)
	msgs := []map[string]string{{"role": "user", "content": prompt}}
	var url string
	var body map[string]any
	switch t.Kind {
	case Ollama:
		url = t.BaseURL + "/api/chat"
		body = map[string]any{"model": t.Model, "messages": msgs, "stream": t.Stream,
			"options": map[string]any{"num_predict": maxTokens, "temperature": 0}}
	default:
		url = t.BaseURL + "/v1/chat/completions"
		body = map[string]any{"model": t.Model, "messages": msgs, "stream": false,
			"max_tokens": maxTokens, "temperature": 0}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return Request{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return Request{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.Client.Do(req)
	if err != nil {
		return Request{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Request{}, err
	}
	if t.Stream && resp.StatusCode == http.StatusOK {
		// Newline-delimited chunks; the figures are in the last one.
		lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
		data = lines[len(lines)-1]
	}
	if resp.StatusCode != http.StatusOK {
		return Request{}, fmt.Errorf("%s: %s: %s", url, resp.Status, strings.TrimSpace(string(data)))
	}
	return parse(t.Kind, data)
}

// parse reads the server's own figures from a non-streamed response.
func parse(kind string, data []byte) (Request, error) {
	switch kind {
	case Ollama:
		var r struct {
			EvalCount          *int  `json:"eval_count"`
			EvalDuration       int64 `json:"eval_duration"`
			PromptEvalCount    int   `json:"prompt_eval_count"`
			PromptEvalDuration int64 `json:"prompt_eval_duration"`
			TotalDuration      int64 `json:"total_duration"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return Request{}, fmt.Errorf("ollama response: %w", err)
		}
		if r.EvalCount == nil {
			return Request{}, errors.New("ollama response has no eval_count")
		}
		return Request{Tokens: *r.EvalCount, PromptTokens: r.PromptEvalCount,
			DecodeSeconds: float64(r.EvalDuration) / 1e9, TotalSeconds: float64(r.TotalDuration) / 1e9}, nil
	default:
		var r struct {
			Timings *struct {
				PromptN     int     `json:"prompt_n"`
				PromptMS    float64 `json:"prompt_ms"`
				PredictedN  int     `json:"predicted_n"`
				PredictedMS float64 `json:"predicted_ms"`
			} `json:"timings"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return Request{}, fmt.Errorf("llama-server response: %w", err)
		}
		if r.Timings == nil {
			return Request{}, errors.New("llama-server response has no timings")
		}
		tm := r.Timings
		return Request{Tokens: tm.PredictedN, PromptTokens: tm.PromptN,
			DecodeSeconds: tm.PredictedMS / 1e3, TotalSeconds: (tm.PromptMS + tm.PredictedMS) / 1e3}, nil
	}
}
