package move

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/zk-claims/zk/bench/vaultgen"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// BenchmarkMove moves a note with 1,000 backlinks (a generated vault of
// 10k notes, more with ZK_BENCH_NOTES=100000) back and forth, and reports
// the plan's and the apply's wall time and their ratio to the floor
// measured in the same run: walking the vault and reading every file, with
// as many workers as the plan uses. ZK_BENCH_WORKERS sets how many files
// the apply writes at once (ApplyOptions.Workers).
//
//	ZK_BENCH_NOTES=100000 go test ./vault/move -run '^$' -bench Move -benchtime 2x
func BenchmarkMove(b *testing.B) {
	const backlinks = 1_000
	workers := vault.DefaultBatchWorkers
	if s := os.Getenv("ZK_BENCH_WORKERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("ZK_BENCH_WORKERS: %v", err)
		}
		workers = n
	}
	for _, notes := range vaulttest.BenchSizes(b, 10_000) {
		b.Run(fmt.Sprintf("notes=%d/backlinks=%d/workers=%d/cores=%d", notes, backlinks, workers, runtime.GOMAXPROCS(0)), func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "vault")
			if err := vaultgen.Generate(dir, notes, 1); err != nil {
				b.Fatal(err)
			}
			target := vaultgen.Title(0)
			for i := 1; i <= backlinks; i++ {
				p := filepath.Join(dir, filepath.FromSlash(vaultgen.Path(i)))
				f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					b.Fatal(err)
				}
				fmt.Fprintf(f, "- [[%s]] — supports: the benchmark's backlink\n", target)
				f.Close()
			}
			ageAll(b, dir)
			v, err := vault.Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			defer v.Close()
			paths := [2]string{vaultgen.Path(0), "Moved/Renamed claim.md"}
			vaulttest.ReadFloor(b, dir, vault.Workers()) // warm the page cache
			b.ResetTimer()
			var floor, plan, apply time.Duration
			links := 0
			for i := 0; i < b.N; i++ {
				floor += vaulttest.ReadFloor(b, dir, vault.Workers())
				start := time.Now()
				files, _, err := v.Files(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				p, err := Move(context.Background(), v, files, paths[i%2], paths[(i+1)%2], Format{})
				if err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				plan += mid.Sub(start)
				if err := Apply(context.Background(), v, p, ApplyOptions{Key: testKey, Workers: workers}); err != nil {
					b.Fatal(err)
				}
				apply += time.Since(mid)
				links = p.Links
				b.StopTimer()
				ageAll(b, dir) // the next move's files are past the quiet window
				b.StartTimer()
			}
			if links < backlinks {
				b.Fatalf("%d links rewritten, want at least %d", links, backlinks)
			}
			b.ReportMetric(float64(plan.Milliseconds())/float64(b.N), "plan-ms")
			b.ReportMetric(float64(apply.Milliseconds())/float64(b.N), "apply-ms")
			b.ReportMetric(float64(floor.Milliseconds())/float64(b.N), "floor-ms")
			b.ReportMetric(plan.Seconds()/floor.Seconds(), "plan-x-floor")
			b.ReportMetric((plan+apply).Seconds()/floor.Seconds(), "x-read-floor")
			b.ReportMetric(float64(links), "links")
		})
	}
}
