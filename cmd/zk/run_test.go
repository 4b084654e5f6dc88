package main

import (
	"errors"
	"testing"
	"time"

	"github.com/zk-claims/zk/runner"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
)

// describe says how the command ended; the verdict is judgeRun's, from
// the falsifier's criterion (evidence.Judge).
func TestDescribe(t *testing.T) {
	tests := []struct {
		name   string
		res    runner.Result
		status string
		exit   int
	}{
		{"exit 0", runner.Result{Exit: 0}, "", 0},
		{"exit 1", runner.Result{Exit: 1}, "", 1},
		{"exit 125", runner.Result{Exit: 125}, "", 125},
		{"timed out", runner.Result{Exit: -1, TimedOut: true}, "timed out after 1m0s", -1},
		{"interrupted", runner.Result{Exit: -1, Interrupted: true}, "interrupted", -1},
		{"killed", runner.Result{Exit: -1, Signal: "killed"}, "killed by killed", -1},
		{"not started", runner.Result{Exit: -1, StartErr: errors.New("no such file")}, "could not start", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r evidence.Run
			describe(&r, tt.res, time.Minute)
			if r.Status != tt.status || r.Exit != tt.exit {
				t.Errorf("describe: status %q exit %d; want %q %d", r.Status, r.Exit, tt.status, tt.exit)
			}
		})
	}
}

// A run's exit status follows its verdict.
func TestVerdictErr(t *testing.T) {
	for v, want := range map[evidence.Verdict]error{
		evidence.VerdictSupports: nil, evidence.VerdictNone: nil, evidence.VerdictAttached: nil,
		evidence.VerdictRefutes: errFindings, evidence.VerdictInconclusive: errInconclusive, evidence.VerdictError: errInconclusive,
	} {
		if got := verdictErr(v); got != want {
			t.Errorf("verdictErr(%s) = %v, want %v", v, got, want)
		}
	}
}

func TestPickFalsifier(t *testing.T) {
	n := vault.NewParser().Parse("n.md", []byte("## Tests / falsifiers\n\n- Re-run at concurrency 1.\n- Look for vendor demos.\n- Check other units.\n"))
	tests := []struct {
		arg  string
		want int // falsifier number, 0 for an error
	}{
		{"1", 1}, {"3", 3}, {"0", 0}, {"4", 0},
		{"vendor", 2}, {"VENDOR", 2}, {"c", 0}, {"nothing", 0},
		{"", 0}, // three falsifiers: which one must be said
	}
	for _, tt := range tests {
		f, err := pickFalsifier(n, tt.arg)
		if tt.want == 0 {
			if err == nil {
				t.Errorf("pickFalsifier(%q) = %d, want an error", tt.arg, f.N)
			}
			continue
		}
		if err != nil || f.N != tt.want {
			t.Errorf("pickFalsifier(%q) = %d, %v; want %d", tt.arg, f.N, err, tt.want)
		}
	}
	one := vault.NewParser().Parse("n.md", []byte("## Tests / falsifiers\n\n- Only.\n"))
	if f, err := pickFalsifier(one, ""); err != nil || f.N != 1 {
		t.Errorf("the only falsifier: %d, %v", f.N, err)
	}
}
