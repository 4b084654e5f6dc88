package workspace

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault/base"
)

// allFields is a base that shows every file field and property a note's
// cached entry gives Bases, grouped and sorted by them.
const allFields = `formulas:
  created: file.ctime
  back: file.backlinks
  linked: file.links.map(value.asFile().name)
views:
  - type: table
    name: Every field
    order: [file.name, file.basename, file.path, file.folder, file.ext, file.size, file.ctime, file.mtime, file.tags,
      file.links, file.embeds, file.properties, formula.back, formula.linked, formula.created, price, due, when, at, link, nested, tags]
  - type: table
    name: Grouped
    filters: 'file.hasTag("book") || file.hasLink("Dune") || due > date("2024-01-01")'
    groupBy: {property: file.folder, direction: ASC}
    sort: [{property: file.mtime, direction: DESC}]
    order: [file.name, formula.created, due]
    summaries:
      due: Earliest
`

// dated is a note whose properties a time zone and declared types read
// differently: dates with and without a time or an offset, a link, and
// dates and links nested in a list and a map.
const dated = `---
tags: [dated, Book]
due: 2024-03-10 02:30
when: 2024-01-05
at: 2024-01-05T10:00:00+02:00
code: 2024-02-02
link: "[[Dune]]"
nested:
  a: [1, "2024-02-02", "[[Essay|E]]"]
  b: true
---
# Dated

See [[Launch]] and ![[cover.png]], [[Dune|the book]].
`

// testVault is vault/base's test vault with allFields and dated.
func testVault(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{"All.base": allFields, "Dated.md": dated}
	root := filepath.Join("..", "vault", "base", "testdata", "vault")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// shownBases evaluates every view of Books.base and All.base as w does
// (through the model file), and as base.Load does with no cache, each
// written out whole.
func shownBases(t *testing.T, w *Workspace) (got, want string) {
	t.Helper()
	ctx := context.Background()
	snap, err := base.Load(ctx, w.Vault, w.zone(), w.PropTypes)
	if err != nil {
		t.Fatal(err)
	}
	var g, wt strings.Builder
	for _, req := range []BaseRequest{{Base: "Books.base"}, {Base: "All.base"}, {Base: "All.base", View: "Grouped"}} {
		res, err := w.Base(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", req.Base, err)
		}
		fmt.Fprintf(&g, "%s %s:\n%s", req.Base, req.View, showResult(res.Result))
		src, err := os.ReadFile(filepath.Join(w.Vault.Dir, req.Base))
		if err != nil {
			t.Fatal(err)
		}
		b, err := base.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		r, err := base.Evaluate(ctx, snap, b, base.Options{View: req.View, Now: time.Date(2026, 12, 2, 0, 0, 0, 0, w.zone()), This: snap.File(req.Base)})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&wt, "%s %s:\n%s", req.Base, req.View, showResult(r))
	}
	return g.String(), wt.String()
}

func showResult(r *base.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "total %d, warnings %q, excluded %v, errors %v, summaries %v\n", r.Total, r.Warnings, r.Excluded, r.CellErrors, r.Summaries)
	for _, g := range r.Grouped() {
		fmt.Fprintf(&b, "group %v %v\n", g.Key, g.Summaries)
		for _, row := range g.Rows {
			fmt.Fprintf(&b, "  %s %v\n", row.File.Path, row.Values)
		}
	}
	return b.String()
}

// TestBaseFromTheModelFile: a base answers from the notes' entries in
// the model file as it does from the notes, whatever changed between two
// runs: nothing, a note edited, a note made anew with the same bytes
// (its birth time), a file added, the time zone, the declared types.
func TestBaseFromTheModelFile(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	w, _ := open(t, testVault(t), Reading)
	w.Zone = time.FixedZone("UTC-5", -5*3600)
	dir := w.Vault.Dir
	old := time.Now().Add(-time.Hour)
	same := func(step string) {
		t.Helper()
		got, want := shownBases(t, w)
		if got != want {
			t.Errorf("%s: from the model file:\n%s\nfrom the notes:\n%s", step, got, want)
		}
	}
	same("no cache")
	same("unchanged")
	edit := func(p, text string, when time.Time) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(filepath.Join(dir, p), when, when); err != nil {
			t.Fatal(err)
		}
	}
	edit("Dated.md", strings.Replace(dated, "2024-03-10 02:30", "2025-03-10 02:30", 1), old.Add(time.Second))
	same("a note edited")

	// Made anew (a save by rename) with the same bytes: its birth time
	// is the new file's.
	full := filepath.Join(dir, "Books", "Dune.md")
	src, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	edit("Books/Dune.tmp", string(src), old.Add(2*time.Second))
	time.Sleep(20 * time.Millisecond) // a birth time apart from the old file's
	if err := os.Rename(filepath.Join(dir, "Books", "Dune.tmp"), full); err != nil {
		t.Fatal(err)
	}
	same("a note made anew")

	edit("Books/New.md", "---\ntags: [book]\n---\nAbout [[Dune]].\n", old)
	same("a note added")

	w.Zone = time.FixedZone("UTC+9", 9*3600)
	same("another time zone")

	edit(".obsidian/types.json", `{"types":{"code":"text","due":"text"}}`, old)
	w2, err := Open(context.Background(), Options{Dir: dir, Version: "test", Today: w.Today, Pinned: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	w2.Zone = w.Zone
	w = w2
	same("types declared")

	// Every file settled (its time well before the stamps): the entries
	// as decoded, read not called (perNoteCache.current).
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			err = os.Chtimes(p, old, old)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	same("every file an hour old, stamped again")
	took := parses(w)
	same("every file settled")
	// The entries are the model file's: the base parsed no note
	// (shownBases's own read of every note, with no cache, is not the
	// workspace's).
	if p := took(); len(p) > 0 {
		t.Errorf("every file settled: parsed %v, the model file not used", p)
	}

	// A note changed to bytes of the same size, its mtime set back: the
	// stamp's ctime moved, and the note is read again.
	st, err := os.Stat(filepath.Join(dir, "Dated.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(dated, "2024-03-10 02:30", "2025-03-10 02:30", 1)
	edit("Dated.md", strings.Replace(text, "when: 2024-01-05", "when: 2024-01-06", 1), st.ModTime())
	same("a same-size edit under the old mtime")
	if p := took(); !slices.Equal(p, []string{"Dated.md"}) {
		t.Errorf("a same-size edit under the old mtime: parsed %v, want Dated.md", p)
	}
}
