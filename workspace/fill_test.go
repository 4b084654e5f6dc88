package workspace

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault/query"
)

// fillVault is a vault whose every reader's answer depends on its notes'
// bytes: links (list, graph, backlinks, stale, base), properties' types
// (properties, base), a falsifier and its id (runs, holds) and a tended
// date (stale).
var fillVault = map[string]string{
	".obsidian/app.json":     "{}",
	".zk/config.toml":        "[claims]\ntemplates = \"Templates\"\n",
	"Templates/permanent.md": "---\nrating: 1\n---\n# {{title}}\n\n## Links\n\n- [[B]] — extends: a template's link\n\n## Maintenance\n\n- Last tended: {{date}}\n",
	"A.md":                   "---\nrating: 3\n---\n# A\n[[B]]\n## Tests / falsifiers\n- refuted if it fails ^f-0001\n## Maintenance\n\n- Last tended: 2026-01-01\n",
	"B.md":                   "---\nrating: 4\n---\n# B\n[[A]]\n",
	"C.md":                   "# C\n[[B]] [[A]]\n",
	"All.base":               "views:\n  - type: table\n    name: All\n    order:\n      - file.name\n      - rating\n      - file.links\n",
}

// twiddle gives every note of the vault at dir but its template other bytes of the same
// length (another link target, property type, falsifier, its id and date), its
// mtime set back as it was (as touch -r, rsync -t or a sync client
// leave it): a stamp of size and mtime alone would answer from what it
// cached, and one that parses a note answers otherwise.
func twiddle(t *testing.T, dir string) {
	t.Helper()
	swap := strings.NewReplacer("[[B]]", "[[C]]", "rating: 3", "rating: z", "it fails", "it hangs", "^f-0001", "^f-0002", "2026-01-01", "2026-11-30")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") || strings.Contains(p, "Templates") {
			return err // a template is an input of the keys, not a note read
		}
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(swap.Replace(string(b))), 0o644); err != nil {
			return err
		}
		return os.Chtimes(p, st.ModTime(), st.ModTime())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ageFiles sets every file of the vault at dir an hour back, so that its
// stamps are settled once made (checkcache.RacyWindow).
func ageFiles(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fillReaders are the reading commands whose sections a read of every
// note fills, each with what it answers.
func fillReaders(ctx context.Context) []struct {
	name   string
	answer func(w *Workspace) (any, error)
} {
	return []struct {
		name   string
		answer func(w *Workspace) (any, error)
	}{
		{"stale", func(w *Workspace) (any, error) {
			r, err := w.Stale(ctx, StaleRequest{Within: "400d"})
			return r.StaleReport, err
		}},
		{"list", func(w *Workspace) (any, error) {
			fields := []string{"rating", "file.links", "file.tended"}
			r, err := w.List(ctx, ListRequest{Fields: fields})
			return listed(r, fields), err
		}},
		{"runs", func(w *Workspace) (any, error) { return w.Verdicts(ctx) }},
		{"properties", func(w *Workspace) (any, error) { return w.Properties(ctx) }},
		{"graph", func(w *Workspace) (any, error) {
			g, err := w.Graph(ctx)
			return g.Edges, err
		}},
		{"graph text", func(w *Workspace) (any, error) {
			g, ok, err := w.GraphText(ctx, testGraphFormat)
			if err != nil {
				return nil, err
			}
			defer g.Close()
			var b strings.Builder
			if _, err := g.WriteEdges(&b); err != nil {
				return nil, err
			}
			return fmt.Sprint(ok, g.Notes, g.Others, b.String()), nil
		}},
		{"backlinks", func(w *Workspace) (any, error) {
			in, err := w.Backlinks(ctx, "B")
			return in.Edges, err
		}},
		{"base", func(w *Workspace) (any, error) {
			r, err := w.Base(ctx, BaseRequest{Base: "All.base"})
			if err != nil {
				return nil, err
			}
			return showResult(r.Result), nil
		}},
		{"holds", func(w *Workspace) (any, error) { return holdsOf(ctx, w) }},
	}
}

// The first reading command to read every note fills the other readers'
// sections of the model file: each of them then answers without parsing
// a note (Workspace.parsed told of none), and answers what reading every
// note answers. On a fresh cache the graph's printed edges and the notes'
// holds are not filled (only where they were read:
// TestCostlySectionsFilledWhereRead); after an upgrade of zk (every key
// another), every section is, theirs too. The holds' own read parses no
// note, and fills none.
func TestOneReadFillsEveryReader(t *testing.T) {
	ctx := context.Background()
	readers := fillReaders(ctx)
	// What each reader answers of the vault as first written, each in a
	// vault of its own with nothing cached.
	want := map[string]any{}
	for _, r := range readers {
		w, _ := open(t, fillVault, Reading)
		w.graph = &testGraphFormat
		got, err := r.answer(w)
		if err != nil {
			t.Fatal(err)
		}
		want[r.name] = got
	}
	for _, upgraded := range []bool{false, true} {
		for _, first := range readers {
			t.Run(fmt.Sprintf("%s upgraded=%v", first.name, upgraded), func(t *testing.T) {
				w, _ := open(t, fillVault, Reading)
				w.graph = &testGraphFormat // as the command line opens it
				ageFiles(t, w.Vault.Dir)
				if upgraded {
					for _, r := range readers { // every section made, then every key another
						if _, err := r.answer(w); err != nil {
							t.Fatal(err)
						}
					}
					w.version = "test, upgraded"
				}
				if _, err := first.answer(w); err != nil {
					t.Fatal(err)
				}
				took := parses(w)
				for _, r := range readers {
					switch {
					case r.name == first.name,
						first.name == "backlinks" && r.name == "graph", first.name == "graph" && r.name == "backlinks":
						continue // the one reader's own section: not a fill
					case (r.name == "graph text" || r.name == "holds") && !upgraded, first.name == "holds":
						continue // not filled on a fresh cache; the holds' read fills none
					}
					got, err := r.answer(w)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, want[r.name]) {
						t.Errorf("%s after %s: %+v, want %+v", r.name, first.name, got, want[r.name])
					}
					// zk list keeps no record of a template, and fills
					// none: the template is parsed by the next reader.
					if p := slices.DeleteFunc(took(), func(p string) bool { return first.name == "list" && p == "Templates/permanent.md" }); len(p) > 0 {
						t.Errorf("%s after %s parsed %v: not filled", r.name, first.name, p)
					}
				}
			})
		}
	}
}

// parses has w tell which notes its readers parse (Workspace.parsed):
// each call of the function it returns gives those parsed since the last.
func parses(w *Workspace) func() []string {
	var mu sync.Mutex
	var got []string
	w.parsed = func(p string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, p)
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := got
		got = nil
		slices.Sort(out)
		return out
	}
}

// A note edited to bytes of the same size and given back its mtime (touch
// -r, rsync -t, git checkout, a sync client) is read again by every
// reader of the model file, from its own section and from one another
// reader filled, and answered as a cold cache answers it: the stamp holds
// its ctime, device and inode, which the edit moved. An unchanged vault
// is answered from the file, parsing nothing.
func TestSameSizeEditWithItsOldMtimeIsRead(t *testing.T) {
	ctx := context.Background()
	readers := fillReaders(ctx)
	want := map[string]any{} // each reader's answer of the twiddled vault, cold
	for _, r := range readers {
		w, _ := open(t, fillVault, Reading)
		w.graph = &testGraphFormat
		twiddle(t, w.Vault.Dir)
		got, err := r.answer(w)
		if err != nil {
			t.Fatal(err)
		}
		want[r.name] = got
	}
	for _, first := range readers {
		t.Run(first.name, func(t *testing.T) {
			w, _ := open(t, fillVault, Reading)
			w.graph = &testGraphFormat
			ageFiles(t, w.Vault.Dir)
			if _, err := first.answer(w); err != nil {
				t.Fatal(err)
			}
			took := parses(w)
			if _, err := first.answer(w); err != nil {
				t.Fatal(err)
			}
			if p := took(); len(p) > 0 {
				t.Errorf("unchanged: %s parsed %v", first.name, p)
			}
			twiddle(t, w.Vault.Dir)
			for _, r := range readers {
				got, err := r.answer(w)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want[r.name]) {
					t.Errorf("%s after %s and a same-size edit under the old mtime: %+v, want %+v", r.name, first.name, got, want[r.name])
				}
			}
		})
	}
}

// A twiddled vault is answered otherwise by every reader:
// TestOneReadFillsEveryReader's twiddle tells a parse from a fill.
func TestTwiddleChangesEveryAnswer(t *testing.T) {
	for _, r := range fillReaders(context.Background()) {
		plain, _ := open(t, fillVault, Reading)
		twiddled, _ := open(t, fillVault, Reading)
		twiddle(t, twiddled.Vault.Dir)
		a, err := r.answer(plain)
		if err != nil {
			t.Fatal(err)
		}
		b, err := r.answer(twiddled)
		if err != nil {
			t.Fatal(err)
		}
		if reflect.DeepEqual(a, b) {
			t.Errorf("%s: twiddled, the same answer %+v", r.name, a)
		}
	}
}

// Bases' entries and the graph's printed edges, the costliest sections,
// are filled only where they are read: Bases' in a vault holding a .base
// file, or once a base was evaluated there; the graph's once the graph
// was printed there. The notes' holds, once a refutation was looked for
// among them: never here.
func TestCostlySectionsFilledWhereRead(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name              string
		withBase, graphed bool
	}{{"neither", false, false}, {"a .base file", true, false}, {"graph printed before", false, true}} {
		files := map[string]string{}
		for p, b := range fillVault {
			if p != "All.base" || tc.withBase {
				files[p] = b
			}
		}
		w, _ := open(t, files, Reading)
		w.graph = &testGraphFormat
		if tc.graphed {
			g, _, err := w.GraphText(ctx, testGraphFormat)
			if err != nil {
				t.Fatal(err)
			}
			g.Close()
			w.version = "test, upgraded" // every section of another key
		}
		if _, err := w.Stale(ctx, StaleRequest{}); err != nil {
			t.Fatal(err)
		}
		_, m := modelOf(t, w)
		keyed := func(folder, purpose string, inputs Inputs) bool {
			key, err := w.inputKey(purpose, inputs)
			if err != nil {
				t.Fatal(err)
			}
			return m.Keyed(folder, key)
		}
		list, graph := w.recordsNote(ctx, nil, query.Options{}, nil, nil), graphNote(testGraphFormat)
		listed, based, graphed := keyed(list.folder, list.purpose, list.inputs), m.Has("base"), keyed(graph.folder, graph.purpose, graph.inputs)
		if !listed || based != tc.withBase || graphed != tc.graphed {
			t.Errorf("%s: list filled %v, base filled %v, graph filled %v", tc.name, listed, based, graphed)
		}
		if m.Has("holds") { // no refutation looked for in any note here
			t.Errorf("%s: the notes' holds filled", tc.name)
		}
		m.Close()
	}
}
