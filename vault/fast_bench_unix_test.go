//go:build unix

package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkParseVault parses every note of the vault at ZK_BENCH_VAULT
// in one op, the fast path or goldmark as Parse chooses: the part of a
// cold zk check the fast path changes, without the walk, the reads and
// the process around it. Besides ns/op it reports cpu-ms/op, the
// process's user and system time (the collector's included), which
// other processes on the machine inflate less than the wall time.
func BenchmarkParseVault(b *testing.B) {
	root := os.Getenv("ZK_BENCH_VAULT")
	if root == "" {
		b.Skip("ZK_BENCH_VAULT names no vault")
	}
	var notes [][]byte
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			if src, err := os.ReadFile(p); err == nil {
				notes = append(notes, src)
			}
		}
		return nil
	})
	p := NewParser()
	before := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		for _, src := range notes {
			p.Parse("a/x.md", src)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-before)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
