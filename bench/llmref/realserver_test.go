//go:build unix

package llmref

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zk-claims/zk/bench/gguf"
	"github.com/zk-claims/zk/probe"
)

// The opt-in tests below run zk's probe against a real server, a short
// version of bench/ollama.sh and bench/llama-server.sh: 1 and 4 streams,
// 64 tokens a request, 8-second windows, two rounds of the probe next to
// a reference pass of the server's own per-request figures. They assert
// that no request failed on either side and that the probe's per-stream
// decode and aggregate rates agree with the server's within realTolerance
// ($ZK_REAL_TOLERANCE overrides it): short windows on a shared machine
// are noisy, so it is wider than the scripts' 10%. The servers compute on
// one thread, as the scripts do by default (see bench/llm-bench.sh).
//
//	ZK_OLLAMA=~/.cache/zk-bench/ollama-v0.17.4/ollama go test ./bench/llmref -run Real -v
//	ZK_LLAMA_SERVER=.../build/bin/llama-server go test ./bench/llmref -run Real -v
const realTolerance = 0.20

func TestRealOllama(t *testing.T) {
	bin := os.Getenv("ZK_OLLAMA")
	if bin == "" {
		t.Skip("set ZK_OLLAMA to an ollama binary to run (bench/ollama.sh builds one)")
	}
	model, port, home := writeModel(t), freePort(t), t.TempDir()
	env := append(os.Environ(), "HOME="+home, "OLLAMA_HOST=127.0.0.1:"+port, "OLLAMA_MODELS="+filepath.Join(home, "models"),
		"OLLAMA_NUM_PARALLEL=4", "OLLAMA_KEEP_ALIVE=-1", "OLLAMA_CONTEXT_LENGTH=1024")
	startServer(t, env, "http://127.0.0.1:"+port+"/api/version", bin, "serve")
	mf := filepath.Join(home, "Modelfile")
	if err := os.WriteFile(mf, []byte("FROM "+model+"\nPARAMETER num_thread 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	create := exec.Command(bin, "create", "zk-bench", "-f", mf)
	create.Env = env
	if out, err := create.CombinedOutput(); err != nil {
		t.Fatalf("ollama create: %v\n%s", err, out)
	}
	compareReal(t, Target{Kind: Ollama, BaseURL: "http://127.0.0.1:" + port, Model: "zk-bench"})
}

func TestRealLlamaServer(t *testing.T) {
	bin := os.Getenv("ZK_LLAMA_SERVER")
	if bin == "" {
		t.Skip("set ZK_LLAMA_SERVER to a llama-server binary to run (bench/llama-server.sh builds one)")
	}
	model, port := writeModel(t), freePort(t)
	startServer(t, os.Environ(), "http://127.0.0.1:"+port+"/health", bin,
		"-m", model, "--host", "127.0.0.1", "--port", port, "--alias", "zk-bench", "--parallel", "4", "--ctx-size", "4096", "--threads", "1", "--threads-batch", "1")
	compareReal(t, Target{Kind: LlamaServer, BaseURL: "http://127.0.0.1:" + port, Model: "zk-bench"})
}

func compareReal(t *testing.T, tgt Target) {
	tol := realTolerance
	if s := os.Getenv("ZK_REAL_TOLERANCE"); s != "" {
		var err error
		if tol, err = strconv.ParseFloat(s, 64); err != nil {
			t.Fatalf("ZK_REAL_TOLERANCE: %v", err)
		}
	}
	ctx := context.Background()
	tgt.MaxTokens, tgt.Prompt = 64, probe.DefaultPrompt
	window := 8 * time.Second
	var rounds []Round
	for r := range 2 {
		for _, c := range []int{1, 4} {
			var rd Round
			reference := func() {
				lv, err := Measure(ctx, tgt, c, window)
				if err != nil {
					t.Fatalf("reference at %d streams: %v", c, err)
				}
				rd.Ref = []Level{lv}
			}
			measure := func() {
				res, err := probe.OpenAI(ctx, probe.OpenAITarget{BaseURL: tgt.BaseURL + "/v1", Model: tgt.Model, MaxTokens: tgt.MaxTokens},
					probe.Config{Concurrency: []int{c}, Duration: window, Warmup: 1, Timeout: 5 * time.Minute})
				if err != nil {
					t.Fatalf("probe at %d streams: %v", c, err)
				}
				rd.Probe = res
			}
			// Alternate which goes first, so drift hits both alike.
			if r%2 == 0 {
				reference()
				measure()
			} else {
				measure()
				reference()
			}
			rounds = append(rounds, rd)
		}
	}
	rows, err := Compare(rounds...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s, %d tokens a request, %v windows:\n%s\n%s", tgt.Kind, tgt.MaxTokens, window, Markdown(rows), strings.Join(Unjudged(rows, Adjacent), "\n"))
	if ok, why := Within(rows, tol, Adjacent); !ok {
		for _, w := range why {
			t.Error(w)
		}
	}
}

func writeModel(t *testing.T) string {
	t.Helper()
	f, err := gguf.Llama(gguf.Default)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "zk-bench.gguf")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Write(out); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// startServer starts bin in its own process group (Ollama's runner is a
// child), ends the group when the test ends, and waits up to two minutes
// for ready to answer 200.
func startServer(t *testing.T, env []string, ready, bin string, args ...string) {
	t.Helper()
	log, err := os.Create(filepath.Join(t.TempDir(), "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		log.Close()
	})
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(ready)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(log.Name())
			t.Fatalf("%s did not answer %s in 2 minutes: %v\n%s", bin, ready, err, tail(b, 2000))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return fmt.Sprint(string(b))
}
