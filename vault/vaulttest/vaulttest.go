// Package vaulttest writes vaults for tests: the vault's own packages
// (vault, lint, tending, evidence) and the index test against real files.
package vaulttest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Dir writes files (vault path → content) into a new temporary folder and
// returns it. Every file's mtime is an hour old, past any quiet window.
func Dir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(full, old, old); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// ReadFloor walks dir and reads every file with workers goroutines: what
// no command that must look at every note can beat. Benchmarks report
// their time as a ratio to it, measured in the same run, so that a loaded
// machine moves both.
func ReadFloor(tb testing.TB, dir string, workers int) time.Duration {
	start := time.Now()
	paths := make(chan string, 256)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for p := range paths {
				if _, err := os.ReadFile(p); err != nil {
					tb.Error(err)
				}
			}
		})
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths <- p
		}
		return err
	})
	close(paths)
	wg.Wait()
	if err != nil {
		tb.Fatal(err)
	}
	return time.Since(start)
}

// StatFloor walks dir as find -printf '%s %T@' does: one goroutine reads
// each folder and lstats each of its entries, nothing kept. A walk that
// must know every file's size and time cannot do less; benchmarks report
// a walk's cost as a ratio to it, measured in the same run.
func StatFloor(tb testing.TB, dir string) {
	f, err := os.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range ents {
		p := dir + string(filepath.Separator) + e.Name()
		if _, err := os.Lstat(p); err != nil {
			tb.Fatal(err)
		}
		if e.IsDir() {
			StatFloor(tb, p)
		}
	}
}

// BytesRead is how many bytes this process has read so far (rchar in
// /proc/self/io, children it reaped included): a test of how often a file
// is read compares two. It skips the test where there is no such count.
// Tests that run in parallel read into it too.
func BytesRead(tb testing.TB) int64 {
	tb.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		tb.Skipf("no count of bytes read: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				tb.Fatalf("/proc/self/io: %v", err)
			}
			return n
		}
	}
	tb.Skip("no rchar in /proc/self/io")
	return 0
}

// BenchSizes are the vault sizes a benchmark generates: $ZK_BENCH_NOTES
// (a comma-separated list, "10000,100000"), else def.
func BenchSizes(tb testing.TB, def ...int) []int {
	s := os.Getenv("ZK_BENCH_NOTES")
	if s == "" {
		return def
	}
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			tb.Fatalf("ZK_BENCH_NOTES: %v", err)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// RefutedC is a note, C, whose one falsifier's latest recorded run
// refutes it: the end of a chain of notes resting on a refuted claim.
const RefutedC = "# C\n\n## Tests / falsifiers\n\n- The suite fails.\n  - run: `sh -c 'exit 1'`\n  - refuted if: `exit != 0`\n\n## Evidence\n\n" +
	"<!-- zk:run id=20261203T133032Z-2d8e v=1 -->\n" +
	"> [!failure]- Falsifier run 2026-12-03 13:30 UTC · exit 1 · 0.001 s\n" +
	"> - **Falsifier:** The suite fails.\n" +
	"> - **Command:** `sh -c 'exit 1'`\n" +
	"> - **Criterion:** exit = 1; refuted if `exit != 0`: refuted\n" +
	"> - **Environment:** linux/amd64 · 2 CPU · zk devel\n" +
	"> - **Output:** none; full log `.zk/runs/20261203T133032Z-2d8e.log`\n" +
	"<!-- zk:run-end id=20261203T133032Z-2d8e sum=sha256:0919b06f920352c2 -->\n"
