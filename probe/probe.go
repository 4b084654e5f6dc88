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
	"slices"
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

// Unit names what a probe's rates count. Tables, charts and the analysis
// of a level key on it, not on the backend's name, so that one backend's
// rendering cannot drift from another's measuring the same thing.
type Unit string

const (
	UnitTokens   Unit = "tokens"   // tokens decoded: an LLM server (openai)
	UnitRequests Unit = "requests" // requests answered (http)
)

// UnitOf returns what the rates of a probe in mode count: the one place
// a backend's name decides it.
func UnitOf(mode string) Unit {
	if mode == ModeOpenAI {
		return UnitTokens
	}
	return UnitRequests
}

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
	// Duration is each level's measured window: it opens when every
	// stream has sent its warm-up requests and closes Duration later.
	// Zero means no time bound (Requests must then be set).
	Duration time.Duration
	// Requests closes a level's window early, once that many requests
	// have ended in it (completed or failed); zero means no count bound
	// (Duration must then be set).
	Requests int
	// Warmup is the number of requests each stream sends before the
	// window opens; they warm connections and caches and are not
	// measured. Streams do not pause between warm-up and window, so the
	// window opens on a loaded server. In openai mode each stream's last
	// warm-up request asks for a share of the token budget, (stream+1)/N
	// of it, so that the streams' measured requests begin spread over one
	// request's length: N streams started together with equal budgets
	// stay in lockstep on a batching server (prefill together, decode
	// together, finish together), the window opens at the start of a
	// prefill stall, and a window of a few requests' length measures the
	// phase it opened at instead of the server's rate.
	Warmup int
	// Drain is how long the requests still in flight when the window
	// closes may take to finish (they are not measured) before they are
	// cancelled; zero cancels them at once.
	Drain time.Duration
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
	PhaseDrain   Phase = "drain"
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
	case c.Drain < 0 || c.Drain > MaxDuration:
		return fmt.Errorf("drain %v is outside 0..%v", c.Drain, MaxDuration)
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
	// DurationS, RequestsPerLevel, WarmupPerStream and DrainS echo the
	// bounds: the window asked for, the request bound that may close it
	// early, the warm-up requests each stream sends before it opens, and
	// the time requests in flight at its close get to finish.
	DurationS        float64 `json:"duration_s,omitempty"`
	RequestsPerLevel int     `json:"requests_per_level,omitempty"`
	WarmupPerStream  int     `json:"warmup_requests_per_stream"`
	DrainS           float64 `json:"drain_s"`
	MaxTokens        int     `json:"max_tokens,omitempty"`
	// DialPerRequest is set when the server closed a reused connection
	// before answering on it (llama.cpp's llama-server closes after each
	// streamed response while advertising keep-alive): that request was
	// sent again on a fresh connection (Level.Retried), and every later
	// one dialled its own, so time to first token includes a connect (on
	// loopback, a fraction of a millisecond).
	DialPerRequest bool `json:"dial_per_request,omitempty"`
	// WasCancelled is set when the sweep was interrupted; the levels hold
	// what was measured until then.
	WasCancelled bool    `json:"was_cancelled"`
	Env          Env     `json:"env"`
	Levels       []Level `json:"levels"`
}

// Level is what one concurrency level measured. Every rate is either
// aggregate (all streams together, over the level's window) or per stream
// (one stream's rate, summarised over streams or requests).
//
// A level runs in three phases, back to back and without pausing the
// streams: warm-up (each stream's first warm-up requests), the window
// (what is measured, as long as the duration asked for), and the drain
// (requests still in flight when the window closed, given the drain time
// to finish and then cancelled). Requests count in the window they ended
// in; tokens and in-flight time count where they fall, so a request that
// straddles an edge gives the window only its share.
type Level struct {
	// Concurrency is the number of streams asked for; AchievedConcurrency
	// the time-weighted mean number of requests in flight over the window;
	// DecodingConcurrency the same for requests between their first and
	// last token (what is left once waits for a first token are taken out).
	Concurrency         int     `json:"concurrency"`
	AchievedConcurrency float64 `json:"achieved_concurrency"`
	DecodingConcurrency float64 `json:"decoding_concurrency,omitempty"`
	// Completed and Failed count requests that ended in the window.
	// FailedOutsideWindow counts failures in the warm-up or the drain.
	Completed           int `json:"completed"`
	Failed              int `json:"failed"`
	FailedOutsideWindow int `json:"failed_outside_window"`
	// Sent is every request the level started, warm-up and drain included
	// (one cancelled at the window's close may not have reached the server);
	// Retried those of them sent a second time because the reused
	// connection they first went out on closed before any response byte.
	Sent    int `json:"requests_sent"`
	Retried int `json:"retried"`
	// Partial is set when the sweep was interrupted during this level.
	Partial      bool         `json:"partial,omitempty"`
	ErrorSummary []ErrorCount `json:"error_summary,omitempty"`
	// ErrorSummaryOutsideWindow says why the FailedOutsideWindow requests
	// failed: a warm-up request that timed out is a failure to explain,
	// not to count silently.
	ErrorSummaryOutsideWindow []ErrorCount `json:"error_summary_outside_window,omitempty"`
	// WindowClosedBy says what closed the window: ClosedByDuration (it is
	// as long as asked), ClosedByRequests (the request bound came first),
	// ClosedByInterrupt or ClosedByFailures (the server failed every
	// request).
	WindowClosedBy string `json:"window_closed_by"`
	// Warmup is the time from the level's first request to the window's
	// opening, Window the window, Drain the time from its close until the
	// last stream stopped: the level took their sum.
	Warmup Value `json:"warmup_duration"`
	Window Value `json:"benchmark_duration"`
	Drain  Value `json:"drain_duration"`
	// BeforeWindow counts requests that ended before the window opened;
	// AfterWindow those that ended after it closed (in flight at its
	// close, or sent just after it), of which CompletedAfterWindow
	// finished in the drain and the rest were cancelled. Neither is in
	// Completed or Failed.
	BeforeWindow         int `json:"requests_before_window"`
	AfterWindow          int `json:"requests_after_window"`
	CompletedAfterWindow int `json:"requests_completed_after_window"`
	// RequestThroughput is aggregate completed requests per second over
	// the window; RequestThroughputPerUser one stream's requests per
	// second, summarised over streams.
	RequestThroughput        Value  `json:"request_throughput"`
	SteadyRequestThroughput  *Value `json:"steady_request_throughput,omitempty"`
	RequestThroughputPerUser *Stat  `json:"request_throughput_per_user,omitempty"`
	RequestLatency           *Stat  `json:"request_latency,omitempty"`

	// The rest is openai mode. TokensSource says where the window's token
	// counts came from: "usage" (the server's usage block), "chunks" (one
	// per streamed chunk, which undercounts when a server bundles tokens)
	// or "mixed", over the requests that completed in the window (if none
	// did, over those that sent tokens in it). A request cut at the
	// window's close never gets its usage block: its tokens are chunks.
	TokensSource string `json:"tokens_source,omitempty"`
	// OutputTokens is the tokens that arrived in the window, from every
	// request that did not fail (a request cut at the window's close gave
	// its tokens so far). OutputTokenThroughput is OutputTokens over the
	// window, all streams together; SteadyOutputTokenThroughput counts
	// only tokens that arrived while every stream was between its first
	// and last token in the window, trimming a ramp-up (--warmup 0).
	OutputTokens                *float64 `json:"output_tokens,omitempty"`
	OutputTokenThroughput       *Value   `json:"output_token_throughput,omitempty"`
	SteadyOutputTokenThroughput *Value   `json:"steady_output_token_throughput,omitempty"`
	// OutputTokenThroughputPerUser is one stream's decode rate per request,
	// AIPerf's 1/ITL taken over the window: a request's tokens that arrived
	// in it after its first there, over the time between them, so a window
	// shorter than a request still has one. TimeToFirstToken is over the
	// requests whose first token arrived in the window.
	// OutputTokenThroughputPerUserE2E is tokens / request latency, llmperf's
	// definition, which includes the wait for the first token; it, like
	// RequestLatency and OutputSequenceLength, is over the requests that
	// completed in the window.
	//
	// DecodeBursts counts the requests completed in the window whose
	// chunks the client read in a burst, more than four a read: it was not
	// reading while the server decoded them (a loaded client), so their
	// first-to-last time is the client's scheduling, and they are left out
	// of the per-stream decode rate, the inter-token latency, decoding
	// concurrency and the check (whose Of then says so), though not of the
	// aggregate, which counts tokens where they arrived.
	DecodeBursts                    int          `json:"decode_bursts_left_out,omitempty"`
	OutputTokenThroughputPerUser    *Stat        `json:"output_token_throughput_per_user,omitempty"`
	OutputTokenThroughputPerUserE2E *Stat        `json:"output_token_throughput_per_user_e2e,omitempty"`
	TimeToFirstToken                *Stat        `json:"time_to_first_token,omitempty"`
	InterTokenLatency               *Stat        `json:"inter_token_latency,omitempty"`
	OutputSequenceLength            *Stat        `json:"output_sequence_length,omitempty"`
	Consistency                     *Consistency `json:"consistency,omitempty"`
	// Server is the server's own account of the same requests, when it
	// gives one.
	Server *ServerAccount `json:"server_account,omitempty"`
}

// ServerAccount is what the server said of the requests that completed in
// the window, beside what the probe measured of the very same requests:
// a comparison no drift between two runs can spoil. llama.cpp's
// llama-server ends each streamed response with its timings; other
// servers give none, and the level has no ServerAccount.
type ServerAccount struct {
	// Source names where the figures came from.
	Source string `json:"source"`
	// Requests is how many completed requests carried the server's
	// figures.
	Requests int `json:"requests"`
	// DecodePerUser is the server's decode rate per request, as it
	// computes it (llama.cpp's predicted_per_second): the tokens after
	// the first over the time from the first to the last.
	DecodePerUser *Stat `json:"decode_per_user"`
	// Ratio is the median, over those requests, of the probe's decode rate
	// for a request (its tokens after the first, over the time between
	// its first and last) divided by the server's for it. NotCompared
	// counts those of them the probe read in a burst (see
	// Level.DecodeBursts): it has no rate of its own for them, and Ratio is
	// over the rest (0 when there is none).
	Ratio       float64 `json:"probe_over_server_p50"`
	NotCompared int     `json:"not_compared,omitempty"`
}

// ErrorCount is how often one error happened in a level.
type ErrorCount struct {
	Message string `json:"message"`
	Count   int    `json:"count"`
}

// Consistency checks the aggregate against the per-stream figures, like
// with like: decode against decode. Ratio is the aggregate decode rate
// (tokens after each request's first that arrived in the window, over the
// window) divided by decoding concurrency × median per-stream decode rate.
// Both sides leave out the wait for a first token, so a server that spends
// a large share of each request in prefill or a queue does not trip it; a
// flag (off by more than Tolerance) means the median stream is not the
// typical one (rates spread widely or change during the window) or the
// token counts and their timing disagree.
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
	start   time.Duration
	first   time.Duration // first byte (http) or first token (openai)
	last    time.Duration // last token (openai)
	end     time.Duration
	units   float64 // requests (1) or output tokens
	from    int32   // this request's events are its stream's events[from:to]
	to      int32
	err     int32 // a failed request's message is its stream's errMsgs[err-1]
	failed  bool
	cut     bool // cancelled when its level ended: neither completed nor failed
	usage   bool // units came from the server's usage block
	retried bool // sent again after its reused connection died unanswered
	// lead is how many of the request's chunks arrived in the read that
	// brought its first (openai): tokens that arrived with the first, not
	// after it. burst marks a request whose chunks came more than
	// burstChunksPerRead a read (see readStream): its decode was not timed.
	lead  int32
	burst bool
	// serverDecode is the server's own decode rate for this request, in
	// tokens/s, when it gave one (llama.cpp's timings); 0 otherwise.
	serverDecode float32
}

// request is what a mode fills in while it sends one request.
type request struct {
	epoch time.Time
	// clock, when set, stands for the time since the epoch: tests replay
	// arrival traces on it.
	clock func() time.Duration
	// share is the part of its budget (openai mode: max tokens) the
	// request asks for: 1, or less for a stream's last warm-up request
	// (see Config.Warmup).
	share float64
	sample
	events []event // this request's token arrivals; reused between requests
}

// now is the time since the sweep's epoch.
func (r *request) now() time.Duration {
	if r.clock != nil {
		return r.clock()
	}
	return time.Since(r.epoch)
}

// requestFunc sends request number seq on stream and fills in r; it
// returns an error when the request failed.
type requestFunc func(ctx context.Context, stream, seq int, r *request) error

// streamLog is everything one stream measured in a level.
type streamLog struct {
	samples []sample
	events  []event
	errMsgs []string // distinct error messages; a failed sample's err is its index + 1
}

// errIndex is msg's index + 1 in l.errMsgs, adding it if it is new. A
// stream sees few distinct messages (errorSummary bounds what is shown),
// so a linear search is cheaper than a map.
func (l *streamLog) errIndex(msg string) int32 {
	if i := slices.Index(l.errMsgs, msg); i >= 0 {
		return int32(i + 1)
	}
	if len(l.errMsgs) >= maxErrorKinds*4 {
		msg = "other errors"
		if i := slices.Index(l.errMsgs, msg); i >= 0 {
			return int32(i + 1)
		}
	}
	l.errMsgs = append(l.errMsgs, msg)
	return int32(len(l.errMsgs))
}

// levelRun is one level's raw measurements: every request its streams
// sent, warm-up and drain included, and the times that bound its window.
type levelRun struct {
	concurrency int
	duration    time.Duration // the window asked for (Config.Duration)
	requests    int           // Config.Requests
	start       time.Duration // the first request
	open        time.Duration // the window opened
	stopped     time.Duration // the sweep saw a reason to close the window
	closedBy    string
	end         time.Duration // the last stream stopped
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
		run, err := sw.level(ctx, n)
		if err != nil {
			return runs, err
		}
		runs = append(runs, run)
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

func (sw *sweeper) now() time.Duration { return time.Since(sw.epoch) }

// Why a level's window closed.
const (
	ClosedByDuration  = "duration"
	ClosedByRequests  = "requests"
	ClosedByInterrupt = "interrupt"
	ClosedByFailures  = "failures"
)

// level runs one concurrency level: n streams send requests back to back
// from its start to its end, without pausing between phases. The window
// opens when the last stream has sent its warm-up requests and closes
// cfg.Duration later (or at the cfg.Requests-th completion, an interrupt,
// or a dead server); requests still in flight then get cfg.Drain to finish
// and are cancelled. What counts as measured is decided afterwards, by
// time (analyse): the window is a span of time, not a set of requests, so
// its length is what was asked for however long a request takes.
func (sw *sweeper) level(ctx context.Context, n int) (levelRun, error) {
	cfg := sw.cfg
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	run := levelRun{concurrency: n, duration: cfg.Duration, requests: cfg.Requests,
		start: sw.now(), streams: make([]streamLog, n)}

	// The window opens when warming reaches zero; open holds its time.
	var warming atomic.Int64
	warming.Store(int64(n))
	var open atomic.Int64
	opened := make(chan struct{})
	openNow := func() {
		open.Store(int64(sw.now()))
		close(opened)
	}
	if cfg.Warmup == 0 {
		openNow()
	}
	var closed atomic.Bool
	var warmOK atomic.Int64
	var warmErr atomic.Pointer[error]
	var inWindow, completed, failed atomic.Int64
	stop := make(chan string, 1) // why the window closes early
	stopWith := func(why string) {
		select {
		case stop <- why:
		default:
		}
	}

	var wg sync.WaitGroup
	for stream := range n {
		wg.Go(func() {
			log := &run.streams[stream]
			r := &request{epoch: sw.epoch}
			for i := 0; !closed.Load() && lctx.Err() == nil; i++ {
				r.share = 1
				if i == cfg.Warmup-1 {
					r.share = float64(stream+1) / float64(n)
				}
				err := sw.one(lctx, stream, r)
				s := r.sample
				switch {
				case err != nil && lctx.Err() != nil:
					s.cut = true // cancelled at the end of the level, not failed
				case err != nil:
					s.failed = true
					s.err = log.errIndex(err.Error())
					if failed.Add(1) >= maxFailures && completed.Load() == 0 {
						stopWith(ClosedByFailures)
					}
				default:
					completed.Add(1)
				}
				s.from = int32(len(log.events))
				log.events = append(log.events, r.events...)
				s.to = int32(len(log.events))
				log.samples = append(log.samples, s)
				if i < cfg.Warmup {
					if err == nil {
						warmOK.Add(1)
					} else {
						warmErr.CompareAndSwap(nil, &err)
					}
					if i == cfg.Warmup-1 && warming.Add(-1) == 0 {
						openNow()
					}
					continue
				}
				select {
				case <-opened:
					if !s.cut && s.end > time.Duration(open.Load()) && cfg.Requests > 0 &&
						inWindow.Add(1) >= int64(cfg.Requests) {
						stopWith(ClosedByRequests)
					}
				default:
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	finish := func() {
		cancel()
		<-done
		run.end = sw.now()
	}

	report(cfg, Progress{Concurrency: n, Phase: PhaseWarmup})
	select {
	case <-opened:
	case <-ctx.Done():
		// Interrupted while warming up: nothing was measured.
		finish()
		return run, ctx.Err()
	}
	run.open = time.Duration(open.Load())
	if cfg.Warmup > 0 && warmOK.Load() == 0 {
		finish()
		return run, fmt.Errorf("warm-up at concurrency %d: every request failed: %w", n, *warmErr.Load())
	}

	report(cfg, Progress{Concurrency: n, Phase: PhaseMeasure})
	var timeUp <-chan time.Time
	if cfg.Duration > 0 {
		t := time.NewTimer(run.open + cfg.Duration - sw.now())
		defer t.Stop()
		timeUp = t.C
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for run.closedBy == "" {
		select {
		case <-timeUp:
			run.closedBy = ClosedByDuration
		case why := <-stop:
			run.closedBy = why
		case <-ctx.Done():
			run.closedBy = ClosedByInterrupt
		case <-tick.C:
			report(cfg, Progress{Concurrency: n, Phase: PhaseMeasure, Completed: int(completed.Load()),
				Failed: int(failed.Load()), Elapsed: sw.now() - run.open})
		}
	}
	run.stopped = sw.now()
	closed.Store(true)
	if cfg.Drain > 0 && run.closedBy != ClosedByInterrupt {
		report(cfg, Progress{Concurrency: n, Phase: PhaseDrain})
		t := time.NewTimer(cfg.Drain)
		select {
		case <-done:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	finish()
	run.partial = ctx.Err() != nil
	return run, nil
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

// Counts returns what the result's rates count.
func (r *Result) Counts() Unit { return UnitOf(r.Mode) }
