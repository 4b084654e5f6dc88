package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/probe"
)

type probeOptions struct {
	root        *rootOptions
	mode        string
	concurrency []int
	duration    time.Duration
	requests    int
	warmup      int
	drain       time.Duration
	timeout     time.Duration
	format      string
	chart       string
	allowRemote bool

	url       string
	model     string
	endpoint  string
	maxTokens int
	prompt    string
	extraBody string
}

func newProbeCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &probeOptions{root: root}
	cmd := &cobra.Command{
		Use:   "probe <http|openai>",
		Short: "Measure a throughput claim, per stream and in aggregate",
		Long: `Measure a server's throughput per stream and in aggregate, side by side,
at each concurrency level of a closed-loop sweep: each of N streams sends its
next request as soon as its last one ends. A level runs in three phases,
without pausing the streams: warm-up (--warmup requests per stream, not
measured; in openai mode stream k's last one asks for (k+1)/N of
--max-tokens, so the streams' measured requests start spread out rather
than in lockstep), the measured window (exactly --duration, or until --requests
requests ended in it, whichever comes first), and the drain (requests in
flight at the window's close get --drain to finish, not measured, and are
then cancelled). Requests count in the window if they ended in it; tokens
and time in flight count where they fall. The output reports each phase's
length: a level takes warm-up + window + drain.

Every rate says whether it is aggregate (all streams together over the
level's window) or per stream (what one user feels), and the table starts
with the concurrency it was measured at. Only loopback targets are probed
unless --allow-remote is given. Ctrl-C stops the sweep and prints what was
measured.

EXIT STATUS
  0  measured
  2  a usage error, a target that never answered, or an interrupted sweep
     (what was measured is printed first)`,
	}
	pf := cmd.PersistentFlags()
	pf.IntSliceVar(&opts.concurrency, "concurrency", []int{1, 4, 16}, "the concurrency `LEVELS` to sweep, each a number of streams in flight")
	pf.DurationVar(&opts.duration, "duration", 10*time.Second, "measure each level over a window of `DURATION` (0: bounded by --requests only)")
	pf.IntVar(&opts.requests, "requests", 0, "close a level's window once `N` requests ended in it (0: bounded by --duration only)")
	pf.IntVar(&opts.warmup, "warmup", 1, "send `N` unmeasured warm-up requests per stream before each level's window opens")
	pf.DurationVar(&opts.drain, "drain", 0, "let requests in flight at a window's close finish for up to `DURATION` (unmeasured) before cancelling them")
	pf.DurationVar(&opts.timeout, "timeout", time.Minute, "give up on one request after `DURATION`")
	addChoiceFlagTo(cmd, pf, &opts.format, "format", "format", "output `format`", "text", "markdown", "json")
	pf.StringVar(&opts.chart, "chart", "", "also write an SVG chart of the rates against concurrency to `FILE`")
	pf.BoolVar(&opts.allowRemote, "allow-remote", false, "allow a target that is not on this machine")
	cmd.AddCommand(newProbeHTTPCmd(opts, s), newProbeOpenAICmd(opts, s), newProbeSimulateCmd(s))
	return cmd
}

func newProbeHTTPCmd(opts *probeOptions, s *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "http --url URL",
		Short: "Requests per second of GET URL, per stream and aggregate",
		Long: `Send GET requests to --url, reading each response to the end, and report
per level: aggregate requests per second over the window (and in the steady
state, while every stream is running), each stream's requests per second
(p50 [p10–p90] over streams), latency p50 / p99, requested and achieved
concurrency, and errors. HTTP status 400 and above counts as an error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.mode = probe.ModeHTTP
			return runProbe(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.url, "url", "", "the `URL` to GET")
	cmd.MarkFlagRequired("url")
	return cmd
}

func newProbeOpenAICmd(opts *probeOptions, s *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "openai --url BASE [--model M]",
		Short: "Tokens/s of an OpenAI-compatible server, per stream and aggregate",
		Long: `Stream completions from an OpenAI-compatible server (stream: true with
stream_options.include_usage) and report per level: aggregate output tokens
per second over the window and in the steady state, each request's decode
rate (tokens after the first over the time after the first) and end-to-end
rate, time to first token, achieved and decoding concurrency, and a
consistency check that compares decode with decode: aggregate decode rate ≈
decoding streams × median per-stream decode rate, flagged when off by more
than 15%. Tokens come from the server's usage block when it sends one, else
from counting chunks; the output says which. A request whose reused
connection the server closed before answering (llama.cpp's llama-server
does after each streamed response) is sent once more on a fresh connection
and counted as retried; later requests then dial their own. Where the
server accounts for each request itself (llama.cpp's timings), each level
also sets the server's decode rate beside the probe's for the very same
requests (server_account in the JSON).

--url is the server's base: http://127.0.0.1:8000/v1 (vLLM),
http://127.0.0.1:8080/v1 (llama.cpp's llama-server),
http://127.0.0.1:11434/v1 (Ollama). Without --model, the probe asks the
server for its models (GET /v1/models) and uses the one it lists; a server
that lists several must be told which. A server that sends no Server
header is named by its own API where zk knows it (Ollama: GET
/api/version).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.mode = probe.ModeOpenAI
			return runProbe(cmd.Context(), opts, s)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.url, "url", "", "the server's base `URL`")
	f.StringVar(&opts.model, "model", "", "the `MODEL` to ask for (default: the server's only model, from GET /v1/models)")
	f.StringVar(&opts.endpoint, "endpoint", probe.EndpointChat, "the `API`: chat (/v1/chat/completions) or completions (/v1/completions)")
	f.IntVar(&opts.maxTokens, "max-tokens", 256, "ask for at most `N` output tokens per request")
	f.StringVar(&opts.prompt, "prompt", probe.DefaultPrompt, "the prompt `TEXT`; each request prefixes its number so no two share a cached prefix")
	f.StringVar(&opts.extraBody, "extra-body", "", "a JSON `OBJECT` merged into each request, e.g. '{\"ignore_eos\":true}' for vLLM")
	cmd.MarkFlagRequired("url")
	return cmd
}

func runProbe(ctx context.Context, opts *probeOptions, s *streams) error {
	u, err := url.Parse(opts.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return usageError{fmt.Errorf("probe: %q is not an http or https URL", opts.url)}
	}
	if err := probe.CheckHost(u, opts.allowRemote); err != nil {
		return usageError{fmt.Errorf("probe: %w (pass --allow-remote to probe another machine)", err)}
	}
	cfg := probe.Config{
		Concurrency: opts.concurrency,
		Duration:    opts.duration,
		Requests:    opts.requests,
		Warmup:      opts.warmup,
		Drain:       opts.drain,
		Timeout:     opts.timeout,
	}
	if err := cfg.Validate(); err != nil {
		return usageError{fmt.Errorf("probe: %w", err)}
	}
	if s.errTTY {
		cfg.Progress = func(p probe.Progress) { fmt.Fprintf(s.err, "\r\033[K%s", progressLine(p)) }
	}
	var res *probe.Result
	switch opts.mode {
	case probe.ModeHTTP:
		res, err = probe.HTTP(ctx, probe.HTTPTarget{URL: opts.url}, cfg)
	case probe.ModeOpenAI:
		t := probe.OpenAITarget{BaseURL: opts.url, Model: opts.model, Endpoint: opts.endpoint,
			MaxTokens: opts.maxTokens, Prompt: opts.prompt}
		if opts.extraBody != "" {
			if jerr := json.Unmarshal([]byte(opts.extraBody), &t.ExtraBody); jerr != nil {
				return usageError{fmt.Errorf("probe: --extra-body is not a JSON object: %w", jerr)}
			}
		}
		res, err = probe.OpenAI(ctx, t, cfg)
	}
	if s.errTTY {
		fmt.Fprint(s.err, "\r\033[K")
	}
	interrupted := errors.Is(err, context.Canceled)
	if err != nil && !interrupted {
		err = fmt.Errorf("probe: %w", err)
	}
	if res == nil || len(res.Levels) == 0 && !interrupted {
		return err // nothing was measured: no empty table
	}
	res.Env.Client = "zk " + buildVersion()
	if werr := writeProbe(opts, s, res); werr != nil {
		return errors.Join(err, werr)
	}
	if interrupted {
		return fmt.Errorf("probe interrupted after %d level(s); the output holds what was measured", len(res.Levels))
	}
	return err
}

// writeProbe prints res in the chosen format, and the chart if asked for.
func writeProbe(opts *probeOptions, s *streams, res *probe.Result) error {
	switch opts.format {
	case "json":
		if err := writeJSON(s.out, res); err != nil {
			return err
		}
	case "markdown":
		fmt.Fprint(s.out, probe.RenderMarkdown(res))
	default:
		fmt.Fprint(s.out, probe.RenderText(res))
	}
	if opts.chart == "" {
		return nil
	}
	f, err := os.Create(opts.chart)
	if err != nil {
		return fmt.Errorf("probe: chart: %w", err)
	}
	if err := probe.WriteSVG(f, res); err != nil {
		f.Close()
		return fmt.Errorf("probe: chart: %w", err)
	}
	return f.Close()
}

func progressLine(p probe.Progress) string {
	switch p.Phase {
	case probe.PhaseWarmup:
		return fmt.Sprintf("concurrency %d: warming up", p.Concurrency)
	case probe.PhaseMeasure:
		return fmt.Sprintf("concurrency %d: %d done, %d failed, %.0f s", p.Concurrency, p.Completed, p.Failed, p.Elapsed.Seconds())
	case probe.PhaseDrain:
		return fmt.Sprintf("concurrency %d: draining", p.Concurrency)
	}
	return ""
}
