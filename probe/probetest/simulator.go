// Package probetest is a SIMULATION of an OpenAI-compatible streaming
// server, for testing and demonstrating package probe without a GPU.
//
// It models one property of a continuously batching server (vLLM,
// llama.cpp's server with several slots): the server decodes a fixed budget
// of tokens per second and shares it among the streams in flight, so each
// stream gets Budget/active tokens per second, capped at PerStream (one
// sequence alone cannot use the whole batch). With a budget of 500 and a
// cap of 100, one stream sees 100 tok/s, and sixteen see about 31 each, 500
// in aggregate. Nothing else about a real server is modelled: no
// tokenizer, no KV cache, no prefill that scales with the prompt.
//
// Every response carries the header X-Zk-Simulation, so a probe result
// made against the simulator says so.
package probetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Simulator is the simulated server; its zero value is not useful, set
// Budget at least. It is safe for concurrent use; do not change its fields
// while it serves.
type Simulator struct {
	// Budget is the tokens per second the server decodes in total, shared
	// by the streams in flight.
	Budget float64
	// PerStream caps one stream's tokens per second; zero means no cap.
	PerStream float64
	// Prefill is the wait before a stream's first token.
	Prefill time.Duration
	// TokensPerChunk bundles tokens into one streamed chunk, as servers
	// do under load; zero means one token per chunk.
	TokensPerChunk int
	// Model is the model id it answers to; empty means any.
	Model string
	// IgnoreUsage leaves out the usage block even when asked for, as some
	// servers do, so a client has to count chunks.
	IgnoreUsage bool

	active atomic.Int64
}

// header is the value of probe.SimulationHeader (not imported, so this
// package stays usable on its own).
const header = "X-Zk-Simulation"

// maxTokensCap bounds one simulated completion.
const maxTokensCap = 1 << 16

// request is the part of a completion request the simulator reads.
type request struct {
	Model               string `json:"model"`
	MaxTokens           int    `json:"max_tokens"`
	MaxCompletionTokens int    `json:"max_completion_tokens"`
	Stream              bool   `json:"stream"`
	StreamOptions       struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// ServeHTTP answers POST /v1/chat/completions, POST /v1/completions and
// GET /v1/models.
func (s *Simulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Server", "zk-probe-simulator")
	w.Header().Set(header, fmt.Sprintf("continuous batching, %g tok/s shared by active streams, at most %g per stream", s.Budget, s.PerStream))
	chat := r.URL.Path == "/v1/chat/completions"
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model","owned_by":"simulation"}]}`+"\n", s.modelName())
		return
	case r.Method != http.MethodPost || !chat && r.URL.Path != "/v1/completions":
		apiError(w, http.StatusNotFound, "not found")
		return
	}
	var req request
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "the body is not JSON")
		return
	}
	n := req.MaxTokens
	if req.MaxCompletionTokens > 0 {
		n = req.MaxCompletionTokens
	}
	switch {
	case !req.Stream:
		apiError(w, http.StatusBadRequest, "the simulation only streams")
		return
	case s.Model != "" && req.Model != s.Model:
		apiError(w, http.StatusNotFound, fmt.Sprintf("model %q does not exist", req.Model))
		return
	case n < 1 || n > maxTokensCap:
		apiError(w, http.StatusBadRequest, "max_tokens out of range")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	io.WriteString(w, ": simulation keep-alive\n\n")
	flush()
	ctx := r.Context()
	if !sleepUntil(ctx.Done(), time.Now().Add(s.Prefill)) {
		return
	}
	per := max(s.TokensPerChunk, 1)
	s.active.Add(1)
	defer s.active.Add(-1)
	next := time.Now()
	for sent := 0; sent < n; {
		k := min(per, n-sent)
		for range k {
			next = next.Add(time.Duration(float64(time.Second) / s.rate()))
		}
		if !sleepUntil(ctx.Done(), next) {
			return
		}
		sent += k
		text := strings.Repeat(" tok", k)
		if chat {
			fmt.Fprintf(w, "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", text)
		} else {
			fmt.Fprintf(w, "data: {\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":%q}]}\n\n", text)
		}
		flush()
	}
	if req.StreamOptions.IncludeUsage && !s.IgnoreUsage {
		fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":16,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\n", n, n+16)
	}
	io.WriteString(w, "data: [DONE]\n\n")
	flush()
}

// apiError answers with an error in OpenAI's shape.
func apiError(w http.ResponseWriter, code int, msg string) {
	body, _ := json.Marshal(map[string]any{"error": map[string]string{"message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(body, '\n'))
}

// rate is one stream's tokens per second now.
func (s *Simulator) rate() float64 {
	r := s.Budget / float64(max(s.active.Load(), 1))
	if s.PerStream > 0 {
		r = min(r, s.PerStream)
	}
	return max(r, 1e-3)
}

func (s *Simulator) modelName() string {
	if s.Model == "" {
		return "simulated"
	}
	return s.Model
}

// sleepUntil waits until t, or returns false if done is closed first.
func sleepUntil(done <-chan struct{}, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-done:
		return false
	}
}
