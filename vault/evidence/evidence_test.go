package evidence

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
)

func sampleRun() Run {
	return Run{
		ID:          "20261202T140312Z-3f9c",
		Started:     time.Date(2026, 12, 2, 14, 3, 12, 0, time.UTC),
		Exit:        0,
		Duration:    12400 * time.Millisecond,
		Falsifier:   "Re-run at concurrency 1.",
		Command:     "go test -run X ./...",
		Environment: "linux/amd64 · 2 CPU · zk dev",
		Output:      &Output{Lines: 3, Tail: []string{"a", "b", "c"}},
		Log:         ".zk/runs/20261202T140312Z-3f9c.log",
	}
}

func TestRenderRun(t *testing.T) {
	got := string(RenderRun(sampleRun(), "\n"))
	want := "<!-- zk:run id=20261202T140312Z-3f9c v=1 -->\n" +
		"> [!success]- Falsifier run 2026-12-02 14:03 UTC · exit 0 · 12.4 s\n" +
		"> - **Falsifier:** Re-run at concurrency 1.\n" +
		"> - **Command:** `go test -run X ./...`\n" +
		"> - **Environment:** linux/amd64 · 2 CPU · zk dev\n" +
		"> - **Output:** 3 lines, below; full log `.zk/runs/20261202T140312Z-3f9c.log`\n" +
		">\n" +
		"> ```text\n> a\n> b\n> c\n> ```\n" +
		"<!-- zk:run-end id=20261202T140312Z-3f9c sum=" + runSum("20261202T140312Z-3f9c", splitLines([]byte(got))[1:12]) + " -->"
	if got != want {
		t.Errorf("RenderRun:\n%s\nwant:\n%s", got, want)
	}
}

func TestRenderRunCallouts(t *testing.T) {
	tests := []struct {
		name  string
		run   func(*Run)
		title string
	}{
		{"failure", func(r *Run) { r.Exit = 1 }, "> [!failure]- Falsifier run 2026-12-02 14:03 UTC · exit 1 · 12.4 s"},
		{"inconclusive", func(r *Run) { r.Exit = 125 }, "> [!question]- Falsifier run 2026-12-02 14:03 UTC · exit 125 · 12.4 s"},
		{"timeout", func(r *Run) {
			r.Exit, r.Verdict, r.Status = -1, VerdictInconclusive, "timed out after 2s"
		}, "> [!question]- Falsifier run 2026-12-02 14:03 UTC · timed out after 2s · 12.4 s"},
		{"not started", func(r *Run) {
			r.Exit, r.Verdict, r.Status, r.Duration = -1, VerdictError, "could not start", 0
		}, "> [!bug]- Falsifier run 2026-12-02 14:03 UTC · could not start · 0.000 s"},
		{"attached", func(r *Run) {
			r.Attached, r.Verdict, r.Command, r.Output, r.Exit = true, VerdictAttached, "bench.json", nil, -1
		}, "> [!info]- Result attached 2026-12-02 14:03 UTC · bench.json"},
		{"long", func(r *Run) { r.Duration = 134 * time.Second }, "> [!success]- Falsifier run 2026-12-02 14:03 UTC · exit 0 · 2m14s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sampleRun()
			tt.run(&r)
			lines := splitLines(RenderRun(r, "\n"))
			if lines[1] != tt.title {
				t.Errorf("title %q, want %q", lines[1], tt.title)
			}
			back := ParseRuns(RenderRun(r, "\n"))
			if len(back) != 1 || back[0].Problem != "" {
				t.Fatalf("ParseRuns = %+v", back)
			}
			got := back[0]
			if got.Exit != r.Exit || got.Verdict != r.Verdict && r.Verdict != "" || got.Status != r.Status || got.Attached != r.Attached || got.Command != r.Command {
				t.Errorf("parsed %+v, rendered from %+v", got, r)
			}
			if !r.Attached && got.Duration.Round(time.Second) != r.Duration.Round(time.Second) {
				t.Errorf("duration %v, want %v", got.Duration, r.Duration)
			}
		})
	}
}

func TestRenderRunHostileOutput(t *testing.T) {
	r := sampleRun()
	r.Falsifier = "two\nlines"
	r.Command = "echo `x`"
	r.Output = &Output{Lines: 4, Tail: []string{"```", "<!-- zk:run-end id=20261202T140312Z-3f9c sum=sha256:0 -->", "bad \xff byte\r\nsplit", "\x00nul"}}
	b := RenderRun(r, "\n")
	if !bytes.Contains(b, []byte("> ````text\n")) {
		t.Errorf("fence not longer than the output's backticks:\n%s", b)
	}
	if !bytes.Contains(b, []byte("**Command:** `` echo `x` ``\n")) {
		t.Errorf("command not in a longer code span:\n%s", b)
	}
	runs := ParseRuns(b)
	if len(runs) != 1 || runs[0].Problem != "" || runs[0].Falsifier != "two lines" || runs[0].Command != "echo `x`" {
		t.Errorf("ParseRuns = %+v\n%s", runs, b)
	}
}

func TestInsertRun(t *testing.T) {
	r := sampleRun()
	block := string(RenderRun(r, "\n"))
	tests := []struct {
		name, src, want string
	}{
		{"blank line before next heading",
			"# T\n\n## Evidence\n\nSome text.\n\n## Links\n",
			"# T\n\n## Evidence\n\nSome text.\n\n" + block + "\n\n## Links\n"},
		{"no blank line before next heading",
			"## Evidence\nSome text.\n## Links\n",
			"## Evidence\nSome text.\n\n" + block + "\n\n## Links\n"},
		{"empty section",
			"## Evidence\n\n## Links\n",
			"## Evidence\n\n" + block + "\n\n## Links\n"},
		{"last section, final newline",
			"## Evidence\n\nText.\n",
			"## Evidence\n\nText.\n\n" + block + "\n"},
		{"last section, no final newline",
			"## Evidence\n\nText.",
			"## Evidence\n\nText.\n\n" + block},
		{"heading only, no final newline",
			"## Evidence",
			"## Evidence\n\n" + block},
		{"subsections belong to the section",
			"## Evidence\n\nA\n\n### Runs\n\nB\n\n## Links\n",
			"## Evidence\n\nA\n\n### Runs\n\nB\n\n" + block + "\n\n## Links\n"},
		{"heading in a code block is not a section end",
			"## Evidence\n\n```\n## Links\n```\n\n## Links\n",
			"## Evidence\n\n```\n## Links\n```\n\n" + block + "\n\n## Links\n"},
		{"CRLF",
			"## Evidence\r\n\r\nText.\r\n\r\n## Links\r\n",
			"## Evidence\r\n\r\nText.\r\n\r\n" + strings.ReplaceAll(block, "\n", "\r\n") + "\r\n\r\n## Links\r\n"},
		{"BOM",
			"\ufeff# T\n## Evidence\n\nText.\n",
			"\ufeff# T\n## Evidence\n\nText.\n\n" + block + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := InsertRun([]byte(tt.src), r)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("InsertRun:\n%q\nwant:\n%q", got, tt.want)
			}
			runs := ParseRuns(got)
			if len(runs) != 1 || runs[0].Problem != "" || runs[0].ID != r.ID {
				t.Errorf("ParseRuns after insert = %+v", runs)
			}
		})
	}
	if _, err := InsertRun([]byte("# T\n\n## Claim\n"), r); !errors.Is(err, ErrNoEvidence) {
		t.Errorf("no Evidence: err %v, want ErrNoEvidence", err)
	}
}

func TestInsertRunTwiceKeepsOrder(t *testing.T) {
	a, b := sampleRun(), sampleRun()
	b.ID = "20261202T150000Z-0001"
	src := []byte("## Evidence\n\nText.\n\n## Links\n")
	src, _ = InsertRun(src, a)
	src, _ = InsertRun(src, b)
	runs := ParseRuns(src)
	if len(runs) != 2 || runs[0].ID != a.ID || runs[1].ID != b.ID {
		t.Fatalf("runs = %+v", runs)
	}
}

func TestEditedRuns(t *testing.T) {
	src, _ := InsertRun([]byte("# T\n\n## Evidence\n\nText.\n\n## Links\n"), sampleRun())
	if got := EditedRuns(src); len(got) != 0 {
		t.Fatalf("fresh block reported edited: %+v", got)
	}
	crlf := bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))
	if got := EditedRuns(crlf); len(got) != 0 {
		t.Errorf("CRLF conversion counted as an edit: %+v", got)
	}
	trailing := bytes.Replace(src, []byte("> a\n"), []byte("> a   \n"), 1)
	if got := EditedRuns(trailing); len(got) != 0 {
		t.Errorf("trailing blanks counted as an edit: %+v", got)
	}
	edited := bytes.Replace(src, []byte("exit 0"), []byte("exit 1"), 1)
	got := EditedRuns(edited)
	if len(got) != 1 || got[0].Line != 6 || !strings.Contains(got[0].Problem, "checksum") {
		t.Errorf("edited block: %+v", got)
	}
	cut := bytes.Replace(src, []byte("<!-- zk:run-end"), []byte("<!-- gone"), 1)
	if got := EditedRuns(cut); len(got) != 1 || !strings.Contains(got[0].Problem, "no end marker") {
		t.Errorf("block without end marker: %+v", got)
	}
}

func TestFalsifiers(t *testing.T) {
	src := "# T\n\n## Tests / falsifiers\n\n" +
		"- First. If X then Y.\n" +
		"  - run: `go version`\n" +
		"  - run: `second ignored`\n" +
		"- Second\n" +
		"  more text\n" +
		"  ```zk-run\n" +
		"  sh -c 'echo hi'\n" +
		"  ```\n" +
		"- Third, no command\n" +
		"  - a note about it\n" +
		"- Fourth\n" +
		"  - run: `sh -c 'echo rate = 3 tok/s'`\n" +
		"  - capture: `rate = ([0-9.]+) tok/s`\n" +
		"  - Refuted if: `rate < 10`\n" +
		"  - refuted if: second ignored\n" +
		"- Fifth\n" +
		"  - refuted if: exit != 0\n" +
		"\n## Maintenance\n\n- Last tended: 2026-01-01\n"
	n := vault.NewParser().Parse("t.md", []byte(src))
	got := Falsifiers(n)
	want := []Falsifier{
		{N: 1, Text: "First. If X then Y.", Line: 4, Command: "go version", CommandLine: 5},
		{N: 2, Text: "Second", Line: 7, Command: "sh -c 'echo hi'", CommandLine: 9},
		{N: 3, Text: "Third, no command", Line: 12},
		{N: 4, Text: "Fourth", Line: 14, Command: "sh -c 'echo rate = 3 tok/s'", CommandLine: 15,
			Criterion: "rate < 10", CriterionLine: 17, Captures: []string{"`rate = ([0-9.]+) tok/s`"}, CaptureLines: []int{16}},
		{N: 5, Text: "Fifth", Line: 19, Criterion: "exit != 0", CriterionLine: 20},
	}
	if len(got) != len(want) {
		t.Fatalf("Falsifiers = %+v", got)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("falsifier %d = %+v, want %+v", i+1, got[i], want[i])
		}
	}
}

func TestNewRunID(t *testing.T) {
	id := NewRunID(time.Date(2026, 12, 2, 15, 3, 12, 0, time.FixedZone("x", 3600)), [2]byte{0x3f, 0x9c})
	if id != "20261202T140312Z-3f9c" {
		t.Errorf("NewRunID = %q", id)
	}
}

// BenchmarkInsertRun splices a block into the seed-sized note (about
// 3.4 KB, the size of a real permanent note) and reads the runs back.
func BenchmarkInsertRun(b *testing.B) {
	src := []byte("# T\n\n## Claim\n\n" + strings.Repeat("A claim sentence, with [[a link]] and #tag.\n", 40) +
		"\n## Evidence\n\nText.\n\n## Links\n\n- [[X]] — extends: y\n\n## Tests / falsifiers\n\n- One.\n")
	r := sampleRun()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		out, err := InsertRun(src, r)
		if err != nil || len(ParseRuns(out)) != 1 {
			b.Fatal(err)
		}
	}
}
