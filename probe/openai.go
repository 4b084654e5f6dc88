package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Endpoints of an OpenAI-compatible server.
const (
	EndpointChat        = "chat"
	EndpointCompletions = "completions"
)

// DefaultPrompt asks for more text than any sensible --max-tokens, so a
// request ends at the token limit rather than at an early end of sequence.
const DefaultPrompt = "Write a long, detailed story about a lighthouse keeper who keeps a notebook of every ship that passes."

// OpenAITarget is what an OpenAI probe measures: streaming completions
// from an OpenAI-compatible server (vLLM, llama.cpp's server, Ollama, ...).
type OpenAITarget struct {
	// BaseURL is the server's base: http://host:port or http://host:port/v1;
	// a full .../chat/completions or .../completions URL is used as it is.
	BaseURL string
	Model   string
	// Endpoint is EndpointChat (the default) or EndpointCompletions.
	Endpoint  string
	MaxTokens int
	// Prompt is sent with the request's number before it ("Request 7. ..."),
	// so no two prompts share a prefix and a prefix cache cannot shorten the
	// time to first token.
	Prompt string
	// ExtraBody is merged into every request body (e.g. {"ignore_eos": true}
	// for vLLM); its keys win.
	ExtraBody map[string]any
	// Client sends the requests; nil means one sized for the sweep.
	Client *http.Client
}

// OpenAI sweeps cfg's concurrency levels against t. The result holds every
// level measured so far even when err is not nil (an interrupted sweep).
func OpenAI(ctx context.Context, t OpenAITarget, cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if t.Endpoint == "" {
		t.Endpoint = EndpointChat
	}
	if t.Prompt == "" {
		t.Prompt = DefaultPrompt
	}
	endpoint, err := EndpointURL(t.BaseURL, t.Endpoint)
	if err != nil {
		return nil, err
	}
	if t.MaxTokens < 1 {
		return nil, fmt.Errorf("max tokens %d is below 1", t.MaxTokens)
	}
	client := t.Client
	if client == nil {
		client = newClient(slices.Max(cfg.Concurrency))
	}
	// Asked before the sweep, so that nothing measured waits on them.
	if t.Model == "" {
		models, err := Models(ctx, client, t.BaseURL)
		if err != nil {
			return nil, fmt.Errorf("no model named, and the server's list could not be read: %w", err)
		}
		if len(models) != 1 {
			return nil, fmt.Errorf("no model named, and the server lists %d (%s): name one with --model", len(models), strings.Join(models, ", "))
		}
		t.Model = models[0]
	}
	ident := identify(ctx, client, t.BaseURL)
	// fresh dials a connection for each request: for a retry, and for
	// every request once the server has closed a reused connection.
	fresh := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true, DisableCompression: true}}
	defer fresh.CloseIdleConnections()
	var dialPerRequest atomic.Bool
	var fp fingerprint
	do := func(ctx context.Context, _, seq int, r *request) error {
		ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
		body, err := json.Marshal(t.body(seq, r.share))
		if err != nil {
			return err
		}
		c := client
		if dialPerRequest.Load() {
			c = fresh
		}
		resp, unanswered, err := post(ctx, c, endpoint, body)
		if err != nil && unanswered && ctx.Err() == nil {
			// The server closed a connection it had kept alive, before a
			// byte of the answer: Go's transport retries only idempotent
			// requests, and a POST is not one. The request never reached
			// the model, so it is sent once more, on a fresh connection,
			// and so is every later one: a server that did this once
			// (llama-server does it after every streamed response) would
			// do it again.
			if !dialPerRequest.Swap(true) {
				client.CloseIdleConnections()
			}
			r.retried = true
			r.start = r.now() // the dead connection's moment is the client's, not the server's
			resp, _, err = post(ctx, fresh, endpoint, body)
		}
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		fp.note(resp.Header.Get("Server"), resp.Header.Get(SimulationHeader) != "")
		if resp.StatusCode != http.StatusOK {
			msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			return fmt.Errorf("HTTP %s: %s", resp.Status, strings.TrimSpace(string(msg)))
		}
		if err := readStream(resp.Body, r, maxChunks(t.MaxTokens)); err != nil {
			return err
		}
		// Read the body's end (the chunked terminator after [DONE]) so the
		// connection goes back to the pool instead of being closed.
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil
	}
	res := newResult(ModeOpenAI, t.BaseURL, cfg)
	res.ModelID, res.Endpoint, res.MaxTokens = t.Model, endpoint, t.MaxTokens
	runs, err := sweep(ctx, cfg, do)
	res.finish(runs, &fp, err)
	if res.Server == "" {
		res.Server = ident
	}
	res.DialPerRequest = dialPerRequest.Load()
	return res, err
}

// post sends body to endpoint as a streaming completion request. When it
// fails, unanswered reports whether it went out on a reused connection
// that ended before any byte of a response: the server closed a
// connection it had kept alive, and the request was never served.
func post(ctx context.Context, c *http.Client, endpoint string, body []byte) (resp *http.Response, unanswered bool, err error) {
	var reused, answered atomic.Bool
	trace := &httptrace.ClientTrace{
		GotConn:              func(info httptrace.GotConnInfo) { reused.Store(info.Reused) },
		GotFirstResponseByte: func() { answered.Store(true) },
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err = c.Do(req)
	if err != nil {
		return nil, reused.Load() && !answered.Load(), err
	}
	return resp, false, nil
}

// newClient is an HTTP client keeping a connection per stream (vLLM's
// benchmark sizes its pool to the concurrency the same way). Proxies are
// not consulted: the target is named directly.
func newClient(streams int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		MaxIdleConns:        streams,
		MaxIdleConnsPerHost: streams,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}}
}

// EndpointURL is the URL of endpoint (EndpointChat or EndpointCompletions)
// under base.
// Models lists the models an OpenAI-compatible server serves (GET
// /v1/models), by id.
func Models(ctx context.Context, c *http.Client, base string) ([]string, error) {
	u, err := apiURL(base, "/models", true)
	if err != nil {
		return nil, err
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := getJSON(ctx, c, u, &list); err != nil {
		return nil, err
	}
	var ids []string
	for _, m := range list.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids, nil
}

// identify names a server that sends no Server header by its own API:
// Ollama answers GET /api/version with {"version": "..."}. "" when it is
// not one zk knows.
func identify(ctx context.Context, c *http.Client, base string) string {
	u, err := apiURL(base, "/api/version", false)
	if err != nil {
		return ""
	}
	var v struct {
		Version string `json:"version"`
	}
	if getJSON(ctx, c, u, &v) != nil || v.Version == "" || len(v.Version) > 64 {
		return ""
	}
	return "Ollama " + v.Version
}

// apiURL is the URL of path on the server at base (an OpenAI base URL:
// http://host:port, .../v1, or a full .../completions URL): under /v1
// when v1 is set, else at the server's root.
func apiURL(base, path string, v1 bool) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	p := strings.TrimSuffix(u.Path, "/")
	p = strings.TrimSuffix(strings.TrimSuffix(p, "/chat/completions"), "/completions")
	if i := strings.LastIndex(p, "/v1"); i >= 0 && i == len(p)-3 {
		p = p[:i]
	}
	if v1 {
		p += "/v1"
	}
	u.Path, u.RawQuery = p+path, ""
	return u.String(), nil
}

// getJSON GETs u into v, within a few seconds and a small body.
func getJSON(ctx context.Context, c *http.Client, u string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %s", u, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}

func EndpointURL(base, endpoint string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("%q is not an http or https URL", base)
	}
	var suffix string
	switch endpoint {
	case EndpointChat:
		suffix = "/chat/completions"
	case EndpointCompletions:
		suffix = "/completions"
	default:
		return "", fmt.Errorf("unknown endpoint %q (want %s or %s)", endpoint, EndpointChat, EndpointCompletions)
	}
	p := strings.TrimSuffix(u.Path, "/")
	switch {
	case strings.HasSuffix(p, "/completions"):
		return u.String(), nil
	case strings.HasSuffix(p, "/v1"):
		u.Path = p + suffix
	default:
		u.Path = p + "/v1" + suffix
	}
	return u.String(), nil
}

// body is the JSON of request number seq, asking for share of the token
// budget (at least one token).
func (t OpenAITarget) body(seq int, share float64) map[string]any {
	prompt := fmt.Sprintf("Request %d. %s", seq, t.Prompt)
	maxTokens := t.MaxTokens
	if share > 0 && share < 1 {
		maxTokens = max(1, int(math.Ceil(float64(t.MaxTokens)*share)))
	}
	b := map[string]any{
		"model":          t.Model,
		"max_tokens":     maxTokens,
		"temperature":    0,
		"stream":         true,
		"stream_options": map[string]any{"include_usage": true},
	}
	if t.Endpoint == EndpointCompletions {
		b["prompt"] = prompt
	} else {
		b["messages"] = []map[string]string{{"role": "user", "content": prompt}}
	}
	maps.Copy(b, t.ExtraBody)
	return b
}

// chunk is the part of a streamed completion chunk the probe reads.
type chunk struct {
	Choices []struct {
		Text  string `json:"text"`
		Delta struct {
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
		} `json:"delta"`
	} `json:"choices"`
	Usage *struct {
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	// Timings is llama.cpp's own account of the request, in its last
	// chunk: predicted_n tokens generated, predicted_ms from the first of
	// them to the last.
	Timings *struct {
		PredictedN  int     `json:"predicted_n"`
		PredictedMS float64 `json:"predicted_ms"`
	} `json:"timings"`
	Error json.RawMessage `json:"error"`
}

// content reports whether c carries output text (reasoning counts: it is
// decoded tokens, as vLLM's benchmark counts it).
func (c *chunk) content() bool {
	for _, ch := range c.Choices {
		if ch.Text != "" || ch.Delta.Content != "" || ch.Delta.ReasoningContent != "" || ch.Delta.Reasoning != "" {
			return true
		}
	}
	return false
}

// errNoDone is returned for a stream that ended before "data: [DONE]".
var errNoDone = errors.New("stream ended before [DONE]")

// maxChunks bounds the chunks of one completion asked for maxTokens: a
// server sends at most one per token (reasoning counted), so a stream far
// beyond that is broken or hostile, and the probe's memory stays bounded.
func maxChunks(maxTokens int) int { return 4*maxTokens + 1024 }

// burstChunksPerRead is the most chunks a read may bring on average for a
// request's decode to count as timed. A server streams a chunk per token
// (or per bundle of tokens) with the decode's time between them, and a
// client reading as it decodes gets them a read each, or a few when they
// come faster than it wakes (a fast server, a loaded client) or the server
// sends several at once (speculative decoding accepts a few tokens a
// step): timed from the first read to the last, those are still the
// decode's pace. Many more a read means the client was not reading while
// they were decoded (descheduled): they waited in the socket and arrived
// together, in one read or a few back to back as buffers fill, and the
// time between the first and last is the client's scheduling, not the
// server's decode. Before this bound one such request (of 12 tokens, from
// a server giving 80-120 tok/s) came out at 97,289 tok/s. At 2 (tried
// first), a loaded client (load 19-25) left out all 16 requests at one
// stream of a 2,000 tok/s server in 5 probes of 6; at 4, 1 to 12 of 16,
// the rest timed at 1,605-2,020 tok/s (p50 to max).
const burstChunksPerRead = 4

// readClock is the body of a response as the probe reads it, stamping each
// read that brings bytes with the time it returned: a chunk arrived with
// the read that brought its end, not when the probe got round to parsing
// it (chunks that come in one read were there together, however long the
// parsing between them takes).
type readClock struct {
	r     io.Reader
	now   func() time.Duration
	at    time.Duration // when the last read that brought bytes returned
	reads int32         // reads that brought bytes
}

func (c *readClock) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.at = c.now()
		c.reads++
	}
	return n, err
}

// readStream reads one streamed completion into r: a token event per
// chunk with text, each at the time the read that brought it returned,
// then the usage block's count when the server sent one. It notes how
// many of the chunks came in the first chunk's read (r.lead) and whether
// they came in a burst, more than burstChunksPerRead a read (r.burst).
// More than limit chunks with text is an error.
func readStream(body io.Reader, r *request, limit int) error {
	clock := &readClock{r: body, now: r.now}
	sse := newSSEReader(clock)
	usage := 0
	var reads, lastRead int32 // reads that brought chunks with text; the last of them
	for {
		data, err := sse.next()
		if err == io.EOF {
			return errNoDone
		}
		if err != nil {
			return err
		}
		now := clock.at
		if string(bytes.TrimSpace(data)) == "[DONE]" {
			r.end = now
			break
		}
		var c chunk
		if err := json.Unmarshal(data, &c); err != nil {
			return fmt.Errorf("a chunk that is not JSON: %w", err)
		}
		if len(c.Error) > 0 && string(c.Error) != "null" {
			return fmt.Errorf("server error: %s", c.Error)
		}
		if c.Usage != nil {
			usage = c.Usage.CompletionTokens
		}
		if t := c.Timings; t != nil && t.PredictedN > 1 && t.PredictedMS > 0 {
			// llama.cpp's predicted_ms runs from its first generated token
			// (free: the prompt's last batch yields it) to its last, so its
			// own rate (predicted_per_second) is the tokens after the first
			// over that time: the probe's definition. A rate past
			// float32's range is no server's: kept out, not Inf.
			if rate := float64(t.PredictedN-1) / t.PredictedMS * 1000; rate <= math.MaxFloat32 {
				r.serverDecode = float32(rate)
			}
		}
		if c.content() {
			if len(r.events) >= limit {
				return fmt.Errorf("more than %d chunks in one completion", limit)
			}
			if len(r.events) == 0 {
				r.first = now
			}
			if clock.reads != lastRead {
				reads, lastRead = reads+1, clock.reads
			}
			if reads == 1 {
				r.lead++
			}
			r.last = now
			r.events = append(r.events, event{at: now, units: 1})
		}
	}
	if n := int32(len(r.events)); n > 1 && (reads < 2 || n > burstChunksPerRead*reads) {
		r.burst = true
	}
	r.units = float64(len(r.events))
	if usage > 0 && len(r.events) > 0 {
		// The usage block is the server's own count; chunks undercount when
		// a server bundles several tokens into one. Spread it over the
		// chunks so the aggregate over a window stays right.
		r.usage = true
		r.units = float64(usage)
		per := r.units / float64(len(r.events))
		for i := range r.events {
			r.events[i].units = per
		}
	}
	return nil
}
