package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/zk-claims/zk/view"
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

// defect is a row of the README's table: the part of a finding it pins down.
type defect struct {
	Path     string
	Line     int
	Rule     string
	Severity string
}

func (d defect) String() string {
	return fmt.Sprintf("%s:%d: %s %s", d.Path, d.Line, d.Severity, d.Rule)
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

	var report view.Check
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		t.Fatalf("zk check --format json: %v\n%s", err, out.String())
	}
	got := make([]defect, len(report.Findings))
	for i, f := range report.Findings {
		got[i] = defect{Path: f.Path, Line: f.Line, Rule: f.Rule, Severity: f.Severity}
	}

	if len(got) != len(want) {
		t.Errorf("zk check reports %d findings; the table in %s lists %d", len(got), examplesReadme, len(want))
	}
	for _, d := range got {
		if !slices.Contains(want, d) {
			t.Errorf("zk check reports %s, which the table in %s does not list", d, examplesReadme)
		}
	}
	for _, d := range want {
		if !slices.Contains(got, d) {
			t.Errorf("the table in %s lists %s, which zk check does not report", examplesReadme, d)
		}
	}
	var nErrors, nWarnings int
	for _, d := range want {
		switch d.Severity {
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

// TestCheckExamplesAsReadmeRunsIt runs the command the top-level README
// starts with, "zk check examples/vault" from the repository's root, and
// expects one line of text per row of the defects table. zk finds the
// vault from the PATH argument (examples/vault holds .obsidian/), so each
// line names its note by its vault-relative path.
func TestCheckExamplesAsReadmeRunsIt(t *testing.T) {
	want := readDefects(t, examplesReadme)
	t.Chdir("../..")

	var out, errOut bytes.Buffer
	s := &streams{in: strings.NewReader(""), out: &out, err: &errOut}
	args := []string{"--today", "2026-12-02", "--no-color", "check", "examples/vault"}
	if code := run(context.Background(), args, s); code != exitFindings {
		t.Fatalf("zk %s: exit %d, want %d\nstderr:\n%s", strings.Join(args, " "), code, exitFindings, errOut.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Errorf("zk %s printed %d lines; the table in %s lists %d defects:\n%s",
			strings.Join(args, " "), len(lines), examplesReadme, len(want), out.String())
	}
	for _, d := range want {
		prefix := fmt.Sprintf("%s:%d:", d.Path, d.Line)
		middle := fmt.Sprintf(" %s %s ", d.Severity, d.Rule)
		if !slices.ContainsFunc(lines, func(l string) bool {
			return strings.HasPrefix(l, prefix) && strings.Contains(l, middle)
		}) {
			t.Errorf("no line %q...%q in the output:\n%s", prefix, middle, out.String())
		}
	}
}

// readDefects parses the defects table of the examples README: the rows
// after the header "| note | line | rule | severity | ...", up to the first
// line that is not a table row. It fails the test on a malformed row, so a
// typo in the document is caught rather than silently dropped.
func readDefects(t *testing.T, name string) []defect {
	t.Helper()
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var (
		defects []defect
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
		defects = append(defects, defect{
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
