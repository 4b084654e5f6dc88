package vault

import (
	"context"
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

// BenchmarkWalk lists the files of a generated vault of 10k notes (more
// with ZK_BENCH_NOTES) and reports the walk's CPU and wall time as ratios
// to the stat floor measured in the same run (vaulttest.StatFloor: one
// goroutine reading each folder and lstat-ing each entry, as find
// -printf does), and the walk's allocations per file. walk=portable is the walk
// through the os.Root's fs.FS, the one systems other than Linux use.
//
//	go test ./vault -run '^$' -bench Walk -benchtime 20x
func BenchmarkWalk(b *testing.B) {
	for _, n := range vaulttest.BenchSizes(b, 10_000) {
		dir := filepath.Join(b.TempDir(), "vault")
		if err := vaultgen.Generate(dir, n, 1); err != nil {
			b.Fatal(err)
		}
		for _, portable := range []bool{false, true} {
			name := "system"
			if portable {
				name = "portable"
			}
			b.Run(fmt.Sprintf("notes=%d/walk=%s", n, name), func(b *testing.B) {
				v, err := Open(dir)
				if err != nil {
					b.Fatal(err)
				}
				defer v.Close()
				v.portableWalk = portable
				vaulttest.StatFloor(b, dir) // warm the inode cache
				b.ResetTimer()
				var floor, floorCPU, walk, walkCPU time.Duration
				var files int
				var mallocs uint64
				var ms runtime.MemStats
				for i := 0; i < b.N; i++ {
					start, cpu := time.Now(), cpuTime()
					vaulttest.StatFloor(b, dir)
					floor += time.Since(start)
					floorCPU += cpuTime() - cpu
					runtime.ReadMemStats(&ms)
					before := ms.Mallocs
					start, cpu = time.Now(), cpuTime()
					fs, _, err := v.Files(context.Background())
					if err != nil {
						b.Fatal(err)
					}
					walk += time.Since(start)
					walkCPU += cpuTime() - cpu
					runtime.ReadMemStats(&ms)
					mallocs += ms.Mallocs - before
					files = len(fs)
				}
				b.ReportMetric(float64(mallocs)/float64(b.N)/float64(max(files, 1)), "walk-allocs/file")
				b.ReportMetric(walk.Seconds()/floor.Seconds(), "x-stat-floor")
				if floorCPU > 0 {
					b.ReportMetric(walkCPU.Seconds()/floorCPU.Seconds(), "cpu-x-stat-floor")
					b.ReportMetric(float64(walkCPU.Microseconds())/1000/float64(b.N), "walk-cpu-ms")
					b.ReportMetric(float64(floorCPU.Microseconds())/1000/float64(b.N), "floor-cpu-ms")
				}
				b.ReportMetric(float64(files), "files")
			})
		}
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
