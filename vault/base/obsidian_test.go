package base

import (
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
)

// TestObsidianToday holds zk to Bases as Obsidian's current release
// evaluates it where that differs from the first Bases pages: each case
// names the Obsidian text it follows (obsidianmd/obsidian-help, en/Bases/
// and Release notes/; obsidianmd/obsidian-api's obsidian.d.ts; Obsidian's
// own kepano/obsidian-skills reference). Examples that need a note run on
// testdata/vault; Projects/Launch.md is tagged #project and #urgent,
// Books/Pamphlet.md has #tag/nested in its text.
func TestObsidianToday(t *testing.T) {
	s := loadTestVault(t)
	launch := s.File("Projects/Launch.md")
	pamphlet := s.File("Books/Pamphlet.md")
	cover := s.File("Attachments/cover.png")
	for _, tc := range []struct {
		source string
		file   *File
		expr   string
		want   string
	}{
		// file.name: a note's name as Obsidian lists it, without .md
		// (Map view.md's "file.name.replace(" ","+")" searches a map for
		// the note's name); a file that is not a note keeps its
		// extension, and basename drops it (Functions.md).
		{"Map view.md, Tips; issue 25", launch, `file.name`, `"Launch"`},
		{"Map view.md, Tips", launch, `file.name == "Launch"`, `true`},
		{"Functions.md, File fields", cover, `file.name`, `"cover.png"`},
		{"Functions.md, File fields", cover, `file.basename`, `"cover"`},
		{"Bases syntax.md, this", launch, `this.file.name`, `"Launch"`},

		// file.tags.contains(): a tag matches itself and the tags nested
		// under it, ignoring case and '#'.
		{"release notes 1.9.11: file.tags.contains() finds parent tags", pamphlet, `file.tags.contains("tag")`, `true`},
		{"release notes 1.9.14: #A as well as #A/B", pamphlet, `file.tags.contains("tag/nested")`, `true`},
		{"release notes 1.9.14", pamphlet, `file.tags.contains("#TAG")`, `true`},
		{"release notes 1.9.14", pamphlet, `file.tags.contains("ta")`, `false`},
		{"release notes 1.9.14", pamphlet, `file.tags.contains("nested")`, `false`},
		{"release notes 1.9.14: tags.contains(\"A\")", launch, `tags.contains("Project")`, `true`},
		{"release notes 1.9.14", launch, `file.tags.containsAny("x", "urgent")`, `true`},
		{"release notes 1.9.14", launch, `file.tags.containsAll("project", "#urgent")`, `true`},
		{"Functions.md, List contains()", launch, `tasks.contains("draft")`, `true`},
		{"Functions.md, List contains()", launch, `tasks.contains("dra")`, `false`},

		// date − date is a Duration, with fields, that compares with a
		// duration written as text.
		{"release notes 1.9.3: a new duration type", launch, `(due_date - start_date).isType("duration")`, `true`},
		{"obsidian.d.ts DurationValue: subtracting a DateValue from another", launch, `due_date - start_date`, `1641600000`},
		{"kepano/obsidian-skills: (date(due_date) - today()).days", launch, `(due_date - start_date).days`, `19`},
		{"kepano/obsidian-skills: .hours", launch, `(date("2026-01-01 12:00:00") - date("2026-01-01")).hours`, `12`},
		{"kepano/obsidian-skills: .days.round(0)", launch, `(now() - date("2026-11-29")).days.round(0)`, `3`},
		{"Moment.js asYears(), issue 25", launch, `(date("2028-01-01") - date("2026-01-01")).years.round(2)`, `2`},
		{"issue 25: compare with \"6 days\"", launch, `(today() - start_date) > "6 days"`, `true`},
		{"issue 25: compare with \"6 days\"", launch, `(today() - due_date) < "2 weeks"`, `true`},
		{"Formulas.md: file.mtime > now() - '7d'", launch, `(now() - "3d") > now() - "7d"`, `true`},
		{"kepano/obsidian-skills: a Duration has no round()", launch, `(due_date - start_date).round()`, `error: round() is not a function of a duration`},

		// list + list concatenates.
		{"release notes 1.9.8: list concatenation using +", launch, `[1, 2] + [3]`, `[1,2,3]`},
		{"release notes 1.9.8", launch, `(tasks + ["launch"]).length`, `4`},
		{"obsidian.d.ts ListValue.concat", launch, `([1] + []).length`, `1`},

		// string contains() ignores case.
		{"release notes 1.9.1: contains is now case-insensitive", launch, `"Hello".contains("hELLo")`, `true`},
		{"release notes 1.9.1", launch, `description.containsAll("ROCKET", "Launch")`, `true`},
		{"release notes 1.9.1", launch, `description.containsAny("x", "LAUNCH")`, `true`},
		{"Functions.md: startsWith is JavaScript's", launch, `"Hello".startsWith("he")`, `false`},

		// The sweep of every other function (docs/bases.md, Functions).
		{"release notes 1.10.3: median()", launch, `[2, 2, 4, 5, 5, 8].median()`, `4.5`},
		{"release notes 1.10.3: stddev() (the 1.10 docs' example: 6.94)", launch, `[1, 7, 3, 11, 22, 5].stddev().round(2)`, `6.94`},
		{"release notes 1.10.3: mean()", launch, `[1, 2, 3, 4, 5, 6].mean()`, `3.5`},
		{"release notes 1.9.3: hasLink() resolves links with subpaths", launch, `file.hasLink("Dune#Plot")`, `true`},
		{"release notes 1.9.3", launch, `file.hasLink("[[Dune#Plot|the book]]")`, `true`},
		{"release notes 1.12.2: file.linksTo()", launch, `file.linksTo("Dune")`, `true`},
		{"release notes 1.12.2: file.linksTo()", launch, `file.linksTo(link("Books/Dune"))`, `true`},
		{"release notes 1.12.2: file.linksTo()", launch, `file.linksTo("Pamphlet")`, `false`},
		{"release notes 1.12.2: file.linksTo()", launch, `file.linksTo(file("Books/Dune.md"))`, `true`},
		{"release notes 1.9.14: hasTag no longer case-sensitive", launch, `file.hasTag("PROJECT")`, `true`},
		{"release notes 1.9.1: inFolder without a folder", launch, `file.inFolder("")`, `true`},
		{"release notes 1.9.9: invalid arithmetic reports an error", launch, `"text" * 2`, `error: cannot apply * to a string and a number`},
		{"release notes 1.9.6: comparisons between dates and strings", launch, `due_date > "2026-11-19"`, `true`},
		{"Functions.md: replace, $1 capture groups", launch, `"John Smith".replace(/(\w+) (\w+)/, "$2, $1")`, `"Smith, John"`},
		{"MDN String.replace: $& and $$", launch, `"ab".replace(/b/, "[$&$$]")`, `"a[b$]"`},
		{"MDN String.replace: $9 with no group 9 is itself", launch, `"ab".replace(/b/, "$9")`, `"a$9"`},
		{"Functions.md: format() with Moment.js tokens", launch, `date("2026-05-01").format("Q")`, `error: not supported: format(): the Moment.js token "Q"`},

		// A property by name, in each of its three forms: the exact
		// name, else ignoring case (docs/bases.md, Properties).
		{"docs/bases.md: bare x", launch, `STATUS`, `"Doing"`},
		{"docs/bases.md: note.x", launch, `note.STATUS`, `"Doing"`},
		{"docs/bases.md: note.x", launch, `note.monthlyuses`, `10`},
		{"docs/bases.md: note.x", launch, `note.Status.lower()`, `"doing"`},
		{"docs/bases.md: note[\"x\"]", launch, `note["FIRST_NAME"]`, `"Ada"`},
		{"docs/bases.md: note[\"x\"]", launch, `note["STA" + "TUS"]`, `"Doing"`},
		{"docs/bases.md: note.x, exact", launch, `note.first_name`, `"Ada"`},
		{"docs/bases.md: note.x, none", launch, `note.nosuch`, `null`},
		{"docs/bases.md: this.note.x as note.x", launch, `this.note.STATUS`, `"Doing"`},
		{"docs/bases.md: this.note.x as note.x", launch, `this.note.monthlyuses`, `10`},
		{"docs/bases.md: this.note[\"x\"] as note[\"x\"]", launch, `this.note["first_NAME"]`, `"Ada"`},
		{"docs/bases.md: this.note.x, exact", launch, `this.note.status`, `"Doing"`},
		{"docs/bases.md: this.note.x, none", launch, `this.note.nosuch`, `null`},
		{"Functions.md: an object's key is exact", launch, `{"a": 1}.A`, `null`},

		// Date arithmetic is Moment.js's add() and subtract(): months
		// (a year is 12) first, the day of the month clamped to the
		// target month's last day, then calendar days (d, w), then the
		// time units; fractional months and days round half away from
		// zero.
		{"Moment.js add(): month-end clamped", launch, `date("2025-01-31") + "1M"`, `date(2025-02-28)`},
		{"Moment.js subtract(): month-end clamped", launch, `date("2025-03-31") - "1M"`, `date(2025-02-28)`},
		{"Moment.js add(): a leap day plus a year", launch, `date("2024-02-29") + "1y"`, `date(2025-02-28)`},
		{"Moment.js add(): a leap year's January", launch, `date("2024-01-31") + "1M"`, `date(2024-02-29)`},
		{"Moment.js add(): across a year", launch, `date("2025-12-31") + "2M"`, `date(2026-02-28)`},
		{"Moment.js subtract(): across a year", launch, `date("2025-01-31") - "2M"`, `date(2024-11-30)`},
		{"Moment.js add(): months before days", launch, `date("2025-01-30") + "1M 1d"`, `date(2025-03-01)`},
		{"Moment.js add(): months before days, written after", launch, `date("2025-01-30") + "1d 1M"`, `date(2025-03-01)`},
		{"Moment.js add(): months, days, then time", launch, `date("2025-01-31 22:00") + "1M 1d 3h"`, `date(2025-03-02 01:00:00)`},
		{"Moment.js subtract(): months before days", launch, `date("2025-03-31") - "1M 1d"`, `date(2025-02-27)`},
		{"Moment.js add(): a duration() value", launch, `date("2025-01-31") + duration("1M")`, `date(2025-02-28)`},
		{"Moment.js add(): a duration() first", launch, `duration("1M") + date("2025-01-31")`, `date(2025-02-28)`},
		{"Moment.js add(): a sum of durations", launch, `date("2025-01-31") + (duration("1M") + duration("1w"))`, `date(2025-03-07)`},
		{"Moment.js add(): months round half away from zero", launch, `date("2025-01-15") + "1.5M"`, `date(2025-03-15)`},
		{"Moment.js subtract(): months round half away from zero", launch, `date("2025-05-15") - "1.5M"`, `date(2025-03-15)`},
		{"Moment.js add(): days round half away from zero", launch, `date("2025-01-15") + "1.5d"`, `date(2025-01-17)`},
		{"Moment.js asMonths(): a duration keeps its fraction", launch, `duration("1.5M").months`, `1.5`},
		{"JavaScript: a date past 100,000,000 days is invalid", launch, `date("2025-01-01") + "1000000y"`, `error: a date moved by`},
		{"JavaScript: a date past 100,000,000 days is invalid", launch, `date("2025-01-01") - 1e300`, `error: a date moved by`},
		{"Bases syntax.md: date + \"1M\"", launch, `date("2024-12-01") + "1M" + "4h" + "3m"`, `date(2025-01-01 04:03:00)`},

		// Numbers and strings are JavaScript's: toFixed() rounds the
		// number's exact binary value, a tie away from zero; a string's
		// length and indexes count UTF-16 code units.
		{"ECMA-262 Number.prototype.toFixed: a tie rounds up in magnitude", launch, `(-2.5).toFixed(0)`, `"-3"`},
		{"ECMA-262 toFixed", launch, `(2.5).toFixed(0)`, `"3"`},
		{"ECMA-262 toFixed", launch, `(0.125).toFixed(2)`, `"0.13"`},
		{"ECMA-262 toFixed", launch, `(-1.5).toFixed(0)`, `"-2"`},
		{"ECMA-262 toFixed: 1.005 is 1.00499... in binary", launch, `(1.005).toFixed(2)`, `"1.00"`},
		{"ECMA-262 toFixed: a carry through the digits", launch, `(9.5).toFixed(0)`, `"10"`},
		{"ECMA-262 toFixed: -0 has no sign", launch, `(-0).toFixed(1)`, `"0.0"`},
		{"ECMA-262 toFixed: a small negative keeps it", launch, `(-0.0001).toFixed(2)`, `"-0.00"`},
		{"ECMA-262 toFixed: 1e21 and over is ToString", launch, `(1e21).toFixed(2)`, `"1e+21"`},
		{"ECMA-262 toFixed", launch, `(3.14159).toFixed(2)`, `"3.14"`},
		{"ECMA-262 String length: UTF-16 code units", launch, `"😀".length`, `2`},
		{"ECMA-262 String length", launch, `"a😀b".length`, `4`},
		{"ECMA-262 String length: é is one unit", launch, `"héllo".length`, `5`},
		{"ECMA-262 String.prototype.slice: code units", launch, `"a😀b".slice(1, 3)`, `"😀"`},
		{"ECMA-262 slice", launch, `"a😀b".slice(3)`, `"b"`},
		{"ECMA-262 slice", launch, `"a😀b".slice(-1)`, `"b"`},
		{"ECMA-262 slice: half a pair is U+FFFD", launch, `"a😀b".slice(0, 2)`, "\"a\uFFFD\""},
		{"ECMA-262 string index: code units", launch, `"a😀b"[3]`, `"b"`},
	} {
		opts := Options{Now: testNow, This: tc.file}
		v, err := Value(s, nil, tc.file, tc.expr, opts)
		got := show(v)
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != tc.want && !(strings.HasPrefix(tc.want, "error: ") && strings.HasPrefix(got, tc.want)) {
			t.Errorf("%s (%s): got %s, want %s", tc.expr, tc.source, got, tc.want)
		}
	}
}

// TestNullCheckboxesSortAsFalse: a view sorted by a boolean property puts
// the notes without it with the false ones (release notes 1.10.3:
// "Indeterminate checkboxes (where the value is null) are now sorted with
// false values"), not last.
func TestNullCheckboxesSortAsFalse(t *testing.T) {
	s := loadTestVault(t)
	b, err := Parse([]byte("filters: 'file.inFolder(\"Projects\") || file.inFolder(\"Books\")'\nviews:\n  - type: table\n    sort:\n      - property: urgent\n        direction: DESC\n      - property: file.name\n"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Evaluate(t.Context(), s, b, Options{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Rows {
		got = append(got, r.File.Path)
	}
	// Only Launch has urgent (false); the others have none, which sorts
	// as false: all tie, then by name. Were a missing value last, Launch
	// would come first.
	want := "Projects/Archive.md Books/Dune.md Projects/Launch.md Books/Pamphlet.md Books/Textbook.md"
	if strings.Join(got, " ") != want {
		t.Errorf("rows %s, want %s", strings.Join(got, " "), want)
	}
}

// TestDateArithmeticAcrossDST: a day added is a calendar day, the time of
// day kept across a change of clocks, as Moment.js's add(1, "d") is; an
// hour is a fixed span (Bases syntax.md's table; Moment's add()).
func TestDateArithmeticAcrossDST(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	v, err := vault.Open("testdata/vault")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	s, err := Load(t.Context(), v, ny, nil)
	if err != nil {
		t.Fatal(err)
	}
	launch := s.File("Projects/Launch.md")
	// Clocks moved forward an hour at 2 a.m. on 2025-03-09 in New York.
	for _, tc := range []struct{ expr, want string }{
		{`date("2025-03-08 12:00") + "1d"`, `date(2025-03-09 12:00:00)`},
		{`date("2025-03-08 12:00") + "1w"`, `date(2025-03-15 12:00:00)`},
		{`date("2025-03-10 12:00") - "2d"`, `date(2025-03-08 12:00:00)`},
		{`date("2025-03-08 12:00") + "1d 1h"`, `date(2025-03-09 13:00:00)`},
		{`date("2025-03-08 12:00") + "24h"`, `date(2025-03-09 13:00:00)`},
		{`date("2025-02-09 12:00") + "1M"`, `date(2025-03-09 12:00:00)`},
	} {
		got, err := Value(s, nil, launch, tc.expr, Options{Now: testNow})
		if err != nil || show(got) != tc.want {
			t.Errorf("%s = %s, %v, want %s", tc.expr, show(got), err, tc.want)
		}
	}
}
