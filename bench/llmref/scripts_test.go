package llmref

import (
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
