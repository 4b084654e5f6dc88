package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/script from the current output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"zk": func() { os.Exit(run(context.Background(), os.Args[1:], stdStreams())) },
	})
}

// TestScript runs every testdata/script/*.txtar end to end against the
// real binary. Scripts see ZK_TODAY=2026-12-02, a HOME of their own,
// $EXAMPLES (the repository's examples folder, to copy), and $SHARED when
// ../shared is there.
func TestScript(t *testing.T) {
	testscript.Run(t, scriptParams(t, "testdata/script"))
}

func scriptParams(t *testing.T, dir string) testscript.Params {
	shared, _ := filepath.Abs("../../../shared")
	examples, _ := filepath.Abs("../../examples")
	// A script's go (trust-tree.txtar's go test) builds into the user's
	// cache, not a new one it would fill with the standard library.
	gocache, _ := exec.Command("go", "env", "GOCACHE").Output()
	// And its cargo finds the toolchain rustup installed under the real
	// home folder (trust-cargo-target.txtar).
	rust := map[string]string{}
	if h, err := os.UserHomeDir(); err == nil {
		for name, dir := range map[string]string{"RUSTUP_HOME": ".rustup", "CARGO_HOME": ".cargo"} {
			if v := os.Getenv(name); v != "" {
				rust[name] = v
			} else if st, err := os.Stat(filepath.Join(h, dir)); err == nil && st.IsDir() {
				rust[name] = filepath.Join(h, dir)
			}
		}
	}
	p := testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
			env.Setenv("ZK_TODAY", "2026-12-02")
			env.Setenv("NO_COLOR", "")
			env.Setenv("EXAMPLES", examples)
			env.Setenv("BASH_COMPLETION", bashCompletion())
			if c := strings.TrimSpace(string(gocache)); c != "" {
				env.Setenv("GOCACHE", c)
			}
			for name, v := range rust {
				env.Setenv(name, v)
			}
			// The scripts' zk is this test binary: its version, build ID
			// and all, is the one a script's zk reports.
			env.Setenv("ZK_BUILD", buildVersion())
			if st, err := os.Stat(shared); err == nil && st.IsDir() {
				env.Setenv("SHARED", shared)
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "nginx":
				return nginxBinary() != "", nil
			case "bashcompletion": // the bash-completion package, which zk's bash script needs
				return bashCompletion() != "", nil
			case "man": // man(1) is installed, to render a page with man -l
				_, err := exec.LookPath("man")
				return err == nil, nil
			case "hupignored": // go test runs under nohup: its processes, zk too, inherit SIGHUP ignored, and zk keeps it so
				return signal.Ignored(syscall.SIGHUP), nil
			case "shared": // $SHARED is set: ../shared is there
				st, err := os.Stat(shared)
				return err == nil && st.IsDir(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"simulate":   simulateCmd,   // probe_script_test.go
			"simwait":    simwaitCmd,    // probe_script_test.go
			"nginx":      nginxCmd,      // probe_script_test.go
			"genhostile": genhostileCmd, // hostile_script_test.go
			"rpc":        rpcCmd,        // rpc_script_test.go
			"genrpc":     genrpcCmd,     // rpc_script_test.go
			"genlong":    genlongCmd,    // hostile_script_test.go
			"genwords":   genwordsCmd,   // hostile_script_test.go
			"gennotes":   gennotesCmd,   // base_script_test.go
			"genbigbase": genbigbaseCmd, // base_script_test.go
			"actionstep": actionStepCmd, // release_test.go
			"fits":       fitsCmd,       // fits_script_test.go
			// mtime PATH SECONDS_AGO sets a file's modification time.
			"mtime": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: mtime PATH SECONDS_AGO")
				}
				d, err := time.ParseDuration(args[1] + "s")
				ts.Check(err)
				at := time.Now().Add(-d)
				ts.Check(os.Chtimes(ts.MkAbs(args[0]), at, at))
			},
		},
	}
	for name, cmd := range signalCmds() { // signal_script_unix_test.go
		p.Cmds[name] = cmd
	}
	return p
}

// bashCompletion is the bash-completion package's script, or "".
func bashCompletion() string {
	for _, p := range []string{"/usr/share/bash-completion/bash_completion", "/opt/homebrew/share/bash-completion/bash_completion",
		"/usr/local/share/bash-completion/bash_completion", "/etc/bash_completion"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}
