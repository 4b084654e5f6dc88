package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/zk-claims/zk/probe/probetest"
)

// simulateCmd is the script command
//
//	simulate [budget=TOK/S] [per-stream=TOK/S] [prefill=DURATION] [jitter=J] [close-after-stream] [timings]
//
// which serves probetest's SIMULATED OpenAI-compatible server on loopback
// for the rest of the script and sets $SIM_URL to its base URL.
// close-after-stream closes each connection after a streamed response, as
// llama.cpp's llama-server does (probetest.Simulator.CloseAfterStream);
// timings ends each with llama.cpp's own timings (Simulator.Timings);
// jitter spreads the requests' rates (Simulator.Jitter).
func simulateCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! simulate")
	}
	sim := &probetest.Simulator{Budget: 500, PerStream: 100, Prefill: 20 * time.Millisecond}
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		var err error
		switch k {
		case "budget":
			sim.Budget, err = strconv.ParseFloat(v, 64)
		case "per-stream":
			sim.PerStream, err = strconv.ParseFloat(v, 64)
		case "prefill":
			sim.Prefill, err = time.ParseDuration(v)
		case "close-after-stream":
			sim.CloseAfterStream = true
		case "timings":
			sim.Timings = true
		case "jitter":
			sim.Jitter, err = strconv.ParseFloat(v, 64)
		default:
			ts.Fatalf("usage: simulate [budget=N] [per-stream=N] [prefill=D] [jitter=J] [close-after-stream] [timings]")
		}
		ts.Check(err)
	}
	served := new(atomic.Int64)
	simServed.Store(ts, served)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sim.ServeHTTP(w, r)
		served.Add(1)
	}))
	ts.Defer(func() { srv.Close(); simServed.Delete(ts) })
	ts.Setenv("SIM_URL", srv.URL+"/v1")
}

// simServed maps a script to the count of requests its simulator answered.
var simServed sync.Map // *testscript.TestScript → *atomic.Int64

// simwaitCmd is the script command `simwait N`: it waits until the
// script's simulator has answered N requests (at most a minute), so a
// script can act on a probe in mid-sweep without sleeping.
func simwaitCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: simwait N")
	}
	n, err := strconv.ParseInt(args[0], 10, 64)
	ts.Check(err)
	v, ok := simServed.Load(ts)
	if !ok {
		ts.Fatalf("simwait: no simulator; run simulate first")
	}
	served := v.(*atomic.Int64)
	for deadline := time.Now().Add(time.Minute); served.Load() < n; {
		if time.Now().After(deadline) {
			ts.Fatalf("simwait: %d of %d requests answered after a minute", served.Load(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// nginxBinary is the nginx a script may start, or "" when there is none.
func nginxBinary() string {
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx"
	}
	return ""
}

// nginxCmd is the script command `nginx`: it starts a private nginx on a
// loopback port (bench/nginx-loopback.sh, config and logs under $WORK),
// stops it when the script ends, and sets $NGINX_URL. Guard scripts with
// [!nginx] skip; .ci/run installs nginx.
func nginxCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: nginx")
	}
	script, err := filepath.Abs("../../bench/nginx-loopback.sh")
	ts.Check(err)
	dir := ts.MkAbs("nginx")
	ts.Check(os.MkdirAll(dir, 0o755))
	out, err := exec.Command(script, "start", dir).Output()
	if err != nil {
		ts.Fatalf("starting nginx: %v\n%s", err, errOutput(err))
	}
	ts.Defer(func() { exec.Command(script, "stop", dir).Run() })
	ts.Setenv("NGINX_URL", strings.TrimSpace(string(out)))
}

func errOutput(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return fmt.Sprint(err)
}
