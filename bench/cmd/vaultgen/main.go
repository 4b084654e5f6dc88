// Command vaultgen writes a synthetic vault for benchmarks:
//
//	go run ./bench/cmd/vaultgen -n 10000 -o /tmp/vault-10k
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/zk-claims/zk/bench/vaultgen"
)

func main() {
	n := flag.Int("n", 10000, "number of notes")
	out := flag.String("o", "", "output folder (required; must not exist)")
	seed := flag.Uint64("seed", 1, "random seed")
	props := flag.Bool("properties", false, "give every note frontmatter: status, rating, created")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "vaultgen: -o is required")
		os.Exit(2)
	}
	if _, err := os.Stat(*out); err == nil {
		fmt.Fprintf(os.Stderr, "vaultgen: %s exists; give a new folder\n", *out)
		os.Exit(2)
	}
	if err := vaultgen.Generate(*out, *n, *seed); err != nil {
		fmt.Fprintf(os.Stderr, "vaultgen: %v\n", err)
		os.Exit(1)
	}
	if *props {
		if err := vaultgen.AddProperties(*out, *n); err != nil {
			fmt.Fprintf(os.Stderr, "vaultgen: %v\n", err)
			os.Exit(1)
		}
	}
}
