// Command ggufgen writes the random-weight llama model the real-server
// benchmarks serve (bench/ollama.sh, bench/llama-server.sh): GGUF v3,
// hidden 512, 8 layers, a 1024-token SentencePiece vocabulary, F16, about
// 56 MB, shaped so that greedy decoding walks one cycle through the
// vocabulary and never ends a stream early (see bench/gguf).
//
//	go run ./bench/cmd/ggufgen -o /tmp/zk-bench.gguf
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/zk-claims/zk/bench/gguf"
)

func main() {
	c := gguf.Default
	out := flag.String("o", "", "output file (required)")
	flag.Uint64Var(&c.Seed, "seed", c.Seed, "random seed")
	flag.IntVar(&c.Vocab, "vocab", c.Vocab, "vocabulary size")
	flag.IntVar(&c.Hidden, "hidden", c.Hidden, "embedding length")
	flag.IntVar(&c.Layers, "layers", c.Layers, "layers")
	flag.IntVar(&c.FFN, "ffn", c.FFN, "feed-forward length")
	flag.IntVar(&c.Heads, "heads", c.Heads, "attention heads")
	flag.IntVar(&c.Context, "context", c.Context, "trained context length")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "ggufgen: -o is required")
		os.Exit(2)
	}
	if err := write(*out, c); err != nil {
		fmt.Fprintf(os.Stderr, "ggufgen: %v\n", err)
		os.Exit(1)
	}
}

// write writes the model next to out and renames it into place, so a
// server never loads a half-written file.
func write(out string, c gguf.Config) error {
	f, err := gguf.Llama(c)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".ggufgen-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := f.Write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}
