package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/probe/probetest"
)

type simulateOptions struct {
	listen string
	sim    probetest.Simulator
}

// newProbeSimulateCmd is a hidden command that serves the simulated
// OpenAI-compatible server of package probetest, to try zk probe openai
// without a GPU.
func newProbeSimulateCmd(s *streams) *cobra.Command {
	opts := &simulateOptions{}
	cmd := &cobra.Command{
		Use:    "simulate",
		Short:  "Serve a SIMULATED OpenAI-compatible streaming server",
		Hidden: true,
		Long: `Serve a simulation of a continuously batching OpenAI-compatible server: it
decodes --budget tokens per second in total, shared by the streams in flight,
at most --per-stream each. It prints its base URL on stdout and serves until
interrupted. It is a simulation, and says so in every response.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSimulate(cmd.Context(), opts, s)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.listen, "listen", "127.0.0.1:0", "the `address` to listen on")
	f.Float64Var(&opts.sim.Budget, "budget", 500, "tokens per second decoded in total, shared by active streams")
	f.Float64Var(&opts.sim.PerStream, "per-stream", 100, "at most this many tokens per second for one stream (0: no cap)")
	f.DurationVar(&opts.sim.Prefill, "prefill", 20*time.Millisecond, "the wait before each stream's first token")
	f.IntVar(&opts.sim.TokensPerChunk, "tokens-per-chunk", 1, "tokens bundled into one streamed chunk")
	f.BoolVar(&opts.sim.CloseAfterStream, "close-after-stream", false, "close each connection after a streamed response while advertising keep-alive, as llama.cpp's llama-server does")
	f.Float64Var(&opts.sim.Jitter, "jitter", 0, "spread the requests' rates: they alternate between 1+`J` and 1-J times their share (0: none)")
	f.BoolVar(&opts.sim.Timings, "timings", false, "end each streamed response with its own timings (predicted_n, predicted_ms), as llama.cpp's llama-server does")
	return cmd
}

func runSimulate(ctx context.Context, opts *simulateOptions, s *streams) error {
	if opts.sim.Budget <= 0 {
		return usageError{errors.New("simulate: --budget must be above 0")}
	}
	if opts.sim.Jitter < 0 || opts.sim.Jitter >= 1 {
		return usageError{errors.New("simulate: --jitter must be at least 0 and under 1")}
	}
	ln, err := net.Listen("tcp", opts.listen)
	if err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	srv := &http.Server{Handler: &opts.sim, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(s.out, "http://%s/v1\n", ln.Addr())
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("simulate: %w", err)
	}
	return nil
}
