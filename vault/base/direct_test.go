package base

import (
	"fmt"
	"testing"
)

// directSeeds are expressions of every shape direct evaluation takes
// (calls, literals, !, &&, ||, if()), failing ones among them, and some
// it leaves to the VM.
var directSeeds = []string{
	`file.ext == "md"`, `file.name`, `file.hasTag("tag") || file.inFolder("Books")`, `!file.hasTag("tag")`,
	`price > 2 && !done`, `price * 2 + 1`, `if(price > 2, "dear", "cheap")`, `if(nosuch.foo(), 1)`,
	`price.nosuch()`, `nosuch.contains("x")`, `"x".contains(1, 2)`, `file.nonexistent`, "\n(file.nonexistent)",
	`formula.price_per_unit`, `formula.loop_a`, `formula.self`, `formula.broken || true`, `formula.nosuch`,
	`this.file.name`, `this.price`, `note.price`, `note["price"]`, `tags.contains("x")`, `file.links.length`,
	`date("2025-05-27").year`, `now() - file.ctime`, `"x".repeat(1e9)`, `2 / 0`, `-"x"`, `!!null`, `null`,
	`true && "x".length > 0`, `false || nosuch.x()`, `[1, 2].length`, `{"a": 1}.a`, `[1,2,3].filter(value > 2)`,
}

// TestDirectAsVM: an expression evaluated directly has the value, the
// error and the budget's charges the VM gives it, on every note.
func TestDirectAsVM(t *testing.T) {
	s := loadTestVault(t)
	for _, src := range append(directSeeds, exprSeeds...) {
		for _, f := range s.Files {
			direct, vm := bothWays(s, formulasBase, f, src)
			if direct != vm {
				t.Errorf("%q on %s:\n direct %s\n vm     %s", src, f.Path, direct, vm)
			}
		}
	}
	x, _, err := compileExpr(`file.ext == "md" && !file.hasTag("x")`)
	if err != nil || x.direct == nil {
		t.Errorf("a filter of calls, ! and && is not evaluated directly (%v)", err)
	}
	if x, _, err := compileExpr(`[1].filter(value > 0)`); err != nil || x.direct != nil {
		t.Errorf("filter() is evaluated directly (%v)", err)
	}
}

// bothWays is what evaluating src for f gives directly and on the VM,
// each on an evaluator of its own: the value, the error and what is left
// of the budget.
func bothWays(s *Snapshot, b *Base, f *File, src string) (direct, vm string) {
	run := func(vmOnly bool) string {
		ev := newEvaluator(s, b, Options{Now: testNow, This: f})
		ev.vmOnly = vmOnly
		x, err := ev.compile(src)
		if err != nil {
			return "compile: " + err.Error()
		}
		v, err := ev.newRow(f).run(x)
		return fmt.Sprintf("%s / %v / %d steps %d bytes left / %q", show(v), err, ev.budget.steps, ev.budget.bytes, ev.warnings)
	}
	return run(false), run(true)
}
