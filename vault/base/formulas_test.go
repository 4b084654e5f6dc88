package base

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// formulasBase defines the formulas Formulas.md refers to by name:
// price_per_unit ("Reference other formulas") and Owned ("Calculate total
// cost": months owned).
var formulasBase = &Base{
	Formulas: map[string]string{
		"price_per_unit": "price / quantity",
		"Owned":          `(now() - bought) / duration("30d")`,
		"loop_a":         "formula.loop_b + 1",
		"loop_b":         "formula.loop_a + 1",
		"self":           "formula.self",
		"broken":         `price.nosuch()`,
	},
	FormulaNames: []string{"price_per_unit", "Owned", "loop_a", "loop_b", "self", "broken"},
}

// TestFormulasExamples is every formula of Obsidian's Formulas.md with the
// result it describes, on the notes of testdata/vault.
func TestFormulasExamples(t *testing.T) {
	s := loadTestVault(t)
	launch, archive, dune := s.File("Projects/Launch.md"), s.File("Projects/Archive.md"), s.File("Books/Dune.md")
	for _, tc := range []struct {
		on         *File
		expr, want string
	}{
		// Reference properties.
		{launch, `price * quantity`, `450`},
		{launch, `file.name + " - " + description`, `"Launch - rocket launch"`},
		{launch, `formula.price_per_unit * 1.1`, `55.00000000000001`}, // as JavaScript computes it
		// Arithmetic operators.
		{launch, `price + tax`, `165`},
		{launch, `price - discount`, `140`},
		{launch, `price * quantity`, `450`},
		{launch, `price / quantity`, `50`},
		{launch, `(part / whole) * 100`, `25`},
		// Comparison operators.
		{launch, `price > 100`, `true`},
		{dune, `age < 18`, `true`},
		{archive, `status == "Done"`, `true`},
		{launch, `status != "Done"`, `true`},
		// Boolean operators.
		{launch, `!completed`, `true`},
		{archive, `!completed`, `false`},
		{launch, `price > 0 && quantity > 0`, `true`},
		{archive, `price > 0 && quantity > 0`, `false`},
		{launch, `urgent || important`, `true`},
		// Functions.
		{launch, `if(price, "$" + price.toFixed(2), "")`, `"$150.00"`},
		{archive, `if(price, "$" + price.toFixed(2), "")`, `""`},
		{launch, `file.name.lower()`, `"launch"`},
		{launch, `tags.contains("urgent")`, `true`},
		{archive, `tags.contains("urgent")`, `false`},
		{launch, `due_date.format("YYYY-MM-DD")`, `"2026-11-20"`},
		// Formula examples.
		{launch, `start_date + "2w"`, `date(2026-11-15)`},
		{launch, `if(due_date < now() && status != "Done", "Overdue", "")`, `"Overdue"`},
		{archive, `if(due_date < now() && status != "Done", "Overdue", "")`, `""`},
		{launch, `tasks.length`, `3`},
		{archive, `tasks.length`, `0`},
		{launch, `(impact * urgency) / effort`, `10`},
		{launch, `first_name + " " + last_name`, `"Ada Lovelace"`},
		{launch, `monthlyUses * formula.Owned.round()`, `60`},
		// Reference other formulas.
		{launch, `price / quantity`, `50`},
		// Data types.
		{launch, `"hello"`, `"hello"`},
		{launch, `'world'`, `"world"`},
		{launch, `42`, `42`},
		{launch, `3.14`, `3.14`},
		{launch, `(2 + 2)`, `4`},
		{launch, `[1, 2, 3]`, `[1,2,3]`},
		{launch, `{"name": "value"}.name`, `"value"`},
	} {
		got, err := Value(s, formulasBase, tc.on, tc.expr, Options{Now: testNow})
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if show(got) != tc.want {
			t.Errorf("%s on %s = %s, want %s", tc.expr, tc.on.Path, show(got), tc.want)
		}
	}
}

// TestFormulaErrors: a circular reference and an unsupported function are
// errors that say which, never a value.
func TestFormulaErrors(t *testing.T) {
	s := loadTestVault(t)
	for _, tc := range []struct{ expr, want string }{
		{"formula.loop_a", "refers to itself"},
		{"formula.self", "refers to itself"},
		{"formula.broken", "not supported: function nosuch()"},
		{"formula.undefined", "not defined"},
		{"values.total()", "not supported: function total()"},
	} {
		_, err := Value(s, formulasBase, s.File("Projects/Launch.md"), tc.expr, Options{Now: testNow})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one containing %q", tc.expr, err, tc.want)
		}
	}
}

// TestFormulaChains: a formula's value is computed once per row however
// often it is read, and formulas may refer to formulas up to
// maxFormulaDepth deep, no deeper.
func TestFormulaChains(t *testing.T) {
	s := loadTestVault(t)
	chain := func(n int) *Base {
		b := &Base{Formulas: map[string]string{"twice": "formula.two + formula.two", "two": "2"}}
		for i := range n {
			b.Formulas[fmt.Sprintf("f%d", i)] = fmt.Sprintf("formula.f%d + 1", i+1)
		}
		b.Formulas[fmt.Sprintf("f%d", n)] = "0"
		return b
	}
	launch := s.File("Projects/Launch.md")
	for _, tc := range []struct {
		base *Base
		expr string
		want string
	}{
		{chain(0), "formula.twice + formula.two", "6"},
		{chain(maxFormulaDepth - 1), "formula.f0", fmt.Sprint(maxFormulaDepth - 1)},
		{chain(maxFormulaDepth), "formula.f0", "more than"},
	} {
		got, err := Value(s, tc.base, launch, tc.expr, Options{Now: testNow})
		if (err == nil && show(got) != tc.want) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, %v, want %s", tc.expr, show(got), err, tc.want)
		}
	}
}

// TestUnsupportedFormulaWarnsOnce: a formula with a function zk does not
// evaluate, shown as a column, is one warning naming it once; it was two,
// the second "formula.x: formula.x: ...".
func TestUnsupportedFormulaWarnsOnce(t *testing.T) {
	s := loadTestVault(t)
	res := evalBase(t, s, "formulas:\n  x: file.name.equals(\"a\")\nviews:\n  - type: table\n    order: [file.name, formula.x]\n", Options{})
	if want := []string{"formula.x: not supported: function equals()"}; !slices.Equal(res.Warnings, want) {
		t.Errorf("warnings %q, want %q", res.Warnings, want)
	}
}
