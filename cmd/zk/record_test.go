package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
