package base

import (
	"context"
	"strings"
	"testing"
)

// goPanic is how a Go panic inside a function reads once the expression
// VM has recovered it: the fuzzers fail on it as on a panic.
func goPanic(err error) bool {
	if err == nil {
		return false
	}
	m := err.Error()
	for _, s := range []string{"runtime error", "interface conversion", "nil pointer", "invalid memory address"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

var exprSeeds = []string{
	`file.hasTag("tag")`, `if(price, price.toFixed(2) + " dollars")`, `(price / age).toFixed(2)`,
	`status != "done"`, `formula.ppu > 5`, `now() - file.ctime`, `date("2024-12-01") + "1M" + "4h" + "3m"`,
	`[1,2,3,4].filter(value > 2)`, `[1,2,3].reduce(acc + value, 0)`, `"a:b:c:d".replace(/:/g, "-")`,
	`1.isTruthy()`, `true.isType("boolean")`, `{}.isEmpty()`, `this.file.name`, `note["price"]`, `tasks[0]`,
	`file.backlinks.map(value.asFile().name)`, `link("Dune").linksTo(file("Books/Textbook.md"))`,
	`"John Smith".replace(/(\w+) (\w+)/, "$2, $1")`, `duration('5h') * 2`, `/abc/.matches("abcde")`,
	`values.mean()`, `a ?? b`, `x[1:2]`, `#`, `let x = 1; x`, `((((1))))`, `"\u00e9".length`, `/[/]/.matches("/")`,
	`2 / 0`, `-"x"`, `!!null`, `[[[]]].flat().flat()`, `"x".repeat(1e9)`,
}

// FuzzExpr: any expression text compiles or fails with an error, runs or
// fails with an error, within the per-file budget; never a panic or a
// hang; evaluated directly, as on the VM.
//
//	go test ./vault/base -run '^$' -fuzz FuzzExpr -fuzztime 30s
func FuzzExpr(f *testing.F) {
	for _, s := range exprSeeds {
		f.Add(s)
	}
	s := loadTestVault(f)
	launch := s.File("Projects/Launch.md")
	f.Fuzz(func(t *testing.T, src string) {
		_, err := Value(s, formulasBase, launch, src, Options{Now: testNow, This: launch})
		if goPanic(err) {
			t.Fatalf("%q: %v", src, err)
		}
		if direct, vm := bothWays(s, formulasBase, launch, src); direct != vm {
			t.Fatalf("%q:\n direct %s\n vm     %s", src, direct, vm)
		}
	})
}

// FuzzBase: any bytes parse as a base or fail with an error, and a base
// that parses evaluates or fails with an error, over testdata/vault.
//
//	go test ./vault/base -run '^$' -fuzz FuzzBase -fuzztime 30s
func FuzzBase(f *testing.F) {
	f.Add([]byte(viewsBase))
	f.Add([]byte(summariesBase))
	f.Add([]byte("filters:\n  or:\n    - file.hasTag(\"tag\")\n    - not:\n        - 'price > 2'\nformulas:\n  a: 'formula.b'\n  b: 'formula.a'\nviews:\n  - type: table\n    order: [formula.a, file.name]\n    groupBy: {property: formula.a, direction: DESC}\n"))
	f.Add([]byte("views:\n  - type: table\n    sort: [file.name]\n    limit: -1\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("filters: {and: [{or: [{not: ['1']}]}]}\n"))
	s := loadTestVault(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		b, err := Parse(src)
		if err != nil {
			return
		}
		for _, v := range append([]string{""}, b.ViewNames()...) {
			res, err := Evaluate(context.Background(), s, b, Options{View: v, Now: testNow})
			if goPanic(err) {
				t.Fatalf("%q: %v", src, err)
			}
			if err != nil {
				continue
			}
			for _, r := range res.Rows {
				for _, c := range r.Values {
					if e, ok := c.(*CellError); ok && goPanic(e) {
						t.Fatalf("%q: %v", src, e)
					}
				}
			}
		}
	})
}

// TestHostileExpressions: expressions that would take the machine's
// memory or hours stop at a limit checked before allocating, or at the
// base's one budget, with an error saying so.
func TestHostileExpressions(t *testing.T) {
	s := loadTestVault(t)
	launch := s.File("Projects/Launch.md")
	for _, tc := range []struct{ src, want string }{
		{`"x".repeat(1000000000)`, "over"},
		{`"x".repeat(1000000).split("").map("x".repeat(1000000).split("").map(value))`, "over the 262144-element limit"},
		{`"x".repeat(1400).split("").map("x".repeat(1400).split("").map(value).length).map("x".repeat(1400).split("").length)`, "budget"},
		{`"a".repeat(1000000).replace("a", "a".repeat(1000000))`, "over 1048576 bytes"},
		{`"a".repeat(1000000).replace(/a/g, "b".repeat(100000))`, "over 1048576 bytes"},
		{`"ab".repeat(1000).replace(/(a)/g, "$1".repeat(100000))`, "over 1048576 bytes"},
		{`[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30].reduce(acc + acc, [1])`, "over the 262144-element limit"},
		{`"x".repeat(1000).split("").reduce([acc], [])`, "nests more than 64 deep"},
		{strings.Repeat("[", 3000) + "1" + strings.Repeat("]", 3000), "nest more than 64 deep"},
		{`"x".repeat(100000).split("").map("x".repeat(100000).split("")).length`, "budget"},
		{`[1,2,3,4,5,6,7,8].map("x".repeat(1000000)).join("").repeat(2)`, "over 1048576 bytes"},
		{`[` + strings.Repeat("1,", 199) + `1].map("x".repeat(1000000)).length`, "budget"},
		{`"x".repeat(100000).split("").reduce(acc + value, "")`, "budget"},
		{`"x".repeat(1048576).split("").unique().length`, "over the 262144-element limit"},
		{strings.Repeat("(", 20000) + "1" + strings.Repeat(")", 20000), "limit"},
		{strings.Repeat("[", 10000) + strings.Repeat("]", 10000), "limit"},
	} {
		_, err := Value(s, formulasBase, launch, tc.src, Options{Now: testNow})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60s: err %v, want one containing %q", tc.src, err, tc.want)
		}
	}
	// Formulas that refer to formulas, 100 deep: an error, not a stack
	// overflow.
	b := &Base{Formulas: map[string]string{}}
	for i := range 100 {
		name := "f" + strings.Repeat("x", i)
		b.Formulas[name] = "formula.f" + strings.Repeat("x", i+1) + " + 1"
		b.FormulaNames = append(b.FormulaNames, name)
	}
	if _, err := Value(s, b, launch, "formula.f", Options{Now: testNow}); err == nil || !strings.Contains(err.Error(), "deep") {
		t.Errorf("deep formulas: err %v", err)
	}
}
