package base

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

const viewsBase = `filters:
  and:
    - 'file.ext == "md"'
    - file.hasProperty("status")
formulas:
  score: "price * 2"
views:
  - type: table
    name: Reading list
    filters:
      and:
        - file.hasTag("book")
        - 'status != "done"'
    order: [file.name, status]
  - type: table
    name: By price
    sort:
      - property: price
        direction: DESC
    limit: 3
    order: [file.name, price]
  - type: cards
    name: By status
    sort:
      - property: file.name
        direction: ASC
    groupBy:
      property: status
      direction: ASC
  - type: list
    name: None of
    filters:
      not:
        - file.hasTag("book")
        - file.inFolder("Projects")
  - type: table
    name: Any of
    filters:
      or:
        - 'status == "done"'
        - 'formula.score > 250'
    sort:
      - property: formula.score
        direction: ASC
`

// TestViewsExamples: what Views.md describes a view doing. The first view
// loads by default; each view filters (all / any / none of the
// conjunctions), sorts (by one or more properties, ascending or
// descending, formulas too), limits and groups by one property.
func TestViewsExamples(t *testing.T) {
	s := loadTestVault(t)
	for _, tc := range []struct {
		view string
		want []string
	}{
		{"", []string{"Books/Dune.md", "Required Reading/Essay.md"}}, // the first view
		{"Reading list", []string{"Books/Dune.md", "Required Reading/Essay.md"}},
		{"reading LIST", []string{"Books/Dune.md", "Required Reading/Essay.md"}},
		{"By price", []string{"Projects/Launch.md", "Books/Textbook.md", "Books/Dune.md"}},
		{"By status", []string{"Projects/Launch.md", "Projects/Archive.md", "Books/Textbook.md", "Books/Dune.md", "Required Reading/Essay.md", "Books/Pamphlet.md"}},
		{"None of", []string{"Books/Pamphlet.md"}},
		{"Any of", []string{"Books/Textbook.md", "Projects/Launch.md"}}, // score 80, 300
	} {
		res := evalBase(t, s, viewsBase, Options{View: tc.view})
		if got := names(res.Rows); !slices.Equal(got, tc.want) {
			t.Errorf("view %q: rows %q, want %q", tc.view, got, tc.want)
		}
	}
	res := evalBase(t, s, viewsBase, Options{View: "By status"})
	var keys []string
	for _, g := range res.Groups {
		keys = append(keys, show(g.Key))
	}
	// Text sorts ignoring case, then upper case first.
	if want := []string{`"Doing"`, `"Done"`, `"done"`, `"reading"`, `"todo"`}; !slices.Equal(keys, want) {
		t.Errorf("groups %q, want %q", keys, want)
	}
	if res.Type != "cards" || res.GroupBy == nil || res.GroupBy.ID != "status" {
		t.Errorf("type %q groupBy %+v", res.Type, res.GroupBy)
	}
	res = evalBase(t, s, viewsBase, Options{View: "By price"})
	if res.Total != 6 || len(res.Rows) != 3 {
		t.Errorf("By price: %d rows of %d, want 3 of 6", len(res.Rows), res.Total)
	}
}

func TestViewNotFound(t *testing.T) {
	s := loadTestVault(t)
	b, err := Parse([]byte(viewsBase))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Evaluate(context.Background(), s, b, Options{View: "Nope", Now: testNow}); !errors.Is(err, ErrNoView) {
		t.Errorf("err %v, want ErrNoView", err)
	}
}

// TestBlocks: a base embedded in a note as a base code block (Create a
// base.md, "Embed a base as a code block").
func TestBlocks(t *testing.T) {
	note := "# Embeds\n\n~~~yaml\n```base\nnot: this one\n```\n~~~\n\n```base\nfilters:\n  and:\n    - file.hasTag(\"example\")\nviews:\n  - type: table\n    name: Table\n```\n\n````base\nviews: []\n````\n"
	got := Blocks([]byte(note))
	want := []Block{{"filters:\n  and:\n    - file.hasTag(\"example\")\nviews:\n  - type: table\n    name: Table\n", 9}, {"views: []\n", 18}}
	if !slices.Equal(got, want) {
		t.Errorf("blocks %+v, want %+v", got, want)
	}
}

const summariesBase = `summaries:
  customAverage: 'values.mean().round(3)'
  broken: 'values.nosuch()'
views:
  - type: table
    name: Books
    filters: file.hasTag("book")
    order: [file.name, price, age, status, author]
    summaries:
      price: Average
      age: customAverage
      status: Unique
      author: Empty
      file.name: Filled
  - type: table
    name: Prices
    filters: file.hasTag("book")
    order: [price, age, file.name, status]
    summaries:
      price: Min
      age: Max
      file.name: Nosuch
      status: broken
  - type: table
    name: More prices
    filters: file.hasTag("book")
    order: [price, age]
    summaries:
      price: Sum
      age: Median
  - type: table
    name: Spread
    filters: file.hasTag("book")
    order: [price, age]
    summaries:
      price: Stddev
      age: Range
  - type: table
    name: Projects
    filters: file.hasTag("project")
    order: [start_date, due_date, completed, important]
    groupBy: {property: status, direction: ASC}
    summaries:
      start_date: Earliest
      due_date: Latest
      completed: Checked
      important: Unchecked
  - type: table
    name: Project range
    filters: file.hasTag("project")
    order: [start_date]
    summaries:
      start_date: Range
`

// TestSummaries: the default summaries of Bases syntax's table, and a
// custom one (the page's customAverage, values.mean().round(3)), over a
// view's rows and over each group.
func TestSummaries(t *testing.T) {
	s := loadTestVault(t)
	for _, tc := range []struct {
		view string
		want []string
	}{
		{"Books", []string{"file.name Filled=3", "price Average=18.5", "age customAverage=3.333", "status Unique=3", "author Empty=2"}}, // column order
		{"Prices", []string{"price Min=3", "age Max=5", "file.name Nosuch=#error", "status broken=#error"}},
		{"More prices", []string{"price Sum=55.5", "age Median=3"}},
		{"Spread", []string{"price Stddev=15.689699381016409", "age Range=3"}},
		{"Projects", []string{"start_date Earliest=date(2026-10-01)", "due_date Latest=date(2026-11-20)", "completed Checked=1", "important Unchecked=0"}},
		{"Project range", []string{"start_date Range=2678400000"}},
	} {
		res := evalBase(t, s, summariesBase, Options{View: tc.view})
		var got []string
		for _, sm := range res.Summaries {
			v := show(sm.Value)
			if _, bad := sm.Value.(*CellError); bad {
				v = "#error"
			}
			got = append(got, sm.Property+" "+sm.Name+"="+v)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("view %s: summaries %q, want %q", tc.view, got, tc.want)
		}
	}
	res := evalBase(t, s, summariesBase, Options{View: "Projects"})
	var got []string
	for _, g := range res.Groups {
		for _, sm := range g.Summaries {
			got = append(got, show(g.Key)+" "+sm.Property+" "+sm.Name+"="+show(sm.Value))
		}
	}
	want := []string{
		`"Doing" start_date Earliest=date(2026-11-01)`, `"Doing" due_date Latest=date(2026-11-20)`, `"Doing" completed Checked=0`, `"Doing" important Unchecked=0`,
		`"Done" start_date Earliest=date(2026-10-01)`, `"Done" due_date Latest=date(2026-10-15)`, `"Done" completed Checked=1`, `"Done" important Unchecked=0`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("group summaries\n%q\nwant\n%q", got, want)
	}
}

// TestUnreadViewKeys: a view key zk does not read is named in a warning,
// so that a misspelt filter: cannot pass unnoticed; the warning is the
// view's, said only when that view is evaluated. The layout keys Obsidian
// and its Maps view write (every table of kepano-obsidian's Templates/Bases
// has a columnSize) change no row, and are not named.
func TestUnreadViewKeys(t *testing.T) {
	for _, tc := range []struct{ keys, want string }{
		{"    filter: 'price > 1'\n    rowHeight: tall\n", `line 2: view "V": not read by zk: filter`},
		{"    columnSize:\n      file.name: 248\n    rowHeight: tall\n", ""},
		{"    cardSize: 200\n    imageFit: contain\n    imageAspectRatio: 1.5\n", ""},
		{"    coordinates: note.coordinates\n    markerIcon: note.icon\n    markerColor: note.color\n    defaultZoom: 4\n    center: 48.8, 2.3\n    minZoom: 1\n    maxZoom: 18\n    mapHeight: 400\n    mapTiles: []\n    mapTilesDark: []\n", ""},
		{"    columnSize: 3\n    colunmSize: 4\n", `line 2: view "V": not read by zk: colunmSize`},
	} {
		b, err := Parse([]byte("views:\n  - type: table\n    name: V\n" + tc.keys))
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		if tc.want != "" {
			want = []string{tc.want}
		}
		if !slices.Equal(b.Views[0].Warnings, want) || len(b.Warnings) != 0 {
			t.Errorf("%q: view warnings %q, base warnings %q, want %q for the view only", tc.keys, b.Views[0].Warnings, b.Warnings, want)
		}
	}
}

// TestSortEntryKeys: a sort entry written with column: instead of
// property: sorts by it, as the bases Obsidian wrote before its Sort menu
// (1.9.3) are still read (kepano/kepano-obsidian's Templates/Bases has six,
// TaskNotes generates its default views so); a key zk does not read is a
// warning naming it, where the entry was dropped silently and the view
// left unsorted.
func TestSortEntryKeys(t *testing.T) {
	s := loadTestVault(t)
	const src = `filters:
  and:
    - 'file.ext == "md"'
    - file.hasProperty("status")
views:
  - type: table
    name: Column
    sort:
      - column: price
        direction: DESC
    limit: 3
  - type: table
    name: Unknown
    sort:
      - field: price
        order: DESC
`
	res := evalBase(t, s, src, Options{View: "Column"})
	if got, want := names(res.Rows), []string{"Projects/Launch.md", "Books/Textbook.md", "Books/Dune.md"}; !slices.Equal(got, want) {
		t.Errorf("column: rows %q, want %q (as property: price)", got, want)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("column: warnings %q, want none", res.Warnings)
	}
	res = evalBase(t, s, src, Options{View: "Unknown"})
	if !slices.ContainsFunc(res.Warnings, func(w string) bool {
		return strings.Contains(w, `view "Unknown"`) && strings.Contains(w, "sort.field, sort.order")
	}) {
		t.Errorf("unknown sort keys: warnings %q, want one naming field and order", res.Warnings)
	}
}

// TestOldDisplayBlock: a base saved by Obsidian before properties:
// displayName (1.9) names its columns in a top-level display: block
// (kepano-obsidian's Genre.base and Games.base); it heads the columns, and
// a displayName in properties: wins where both name one.
func TestOldDisplayBlock(t *testing.T) {
	b, err := Parse([]byte("display:\n  note.rating: Rating\n  file.name: Name\n  year: Year\n  note.maker: Old\nproperties:\n  note.maker:\n    displayName: Maker\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Warnings) != 0 {
		t.Errorf("warnings %q, want none", b.Warnings)
	}
	for id, want := range map[string]string{"rating": "Rating", "note.rating": "Rating", "file.name": "Name", "year": "Year", "maker": "Maker", "genre": "genre"} {
		if got := displayName(b, id); got != want {
			t.Errorf("displayName(%s) = %q, want %q", id, got, want)
		}
	}
	if _, err := Parse([]byte("display: [a, b]\n")); err == nil || !strings.Contains(err.Error(), "display must be a mapping") {
		t.Errorf("display as a list: %v, want an error", err)
	}
}
