// Package probe measures a server's throughput the way a falsifier needs
// it: per stream and in aggregate, side by side, every rate with its
// denominator.
//
// A probe is a closed-loop sweep. For each concurrency level N, N streams
// (workers) send requests back to back: first a warm-up that is not
// measured, then the measured phase, bounded by a duration and optionally a
// request count. Two modes share the sweep: HTTP (requests per second) and
// OpenAI-compatible streaming (tokens per second, time to first token).
// The metric names follow NVIDIA AIPerf where it has one (see
// research/anchors.md §C): output_token_throughput is the aggregate over
// all streams, output_token_throughput_per_user is one stream's rate.
//
// The package never prints; results are values, progress is a callback.
package probe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Schema names the version of the JSON a probe writes; a reader detects
// probe output by this field (see Detect).
const Schema = "zk-probe/v1"

// Mode names what a probe measured.
const (
	ModeHTTP   = "http"
	ModeOpenAI = "openai"
)

// Limits that keep a probe bounded whatever the flags say.
const (
	MaxConcurrency = 1024
	MaxDuration    = time.Hour
	// maxFailures stops a level early when the server fails this many
	// requests before answering one: it is down, not slow.
	maxFailures = 20
)

// ErrNotLoopback is returned for a target outside this machine that the
// caller did not explicitly allow.
var ErrNotLoopback = errors.New("not a loopback address")

// CheckHost returns ErrNotLoopback unless u names this machine (localhost or
// a loopback IP literal) or allowRemote is set. Names are not resolved: a
// name that happens to resolve to 127.0.0.1 still needs the opt-in, so what
// the user typed is what is checked.
func CheckHost(u *url.URL, allowRemote bool) error {
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("%q has no host", u.String())
	}
	if allowRemote || strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s: %w", host, ErrNotLoopback)
}

// Config says how hard and how long to probe.
type Config struct {
	// Concurrency lists the levels to sweep, each a number of streams.
	Concurrency []int
	// Duration bounds each level's measured phase; no request starts
	// after it. Zero means no time bound (Requests must then be set).
	Duration time.Duration
	// Requests bounds the number of measured requests per level; zero
	// means no count bound (Duration must then be set).
	Requests int
	// Warmup is the number of requests each stream sends before a level is
	// measured; they warm connections and caches and are discarded.
	Warmup int
	// Timeout bounds each request.
	Timeout time.Duration
	// Progress, if set, is called from the sweep's goroutine as each
	// level's phases start, and about once a second while one measures.
	Progress func(Progress)
}

// Phase is where a level is.
type Phase string

// The phases of a level.
const (
	PhaseWarmup  Phase = "warmup"
	PhaseMeasure Phase = "measure"
)

// Progress reports how a level is going.
type Progress struct {
	Concurrency int
	Phase       Phase
	Completed   int
	Failed      int
	Elapsed     time.Duration
}

// Validate reports the first thing wrong with c.
func (c Config) Validate() error {
	if len(c.Concurrency) == 0 {
		return errors.New("no concurrency levels")
	}
	for _, n := range c.Concurrency {
		if n < 1 || n > MaxConcurrency {
			return fmt.Errorf("concurrency %d is outside 1..%d", n, MaxConcurrency)
		}
	}
	switch {
	case c.Duration < 0 || c.Duration > MaxDuration:
		return fmt.Errorf("duration %v is outside 0..%v", c.Duration, MaxDuration)
	case c.Requests < 0:
		return fmt.Errorf("requests %d is negative", c.Requests)
	case c.Duration == 0 && c.Requests == 0:
		return errors.New("neither a duration nor a request count bounds a level")
	case c.Warmup < 0:
		return fmt.Errorf("warm-up %d is negative", c.Warmup)
	case c.Timeout <= 0:
		return errors.New("no request timeout")
	}
	return nil
}

// Env describes the client machine: the denominator of "cores".
type Env struct {
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	CPUs       int    `json:"cpus"`
	GoMaxProcs int    `json:"gomaxprocs"`
	Client     string `json:"client,omitempty"`
}

func currentEnv() Env {
	return Env{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoMaxProcs: runtime.GOMAXPROCS(0)}
}

// Result is the JSON a probe prints with --format json and the input of
// RenderMarkdown and WriteSVG. Field names follow AIPerf's export where one
// exists, vLLM's benchmark otherwise.
type Result struct {
	// Schema is always the constant Schema.
	Schema string `json:"schema"`
	Mode   string `json:"mode"`
	URL    string `json:"url"`
	// ModelID and Endpoint are set in openai mode.
	ModelID  string `json:"model_id,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	// Server is the target's Server header, as a fingerprint; Simulated is
	// set when the target declared itself a simulation.
	Server    string `json:"server,omitempty"`
	Simulated bool   `json:"simulated,omitempty"`
	// Date is when the sweep started, RFC 3339 UTC.
	Date string `json:"date"`
	// DurationS, RequestsPerLevel and WarmupPerStream echo the bounds.
	DurationS        float64 `json:"duration_s,omitempty"`
	RequestsPerLevel int     `json:"requests_per_level,omitempty"`
	WarmupPerStream  int     `json:"warmup_requests_per_stream"`
	MaxTokens        int     `json:"max_tokens,omitempty"`
	// WasCancelled is set when the sweep was interrupted; the levels hold
	// what was measured until then.
	WasCancelled bool    `json:"was_cancelled"`
	Env          Env     `json:"env"`
	Levels       []Level `json:"levels"`
}

// Level is what one concurrency level measured. Every rate is either
// aggregate (all streams together, over the level's window) or per stream
// (one stream's rate, summarised over streams or requests).
type Level struct {
	// Concurrency is the number of streams asked for; AchievedConcurrency
	// the time-weighted mean number of requests in flight over the window.
	Concurrency         int     `json:"concurrency"`
	AchievedConcurrency float64 `json:"achieved_concurrency"`
	Completed           int     `json:"completed"`
	Failed              int     `json:"failed"`
	// Partial is set when the sweep was interrupted during this level.
	Partial      bool         `json:"partial,omitempty"`
	ErrorSummary []ErrorCount `json:"error_summary,omitempty"`
	Window       Value        `json:"benchmark_duration"`
	// RequestThroughput is aggregate completed requests per second over
	// the window; RequestThroughputPerUser one stream's requests per
	// second, summarised over streams.
	RequestThroughput        Value  `json:"request_throughput"`
	SteadyRequestThroughput  *Value `json:"steady_request_throughput,omitempty"`
	RequestThroughputPerUser *Stat  `json:"request_throughput_per_user,omitempty"`
	RequestLatency           *Stat  `json:"request_latency,omitempty"`

	// The rest is openai mode. TokensSource says where output token counts
	// came from: "usage" (the server's usage block), "chunks" (one per
	// streamed chunk, which undercounts when a server bundles tokens) or
	// "mixed".
	TokensSource string `json:"tokens_source,omitempty"`
	// OutputTokenThroughput is aggregate output tokens per second over the
	// window; SteadyOutputTokenThroughput counts only tokens that arrived
	// while every stream was between its first and last token, trimming
	// ramp-up and ramp-down.
	OutputTokenThroughput       *Value `json:"output_token_throughput,omitempty"`
	SteadyOutputTokenThroughput *Value `json:"steady_output_token_throughput,omitempty"`
	// OutputTokenThroughputPerUser is one stream's decode rate per request,
	// (tokens − 1) / (last token − first token), AIPerf's 1/ITL;
	// OutputTokenThroughputPerUserE2E is tokens / request latency, llmperf's
	// definition, which includes the wait for the first token.
	OutputTokenThroughputPerUser    *Stat        `json:"output_token_throughput_per_user,omitempty"`
	OutputTokenThroughputPerUserE2E *Stat        `json:"output_token_throughput_per_user_e2e,omitempty"`
	TimeToFirstToken                *Stat        `json:"time_to_first_token,omitempty"`
	InterTokenLatency               *Stat        `json:"inter_token_latency,omitempty"`
	OutputSequenceLength            *Stat        `json:"output_sequence_length,omitempty"`
	Consistency                     *Consistency `json:"consistency,omitempty"`
}

// ErrorCount is how often one error happened in a level.
type ErrorCount struct {
	Message string `json:"message"`
	Count   int    `json:"count"`
}

// Consistency checks the aggregate against the per-stream figures, a
// Little's-law sanity check: aggregate ≈ achieved concurrency × median
// per-stream decode rate. Ratio is aggregate (steady if measured, else over
// the window) divided by that product; Flagged is set when it is off by more
// than Tolerance. A flag means the two views disagree: streams wait (queueing,
// time to first token) for a large share of their time, or the level was too
// short to reach a steady state.
type Consistency struct {
	Ratio     float64 `json:"ratio"`
	Tolerance float64 `json:"tolerance"`
	Flagged   bool    `json:"flagged"`
}

// consistencyTolerance is how far off the consistency ratio may be.
const consistencyTolerance = 0.15

// The sweep stores what it measures without pointers (times as offsets
// from an epoch, errors counted per stream, token arrivals in one log per
// stream), so hundreds of thousands of samples cost the garbage collector
// nothing to scan: the client's own work must stay small next to the
// server's, or the probe measures itself.

// event is units (requests or tokens) arriving at a time.
type event struct {
	at    time.Duration // since the sweep's epoch
	units float64
}

// sample is one request as the sweep saw it; times are offsets from the
// sweep's epoch, zero for "never".
type sample struct {
	start  time.Duration
	first  time.Duration // first byte (http) or first token (openai)
	last   time.Duration // last token (openai)
	end    time.Duration
	units  float64 // requests (1) or output tokens
	from   int32   // this request's events are its stream's events[from:to]
	to     int32
	failed bool
	usage  bool // units came from the server's usage block
}

// request is what a mode fills in while it sends one request.
type request struct {
	epoch time.Time
	sample
	events []event // this request's token arrivals; reused between requests
}

// now is the time since the sweep's epoch.
func (r *request) now() time.Duration { return time.Since(r.epoch) }

// requestFunc sends request number seq on stream and fills in r; it
// returns an error when the request failed.
type requestFunc func(ctx context.Context, stream, seq int, r *request) error

// streamLog is everything one stream measured in a level.
type streamLog struct {
	samples []sample
	events  []event
	errs    map[string]int
}

// levelRun is one level's raw measurements.
type levelRun struct {
	concurrency int
	start       time.Duration
	streams     []streamLog
	partial     bool
}

// sweep runs every level of cfg with do, in order. It returns what it
// measured even when ctx is cancelled, together with ctx's error.
func sweep(ctx context.Context, cfg Config, do requestFunc) ([]levelRun, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sw := &sweeper{cfg: cfg, do: do, epoch: time.Now()}
	var runs []levelRun
	for _, n := range cfg.Concurrency {
		if cfg.Warmup > 0 {
			if err := sw.warmup(ctx, n); err != nil {
				return runs, err
			}
		}
		runs = append(runs, sw.measure(ctx, n))
		if err := ctx.Err(); err != nil {
			return runs, err
		}
	}
	return runs, nil
}

// sweeper is the state shared by a sweep's levels.
type sweeper struct {
	cfg   Config
	do    requestFunc
	epoch time.Time
	seq   atomic.Int64 // requests sent, numbering each request
}

// warmup sends cfg.Warmup requests on each of n streams and waits for them.
// It fails only when every one of them failed: the target is not there.
func (sw *sweeper) warmup(ctx context.Context, n int) error {
	report(sw.cfg, Progress{Concurrency: n, Phase: PhaseWarmup})
	var ok atomic.Int64
	var first atomic.Pointer[error]
	var wg sync.WaitGroup
	for stream := range n {
		wg.Go(func() {
			r := &request{epoch: sw.epoch}
			for range sw.cfg.Warmup {
				if ctx.Err() != nil {
					return
				}
				if err := sw.one(ctx, stream, r); err != nil {
					first.CompareAndSwap(nil, &err)
					continue
				}
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if ok.Load() == 0 {
		return fmt.Errorf("warm-up at concurrency %d: every request failed: %w", n, *first.Load())
	}
	return nil
}

// measure runs one level's measured phase.
func (sw *sweeper) measure(ctx context.Context, n int) levelRun {
	cfg := sw.cfg
	run := levelRun{concurrency: n, start: time.Since(sw.epoch), streams: make([]streamLog, n)}
	deadline := time.Duration(-1)
	if cfg.Duration > 0 {
		deadline = run.start + cfg.Duration
	}
	var issued, completed, failed atomic.Int64
	var wg sync.WaitGroup
	for stream := range n {
		wg.Go(func() {
			log := &run.streams[stream]
			r := &request{epoch: sw.epoch}
			for {
				if ctx.Err() != nil ||
					(deadline >= 0 && r.now() >= deadline) ||
					(cfg.Requests > 0 && issued.Add(1) > int64(cfg.Requests)) ||
					(failed.Load() >= maxFailures && completed.Load() == 0) {
					return
				}
				err := sw.one(ctx, stream, r)
				if err != nil && ctx.Err() != nil {
					return // interrupted, not failed: the request is not counted
				}
				s := r.sample
				if err != nil {
					failed.Add(1)
					s.failed = true
					if log.errs == nil {
						log.errs = map[string]int{}
					}
					log.errs[err.Error()]++
				} else {
					completed.Add(1)
				}
				s.from = int32(len(log.events))
				log.events = append(log.events, r.events...)
				s.to = int32(len(log.events))
				log.samples = append(log.samples, s)
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	report(cfg, Progress{Concurrency: n, Phase: PhaseMeasure})
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-tick.C:
			report(cfg, Progress{Concurrency: n, Phase: PhaseMeasure, Completed: int(completed.Load()),
				Failed: int(failed.Load()), Elapsed: time.Since(sw.epoch) - run.start})
		}
	}
	run.partial = ctx.Err() != nil
	return run
}

// one sends a single request on stream, recording it into r.
func (sw *sweeper) one(ctx context.Context, stream int, r *request) error {
	r.sample = sample{start: r.now()}
	r.events = r.events[:0]
	err := sw.do(ctx, stream, int(sw.seq.Add(1)), r)
	if r.end == 0 {
		r.end = r.now()
	}
	return err
}

func report(cfg Config, p Progress) {
	if cfg.Progress != nil {
		cfg.Progress(p)
	}
}
