package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/bench/vaultgen"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// BenchmarkList runs zk list --where 'rating > 3' --where 'status = draft'
// on a generated vault of 10k notes (ZK_BENCH_NOTES=10000,100000 for
// more), each note given frontmatter (status, rating, created), and
// reports the ratio of its wall time to the read floor measured in the
// same run: walking the vault and reading every file with as many workers
// as zk uses. The page cache is warm for both. cold is --no-cache: every
// note read and parsed, only what the query needs kept; first is the
// default run with no cache yet, which reads every record any query needs
// and writes the cache; cached is the run after it, which finds the vault
// unchanged; edited is a run after one note was edited, which reads that
// note again and keeps every other record.
//
//	go test ./cmd/zk -run '^$' -bench List -benchtime 5x
func BenchmarkList(b *testing.B) {
	sizes := vaulttest.BenchSizes(b, 10_000)
	for _, n := range sizes {
		dir := filepath.Join(b.TempDir(), "vault")
		if err := vaultgen.Generate(dir, n, 1); err != nil {
			b.Fatal(err)
		}
		if err := vaultgen.AddProperties(dir, n); err != nil {
			b.Fatal(err)
		}
		b.Setenv("XDG_CACHE_HOME", filepath.Join(b.TempDir(), "cache"))
		root := &rootOptions{vaultDir: dir, today: "2026-12-02", getenv: func(string) string { return "" }}
		opts := &listOptions{root: root, format: "paths", sort: "path",
			where: []string{"rating > 3", "status = draft"}}
		s := &streams{in: strings.NewReader(""), out: io.Discard, err: io.Discard}
		vaulttest.ReadFloor(b, dir, vault.Workers()) // warm the page cache
		cacheDir := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "zk", "list")
		edit := filepath.Join(dir, filepath.FromSlash(vaultgen.Path(n/2)))
		for _, mode := range []string{"cold", "first", "cached", "edited"} {
			b.Run(fmt.Sprintf("notes=%d/cores=%d/%s", n, runtime.GOMAXPROCS(0), mode), func(b *testing.B) {
				var floor, took time.Duration
				for i := 0; i < b.N; i++ {
					switch mode {
					case "cold":
						opts.noCache = true
					case "first":
						opts.noCache = false
						if err := os.RemoveAll(cacheDir); err != nil {
							b.Fatal(err)
						}
					default:
						opts.noCache = false
						if err := runList(context.Background(), opts, s); err != nil { // the cache
							b.Fatal(err)
						}
						if mode == "edited" {
							f, err := os.OpenFile(edit, os.O_APPEND|os.O_WRONLY, 0)
							if err != nil {
								b.Fatal(err)
							}
							_, err = fmt.Fprintf(f, "edit %d\n", i)
							if cerr := f.Close(); err == nil {
								err = cerr
							}
							if err != nil {
								b.Fatal(err)
							}
						}
					}
					floor += vaulttest.ReadFloor(b, dir, vault.Workers())
					start := time.Now()
					if err := runList(context.Background(), opts, s); err != nil {
						b.Fatal(err)
					}
					took += time.Since(start)
				}
				b.ReportMetric(float64(n*b.N)/took.Seconds(), "notes/s")
				b.ReportMetric(took.Seconds()/floor.Seconds(), "x-read-floor")
				b.ReportMetric(float64(floor.Milliseconds())/float64(b.N), "floor-ms")
				b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "list-ms")
			})
		}
	}
}
