//go:build unix

package runner

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTimeoutKillsGrandchildren: a background child of the command dies
// with it on timeout, because the whole process group is killed.
func TestTimeoutKillsGrandchildren(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	r, err := Run(context.Background(), Command{
		Argv:    []string{"sh", "-c", "sleep 60 & echo $! > child.pid; wait"},
		Dir:     dir,
		Timeout: 300 * time.Millisecond,
	})
	if err != nil || !r.TimedOut {
		t.Fatalf("Run: %+v, %v", r, err)
	}
	waitGone(t, readPid(t, dir))
}

// TestExitKillsLeftovers: a background child the command leaves behind is
// killed when the command exits.
func TestExitKillsLeftovers(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	r, err := Run(context.Background(), Command{
		Argv: []string{"sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $! > child.pid"},
		Dir:  dir,
	})
	if err != nil || r.Exit != 0 {
		t.Fatalf("Run: %+v, %v", r, err)
	}
	waitGone(t, readPid(t, dir))
}

func readPid(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitGone fails unless pid stops running within a generous bound. The
// killed child may linger as a zombie until its new parent reaps it; what
// matters is that it does not run.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); running(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("child %d of the command is still running", pid)
		}
	}
}

func running(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: kill(0) succeeded, so it exists
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
