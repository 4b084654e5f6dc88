package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault/lint"
)

// docs/design.md is the contract a contributor reads before changing zk;
// these tests hold its rule table to lint.Rules() and its dependency table
// to go.mod, as readme_test.go holds the README, so that neither can lose
// a row while the code moves on.

const designPath = "../../docs/design.md"

// docRow is one row of a table in a doc: its line and its first cell's
// backquoted name.
type docRow struct {
	line int
	name string
}

var firstCodeSpan = regexp.MustCompile("^`([^`]+)`")

// docTableRows reads the one table of doc whose header cells are header,
// taking each row's first cell's first code span as its name.
func docTableRows(doc string, header ...string) ([]docRow, error) {
	lines := strings.Split(doc, "\n")
	start := -1
	for i, l := range lines {
		if slices.Equal(tableCells(l), header) {
			if start >= 0 {
				return nil, fmt.Errorf("line %d: a second table headed %q (the first is at line %d)", i+1, header, start+1)
			}
			start = i
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("no table headed %q", header)
	}
	var rows []docRow
	for i := start + 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
		cells := tableCells(lines[i])
		if len(cells) != len(header) {
			return nil, fmt.Errorf("line %d: a row needs %d cells, has %d", i+1, len(header), len(cells))
		}
		m := firstCodeSpan.FindStringSubmatch(cells[0])
		if m == nil {
			return nil, fmt.Errorf("line %d: the first cell %q does not start with a `name`", i+1, cells[0])
		}
		rows = append(rows, docRow{line: i + 1, name: m[1]})
	}
	return rows, nil
}

// compareNames says every way the rows differ from want: a name missing,
// one that is not wanted, one listed twice. what names the table's rows
// ("rule", "direct dependency").
func compareNames(file, what string, rows []docRow, want []string) []string {
	var problems []string
	seen := map[string]int{}
	for _, r := range rows {
		if prev, dup := seen[r.name]; dup {
			problems = append(problems, fmt.Sprintf("%s:%d: %s listed twice (also line %d)", file, r.line, r.name, prev))
			continue
		}
		seen[r.name] = r.line
	}
	wanted := map[string]bool{}
	for _, w := range want {
		wanted[w] = true
		if _, ok := seen[w]; !ok {
			problems = append(problems, fmt.Sprintf("%s: the table lacks the %s %s", file, what, w))
		}
	}
	for _, r := range rows {
		if !wanted[r.name] {
			problems = append(problems, fmt.Sprintf("%s:%d: %s is not a %s of zk", file, r.line, r.name, what))
		}
	}
	return problems
}

func readDesign(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(designPath)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDesignRules: docs/design.md's table of what fires each rule has a
// row for every rule of zk check, and none for a rule zk does not have.
func TestDesignRules(t *testing.T) {
	rows, err := docTableRows(readDesign(t), "rule", "fires when")
	if err != nil {
		t.Fatalf("%s: %v", designPath, err)
	}
	var ids []string
	for _, r := range lint.Rules() {
		ids = append(ids, r.ID)
	}
	for _, p := range compareNames(designPath, "rule", rows, ids) {
		t.Error(p)
	}
}

// TestDesignDependencies: docs/design.md says why each module go.mod
// requires directly is there, and names no module go.mod does not.
func TestDesignDependencies(t *testing.T) {
	rows, err := docTableRows(readDesign(t), "module", "why")
	if err != nil {
		t.Fatalf("%s: %v", designPath, err)
	}
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	direct, err := directRequirements(string(gomod))
	if err != nil {
		t.Fatal(err)
	}
	if len(direct) == 0 {
		t.Fatal("go.mod: no direct requirement read")
	}
	// A row may name the package zk imports (`golang.org/x/perf/benchfmt`):
	// it stands for the module that holds it.
	for i, r := range rows {
		for _, m := range direct {
			if strings.HasPrefix(r.name, m+"/") {
				rows[i].name = m
			}
		}
	}
	for _, p := range compareNames(designPath, "direct dependency", rows, direct) {
		t.Error(p)
	}
}

// directRequirements lists the module paths go.mod requires without
// "// indirect", in both the block and the one-line form.
func directRequirements(gomod string) ([]string, error) {
	var mods []string
	inBlock := false
	for i, line := range strings.Split(gomod, "\n") {
		line = strings.TrimSpace(line)
		var spec string
		switch {
		case inBlock && line == ")":
			inBlock = false
			continue
		case inBlock:
			spec = line
		case line == "require (":
			inBlock = true
			continue
		case strings.HasPrefix(line, "require "):
			spec = strings.TrimPrefix(line, "require ")
		default:
			continue
		}
		if spec == "" || strings.HasPrefix(spec, "//") || strings.Contains(spec, "// indirect") {
			continue
		}
		f := strings.Fields(spec)
		if len(f) < 2 {
			return nil, fmt.Errorf("go.mod:%d: %q is not a module and a version", i+1, line)
		}
		mods = append(mods, strings.Trim(f[0], `"`))
	}
	return mods, nil
}

// TestDesignTablesCatch: the comparison above reports a missing row, a row
// for nothing and a row listed twice, and go.mod's indirect requirements are
// left out, so that the two tests above can fail.
func TestDesignTablesCatch(t *testing.T) {
	doc := "x\n| module | why |\n|---|---|\n| `a/one` v1 | one |\n| `a/two` | two |\n\ny\n"
	rows, err := docTableRows(doc, "module", "why")
	if err != nil {
		t.Fatal(err)
	}
	if want := []docRow{{4, "a/one"}, {5, "a/two"}}; !slices.Equal(rows, want) {
		t.Fatalf("rows %v, want %v", rows, want)
	}
	if p := compareNames("d", "m", rows, []string{"a/one", "a/two"}); len(p) != 0 {
		t.Fatalf("a matching table: %q", p)
	}
	for name, want := range map[string][]string{
		"missing": {"a/one", "a/two", "a/three"},
		"extra":   {"a/one"},
	} {
		if p := compareNames("d", "m", rows, want); len(p) != 1 {
			t.Errorf("%s: %q, want one problem", name, p)
		}
	}
	twice := append(slices.Clone(rows), docRow{6, "a/two"})
	if p := compareNames("d", "m", twice, []string{"a/one", "a/two"}); len(p) != 1 {
		t.Errorf("twice: %q, want one problem", p)
	}
	if got := tableCells("| `[[a\\|b]]` | c |"); !slices.Equal(got, []string{"`[[a|b]]`", "c"}) {
		t.Errorf("an escaped | split a cell: %q", got)
	}
	if _, err := docTableRows("| module | why |\n|---|---|\n| one | x |\n", "module", "why"); err == nil {
		t.Error("a row without a `name` was read")
	}
	mods, err := directRequirements("module m\n\nrequire x/single v1.0.0\n\nrequire (\n\tx/a v1\n\tx/b v2 // indirect\n\t// a comment\n\tx/c v3\n)\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"x/single", "x/a", "x/c"}; !slices.Equal(mods, want) {
		t.Errorf("direct requirements %q, want %q", mods, want)
	}
}
