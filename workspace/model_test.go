package workspace

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/zk-claims/zk/checkcache"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/property"
	"github.com/zk-claims/zk/vault/query"
)

// zk graph, backlinks, properties and runs (vault-wide) answer from the
// notes' cached records exactly what reading every note gives: cold,
// cached, and after a note is edited.
func TestModelAgreesWithReadingEveryNote(t *testing.T) {
	w, _ := open(t, map[string]string{
		".obsidian/app.json":     "{}",
		".zk/config.toml":        "[claims]\ntemplates = \"Templates\"\n",
		"Templates/permanent.md": "---\nstatus: draft\n---\n# {{title}}\n\n## Links\n\n- [[A]] — extends: a template's link counts\n\n## Tests / falsifiers\n\n- a template's falsifier\n",
		"A.md":                   "---\nup: \"[[B]]\"\nrating: 3\ntags: [x]\n---\n# A\n[[B#H|b]] ![[pic.png]] [[Nowhere]]\n## Links\n- [[C]] — supports: because\n## Tests / falsifiers\n- refuted if it fails\n",
		"sub/B.md":               "---\nrating: high\n---\n# B\n## H\n[[A]] [[sub/C]]\n",
		"sub/C.md":               "[[A]] [[B]]\n",
		"pic.png":                "png",
	}, Reading)
	ctx := context.Background()
	check := func(when string) {
		t.Helper()
		files, _, err := w.Vault.Files(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Reading every note.
		want, wantNotes, err := vault.GraphVault(ctx, w.Vault, files)
		if err != nil {
			t.Fatal(err)
		}
		var (
			mu       sync.Mutex
			census   property.Census
			wantRows = map[string][]query.Falsifier{}
		)
		_, notes := vault.SplitFiles(files)
		skip := w.SkipTemplates(nil)
		w.Vault.Each(ctx, notes, func(_ int, n *vault.Note) {
			st := evidence.LatestRuns(n, nil, nil)
			mu.Lock()
			defer mu.Unlock()
			if skip(n.Path) && n.Frontmatter != nil {
				census.Add(n.Frontmatter.Values)
			}
			for _, l := range st.Falsifiers {
				wantRows[n.Path] = append(wantRows[n.Path], query.FalsifierOf(l))
			}
		})
		g, err := w.Graph(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g.Edges, want.Edges) || !reflect.DeepEqual(g.Notes, wantNotes) {
			t.Errorf("%s: graph from records\n%+v %v\nreading every note\n%+v %v", when, g.Edges, g.Notes, want.Edges, wantNotes)
		}
		if in, err := w.Backlinks(ctx, "A"); err != nil || !reflect.DeepEqual(in.Edges, want.In("A.md")) {
			t.Errorf("%s: backlinks %+v (%v), want %+v", when, in, err, want.In("A.md"))
		}
		props, err := w.Properties(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if wp := census.Summaries(w.PropTypes); !reflect.DeepEqual(props, wp) {
			t.Errorf("%s: properties from records\n%+v\nreading every note\n%+v", when, props, wp)
		}
		vs, err := w.Verdicts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		gotRows := map[string][]query.Falsifier{}
		for _, v := range vs {
			gotRows[v.Note] = append(gotRows[v.Note], v.Falsifier)
		}
		if !reflect.DeepEqual(gotRows, wantRows) || len(wantRows) < 2 {
			t.Errorf("%s: falsifiers from records\n%+v\nreading every note\n%+v", when, gotRows, wantRows)
		}
		for _, req := range []ListRequest{{}, {Fields: []string{"rating", "file.links", "file.tended"}, Sort: "rating"}} {
			got, err := w.List(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			req.NoCache = true
			want, err := w.List(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := listed(got, req.Fields), listed(want, req.Fields); !reflect.DeepEqual(g, w) || len(got.Notes) < 3 {
				t.Errorf("%s: list %v from records\n%q\nreading every note\n%q", when, req.Fields, g, w)
			}
		}
	}
	check("cold")
	check("cached")
	check("cached again")
	p := filepath.Join(w.Vault.Dir, "sub", "C.md")
	if err := os.WriteFile(p, []byte("---\nrating: 2\n---\n[[sub/B#H]]\n## Tests / falsifiers\n- refuted if C is wrong\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	check("after an edit")
	check("after an edit, cached") // the edit's entries a delta of each section
	// Files come and go: every reader's entries held to the files by
	// path (zk runs' and properties' kept for the notes still there).
	d := filepath.Join(w.Vault.Dir, "Nowhere.md") // A links to it
	if err := os.WriteFile(d, []byte("---\nrating: 5\nseen: 2026-01-02\n---\n# Nowhere\n[[A]]\n## Tests / falsifiers\n- refuted if D is wrong\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(d, old, old)
	check("after a note added")
	check("after a note added, cached")
	e := filepath.Join(w.Vault.Dir, "sub", "E.md")
	if err := os.Rename(d, e); err != nil {
		t.Fatal(err)
	}
	check("after a note renamed")
	if err := os.Remove(e); err != nil {
		t.Fatal(err)
	}
	check("after a note removed")
	check("after a note removed, cached")
}

// listed is what a listing shows of each note: its path, type and
// fields.
func listed(r query.Result, fields []string) []string {
	var out []string
	for _, n := range r.Notes {
		row := n.Path + " " + n.Type
		for _, f := range fields {
			v, _ := n.Field(f)
			row += fmt.Sprintf(" %v", v)
		}
		out = append(out, row)
	}
	return out
}

// One model file holds every reader's entries: a reader that reads an
// edited note again and saves (zk properties) stamps the note's new
// bytes, and another reader's entry of it (zk graph's details), made
// from the old bytes, is not taken for the new one's; the other notes'
// entries are kept.
func TestOneReaderSavingLeavesNoStaleEntryToAnother(t *testing.T) {
	w, _ := open(t, map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "# A\n[[B]]\n",
		"B.md":               "# B\n",
		"C.md":               "# C\n",
	}, Reading)
	ctx := context.Background()
	if _, err := w.Graph(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Properties(ctx); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(w.Vault.Dir, "A.md")
	if err := os.WriteFile(p, []byte("# A\n[[C]]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	if _, err := w.Properties(ctx); err != nil { // reads A again, saves the stamps
		t.Fatal(err)
	}
	for _, when := range []string{"after another reader saved", "from the delta it appended"} {
		g, err := w.Graph(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if in := g.In("C.md"); len(in) != 1 || len(g.In("B.md")) != 0 {
			t.Errorf("graph %s: C's backlinks %+v, B's %+v", when, in, g.In("B.md"))
		}
	}
	_, m := modelOf(t, w)
	defer m.Close()
	for _, name := range []string{"properties", "details"} {
		if _, ok, err := m.Section(name); !ok || err != nil {
			t.Errorf("%s: not in the one model file (%v)", name, err)
		}
	}
}

// A reader's section damaged in the model file is read as hostile input:
// its entries refused, every note read again, the answer the one reading
// every note gives.
func TestDamagedSectionReadsEveryNote(t *testing.T) {
	files := map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "# A\n[[B]]\n## Tests / falsifiers\n- refuted if it fails ^f-0001\n",
		"B.md":               "# B\n## Maintenance\n- Last tended: 2020-01-01\n",
		"All.base":           "views:\n  - type: table\n    name: All\n    order: [file.name, file.tags]\n",
		"C.md":               "---\nrating: 3\ntags: [a]\n---\n# C\n",
	}
	ctx := context.Background()
	// count damages the count of notes after the magic, past any the
	// bytes hold.
	count := func(t *testing.T, b []byte, at int) { copy(b[at:], "\xff\xff\xff\xff\x0f") }
	for _, tc := range []struct {
		name, magic string
		answer      func(w *Workspace) (any, error)
		damage      func(t *testing.T, b []byte, at int) // at: just past the magic
	}{
		{"runs", "zk-note-runs\x01", func(w *Workspace) (any, error) { return w.Verdicts(ctx) }, count},
		{"stale", "zk-note-tending\x01", func(w *Workspace) (any, error) { return w.Stale(ctx, StaleRequest{}) }, count},
		{"stale link", "zk-note-tending\x01", func(w *Workspace) (any, error) { return w.Stale(ctx, StaleRequest{}) },
			func(t *testing.T, b []byte, at int) {
				// A's entry: its path, its cadence, then its links (a
				// length, a count of one and B's index), the index made
				// one past the files.
				a := bytes.Index(b[at:], []byte("\x04A.md"))
				if a < 0 {
					t.Fatal("no entry of A.md")
				}
				links := at + a + 5 + 1 + int(b[at+a+5])
				if b[links] != 2 || b[links+1] != 1 {
					t.Fatalf("A.md's links are % x", b[links:links+3])
				}
				b[links+2] = 0x7f
			}},
		{"base", "zk-base-notes\x02", func(w *Workspace) (any, error) {
			res, err := w.Base(ctx, BaseRequest{Base: "All.base"})
			if err != nil {
				return nil, err
			}
			return showResult(res.Result), nil
		}, count},
		{"properties", "zk-property-types\x01", func(w *Workspace) (any, error) { return w.Properties(ctx) }, count},
		{"holds", "zk-note-holds\x01", func(w *Workspace) (any, error) { return holdsOf(ctx, w) }, count},
		{"holds' ids", "zk-note-holds\x01", func(w *Workspace) (any, error) { return holdsOf(ctx, w) },
			func(t *testing.T, b []byte, at int) {
				// A's falsifier id, made one no note could hold.
				r := bytes.Index(b[at:], []byte("f-0001"))
				if r < 0 {
					t.Fatal("no id f-0001")
				}
				b[at+r] = ' '
			}},
		{"property type", "zk-property-types\x01", func(w *Workspace) (any, error) { return w.Properties(ctx) },
			func(t *testing.T, b []byte, at int) {
				// C's rating: its name, then its type (an index in
				// property.Types), made one past them.
				r := bytes.Index(b[at:], []byte("\x06rating"))
				if r < 0 {
					t.Fatal("no property rating")
				}
				b[at+r+7] = 0x7f
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := open(t, files, Reading)
			want, err := tc.answer(w) // cold: every note read, the section written
			if err != nil {
				t.Fatal(err)
			}
			file, err := checkcache.ModelFile(w.Vault.Dir)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			at := bytes.Index(b, []byte(tc.magic))
			if at < 0 {
				t.Fatalf("no %s section in the model file", tc.name)
			}
			tc.damage(t, b, at+len(tc.magic))
			if err := os.WriteFile(file, b, 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := tc.answer(w)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("through a damaged %s section: %+v (%v), want %+v", tc.name, got, err, want)
			}
		})
	}
}

// A listing that reads records in place (their path and type alone)
// saves every record whole: after listings that appended a delta and
// then wrote the file anew from records read in place, zk properties
// (every record read whole) and a listing by a property answer as
// reading every note does.
func TestBriefListingsKeepEveryRecord(t *testing.T) {
	w, _ := open(t, map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "---\nrating: 3\nstatus: draft\ntags: [x]\n---\n# A\n[[B]]\n",
		"B.md":               "---\nrating: 5\nlist: [1, two]\n---\n# B\n",
		"C.md":               "---\nrating: 1\n---\n# C\n",
	}, Reading)
	ctx := context.Background()
	edit := func(name, text string) {
		p := filepath.Join(w.Vault.Dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		os.Chtimes(p, old, old)
	}
	list := func(req ListRequest) []string {
		t.Helper()
		res, err := w.List(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range res.Notes {
			out = append(out, n.Path+":"+n.Type)
		}
		return out
	}
	want := []string{"A.md:", "B.md:", "C.md:"}
	for step, change := range []func(){
		func() {},
		func() { edit("C.md", "---\nrating: 2\n---\n# C\n") },            // a delta
		func() { edit("A.md", "---\nrating: 4\ntags: [x]\n---\n# A\n") }, // past a quarter: anew
	} {
		change()
		if got := list(ListRequest{}); !reflect.DeepEqual(got, want) {
			t.Errorf("step %d: listed %v, want %v", step, got, want)
		}
	}
	props, err := w.Properties(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cold, _ := open(t, map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "---\nrating: 4\ntags: [x]\n---\n# A\n",
		"B.md":               "---\nrating: 5\nlist: [1, two]\n---\n# B\n",
		"C.md":               "---\nrating: 2\n---\n# C\n",
	}, Reading)
	wantProps, err := cold.Properties(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(props, wantProps) {
		t.Errorf("properties after listings in place\n%+v\nreading every note\n%+v", props, wantProps)
	}
	if got := list(ListRequest{Where: []string{"rating > 3"}}); !reflect.DeepEqual(got, []string{"A.md:", "B.md:"}) {
		t.Errorf("rating > 3 after listings in place: %v", got)
	}
}
