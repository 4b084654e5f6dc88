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
	"net/http/httputil"
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
	// CloseAfterStream closes the connection after each streamed response
	// although its headers advertised keep-alive, as llama.cpp's
	// llama-server was seen to. It closes once the client has sent its
	// next request on that connection, unanswered: the losing side of the
	// race between a server's close and a client's reuse, every time, so
	// a client that does not recover fails every reused request.
	CloseAfterStream bool
	// Timings ends each streamed response with llama.cpp's account of it,
	// as llama-server does: "timings" with predicted_n, the tokens
	// generated, and predicted_ms, the time from the first of them to the
	// last.
	Timings bool
	// Jitter spreads the requests' rates, as a real server's differ from
	// request to request: the completions alternate between 1+Jitter and
	// 1-Jitter times the rate their share of the budget gives (0.2: 20%
	// faster, then 20% slower). The spread it serves is the same every
	// run; the rates a client measures of it are not, as they move with
	// the machine's load, so a test whose verdict must repeat judges
	// samples it carries itself (probe-run-noise.txtar).
	Jitter float64

	active atomic.Int64
	served atomic.Int64 // completions started, numbering them for Jitter
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
	w.Header().Set(header, s.describe())
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
	if s.CloseAfterStream {
		s.serveAndClose(w, r, req, chat, n)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flush := func() error {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		return nil
	}
	s.stream(r.Context().Done(), w, flush, req, chat, n)
}

// serveAndClose streams the completion over the hijacked connection,
// framed by hand as a keep-alive server would frame it, then waits for
// the client's next request and closes the connection without a word.
func (s *Simulator) serveAndClose(w http.ResponseWriter, r *http.Request, req request, chat bool, n int) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		apiError(w, http.StatusInternalServerError, "the connection cannot be hijacked")
		return
	}
	conn, brw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	fmt.Fprintf(brw, "HTTP/1.1 200 OK\r\nServer: zk-probe-simulator\r\n%s: %s\r\n"+
		"Content-Type: text/event-stream\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5, max=100\r\n"+
		"Transfer-Encoding: chunked\r\n\r\n", header, s.describe()+"; closes after each stream")
	cw := httputil.NewChunkedWriter(brw)
	if !s.stream(r.Context().Done(), cw, brw.Flush, req, chat, n) {
		return
	}
	cw.Close()
	brw.WriteString("\r\n") // the end of the chunked body
	if brw.Flush() != nil {
		return
	}
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	brw.Reader.Peek(1) // the next request, or the client's close
}

// stream writes one completion of n tokens to w, flushing each chunk; it
// reports false when done closed or a write failed first.
func (s *Simulator) stream(done <-chan struct{}, w io.Writer, flush func() error, req request, chat bool, n int) bool {
	write := func(text string) bool {
		if _, err := io.WriteString(w, text); err != nil {
			return false
		}
		return flush() == nil
	}
	if !write(": simulation keep-alive\n\n") || !sleepUntil(done, time.Now().Add(s.Prefill)) {
		return false
	}
	per := max(s.TokensPerChunk, 1)
	scale := 1.0
	if s.Jitter != 0 {
		if s.served.Add(1)%2 == 1 {
			scale += s.Jitter
		} else {
			scale -= s.Jitter
		}
	}
	s.active.Add(1)
	defer s.active.Add(-1)
	next := time.Now()
	var first time.Time // when the first token went out
	for sent := 0; sent < n; {
		k := min(per, n-sent)
		for range k {
			next = next.Add(time.Duration(float64(time.Second) / (s.rate() * scale)))
		}
		if !sleepUntil(done, next) {
			return false
		}
		sent += k
		text := strings.Repeat(" tok", k)
		var c string
		if chat {
			c = fmt.Sprintf("data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", text)
		} else {
			c = fmt.Sprintf("data: {\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":%q}]}\n\n", text)
		}
		if !write(c) {
			return false
		}
		if first.IsZero() {
			first = time.Now()
		}
	}
	if req.StreamOptions.IncludeUsage && !s.IgnoreUsage {
		if !write(fmt.Sprintf("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":16,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\n", n, n+16)) {
			return false
		}
	}
	if s.Timings && !first.IsZero() {
		ms := float64(time.Since(first)) / float64(time.Millisecond)
		if !write(fmt.Sprintf("data: {\"choices\":[],\"timings\":{\"predicted_n\":%d,\"predicted_ms\":%.3f}}\n\n", n, ms)) {
			return false
		}
	}
	return write("data: [DONE]\n\n")
}

func (s *Simulator) describe() string {
	return fmt.Sprintf("continuous batching, %g tok/s shared by active streams, at most %g per stream", s.Budget, s.PerStream)
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
