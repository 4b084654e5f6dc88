package base

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSyntaxExamples is every expression of Obsidian's "Bases syntax.md"
// (properties, operators, date arithmetic, types, files and links) with
// the result the page describes, on testdata/vault.
func TestSyntaxExamples(t *testing.T) {
	s := loadTestVault(t)
	launch, dune := s.File("Projects/Launch.md"), s.File("Books/Dune.md")
	frank := s.File("People/Frank Herbert.md")
	recent := &File{Path: "Recent.md", snap: s, MTime: testNow.Add(-48 * time.Hour), CTime: testNow.Add(-72 * time.Hour)}
	old := &File{Path: "Old.md", snap: s, MTime: testNow.Add(-30 * 24 * time.Hour)}
	for _, tc := range []struct {
		on         *File
		this       *File
		expr, want string
	}{
		// Properties: note.x, note["x"], bare x; file properties.
		{launch, nil, `note.price`, `150`},
		{launch, nil, `note["price"]`, `150`},
		{launch, nil, `price`, `150`},
		{launch, nil, `file.size > 0`, `true`},
		{launch, nil, `file.ext`, `"md"`},
		{launch, nil, `file.ext == "md"`, `true`},
		{s.File("Attachments/cover.png"), nil, `file.ext == "md"`, `false`},
		{dune, nil, `file.backlinks`, `[link(People/Frank Herbert->People/Frank Herbert.md),link(Projects/Launch->Projects/Launch.md)]`},
		{s.File("Required Reading/Essay.md"), nil, `file.embeds`, `[link(cover.png->Attachments/cover.png)]`},
		{dune, nil, `file.links.length`, `3`}, // [[Textbook]] and the frontmatter author, authors
		{launch, nil, `file.file`, `file(Projects/Launch.md)`},
		{launch, nil, `file.properties.price`, `150`},
		{s.File("Books/Pamphlet.md"), nil, `file.tags`, `["#tag/nested"]`},
		// this.
		{launch, s.File("Books.base"), `this.file.folder`, `"/"`},
		{launch, dune, `this.file.name`, `"Dune"`},
		{frank, dune, `file.hasLink(this.file)`, `true`},
		{launch, dune, `file.hasLink(this.file)`, `true`},
		{s.File("Books/Textbook.md"), dune, `file.hasLink(this.file)`, `false`},
		{dune, frank, `author == this`, `true`},
		{dune, launch, `author == this`, `false`},
		{dune, frank, `authors.contains(this)`, `true`},
		// Arithmetic operators.
		{launch, nil, `radius * (2 * 3.14)`, `12.56`},
		{launch, nil, `7 % 3`, `1`},
		{launch, nil, `price - discount`, `140`},
		// Date arithmetic.
		{launch, nil, `now() + "1 day"`, `date(2026-12-03 10:30:00)`},
		{recent, nil, `file.mtime > now() - "1 week"`, `true`},
		{old, nil, `file.mtime > now() - "1 week"`, `false`},
		{launch, nil, `date("2024-12-01") + "1M" + "4h" + "3m"`, `date(2025-01-01 04:03:00)`},
		{recent, nil, `now() - file.ctime`, `259200000`},
		{launch, nil, `date("2025-05-27 13:14:15").date()`, `date(2025-05-27)`},
		{launch, nil, `date("2025-05-27 13:14:15").format("YYYY-MM-DD")`, `"2025-05-27"`},
		{launch, nil, `bought + "1M"`, `date(2026-07-02)`},
		{launch, nil, `start_date + "1M"`, `date(2026-12-01)`},
		{launch, nil, `start_date - "2h"`, `date(2026-10-31 22:00:00)`},
		{launch, nil, `date("2025-01-01 12:00:00")`, `date(2025-01-01 12:00:00)`},
		{launch, nil, `now() + "1 hour"`, `date(2026-12-02 11:30:00)`},
		{launch, nil, `today() + "7d"`, `date(2026-12-09)`},
		{launch, nil, `(now() + "1d") - now()`, `86400000`},
		{launch, nil, `now().hour`, `10`},
		{launch, nil, `now() + "1y"`, `date(2027-12-02 10:30:00)`},
		{launch, nil, `now() - "1 week" + "2 weeks"`, `date(2026-12-09 10:30:00)`},
		{launch, nil, `now() + "30s" - "1 minute"`, `date(2026-12-02 10:29:30)`},
		// Comparison operators.
		{launch, nil, `price == 150`, `true`},
		{launch, nil, `price != 150`, `false`},
		{launch, nil, `price > 100`, `true`},
		{launch, nil, `price < 100`, `false`},
		{launch, nil, `price >= 150`, `true`},
		{launch, nil, `price <= 149`, `false`},
		{launch, nil, `due_date < now()`, `true`},
		{launch, nil, `start_date < due_date`, `true`},
		{launch, nil, `status == "Doing"`, `true`},
		{launch, nil, `tasks == ["draft", "review", "ship"]`, `true`},
		// Boolean operators.
		{launch, nil, `!completed`, `true`},
		{launch, nil, `completed && important`, `false`},
		{launch, nil, `completed || important`, `true`},
		// Types.
		{launch, nil, `"message"`, `"message"`},
		{launch, nil, `'message'`, `"message"`},
		{launch, nil, `1`, `1`},
		{launch, nil, `(2.5)`, `2.5`},
		{launch, nil, `true`, `true`},
		{launch, nil, `false`, `false`},
		{launch, nil, `list(price)`, `[150]`},
		{launch, nil, `tasks[0]`, `"draft"`},
		{launch, nil, `meta.subprop`, `"inner"`},
		{launch, nil, `meta["subprop"]`, `"inner"`},
		// A property named like one of expr's operator words.
		{s.File("Books/Pamphlet.md"), nil, `in + 1`, `8`},
		{s.File("Books/Pamphlet.md"), nil, `contains == "x" && not`, `true`},
		// Files and links.
		{dune, nil, `author`, `link(Frank Herbert->People/Frank Herbert.md)`},
		{launch, nil, `link("filename")`, `link(filename->)`},
		{launch, nil, `link("https://obsidian.md")`, `link(https://obsidian.md->)`},
		{launch, nil, `link(file.ctime.date().toString()).isType("link")`, `true`},
		{launch, nil, `link("filename", "display").toString()`, `"[[filename|display]]"`},
		{launch, nil, `link("filename", icon("plus")).isType("link")`, `true`},
		{launch, nil, `file.asLink("display").toString()`, `"[[Projects/Launch|display]]"`},
		{launch, nil, `link("Dune") == link("Books/Dune")`, `true`},
		{launch, nil, `link("[[Dune|the book]]").toString()`, `"[[Dune|the book]]"`},
		{launch, nil, `link("[[Dune|the book]]") == link("Dune")`, `true`},
		{launch, dune, `this.isType("file")`, `true`},
		{launch, dune, `this.toString()`, `"Books/Dune.md"`},
		{launch, nil, `link("nowhere") == link("nowhere")`, `true`},
		{launch, nil, `link("nowhere") == link("elsewhere")`, `false`},
	} {
		got, err := Value(s, nil, tc.on, tc.expr, Options{Now: testNow, This: tc.this})
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if show(got) != tc.want {
			t.Errorf("%s on %s = %s, want %s", tc.expr, tc.on.Path, show(got), tc.want)
		}
	}
}

// TestSyntaxTypoNowTime: the page writes now.time() where it means
// now().time(); zk reads now as a property (there is none) and says so.
func TestSyntaxTypoNowTime(t *testing.T) {
	s := loadTestVault(t)
	if _, err := Value(s, nil, s.File("Projects/Launch.md"), `now.time()`, Options{Now: testNow}); err == nil {
		t.Fatal("now.time() evaluated; want an error for time() on a missing value")
	}
}

func names(rows []Row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.File.Path)
	}
	return out
}

func evalBase(t *testing.T, s *Snapshot, src string, opts Options) *Result {
	t.Helper()
	b, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if opts.Now.IsZero() {
		opts.Now = testNow
	}
	res, err := Evaluate(context.Background(), s, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSyntaxFilterExamples: the page's simple and complex filters.
func TestSyntaxFilterExamples(t *testing.T) {
	s := loadTestVault(t)
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"simple", "filters:\n  and:\n    - file.hasTag(\"tag\")\n", []string{"Books/Pamphlet.md"}},
		{"statement", "filters: file.hasTag(\"project\")\n", []string{"Projects/Archive.md", "Projects/Launch.md"}},
		{"complex", `filters:
  or:
    - file.hasTag("tag")
    - and:
        - file.hasTag("book")
        - file.hasLink("Textbook")
    - not:
        - file.hasTag("book")
        - file.inFolder("Required Reading")
`, []string{"Attachments/cover.png", "Books.base", "Books/Dune.md", "Books/Pamphlet.md", "People/Frank Herbert.md",
			"Projects/Archive.md", "Projects/Launch.md", "Required Reading/Essay.md"}},
		{"no filters: every file", "views:\n  - type: table\n", []string{"Attachments/cover.png", "Books.base", "Books/Dune.md",
			"Books/Pamphlet.md", "Books/Textbook.md", "People/Frank Herbert.md", "Projects/Archive.md", "Projects/Launch.md",
			"Required Reading/Essay.md"}},
		{"global and view filters are joined by and", `filters: file.hasTag("book")
views:
  - type: table
    filters: 'price > 10'
`, []string{"Books/Dune.md", "Books/Textbook.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := evalBase(t, s, tc.src, Options{})
			if got := names(res.Rows); !slices.Equal(got, tc.want) {
				t.Errorf("rows %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSyntaxFullExample is the page's example base (testdata/vault/
// Books.base) evaluated: the global filter, the view's filter, formulas,
// display names, groupBy note.age DESC.
func TestSyntaxFullExample(t *testing.T) {
	s := loadTestVault(t)
	src, err := os.ReadFile("testdata/vault/Books.base")
	if err != nil {
		t.Fatal(err)
	}
	res := evalBase(t, s, string(src), Options{This: s.File("Books.base")})
	if res.View != "My table" || res.Type != "table" {
		t.Errorf("view %q type %q", res.View, res.Type)
	}
	var cols []string
	for _, c := range res.Columns {
		cols = append(cols, c.ID+"="+c.Name)
	}
	if want := []string{"file.name=file.name", "file.ext=Extension", "note.age=age", "formula.ppu=ppu", "formula.formatted_price=Price"}; !slices.Equal(cols, want) {
		t.Errorf("columns %q, want %q", cols, want)
	}
	var got []string
	for _, g := range res.Groups {
		for _, r := range g.Rows {
			var cells []string
			for _, v := range r.Values {
				cells = append(cells, show(v))
			}
			got = append(got, show(g.Key)+": "+strings.Join(cells, " | "))
		}
	}
	want := []string{
		`5: "Dune" | "md" | 5 | "2.50" | "12.50 dollars"`,
		`3: "Essay" | "md" | 3 | "1.00" | "3.00 dollars"`,
		`null: "Launch" | "md" | null | "Infinity" | "150.00 dollars"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// summaries: formula.ppu: Average. ppu is toFixed's text, not a
	// number, so there is nothing to average.
	if len(res.Summaries) != 1 || res.Summaries[0].Property != "formula.ppu" || res.Summaries[0].Name != "Average" || res.Summaries[0].Value != nil {
		t.Errorf("summaries %+v, want formula.ppu: Average = null", res.Summaries)
	}
}

// TestUnsupportedFilterFailsTheView: a filter zk cannot evaluate is never
// dropped: the view is an error that names it.
func TestUnsupportedFilterFailsTheView(t *testing.T) {
	s := loadTestVault(t)
	for _, src := range []string{
		"filters:\n  and:\n    - file.hasTag(\"book\")\n    - 'values.total() > 1'\n",
		"views:\n  - type: table\n    filters:\n      not:\n        - 'nosuch(price)'\n",
		"filters: 'price ?? 1'\n",
	} {
		b, err := Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Evaluate(context.Background(), s, b, Options{Now: testNow})
		var fe *FilterError
		var ue *UnsupportedError
		if !errors.As(err, &fe) || !errors.As(err, &ue) {
			t.Errorf("%s: err %v, want a FilterError naming what is not supported", src, err)
		}
	}
}
