//go:build unix

package main

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptWait bounds every wait of the signal scripts: generous, so that a
// loaded machine does not fail them, and finite, so that a zk that ignores
// a signal fails the script rather than hanging it.
const scriptWait = 30 * time.Second

// signalCmds are the testscript commands of the signal-*.txtar scripts.
// testscript's own kill knows only INT and KILL.
func signalCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	// The pipes' writers, by path; scripts run in parallel.
	var mu sync.Mutex
	writers := map[string]*os.File{}
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		// mkfifo PATH makes a named pipe.
		"mkfifo": func(ts *testscript.TestScript, neg bool, args []string) {
			if neg || len(args) != 1 {
				ts.Fatalf("usage: mkfifo PATH")
			}
			ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o644))
		},
		// fifoready PATH waits until a reader has the named pipe open
		// (a process is blocked on it) and keeps it open for writing,
		// writing nothing, until fifoclose.
		"fifoready": func(ts *testscript.TestScript, neg bool, args []string) {
			if neg || len(args) != 1 {
				ts.Fatalf("usage: fifoready PATH")
			}
			p := ts.MkAbs(args[0])
			for end := time.Now().Add(scriptWait); ; time.Sleep(10 * time.Millisecond) {
				f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0)
				if err == nil {
					mu.Lock()
					writers[p] = f
					mu.Unlock()
					return
				}
				if !errors.Is(err, syscall.ENXIO) || time.Now().After(end) {
					ts.Fatalf("no reader opened %s: %v", args[0], err)
				}
			}
		},
		"fifoclose": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 1 {
				ts.Fatalf("usage: fifoclose PATH")
			}
			p := ts.MkAbs(args[0])
			mu.Lock()
			defer mu.Unlock()
			if f := writers[p]; f != nil {
				f.Close()
				delete(writers, p)
			}
		},
		// signal SIG PIDFILE sends SIG (TERM, HUP, INT) to the process
		// whose id PIDFILE holds.
		"signal": func(ts *testscript.TestScript, neg bool, args []string) {
			sigs := map[string]syscall.Signal{"TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP, "INT": syscall.SIGINT}
			if neg || len(args) != 2 || sigs[args[0]] == 0 {
				ts.Fatalf("usage: signal TERM|HUP|INT PIDFILE")
			}
			ts.Check(syscall.Kill(pidIn(ts, args[1]), sigs[args[0]]))
		},
		// waitfile PATH waits, at most scriptWait, for PATH to exist
		// with a line in it.
		"waitfile": func(ts *testscript.TestScript, neg bool, args []string) {
			if neg || len(args) != 1 {
				ts.Fatalf("usage: waitfile PATH")
			}
			for end := time.Now().Add(scriptWait); ; time.Sleep(10 * time.Millisecond) {
				if b, err := os.ReadFile(ts.MkAbs(args[0])); err == nil && strings.HasSuffix(string(b), "\n") {
					return
				}
				if time.Now().After(end) {
					ts.Fatalf("%s did not appear within %s", args[0], scriptWait)
				}
			}
		},
		// alive PIDFILE succeeds when the process is still there; the
		// process may take a moment to be reaped, so "! alive" waits.
		"alive": func(ts *testscript.TestScript, neg bool, args []string) {
			if len(args) != 1 {
				ts.Fatalf("usage: alive PIDFILE")
			}
			pid := pidIn(ts, args[0])
			for end := time.Now().Add(scriptWait); ; time.Sleep(10 * time.Millisecond) {
				alive := syscall.Kill(pid, 0) == nil && !zombie(pid)
				if alive != neg {
					return
				}
				if time.Now().After(end) {
					ts.Fatalf("process %d: alive %v", pid, alive)
				}
			}
		},
	}
}

func pidIn(ts *testscript.TestScript, name string) int {
	b, err := os.ReadFile(ts.MkAbs(name))
	ts.Check(err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	ts.Check(err)
	return pid
}

// zombie reports whether pid has exited but not been reaped (Linux).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}
