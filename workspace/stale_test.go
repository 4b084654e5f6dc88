package workspace

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/tending"
)

// zk stale answers from what it keeps of every note (query.Tending, its
// section of the model file; templates too) exactly what reading every
// note gives: cold, cached, and after a note is edited. Notes equally
// overdue and linked come by path.
func TestStaleFromRecordsAgreesWithReadingEveryNote(t *testing.T) {
	w, check := staleVault(t)
	ctx := context.Background()
	check("cold")
	check("cached")
	p := filepath.Join(w.Vault.Dir, "Perm", "Undated.md")
	if err := os.WriteFile(p, []byte("# Undated\n\n## Maintenance\n\n- Last tended: 2025-12-01\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	check("after an edit")
	if got, _ := w.Stale(ctx, StaleRequest{}); len(got.Notes) == 0 || len(got.Undated) == 0 || len(got.Problems) == 0 {
		t.Errorf("the vault should give due, undated and problem notes: %+v", got.StaleReport)
	}
}

// After another reader's save over files that came or went (zk list
// writing the model file anew), zk stale answers what reading every note
// gives, from its entries kept with the files they were made over: the
// notes naming a file that came or went are read again, the others'
// links moved to the files' places now. That it keeps them is seen
// through the notes it parses (Workspace.parsed): after a note nothing
// names is added, that note alone.
func TestStaleAfterAnotherReadersSave(t *testing.T) {
	w, check := staleVault(t)
	ctx := context.Background()
	write, remove, rename := vaultEdits(t, w.Vault.Dir)
	old := time.Now().Add(-time.Hour)
	list := func() {
		t.Helper()
		if _, err := w.List(ctx, ListRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	check("cold")
	for _, step := range []struct {
		when string
		edit func()
	}{
		{"a note linking another added", func() { write("Free/New.md", "# New\n\n[[Tie a]] [[Linked]]\n") }},
		{"a note a broken link names added", func() { write("Free/Old.md", "# Old too\n") }}, // Linked's [[Old]] unchanged: Perm/Old.md
		{"a linked note removed", func() { remove("Perm/Linked.md") }},
		{"a linked note renamed to a name a link uses", func() { rename("Perm/Tie b.md", "Perm/Tie b2.md") }}, // Ahead's link resolves
		{"a note of a name links use added", func() { write("Tie b.md", "# Tie b at the top\n") }},
	} {
		step.edit()
		list()
		check(step.when + ", then zk list")
	}
	before, err := w.Stale(ctx, StaleRequest{Within: "1m"})
	if err != nil {
		t.Fatal(err)
	}
	write("Free/Nothing.md", "# Nothing\n")
	os.Chtimes(filepath.Join(w.Vault.Dir, "Free", "Nothing.md"), old, old)
	list()
	took := parses(w)
	after, err := w.Stale(ctx, StaleRequest{Within: "1m"})
	if err != nil {
		t.Fatal(err)
	}
	if p := took(); !slices.Equal(p, []string{"Free/Nothing.md"}) {
		t.Errorf("a note nothing names added, then zk list: stale parsed %v, want Free/Nothing.md alone", p)
	}
	after.Read-- // Nothing.md
	if !reflect.DeepEqual(clean(after.StaleReport), clean(before.StaleReport)) {
		t.Errorf("a note nothing names added, then zk list: stale\n%+v\nwant\n%+v", after.StaleReport, before.StaleReport)
	}
}

// staleVault is a vault of notes due, undated, with problems and
// linked, and check, which compares its stale report through the cache
// with the one reading every note gives.
func staleVault(t *testing.T) (*Workspace, func(when string)) {
	w, _ := open(t, map[string]string{
		".obsidian/app.json":     "{}",
		".zk/config.toml":        "[claims]\ntemplates = \"Templates\"\n\n[claims.types.permanent]\nfolder = \"Perm\"\n",
		"Templates/permanent.md": "# {{title}}\n\n## Claim\n\n## Links\n\n- [[Old]] — extends: a template's link counts\n\n## Maintenance\n\n- Last tended: {{date}}\n",
		"Perm/Old.md":            "# Old\n\n## Maintenance\n\n- Last tended: 2026-01-01\n",
		"Perm/Linked.md":         "# Linked\n\nSee [[Old]] and [[Soon]].\n\n## Maintenance\n\n- Last tended: 2026-03-01\n",
		"Perm/Undated.md":        "# Undated\n\nNo date.\n",
		"Perm/Unreal.md":         "# Unreal\n\n## Maintenance\n\n- Last tended: 2026-02-30\n",
		"Perm/Cadence.md":        "---\ntend-every: often\n---\n# Cadence\n\n## Maintenance\n\n- Last tended: 2026-06-01\n",
		"Perm/Weekly.md":         "---\ntend-every: 1w\n---\n# Weekly\n\n## Maintenance\n\n- Last tended: 2026-11-20\n",
		"Free/Soon.md":           "# Soon\n\nlast-tended:: 2026-09-10\n",
		"Free/Plain.md":          "# Plain\n\nNo date, no type.\n",
		"Free/Ahead.md":          "# Ahead\n\n[[Tie b2]], not yet there\n",
		"Perm/Tie b.md":          "# Tie b\n\n## Maintenance\n\n- Last tended: 2026-01-01\n",
		"Perm/Tie a.md":          "# Tie a\n\n## Maintenance\n\n- Last tended: 2026-01-01\n",
		"Perm/Tie c.md":          "# Tie c\n\n[[Tie b]]\n\n## Maintenance\n\n- Last tended: 2026-01-01\n",
	}, Reading)
	ctx := context.Background()
	want := func() tending.StaleReport {
		files, _, err := w.Vault.Files(ctx)
		if err != nil {
			t.Fatal(err)
		}
		r, err := tending.Stale(ctx, w.Vault, files, tending.StaleOptions{Today: w.Today, Within: mustInterval(t, "1m"),
			Types: w.Types, Interval: w.Config.Interval(), Keys: w.Config.TendedKeys, Only: w.SkipTemplates(nil)})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	return w, func(when string) {
		t.Helper()
		got, err := w.Stale(ctx, StaleRequest{Within: "1m"})
		if err != nil {
			t.Fatal(err)
		}
		if w := want(); !reflect.DeepEqual(clean(got.StaleReport), clean(w)) {
			t.Errorf("%s: from records\n%+v\nreading every note\n%+v", when, got.StaleReport, w)
		}
	}
}

// clean is a report with each date error as its text, which is all a
// report shows of it (a cached record keeps the text).
func clean(r tending.StaleReport) tending.StaleReport {
	for i := range r.Notes {
		r.Notes[i].Tended.Err = nil
	}
	return r
}

func mustInterval(t *testing.T, s string) vault.Interval {
	t.Helper()
	iv, err := vault.ParseInterval(s)
	if err != nil {
		t.Fatal(err)
	}
	return iv
}
