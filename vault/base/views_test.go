package base

import (
	"context"
	"errors"
	"slices"
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
	want := []string{"filters:\n  and:\n    - file.hasTag(\"example\")\nviews:\n  - type: table\n    name: Table\n", "views: []\n"}
	if !slices.Equal(got, want) {
		t.Errorf("blocks %q, want %q", got, want)
	}
}
