package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
)

const recordNote = "# N\n\n## Claim\n\nA claim.\n\n## Evidence\n\n## Tests / falsifiers\n\n- One.\n"

// recordVault is a vault holding note.md, an hour old.
func recordVault(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".obsidian"), 0o755)
	p := filepath.Join(dir, "note.md")
	if err := os.WriteFile(p, []byte(recordNote), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	return dir
}

// fullDisk lets n bytes through, then fails as a full disk does.
type fullDisk struct {
	w io.Writer
	n int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) > d.n {
		k, _ := d.w.Write(p[:d.n])
		d.n = 0
		return k, fmt.Errorf("write: %w", syscall.ENOSPC)
	}
	d.n -= len(p)
	return d.w.Write(p)
}

// A log that cannot be written (disk full) costs the log, not the result:
// the output still reaches the terminal and the block goes into the note,
// saying the log is incomplete. (Before, zk exited 2 with "write log: no
// space left on device" and recorded nothing.)
func TestRunLogDiskFull(t *testing.T) {
	dir := recordVault(t)
	testOnlyLogWriter = func(w io.Writer) io.Writer { return &fullDisk{w: w, n: 4} }
	t.Cleanup(func() { testOnlyLogWriter = nil })
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"--vault", dir, "run", "note.md", "--", "sh", "-c", "echo first; echo second"}, &streams{in: strings.NewReader(""), out: &out, err: &errOut})
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut.String())
	}
	if out.String() != "first\nsecond\n" {
		t.Errorf("terminal got %q", out.String())
	}
	if !strings.Contains(errOut.String(), "is incomplete") || !strings.Contains(errOut.String(), "no space left on device") {
		t.Errorf("no warning about the log: %s", errOut.String())
	}
	note, _ := os.ReadFile(filepath.Join(dir, "note.md"))
	for _, want := range []string{"> second", "the full log could not be written", "it holds the first 4 of 13 bytes"} {
		if !bytes.Contains(note, []byte(want)) {
			t.Errorf("the note lacks %q:\n%s", want, note)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, ".zk", "runs", "*.log"))
	if len(logs) != 1 {
		t.Fatalf("logs: %v", logs)
	}
	if b, _ := os.ReadFile(logs[0]); string(b) != "firs" {
		t.Errorf("log holds %q", b)
	}
}

// A result neither the note nor .zk/runs can take is printed with the
// error, so it still reaches the terminal.
func TestSaveBlockLastResort(t *testing.T) {
	dir := recordVault(t)
	os.MkdirAll(filepath.Join(dir, ".zk"), 0o755)
	os.WriteFile(filepath.Join(dir, ".zk", "runs"), nil, 0o644) // a file where the folder would go
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	r := evidence.Run{ID: "20261203T000000Z-abcd", Started: time.Now(), Verdict: evidence.VerdictSupports, Command: "true"}
	err = saveBlock(v, "note.md", r, syscall.ENOSPC)
	if err == nil || !strings.Contains(err.Error(), "<!-- zk:run id=20261203T000000Z-abcd") {
		t.Errorf("err = %v, want the block in it", err)
	}
}

// Partial logs of zk processes that died are swept by the next run; a
// live run's, and finished logs, are kept.
func TestSweepRunLogs(t *testing.T) {
	dir := recordVault(t)
	runs := filepath.Join(dir, ".zk", "runs")
	os.MkdirAll(runs, 0o755)
	dead := "20261203T000000Z-0001.log.999999999.partial"
	live := "20261203T000000Z-0002.log." + strconv.Itoa(os.Getppid()) + ".partial"
	done := "20261203T000000Z-0003.log"
	for _, n := range []string{dead, live, done} {
		os.WriteFile(filepath.Join(runs, n), []byte("x"), 0o644)
	}
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	sweepRunLogs(v, time.Now())
	for n, keep := range map[string]bool{dead: false, live: true, done: true} {
		if _, err := os.Stat(filepath.Join(runs, n)); (err == nil) != keep {
			t.Errorf("%s kept = %v, want %v", n, err == nil, keep)
		}
	}
	sweepRunLogs(v, time.Now().Add(partialMaxAge+time.Hour))
	if _, err := os.Stat(filepath.Join(runs, live)); err == nil {
		t.Error("a partial log older than partialMaxAge was kept")
	}
}
