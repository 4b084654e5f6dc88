package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// gennotesCmd writes N notes into DIR, each with properties, a tag and a
// link to the one before: a vault for the hostile bases to run over.
func gennotesCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: gennotes DIR N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755))
	for i := range n {
		note := fmt.Sprintf("---\nrating: %d\nstatus: draft\ntags: [claim, c%d]\n---\n# Note %d\n\nAfter [[Note %d]]. #topic/t%d\n", i%10, i%7, i, max(i-1, 0), i%5)
		ts.Check(os.WriteFile(filepath.Join(dir, fmt.Sprintf("Note %d.md", i)), []byte(note), 0o644))
	}
}

// genbigbaseCmd writes a base of about 1 MiB (just under zk's limit) of
// one shape to FILE: formulas (each shown as a column), filters (each
// distinct), or long (1,500-term formulas); or deep, a formula that is a
// list literal nested 3,000 deep.
func genbigbaseCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: genbigbase formulas|filters|long|deep FILE")
	}
	const size = 1<<20 - 16<<10
	var b, order strings.Builder
	switch args[0] {
	case "formulas":
		b.WriteString("formulas:\n")
		for i := 0; b.Len()+order.Len() < size; i++ {
			fmt.Fprintf(&b, "  f%d: '(rating * %d).toFixed(2) + file.name + file.links.length'\n", i, i)
			fmt.Fprintf(&order, "formula.f%d, ", i)
		}
		b.WriteString("views:\n  - type: table\n    order: [" + order.String() + "file.name]\n")
	case "filters":
		b.WriteString("filters:\n  and:\n")
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "    - 'rating > -%d || file.hasTag(\"x%d\") || file.name.contains(\"zz\")'\n", i, i)
		}
	case "long":
		b.WriteString("formulas:\n")
		for i := 0; b.Len()+order.Len() < size-16<<10; i++ {
			fmt.Fprintf(&b, "  f%d: '%s1'\n", i, strings.Repeat("rating + ", 1500))
			fmt.Fprintf(&order, "formula.f%d, ", i)
		}
		b.WriteString("views:\n  - type: table\n    order: [" + order.String() + "file.name]\n")
	case "deep":
		fmt.Fprintf(&b, "formulas:\n  x: '%s1%s'\nviews:\n  - type: table\n    order: [file.name, formula.x]\n", strings.Repeat("[", 3000), strings.Repeat("]", 3000))
	default:
		ts.Fatalf("genbigbase: unknown shape %q", args[0])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
}
