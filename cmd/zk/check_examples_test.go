package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The example vault and the document that lists its deliberate defects.
// The test reads the table from the document, so the README a user reads
// and the findings zk reports cannot drift apart.
const (
	examplesVault  = "../../examples/vault"
	examplesReadme = "../../examples/README.md"
	// examplesFolder is where the README's table says its notes are.
	examplesFolder = "3. Resources/Permanent Notes"
)

// finding is the part of a check finding the README pins down.
type finding struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
}

func (f finding) String() string {
	return fmt.Sprintf("%s:%d: %s %s", f.Path, f.Line, f.Severity, f.Rule)
}

// TestCheckExamples runs zk check on examples/vault and holds it to the
// table of deliberate defects in examples/README.md: the same findings,
// no more and no fewer, and exit status 1.
func TestCheckExamples(t *testing.T) {
	want := readDefects(t, examplesReadme)

	var out, errOut bytes.Buffer
	s := &streams{in: strings.NewReader(""), out: &out, err: &errOut}
	args := []string{"--vault", examplesVault, "--today", "2026-12-02", "--no-color", "check", "--format", "json"}
	if code := run(context.Background(), args, s); code != exitFindings {
		t.Fatalf("zk %s: exit %d, want %d\nstderr:\n%s", strings.Join(args, " "), code, exitFindings, errOut.String())
	}

	var report struct {
		Findings []finding `json:"findings"`
		Summary  struct {
			Errors   int `json:"errors"`
			Warnings int `json:"warnings"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		t.Fatalf("zk check --format json: %v\n%s", err, out.String())
	}
	got := report.Findings

	if len(got) != len(want) {
		t.Errorf("zk check reports %d findings; the table in %s lists %d", len(got), examplesReadme, len(want))
	}
	for _, f := range got {
		if !slices.Contains(want, f) {
			t.Errorf("zk check reports %s, which the table in %s does not list", f, examplesReadme)
		}
	}
	for _, f := range want {
		if !slices.Contains(got, f) {
			t.Errorf("the table in %s lists %s, which zk check does not report", examplesReadme, f)
		}
	}
	var nErrors, nWarnings int
	for _, f := range want {
		switch f.Severity {
		case "error":
			nErrors++
		case "warning":
			nWarnings++
		}
	}
	if report.Summary.Errors != nErrors || report.Summary.Warnings != nWarnings {
		t.Errorf("summary: %d errors, %d warnings; the table has %d and %d",
			report.Summary.Errors, report.Summary.Warnings, nErrors, nWarnings)
	}
}

// readDefects parses the defects table of the examples README: the rows
// after the header "| note | line | rule | severity | ...", up to the first
// line that is not a table row. It fails the test on a malformed row, so a
// typo in the document is caught rather than silently dropped.
func readDefects(t *testing.T, name string) []finding {
	t.Helper()
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var (
		defects []finding
		inTable bool
	)
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if !inTable {
			inTable = strings.HasPrefix(line, "| note | line | rule | severity |")
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if strings.Trim(cells[0], "-") == "" { // the |---|---| separator
			continue
		}
		if len(cells) < 4 {
			t.Fatalf("%s:%d: a defect row needs note, line, rule and severity: %q", name, n, line)
		}
		lineNo, err := strconv.Atoi(cells[1])
		if err != nil || lineNo < 1 {
			t.Fatalf("%s:%d: line %q is not a 1-based line number", name, n, cells[1])
		}
		defects = append(defects, finding{
			Path:     path.Join(examplesFolder, cells[0]),
			Line:     lineNo,
			Rule:     cells[2],
			Severity: cells[3],
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(defects) == 0 {
		t.Fatalf("%s: no defects table found", name)
	}
	return defects
}
