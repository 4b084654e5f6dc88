package base

import (
	"os"
	"strings"
	"testing"
)

// functionTable is docs/bases.md's function table as Functions() makes
// it: one row per function or field, what zk does, and the Obsidian
// source it follows.
func functionTable() string {
	var b strings.Builder
	b.WriteString("| on | function | zk | Obsidian source | notes |\n|---|---|---|---|---|\n")
	for _, f := range Functions() {
		on := f.On
		if on == "" {
			on = "global"
		}
		name := "`" + f.Name + "()`"
		if f.Field {
			name = "`" + f.Name + "`"
		}
		zk := "yes"
		if f.Partial != "" {
			zk = "partial: " + f.Partial
		}
		b.WriteString("| " + on + " | " + name + " | " + zk + " | " + f.Source + " | " + f.Note + " |\n")
	}
	return b.String()
}

// TestDocsFunctionTable holds docs/bases.md's function table to
// Functions(), the one list the compiler and the evaluator read: a
// function added, dropped or changed there without the documentation (or
// the other way round) fails here, with the table to paste.
func TestDocsFunctionTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/bases.md")
	if err != nil {
		t.Fatal(err)
	}
	want := functionTable()
	if !strings.Contains(string(doc), want) {
		t.Errorf("docs/bases.md does not hold the function table of Functions(); it should read:\n%s", want)
	}
}

// TestFunctionsRun: every function and field of Functions() is evaluated
// (on a value of its type, with arguments), not refused as unknown; and a
// method not listed there is refused even where the evaluator has code
// for it on another type.
func TestFunctionsRun(t *testing.T) {
	s := loadTestVault(t)
	launch := s.File("Projects/Launch.md")
	recv := map[string]string{
		"any": `"x"`, "date": `date("2026-01-02")`, "duration": `duration("1d")`, "string": `"a,b"`,
		"number": `2.5`, "list": `[1, 2]`, "link": `link("Dune")`, "file": `file`, "object": `{"a": 1}`, "regexp": `/a/`,
	}
	args := map[string]string{
		"isType": `"string"`, "format": `"YYYY"`, "contains": `"a"`, "containsAll": `"a"`, "containsAny": `"a"`,
		"endsWith": `"b"`, "startsWith": `"a"`, "replace": `"a", "b"`, "repeat": `2`, "slice": `1`, "split": `","`,
		"filter": `value > 1`, "map": `value`, "reduce": `acc + value, 0`, "join": `","`, "linksTo": `file`,
		"hasLink": `"Dune"`, "hasProperty": `"price"`, "hasTag": `"project"`, "inFolder": `"Projects"`, "matches": `"a"`,
		// globals
		"escapeHTML": `"<"`, "date": `"2026-01-02"`, "duration": `"1d"`, "file": `"Books/Dune.md"`, "html": `"<b>"`,
		"if": `true, 1`, "image": `"cover.png"`, "icon": `"x"`, "link": `"Dune"`, "list": `1`, "max": `1, 2`, "min": `1, 2`,
		"number": `"1"`,
	}
	for _, f := range Functions() {
		var src string
		switch {
		case f.On == "":
			src = f.Name + "(" + args[f.Name] + ")"
		case f.Field:
			src = "(" + recv[f.On] + ")." + f.Name
		default:
			a := args[f.Name]
			if f.On == "date" && f.Name == "date" {
				a = ""
			}
			src = "(" + recv[f.On] + ")." + f.Name + "(" + a + ")"
		}
		if _, err := Value(s, nil, launch, src, Options{Now: testNow}); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
	// keys() is an object's: on a list it is refused by type.
	if _, err := Value(s, nil, launch, `[1].keys()`, Options{Now: testNow}); err == nil || !strings.Contains(err.Error(), "keys() is not a function of a list") {
		t.Errorf("[1].keys(): err %v", err)
	}
}
