package vault

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/bench/vaultgen"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// BenchmarkScan parses a generated vault of 10k notes (more with
// ZK_BENCH_NOTES=10000,100000) and reports notes/s and the ratio of the
// scan's wall time to the floor measured in the same run: walking the vault
// and reading every file, with as many workers as the scan uses.
//
//	go test ./vault -run '^$' -bench Scan -benchtime 3x
func BenchmarkScan(b *testing.B) {
	sizes := vaulttest.BenchSizes(b, 10_000)
	for _, n := range sizes {
		b.Run(fmt.Sprintf("notes=%d/cores=%d", n, runtime.GOMAXPROCS(0)), func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "vault")
			if err := vaultgen.Generate(dir, n, 1); err != nil {
				b.Fatal(err)
			}
			v, err := Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			defer v.Close()
			vaulttest.ReadFloor(b, dir, Workers()) // warm the page cache
			b.ResetTimer()
			var floor, scan time.Duration
			var notes int
			for i := 0; i < b.N; i++ {
				floor += vaulttest.ReadFloor(b, dir, Workers())
				start := time.Now()
				s := scanAll(b, v)
				scan += time.Since(start)
				notes = len(s.notes)
			}
			b.ReportMetric(float64(notes*b.N)/scan.Seconds(), "notes/s")
			b.ReportMetric(scan.Seconds()/floor.Seconds(), "x-read-floor")
			b.ReportMetric(float64(floor.Milliseconds())/float64(b.N), "floor-ms")
		})
	}
}

// BenchmarkParseLongLine parses one line of 200,000 wikilinks: the shape
// that makes the unwrapped wikilink extension quadratic.
func BenchmarkParseLongLine(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 200_000; i++ {
		fmt.Fprintf(&sb, "[[Note %d]] ", i)
	}
	src := []byte(sb.String())
	p := NewParser()
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if n := p.Parse("x.md", src); len(n.Links) != 200_000 {
			b.Fatalf("%d links, want 200000", len(n.Links))
		}
	}
}
