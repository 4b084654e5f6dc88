package base

import (
	"strings"
	"testing"
)

// TestFunctionsExamples is every example of Obsidian's Functions.md
// (en/Bases/Functions.md in obsidianmd/obsidian-help) with the result the
// page gives. Examples that need a note run on Projects/Launch.md of
// testdata/vault.
func TestFunctionsExamples(t *testing.T) {
	s := loadTestVault(t)
	launch := s.File("Projects/Launch.md")
	for _, tc := range []struct{ expr, want string }{
		// Global
		{`escapeHTML("<b>a & b</b>")`, `"&lt;b&gt;a &amp; b&lt;/b&gt;"`},
		{`date("2025-01-01 12:00:00")`, `date(2025-01-01 12:00:00)`},
		{`duration("1d") * 2`, `172800000`},
		{`now() + (duration('1d') * 2)`, `date(2026-12-04 10:30:00)`},
		{`duration('5h') * 2`, `36000000`},
		{`file(link("[[Dune]]"))`, `file(Books/Dune.md)`},
		{`file("Books/Dune.md")`, `file(Books/Dune.md)`},
		{`html("<i>x</i>")`, `<i>x</i>`},
		{`if(completed, "Modified", "Unmodified")`, `"Unmodified"`},
		{`if(important, "Modified", "Unmodified")`, `"Modified"`},
		{`if(false, "x")`, `null`},
		{`image("https://obsidian.md/images/obsidian-logo-gradient.svg")`, `https://obsidian.md/images/obsidian-logo-gradient.svg`},
		{`icon("arrow-right")`, `arrow-right`},
		{`link("Dune")`, `link(Dune->Books/Dune.md)`},
		{`link("Dune", "display").toString()`, `"[[Dune|display]]"`},
		{`list("value")`, `["value"]`},
		{`list(["a", "b"])`, `["a","b"]`},
		{`max(1, 5, 3)`, `5`},
		{`min(4, 2, 8)`, `2`},
		{`now()`, `date(2026-12-02 10:30:00)`},
		{`number("3.4")`, `3.4`},
		{`number(true)`, `1`},
		{`number(false)`, `0`},
		{`number(date("2025-01-01 00:00:00"))`, `1735689600000`},
		{`today()`, `date(2026-12-02)`},
		{`random() < 1 && random() >= 0`, `true`},
		// Any
		{`1.isTruthy()`, `true`},
		{`"example".isType("string")`, `true`},
		{`true.isType("boolean")`, `true`},
		{`123.toString()`, `"123"`},
		// Date
		{`date("2025-05-27").year`, `2025`},
		{`date("2025-05-27 13:14:15").month`, `5`},
		{`date("2025-05-27 13:14:15").day`, `27`},
		{`date("2025-05-27 13:14:15").hour`, `13`},
		{`date("2025-05-27 13:14:15").minute`, `14`},
		{`date("2025-05-27 13:14:15").second`, `15`},
		{`date("2025-05-27 13:14:15").millisecond`, `0`},
		{`now().date().format("YYYY-MM-DD HH:mm:ss")`, `"2026-12-02 00:00:00"`},
		{`date("2025-05-27").format("YYYY-MM-DD")`, `"2025-05-27"`},
		{`now().time()`, `"10:30:00"`},
		{`(now() - "3 days").relative()`, `"3 days ago"`},
		{`date("2025-05-27").isEmpty()`, `false`},
		// String
		{`"hello".length`, `5`},
		{`"hello".contains("ell")`, `true`},
		{`"hello".containsAll("h", "e")`, `true`},
		{`"hello".containsAny("x", "y", "e")`, `true`},
		{`"hello".endsWith("lo")`, `true`},
		{`"Hello world".isEmpty()`, `false`},
		{`"".isEmpty()`, `true`},
		{`missing.isEmpty()`, `true`},
		{`"HeLLo".lower()`, `"hello"`},
		{`"a:b:c:d".replace(/:/, "-")`, `"a-b:c:d"`},
		{`"a:b:c:d".replace(/:/g, "-")`, `"a-b-c-d"`},
		{`"a:b:c:d".replace(":", "-")`, `"a-b-c-d"`},
		{`"John Smith".replace(/(\w+) (\w+)/, "$2, $1")`, `"Smith, John"`},
		{`"123".repeat(2)`, `"123123"`},
		{`"hello".reverse()`, `"olleh"`},
		{`"hello".slice(1, 4)`, `"ell"`},
		{`"hello".slice(1)`, `"ello"`},
		{`"a,b,c,d".split(",", 3)`, `["a","b","c"]`},
		{`"a,b,c,d".split(/,/, 3)`, `["a","b","c"]`},
		{`"hello".startsWith("he")`, `true`},
		{`"hello world".title()`, `"Hello World"`},
		{`"  hi  ".trim()`, `"hi"`},
		// Number
		{`(-5).abs()`, `5`},
		{`(2.1).ceil()`, `3`},
		{`(2.9).floor()`, `2`},
		{`5.isEmpty()`, `false`},
		{`(2.5).round()`, `3`},
		{`(2.3333).round(2)`, `2.33`},
		{`(3.14159).toFixed(2)`, `"3.14"`},
		// List
		{`[1,2,3].length`, `3`},
		{`[1,2,3].contains(2)`, `true`},
		{`[1,2,3].containsAll(2,3)`, `true`},
		{`[1,2,3].containsAny(3,4)`, `true`},
		{`[1,2,3,4].filter(value > 2)`, `[3,4]`},
		{`[1,[2,3]].flat()`, `[1,2,3]`},
		{`[1,2,3].isEmpty()`, `false`},
		{`[1,2,3].join(",")`, `"1,2,3"`},
		{`[1,2,3,4].map(value + 1)`, `[2,3,4,5]`},
		{`[10,20].map(index)`, `[0,1]`},
		{`[1,2,3].reduce(acc + value, 0)`, `6`},
		{`[3, "x", 7, 5].filter(value.isType("number")).reduce(if(acc == null || value > acc, value, acc), null)`, `7`},
		{`["x"].filter(value.isType("number")).reduce(if(acc == null || value > acc, value, acc), null)`, `null`},
		{`[1,2,3].reverse()`, `[3,2,1]`},
		{`[1,2,3,4].slice(1,3)`, `[2,3]`},
		{`[3, 1, 2].sort()`, `[1,2,3]`},
		{`["c", "a", "b"].sort()`, `["a","b","c"]`},
		{`[1,2,2,3].unique()`, `[1,2,3]`},
		// Link
		{`link("[[Dune]]").asFile()`, `file(Books/Dune.md)`},
		{`link("Dune").linksTo(file("Books/Textbook.md"))`, `true`},
		{`link("Textbook").linksTo(file("Books/Dune.md"))`, `false`},
		// File
		{`file.name`, `"Launch"`},
		{`file.basename`, `"Launch"`},
		{`file.path`, `"Projects/Launch.md"`},
		{`file.folder`, `"Projects"`},
		{`file.ext`, `"md"`},
		{`file.size > 0`, `true`},
		{`file.properties.status`, `"Doing"`},
		{`file.tags`, `["#project","#urgent"]`},
		{`file.links`, `[link(Dune->Books/Dune.md)]`},
		{`file.asLink()`, `link(Projects/Launch->Projects/Launch.md)`},
		{`file.hasLink(file("Books/Dune.md"))`, `true`},
		{`file.hasLink("Dune")`, `true`},
		{`file.hasProperty("tasks")`, `true`},
		{`file.hasProperty("nope")`, `false`},
		{`file.hasTag("project", "tag2")`, `true`},
		{`file.hasTag("tag1", "tag2")`, `false`},
		{`file.inFolder("Projects")`, `true`},
		{`file.inFolder("notes")`, `false`},
		// Object
		{`{}.isEmpty()`, `true`},
		{`{"a": 1, "b": 2}.keys()`, `["a","b"]`},
		{`{"a": 1, "b": 2}.values()`, `[1,2]`},
		// Regular expression
		{`/abc/.matches("abcde")`, `true`},
	} {
		got, err := Value(s, nil, launch, tc.expr, Options{Now: testNow})
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if show(got) != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, show(got), tc.want)
		}
	}
}

// TestDateOfNothing: date() of a property a note leaves empty (due:, due:
// "", or no due at all) is null, an empty cell, as a property without a
// value is everywhere else; it was an error, #error in the column of every
// such note. A string that is not a date is still an error.
func TestDateOfNothing(t *testing.T) {
	s := loadTestVault(t)
	launch := s.File("Projects/Launch.md")
	for _, tc := range []struct{ expr, want, err string }{
		{expr: `date(nosuch)`, want: `null`},
		{expr: `date(null)`, want: `null`},
		{expr: `date("")`, want: `null`},
		{expr: `date("  ")`, want: `null`},
		{expr: `date(nosuch).isEmpty()`, want: `true`},
		{expr: `if(date(nosuch), "dated", "undated")`, want: `"undated"`},
		{expr: `date("soon")`, err: `date(): "soon" is not a date`},
		{expr: `date(3 > 2)`, err: `date() takes a string, not a boolean`},
	} {
		got, err := Value(s, nil, launch, tc.expr, Options{Now: testNow})
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want error %q", tc.expr, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.expr, err)
		case show(got) != tc.want:
			t.Errorf("%s = %s, want %s", tc.expr, show(got), tc.want)
		}
	}
}
