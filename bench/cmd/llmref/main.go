// Command llmref measures an LLM server by its own per-request account
// and compares a zk probe openai result with it (see bench/llmref):
//
//	llmref measure -kind ollama -url http://127.0.0.1:11434 -model m -levels 1,4,16 > ref.json
//	llmref compare [-tolerance 0.10] [-windows adjacent|simultaneous] PROBE1.json REF1.json ...
//
// compare prints a markdown table and the server's drift, and exits 1 when
// the probe's error (judged on the same requests, or on simultaneous
// windows) is over -tolerance or a request failed; drift alone never
// fails it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/zk-claims/zk/bench/llmref"
	"github.com/zk-claims/zk/probe"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: llmref measure|compare [flags]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch os.Args[1] {
	case "measure":
		err = measure(ctx, os.Args[2:])
	case "compare":
		err = compare(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (measure or compare)", os.Args[1])
	}
	var disagree errDisagree
	switch {
	case errors.As(err, &disagree):
		fmt.Fprintln(os.Stderr, "llmref:", err)
		os.Exit(1)
	case err != nil:
		fmt.Fprintln(os.Stderr, "llmref:", err)
		os.Exit(2)
	}
}

func measure(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("measure", flag.ExitOnError)
	t := llmref.Target{}
	fs.StringVar(&t.Kind, "kind", llmref.Ollama, "the server: ollama or llama-server")
	fs.StringVar(&t.BaseURL, "url", "", "the server's base URL, without /v1")
	fs.StringVar(&t.Model, "model", "", "the model")
	fs.IntVar(&t.MaxTokens, "max-tokens", 128, "tokens per request")
	fs.StringVar(&t.Prompt, "prompt", probe.DefaultPrompt, "the prompt")
	fs.BoolVar(&t.Stream, "stream", false, "ask Ollama for streamed answers (figures from the last chunk)")
	levels := fs.String("levels", "1,4,16", "the concurrency levels")
	window := fs.Duration("window", 15*time.Second, "how long each level sends requests")
	fs.Parse(args)
	if t.BaseURL == "" {
		return errors.New("measure: -url is required")
	}
	var out []llmref.Level
	for _, s := range strings.Split(*levels, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("measure: -levels: %w", err)
		}
		lv, err := llmref.Measure(ctx, t, c, *window)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "llmref: %d streams: %d requests, median decode %.1f tok/s, aggregate %.1f tok/s, %d failed\n",
			c, len(lv.Requests), lv.MedianDecode(), lv.Aggregate(), lv.Failed)
		out = append(out, lv)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	return enc.Encode(out)
}

type errDisagree struct{ why []string }

func (e errDisagree) Error() string { return strings.Join(e.why, "; ") }

func compare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ExitOnError)
	tol := fs.Float64("tolerance", 0.10, "the largest relative difference accepted")
	windows := fs.String("windows", string(llmref.Adjacent), "how each pair's windows lay: adjacent (one after the other) or simultaneous")
	fs.Parse(args)
	w := llmref.Windows(*windows)
	if w != llmref.Adjacent && w != llmref.Simultaneous {
		return fmt.Errorf("compare: -windows %q: adjacent or simultaneous", *windows)
	}
	if fs.NArg() == 0 || fs.NArg()%2 != 0 {
		return errors.New("compare: give pairs of files: PROBE.json REF.json, a zk probe --format json output and the llmref measure output taken next to it")
	}
	var rounds []llmref.Round
	for i := 0; i < fs.NArg(); i += 2 {
		data, err := os.ReadFile(fs.Arg(i))
		if err != nil {
			return err
		}
		res, ok := probe.Detect(data)
		if !ok {
			return fmt.Errorf("%s is not zk probe JSON", fs.Arg(i))
		}
		b, err := os.ReadFile(fs.Arg(i + 1))
		if err != nil {
			return err
		}
		var lv []llmref.Level
		if err := json.Unmarshal(b, &lv); err != nil {
			return fmt.Errorf("%s: %w", fs.Arg(i+1), err)
		}
		rounds = append(rounds, llmref.Round{Probe: res, Ref: lv})
	}
	rows, err := llmref.Compare(rounds...)
	if err != nil {
		return err
	}
	fmt.Print(llmref.Markdown(rows))
	fmt.Println()
	for _, l := range llmref.Unjudged(rows, w) {
		fmt.Println("- " + l)
	}
	if ok, why := llmref.Within(rows, *tol, w); !ok {
		return errDisagree{why}
	}
	return nil
}
