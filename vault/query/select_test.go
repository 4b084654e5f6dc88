package query

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// TestSelectAgreesWithFilter holds the two ways zk list answers to each
// other: Select (read with only what the query needs, --no-cache) and
// Filter over ReadAll's records (what the cache holds), on a vault read
// from disk by the parallel workers (go test -race checks them).
func TestSelectAgreesWithFilter(t *testing.T) {
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("Permanent Notes/N%02d.md", i)] = fmt.Sprintf(
			"---\nrating: %d\nstatus: %s\ntags: [t%d/sub]\n---\n# N%02d\n\n[[N%02d]] #inline%d\n\n## Maintenance\n\n- Last tended: 2026-%02d-01\n",
			i%7, []string{"draft", "done"}[i%2], i%3, i, (i*7)%60, i%4, 1+i%12)
	}
	files["Loose.md"] = "# Loose\n"
	dir := vaulttest.Dir(t, files)
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	walk, _, err := v.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	types := []*vault.NoteType{{Name: "permanent", Paths: vault.DefaultTypePaths}}
	opts := Options{Types: types}
	all, err := ReadAll(context.Background(), v, walk, opts, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 61 {
		t.Fatalf("ReadAll read %d notes, want 61", len(all))
	}
	today := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	queries := []Query{
		{},
		{Where: []Cond{{Key: "rating", Op: OpGt, Value: "3"}, {Key: "status", Op: OpEq, Value: "draft"}}},
		{Tags: []string{"t1"}, Sort: "rating", Reverse: true, Limit: 5},
		{Tags: []string{"inline2"}},
		{LinksTo: "Permanent Notes/N07.md", Transitive: true},
		{LinkedFrom: "Permanent Notes/N01.md", Transitive: true},
		{Orphans: true},
		{DeadEnds: true},
		{Stale: true, Sort: "due"},
		{Types: []string{"none"}},
	}
	for i, q := range queries {
		q.Today = today
		sel, err := Select(context.Background(), v, walk, q, opts)
		if err != nil {
			t.Fatal(err)
		}
		fil, err := q.Filter(all)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := paths(sel.Notes), paths(fil.Notes); !slices.Equal(got, want) || sel.Matched != fil.Matched {
			t.Errorf("query %d: Select %q (%d matched), Filter %q (%d matched)", i, got, sel.Matched, want, fil.Matched)
		}
		if i > 0 && len(fil.Notes) == 0 {
			t.Errorf("query %d selects nothing: the test would not see a difference", i)
		}
	}
}

func paths(notes []Note) []string {
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = n.Path
	}
	return out
}
