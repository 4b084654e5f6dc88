package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

func needSh(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("needs a POSIX sh")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
}

func TestRun(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	tests := []struct {
		name  string
		cmd   Command
		check func(t *testing.T, r Result, live, log string)
	}{
		{"success, cwd, no stdin", Command{Argv: []string{"sh", "-c", "pwd; cat; echo done"}}, func(t *testing.T, r Result, live, log string) {
			if r.Exit != 0 || r.StartErr != nil || r.TimedOut {
				t.Errorf("result %+v", r)
			}
			real, _ := filepath.EvalSymlinks(dir)
			if want := real + "\ndone\n"; live != want || log != want {
				t.Errorf("live %q log %q, want %q", live, log, want)
			}
			if r.Lines != 2 || !reflect.DeepEqual(r.Tail, []string{real, "done"}) {
				t.Errorf("lines %d tail %q", r.Lines, r.Tail)
			}
		}},
		{"exit code and stderr", Command{Argv: []string{"sh", "-c", "echo out; echo err >&2; exit 3"}}, func(t *testing.T, r Result, live, log string) {
			if r.Exit != 3 || r.Lines != 1 || r.ErrLines != 1 || !reflect.DeepEqual(r.ErrTail, []string{"err"}) {
				t.Errorf("result %+v", r)
			}
			// stdout is the measurement: the log holds it alone; the
			// terminal sees both.
			if log != "out\n" || !strings.Contains(live, "err\n") {
				t.Errorf("live %q log %q", live, log)
			}
		}},
		{"cannot start", Command{Argv: []string{"zk-no-such-program"}}, func(t *testing.T, r Result, live, log string) {
			if r.StartErr == nil || !errors.Is(r.StartErr, exec.ErrNotFound) || r.Exit != -1 {
				t.Errorf("result %+v", r)
			}
		}},
		{"timeout kills the group", Command{Argv: []string{"sh", "-c", "echo started; sleep 60 & sleep 60; echo never"}, Timeout: 300 * time.Millisecond}, func(t *testing.T, r Result, live, log string) {
			if !r.TimedOut || r.Exit != -1 || strings.Contains(live, "never") {
				t.Errorf("result %+v live %q", r, live)
			}
		}},
		{"log cap and tail", Command{Argv: []string{"sh", "-c", "i=0; while [ $i -lt 50 ]; do echo line $i; i=$((i+1)); done; printf 'no newline'"}, MaxLog: 20, TailLines: 3}, func(t *testing.T, r Result, live, log string) {
			if len(log) != 20 || !r.Truncated || r.Lines != 51 {
				t.Errorf("log %d bytes, truncated %v, lines %d", len(log), r.Truncated, r.Lines)
			}
			if want := []string{"line 48", "line 49", "no newline"}; !reflect.DeepEqual(r.Tail, want) {
				t.Errorf("tail %q, want %q", r.Tail, want)
			}
			if !strings.HasSuffix(live, "line 49\nno newline") {
				t.Errorf("live output cut: %q", live[len(live)-30:])
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var live, log bytes.Buffer
			c := tt.cmd
			c.Dir, c.Live, c.Log = dir, &live, &log
			r, err := Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, r, live.String(), log.String())
		})
	}
}

func TestRunRelativeToDir(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.sh"), []byte("#!/bin/sh\necho here\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), Command{Argv: []string{"./f.sh"}, Dir: dir})
	if err != nil || r.Exit != 0 || !reflect.DeepEqual(r.Tail, []string{"here"}) {
		t.Errorf("Run ./f.sh: %+v, %v", r, err)
	}
}

func TestRunInterrupted(t *testing.T) {
	needSh(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Run(ctx, Command{Argv: []string{"sleep", "60"}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !(r.Interrupted || r.StartErr != nil) || r.TimedOut {
		t.Errorf("result %+v", r)
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[1;31mred\x1b[0m", "red"},
		{"\x1b]0;title\x07text", "text"},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"10%\r50%\r100%", "100%"},
		{"crlf\r", "crlf"},
		{"tab\tkept\x00\x07\x7f", "tab\tkept"},
		{"bad \xff\xfe byte", "bad \uFFFD byte"},
		{"c1 \u009b controls", "c1  controls"},
		{"\x1b", ""},
		{"\x1b[", ""},
	}
	for _, tt := range tests {
		if got := Clean([]byte(tt.in)); got != tt.want {
			t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTailLongLine(t *testing.T) {
	tl := newTail(2, 10)
	tl.Write([]byte(strings.Repeat("é", 100) + "\nshort"))
	tl.flush()
	got := tl.kept()
	if tl.lines != 2 || len(got) != 2 || got[0] != strings.Repeat("é", 5)+"…" || got[1] != "short" {
		t.Errorf("tail %q (%d lines)", got, tl.lines)
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  error
	}{
		{"go test -run X ./...", []string{"go", "test", "-run", "X", "./..."}, nil},
		{`sh -c 'echo $HOME | wc'`, []string{"sh", "-c", "echo $HOME | wc"}, nil},
		{`printf "a \"b\" \\c"`, []string{"printf", `a "b" \c`}, nil},
		{`a\ b ''`, []string{"a b", ""}, nil},
		{"multi\n  line", []string{"multi", "line"}, nil},
		{"-bench=.*", []string{"-bench=.*"}, nil},
		{"echo $HOME", nil, ErrShellSyntax},
		{"a | b", nil, ErrShellSyntax},
		{"a; b", nil, ErrShellSyntax},
		{`echo "$(id)"`, nil, ErrShellSyntax},
		{"~/bin/x", nil, ErrShellSyntax},
		{"  ", nil, ErrNoCommand},
	}
	for _, tt := range tests {
		got, err := Split(tt.in)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("Split(%q) err = %v, want %v", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Split(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := Split("'open"); err == nil {
		t.Error("unterminated quote accepted")
	}
}

// FuzzQuoteSplit: whatever argv is, Split reads Quote's output back to it.
func FuzzQuoteSplit(f *testing.F) {
	f.Add("go", "test -run 'X'", "")
	f.Add("sh", "-c", "echo $HOME; `id`")
	f.Add("a\nb", "\"", "\\")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		argv := []string{a, b, c}
		got, err := Split(Quote(argv))
		if err != nil || !reflect.DeepEqual(got, argv) {
			t.Fatalf("Split(Quote(%q)) = %q, %v (quoted %s)", argv, got, err, Quote(argv))
		}
	})
}

// TestRunStderrApart: stderr goes to its own log, capped on its own, and
// its last lines are kept apart from stdout's.
func TestRunStderrApart(t *testing.T) {
	needSh(t)
	var out, errLog bytes.Buffer
	r, err := Run(context.Background(), Command{
		Argv: []string{"sh", "-c", `echo '{"p50": 3}'; echo 'warning: slow' >&2; echo 'zk: interrupted' >&2`},
		Dir:  t.TempDir(), Log: &out, ErrLog: &errLog, MaxLog: 1 << 10,
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "{\"p50\": 3}\n" || errLog.String() != "warning: slow\nzk: interrupted\n" {
		t.Errorf("stdout log %q, stderr log %q", out.String(), errLog.String())
	}
	if r.Lines != 1 || r.ErrLines != 2 || r.ErrBytes != int64(errLog.Len()) ||
		!reflect.DeepEqual(r.ErrTail, []string{"warning: slow", "zk: interrupted"}) {
		t.Errorf("result %+v", r)
	}
}
