package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every line of docs/reliability.md's threat model names the tests that
// hold it, and each of them exists: a Go test function somewhere in the
// repository, a testscript, or a package's tests. A test renamed or
// removed would otherwise leave the promise unheld while the page still
// says it is held.
func TestThreatModelNamesItsTests(t *testing.T) {
	b, err := os.ReadFile("../../docs/reliability.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "## Threat model")
	if start < 0 {
		t.Fatal("docs/reliability.md has no Threat model section")
	}
	section := doc[start:]
	if end := strings.Index(section[len("## "):], "\n## "); end >= 0 {
		section = section[:end+len("## ")]
	}

	funcs := testFuncs(t, "../..")
	code := regexp.MustCompile("`([^`]+)`")
	rows := 0
	for line := range strings.SplitSeq(section, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| a vault cannot make zk") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		rows++
		heldBy := cells[len(cells)-1]
		named := 0
		for _, m := range code.FindAllStringSubmatch(heldBy, -1) {
			name := m[1]
			named++
			switch {
			case strings.HasSuffix(name, ".txtar"):
				if _, err := os.Stat(filepath.Join("testdata", "script", name)); err != nil {
					t.Errorf("threat model names %s, which is not a testscript: %q", name, cells[0])
				}
			case strings.HasPrefix(name, "Test"):
				if !funcs[name] {
					t.Errorf("threat model names %s, which no _test.go defines: %q", name, cells[0])
				}
			default: // a package whose tests hold the line
				ms, _ := filepath.Glob(filepath.Join("../..", filepath.FromSlash(name), "*_test.go"))
				if len(ms) == 0 {
					t.Errorf("threat model names %s, which is no package with tests: %q", name, cells[0])
				}
			}
		}
		if named == 0 {
			t.Errorf("threat model line names no test: %q", cells[0])
		}
	}
	if rows < 10 {
		t.Errorf("the threat model table has %d lines; the page's table was not read", rows)
	}
}

// testFuncs is every TestX function defined in a _test.go under root.
func testFuncs(t *testing.T, root string) map[string]bool {
	t.Helper()
	def := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range def.FindAllSubmatch(b, -1) {
			out[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
