package index

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/zk-claims/zk/bench/vaultgen"
	"github.com/zk-claims/zk/vault"
)

// TestKillDuringUpdate kills a zk indexing in another process at several
// moments (kill -9: no deferred cleanup), during a first build and during
// an incremental update, and then searches: the answer is always the
// right one, with the index reopened or rebuilt, and the notes untouched.
func TestKillDuringUpdate(t *testing.T) {
	if dir := os.Getenv("ZK_INDEX_CHILD_VAULT"); dir != "" {
		v, err := vault.Open(dir)
		if err == nil {
			_, err = Update(context.Background(), v, Options{Dir: os.Getenv("ZK_INDEX_CHILD_DIR"), BatchBytes: 16 << 10}, false)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if testing.Short() {
		t.Skip("starts and kills processes")
	}
	const n = 600
	dir := t.TempDir()
	if err := vaultgen.Generate(dir, n, 1); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	count := func(opts Options, q string) uint64 {
		t.Helper()
		res, err := Search(context.Background(), v, opts, Request{Query: q, MaxUpdate: n})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		return res.Total
	}
	kill := func(idxDir string, after time.Duration) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillDuringUpdate$")
		cmd.Env = append(os.Environ(), "ZK_INDEX_CHILD_VAULT="+dir, "ZK_INDEX_CHILD_DIR="+idxDir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(after)
		cmd.Process.Kill()
		cmd.Wait()
	}
	queries := []string{"denominator", "claim:throughput", `"aggregate stream"`, "kiwi"}
	reference := func() map[string]uint64 {
		opts := Options{Dir: filepath.Join(t.TempDir(), "ref")}
		if _, err := Update(context.Background(), v, opts, true); err != nil {
			t.Fatal(err)
		}
		want := map[string]uint64{}
		for _, q := range queries {
			want[q] = count(opts, q)
		}
		return want
	}

	want := reference()
	for _, after := range []time.Duration{5 * time.Millisecond, 60 * time.Millisecond, 250 * time.Millisecond, 800 * time.Millisecond} {
		t.Run("build/"+after.String(), func(t *testing.T) {
			opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
			kill(opts.Dir, after)
			for _, q := range queries {
				if got := count(opts, q); got != want[q] {
					t.Errorf("%q after a kill at %v: %d hits, want %d", q, after, got, want[q])
				}
			}
		})
	}

	opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
	if _, err := Update(context.Background(), v, opts, false); err != nil {
		t.Fatal(err)
	}
	for i, after := range []time.Duration{5 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond, 150 * time.Millisecond, 300 * time.Millisecond} {
		// Edit a third of the notes, then kill the update that indexes them.
		for k := i; k < n; k += 3 {
			p := filepath.Join(dir, filepath.FromSlash(vaultgen.Path(k)))
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "\nkiwi %d\n", i)
			f.Close()
		}
		want := reference()
		kill(opts.Dir, after)
		// A kill leaves at most segments no snapshot names: the index is
		// reopened, not rebuilt.
		st, err := Update(context.Background(), v, opts, false)
		if err != nil {
			t.Fatal(err)
		}
		if st.Built {
			t.Errorf("round %d, killed at %v: the next update rebuilt the index: %s", i, after, st.Rebuilt)
		}
		for _, q := range queries {
			if got := count(opts, q); got != want[q] {
				t.Errorf("round %d, %q after a kill at %v: %d hits, want %d", i, q, after, got, want[q])
			}
		}
	}
}
