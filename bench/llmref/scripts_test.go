package llmref

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLLMBuildRunsDirectly: bench/llm-build.sh run as a command (not
// sourced) builds what it is asked for and prints each binary's path; it
// used to define its functions, print nothing and exit 0. A cache that
// holds both binaries stands for a build: nothing is fetched.
func TestLLMBuildRunsDirectly(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	cache := t.TempDir()
	src := filepath.Join(cache, "llama.cpp-node-llama-cpp-3.22.1")
	for _, p := range []string{filepath.Join(src, "build/bin/llama-server"), filepath.Join(cache, "ollama-v0.17.4/ollama")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(src, "CMakeLists.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		cmd := exec.Command("../llm-build.sh", args...)
		cmd.Env = append(os.Environ(), "ZK_BENCH_CACHE="+cache, "OLLAMA_VERSION=v0.17.4", "NODE_LLAMA_CPP_VERSION=3.22.1")
		out, err := cmd.Output()
		return string(out), err
	}
	out, err := run()
	if err != nil {
		t.Fatalf("bench/llm-build.sh: %v", err)
	}
	want := filepath.Join(cache, "ollama-v0.17.4/ollama") + "\n" + filepath.Join(src, "build/bin/llama-server") + "\n"
	if out != want {
		t.Errorf("bench/llm-build.sh printed %q, want %q", out, want)
	}
	if out, err := run("llama-server"); err != nil || strings.TrimSpace(out) != filepath.Join(src, "build/bin/llama-server") {
		t.Errorf("bench/llm-build.sh llama-server: %q, %v", out, err)
	}
	if _, err := run("bogus"); err == nil {
		t.Error("bench/llm-build.sh bogus exited 0")
	}
}

// TestLLMBenchWindows runs bench/llm-bench.sh's bench_run with stand-ins
// for zk and llmref (no LLM server here): with WINDOWS=simultaneous each
// round's probe and reference overlap in time, with adjacent they do not,
// and llmref compare is told which; its exit is the bench's.
func TestLLMBenchWindows(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	for _, windows := range []string{"simultaneous", "adjacent"} {
		t.Run(windows, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin")
			events := filepath.Join(dir, "events")
			// Each stand-in logs when it starts and ends (nanoseconds), so
			// that the test can tell overlapping windows from adjacent ones.
			stub := `#!/usr/bin/env bash
case "$1 $2" in
"run "*) echo "recorded run R1 in note" >&2; exit 0 ;;
"compare "*) echo "compare $*" >>"$EVENTS"; exit 0 ;;
esac
echo "start $(basename "$0") $(date +%s%N)" >>"$EVENTS"
sleep 0.3
echo "end $(basename "$0") $(date +%s%N)" >>"$EVENTS"
echo '{}'
`
			if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"zk", "llmref"} {
				if err := os.WriteFile(filepath.Join(bin, name), []byte(stub), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			script := `set -euo pipefail
source bench/llm-build.sh
source bench/llm-bench.sh
kind=ollama port=1 label=test gguf=model.gguf tmp=` + dir + ` OUT=` + dir + `/out
mkdir -p "$OUT"
bench_run >/dev/null`
			cmd := exec.Command("bash", "-c", script)
			cmd.Dir = "../.."
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "EVENTS="+events,
				"WINDOWS="+windows, "LEVELS=4", "ROUNDS=2", "DURATION=1s")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("bench_run: %v\n%s", err, out)
			}
			data, err := os.ReadFile(events)
			if err != nil {
				t.Fatal(err)
			}
			var starts, ends []int64
			var compare string
			for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				f := strings.Fields(l)
				switch f[0] {
				case "compare":
					compare = l
				case "start", "end":
					var n int64
					fmt.Sscan(f[2], &n)
					if f[0] == "start" {
						starts = append(starts, n)
					} else {
						ends = append(ends, n)
					}
				}
			}
			if !strings.Contains(compare, "-windows "+windows) {
				t.Errorf("llmref compare was run as %q, without -windows %s", compare, windows)
			}
			if len(starts) != 4 || len(ends) != 4 {
				t.Fatalf("%d starts and %d ends, want 4 (2 rounds, probe and reference):\n%s", len(starts), len(ends), data)
			}
			// Round 1's two windows: do they overlap?
			overlap := max(starts[0], starts[1]) < min(ends[0], ends[1])
			if overlap != (windows == "simultaneous") {
				t.Errorf("%s windows: the probe's and the reference's overlap: %v\n%s", windows, overlap, data)
			}
		})
	}
}
