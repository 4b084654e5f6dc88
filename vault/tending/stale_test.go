package tending

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// openVault writes files into a new vault and opens it, with its walk.
func openVault(t *testing.T, files map[string]string) (*vault.Vault, []vault.File) {
	t.Helper()
	v, err := vault.Open(vaulttest.Dir(t, files))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	walk, _, err := v.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v, walk
}

func TestStale(t *testing.T) {
	line := func(date string) string { return "## Maintenance\n- Last tended: " + date + "\n" }
	today := time.Date(2026, 12, 2, 15, 30, 0, 0, time.UTC) // the hour does not count
	v, files := openVault(t, map[string]string{
		"Permanent Notes/Old.md":      line("2026-01-01"),
		"Permanent Notes/Tied A.md":   line("2026-08-01"),
		"Permanent Notes/Tied B.md":   line("2026-08-01"),
		"Permanent Notes/Tied C.md":   line("2026-08-01"),
		"Permanent Notes/Today.md":    line("2026-09-03"),
		"Permanent Notes/Soon.md":     line("2026-09-10"),
		"Permanent Notes/Later.md":    line("2026-10-01"),
		"Permanent Notes/Weekly.md":   "---\ntend-every: 1w\n---\n" + line("2026-11-20"),
		"Permanent Notes/Bad Iv.md":   "---\ntend-every: often\n---\n" + line("2026-11-20"),
		"Permanent Notes/Undated.md":  "# Undated\n",
		"Permanent Notes/Bad Date.md": line("2026-11-31"),
		"Typed.md":                    "---\ntype: permanent\n---\n# Typed\n",
		"Journal.md":                  "# Journal\n",
		"Journal with a date.md":      "---\nkind: journal\n---\n" + line("2026-11-01"),
	})
	types := []*vault.NoteType{
		{Name: "permanent", Paths: vault.DefaultTypePaths, Property: "type", Value: "permanent"},
		{Name: "journal", Property: "kind", Value: "journal", Interval: vault.Interval{N: 14, Unit: 'd'}},
	}
	type row struct {
		Path   string
		Days   int
		Source IntervalSource
	}
	rows := func(r StaleReport) []row {
		var out []row
		for _, d := range r.Notes {
			out = append(out, row{d.Path, d.DaysOverdue, d.IntervalSource})
		}
		return out
	}
	stale := func(opts StaleOptions) StaleReport {
		t.Helper()
		r, err := Stale(context.Background(), v, files, opts)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	opts := StaleOptions{Today: today, Types: types}
	r := stale(opts)
	// Ties without backlinks go by path (TestStaleBacklinks orders by them).
	want := []row{
		{"Permanent Notes/Old.md", 245, IntervalDefault},
		{"Permanent Notes/Tied A.md", 33, IntervalDefault},
		{"Permanent Notes/Tied B.md", 33, IntervalDefault},
		{"Permanent Notes/Tied C.md", 33, IntervalDefault},
		{"Journal with a date.md", 17, IntervalType},
		{"Permanent Notes/Weekly.md", 5, IntervalFrontmatter},
	}
	if got := rows(r); !reflect.DeepEqual(got, want) {
		t.Errorf("past due:\n got %v\nwant %v", got, want)
	}
	wantUndated := []Undated{
		{Path: "Permanent Notes/Bad Date.md", Line: 1, Problem: `"2026-11-31" is not a real date`},
		{Path: "Permanent Notes/Undated.md", Line: -1},
		{Path: "Typed.md", Line: -1},
	}
	if !reflect.DeepEqual(r.Undated, wantUndated) {
		t.Errorf("undated:\n got %+v\nwant %+v", r.Undated, wantUndated)
	}
	if len(r.Problems) != 1 || r.Problems[0].Path != "Permanent Notes/Bad Iv.md" || r.Problems[0].Line != 1 {
		t.Errorf("problems = %+v, want the bad tend-every on line 1", r.Problems)
	}

	opts.Within = vault.Interval{N: 1, Unit: 'w'}
	r = stale(opts)
	want = append(want, row{"Permanent Notes/Today.md", 0, IntervalDefault}, row{"Permanent Notes/Soon.md", -7, IntervalDefault})
	if got := rows(r); !reflect.DeepEqual(got, want) {
		t.Errorf("within a week:\n got %v\nwant %v", got, want)
	}

	opts.Types = nil
	if r := stale(opts); len(r.Undated) != 1 || r.Undated[0].Path != "Permanent Notes/Bad Date.md" {
		t.Errorf("with no types, only a bad date is listed as undated: %+v", r.Undated)
	}

	// The config's default interval, for a note whose type sets none.
	opts = StaleOptions{Today: today, Types: types, Interval: vault.Interval{N: 300, Unit: 'd'}}
	r = stale(opts)
	want = []row{
		{"Permanent Notes/Old.md", 35, IntervalDefault},
		{"Journal with a date.md", 17, IntervalType},
		{"Permanent Notes/Weekly.md", 5, IntervalFrontmatter},
	}
	if got := rows(r); !reflect.DeepEqual(got, want) {
		t.Errorf("with a 300d default:\n got %v\nwant %v", got, want)
	}
}

// TestStaleBacklinks: notes equally overdue are ordered by the notes that
// link to them, each linking note counted once.
func TestStaleBacklinks(t *testing.T) {
	line := func(date string) string { return "## Maintenance\n- Last tended: " + date + "\n" }
	v, files := openVault(t, map[string]string{
		"Permanent Notes/Old.md":      line("2026-01-01"),
		"Permanent Notes/Tied A.md":   line("2026-08-01"),
		"Permanent Notes/Tied B.md":   line("2026-08-01") + "Links to [[Tied A]].\n",
		"Permanent Notes/Tied C.md":   line("2026-08-01"),
		"Permanent Notes/Bad Iv.md":   "---\ntend-every: often\n---\n" + line("2026-01-20"),
		"Permanent Notes/Undated.md":  "# Undated\n[[Tied C]] and [[Tied C#Maintenance]] count once; [[Undated]] not at all.\n",
		"Permanent Notes/Bad Date.md": line("2026-11-31"),
		"Hub.md":                      "---\nup: \"[[Tied C]]\"\n---\n[[Tied A]] ![[Tied C]] [[Nowhere]]\n",
		"Other.md":                    "[[Tied C]]\n",
		"image.png":                   "not a note",
	})
	opts := StaleOptions{
		Today: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC),
		Types: []*vault.NoteType{{Name: "permanent", Paths: vault.DefaultTypePaths}},
	}
	got, err := Stale(context.Background(), v, files, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The ties are ordered by backlinks: C (Undated, Hub twice, Other:
	// three notes), then A (B, Hub), then B (none).
	var order []string
	for _, d := range got.Notes {
		if d.DaysOverdue == got.Notes[2].DaysOverdue { // after Old and Bad Iv
			order = append(order, fmt.Sprintf("%s=%d", d.Path, d.Backlinks))
		}
	}
	if w := "[Permanent Notes/Tied C.md=3 Permanent Notes/Tied A.md=2 Permanent Notes/Tied B.md=0]"; fmt.Sprint(order) != w {
		t.Errorf("ties %v, want %s", order, w)
	}
	if len(got.Undated) != 2 || len(got.Problems) != 1 {
		t.Errorf("undated %v, problems %v", got.Undated, got.Problems)
	}
}

// TestPermute: permute puts a slice in an order in place, as a copy in
// that order would be.
func TestPermute(t *testing.T) {
	for _, order := range [][]int32{{}, {0}, {1, 0}, {0, 1, 2}, {2, 0, 1}, {3, 2, 1, 0}, {1, 0, 3, 2, 4}, {4, 0, 3, 1, 2}} {
		s := make([]string, len(order))
		want := make([]string, len(order))
		for i := range s {
			s[i] = string(rune('a' + i))
		}
		for k, i := range order {
			want[k] = s[i]
		}
		permute(s, slices.Clone(order))
		if !slices.Equal(s, want) {
			t.Errorf("permute by %v = %v, want %v", order, s, want)
		}
	}
}

// TestFinishOrder: a report's notes come most overdue first, then most
// linked, then by path, whether they came in path order (sorted by keys,
// sortByKeys) or not; days overdue negative (--within) or far apart.
func TestFinishOrder(t *testing.T) {
	days := []int{-3, 0, 0, 1, 2, 2, 40000, -40000, math.MaxInt32, math.MinInt32 + 1}
	for seed := range 20 {
		var notes []Due
		for i := range 40 {
			k := (seed*7 + i*13) % len(days)
			notes = append(notes, Due{Path: fmt.Sprintf("n%03d.md", i), DaysOverdue: days[k], Backlinks: (seed + i*i) % 3 * (1 + seed%2*(math.MaxInt32/2))})
		}
		want := slices.Clone(notes)
		slices.SortFunc(want, func(a, b Due) int {
			return cmp.Or(cmp.Compare(b.DaysOverdue, a.DaysOverdue), cmp.Compare(b.Backlinks, a.Backlinks), strings.Compare(a.Path, b.Path))
		})
		if got := (StaleReport{Notes: slices.Clone(notes)}).finish(nil).Notes; !slices.Equal(got, want) {
			t.Errorf("seed %d, in path order: %v\nwant %v", seed, got, want)
		}
		slices.Reverse(notes)
		if (StaleReport{Notes: notes}).sortByKeys(make([]int32, len(notes))) {
			t.Errorf("seed %d: notes out of path order sorted by keys", seed)
		}
		if got := (StaleReport{Notes: notes}).finish(nil).Notes; !slices.Equal(got, want) {
			t.Errorf("seed %d, out of order: %v\nwant %v", seed, got, want)
		}
	}
}
