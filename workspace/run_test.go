package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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
		f, err := PickFalsifier(n, tt.arg, nil)
		if tt.want == 0 {
			if err == nil {
				t.Errorf("PickFalsifier(%q) = %d, want an error", tt.arg, f.N)
			}
			continue
		}
		if err != nil || f.N != tt.want {
			t.Errorf("PickFalsifier(%q) = %d, %v; want %d", tt.arg, f.N, err, tt.want)
		}
	}
	one := vault.NewParser().Parse("n.md", []byte("## Tests / falsifiers\n\n- Only.\n"))
	if f, err := PickFalsifier(one, "", nil); err != nil || f.N != 1 {
		t.Errorf("the only falsifier: %d, %v", f.N, err)
	}
}

const recordNote = "# N\n\n## Claim\n\nA claim.\n\n## Evidence\n\n## Tests / falsifiers\n\n- One.\n"

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
// the output still streams live and the block goes into the note, saying
// the log is incomplete, with a warning. (Before, zk exited 2 with "write
// log: no space left on device" and recorded nothing.)
func TestRunLogDiskFull(t *testing.T) {
	testOnlyLogWriter = func(w io.Writer) io.Writer { return &fullDisk{w: w, n: 4} }
	t.Cleanup(func() { testOnlyLogWriter = nil })
	w, notices := open(t, map[string]string{".obsidian/app.json": "{}", "note.md": recordNote}, Writing)
	var live bytes.Buffer
	res, err := w.Run(context.Background(), RunRequest{Note: "note.md", Argv: []string{"sh", "-c", "echo first; echo second"}, Live: &live})
	if err != nil {
		t.Fatal(err)
	}
	if live.String() != "first\nsecond\n" {
		t.Errorf("live output %q", live.String())
	}
	warned := false
	for _, n := range *notices {
		warned = warned || n.Warning && strings.Contains(n.Text, "is incomplete") && strings.Contains(n.Text, "no space left on device")
	}
	if !warned {
		t.Errorf("no warning about the log: %+v", *notices)
	}
	note, _ := os.ReadFile(filepath.Join(w.Vault.Dir, "note.md"))
	for _, want := range []string{"> second", "the full log could not be written", "it holds the first 4 of 13 bytes"} {
		if !bytes.Contains(note, []byte(want)) {
			t.Errorf("the note lacks %q:\n%s", want, note)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(w.Vault.Dir, filepath.FromSlash(res.Run.Log))); string(b) != "firs" {
		t.Errorf("log holds %q", b)
	}
}
