package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// After a file is added, removed or renamed, every reader whose entries
// resolve links (zk list, stale, graph, backlinks, base) answers what a
// cold cache answers: the notes whose links name a file that came or
// went are read again (a file added that a broken link names, a removed
// link target, a renamed note that links name by the name its aliases
// leave alone, a second file of a name), the others keep their entries.
// That they keep them is seen through Tidy.md, whose bytes change under
// a stamp left as it was: its old tag stays in zk list's records until
// it is read again, when zk list alone is asked.
func TestFilesComingAndGoingReadTheNotesNamingThem(t *testing.T) {
	// Each reader alone (another reader's save after the files changed
	// keeps this one's section: TestAnotherReadersSectionOutlivesFilesComingAndGoing).
	for _, r := range []string{"list", "stale", "graph", "graph text", "backlinks", "base"} {
		t.Run(r, func(t *testing.T) { filesComingAndGoing(t, r, false) })
	}
	t.Run("list, Tidy.md", func(t *testing.T) { filesComingAndGoing(t, "list", true) })
}

func filesComingAndGoing(t *testing.T, reader string, onlyList bool) {
	w, _ := open(t, map[string]string{
		".obsidian/app.json":  "{}",
		".zk/config.toml":     "[claims.types.permanent]\nfolder = \"Perm\"\n",
		"Perm/A.md":           "---\nup: \"[[Nowhere]]\"\nnested: {x: \"[[Deep]]\"}\n---\n# A\n[[B]] [[Nowhere|n]] ![[pic.png]] [[Gone]]\n\n## Maintenance\n\n- Last tended: 2026-01-01\n",
		"Perm/sub/B.md":       "# B\n[[A]] [[Target|T alias]]\n\n## Maintenance\n\n- Last tended: 2026-02-01\n",
		"Perm/Gone.md":        "# Gone\n[[A]]\n\n## Maintenance\n\n- Last tended: 2026-03-01\n",
		"Target.md":           "---\naliases: [T alias]\n---\n# Target\n[[B]]\n",
		"D.md":                "[[T alias]] [[Target]] [[./Target.md]]\n",
		"Tidy.md":             "#tag1 [[A]]\n",
		"pic.png":             "png",
		"views/All.base":      "views:\n  - type: table\n    name: All\n    filters: file.ext == \"md\"\n    order: [file.name, file.links, file.embeds, up, nested]\n",
		"Perm/Unrelated.md":   "# Unrelated\n[[Elsewhere]]\n",
		"Perm/sub/Sibling.md": "[[B]]\n",
	}, Reading)
	ctx := context.Background()
	format := testGraphFormat
	answers := func() map[string]any {
		t.Helper()
		out := map[string]any{}
		switch reader {
		case "list":
			l, err := w.List(ctx, ListRequest{Fields: []string{"file.links"}})
			if err != nil {
				t.Fatal(err)
			}
			out["list"] = listed(l, []string{"file.links"})
		case "stale":
			s, err := w.Stale(ctx, StaleRequest{Within: "1y"})
			if err != nil {
				t.Fatal(err)
			}
			out["stale"] = clean(s.StaleReport)
		case "graph":
			g, err := w.Graph(ctx)
			if err != nil {
				t.Fatal(err)
			}
			out["graph"] = fmt.Sprint(g.Edges, g.Notes)
		case "graph text":
			gt, ok, err := w.GraphText(ctx, format)
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			if _, err := gt.WriteEdges(&text); err != nil {
				t.Fatal(err)
			}
			gt.Close()
			out["graph text"] = fmt.Sprint(text.String(), ok, gt.Notes, gt.Others)
		case "backlinks":
			for _, n := range []string{"Perm/A.md", "Perm/sub/B.md", "Target.md", "Nowhere.md", "Z/A.md"} {
				in, err := w.Backlinks(ctx, n)
				out["backlinks "+n] = fmt.Sprint(in, err)
			}
		case "base":
			b, err := w.Base(ctx, BaseRequest{Base: "views/All.base"})
			if err != nil {
				t.Fatal(err)
			}
			out["base"] = showResult(b.Result)
		}
		return out
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	check := func(when string) {
		t.Helper()
		got := answers()
		t.Setenv("XDG_CACHE_HOME", t.TempDir()) // a cold cache
		want := answers()
		t.Setenv("XDG_CACHE_HOME", cache)
		for k, g := range got {
			if !reflect.DeepEqual(g, want[k]) {
				t.Errorf("%s: %s\n%v\ncold cache\n%v", when, k, g, want[k])
			}
		}
		if again := answers(); !reflect.DeepEqual(again, got) { // from what was saved
			t.Errorf("%s: answered again\n%v\nfirst\n%v", when, again, got)
		}
	}
	old := time.Now().Add(-time.Hour)
	dir := w.Vault.Dir
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"Perm/A.md", "Perm/sub/B.md", "Perm/Gone.md", "Target.md", "D.md", "Tidy.md", "pic.png", "views/All.base", "Perm/Unrelated.md", "Perm/sub/Sibling.md"} {
		os.Chtimes(filepath.Join(dir, n), old, old)
	}
	if !onlyList {
		check("cold")
		check("cached")
	}
	// Whether zk list parses Tidy.md again (Workspace.parsed), which
	// names none of the files that come and go until the last step.
	took := parses(w)
	tidied := func(want bool, when string) {
		t.Helper()
		if _, err := w.List(ctx, ListRequest{Fields: []string{"file.tags"}}); err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(took(), "Tidy.md"); got != want {
			t.Errorf("%s: Tidy.md read again %v, want %v", when, got, want)
		}
	}
	if onlyList {
		tidied(true, "cold")
		tidied(false, "an unchanged vault")
	}
	steps := []struct {
		when string
		do   func()
	}{
		{"a note added that a broken link and a frontmatter link name", func() { write("Nowhere.md", "# Nowhere\n[[Tidy]]\n") }},
		{"a note added that a nested frontmatter link names", func() { write("x/Deep.md", "# Deep\n") }},
		{"a second file of a name", func() { write("Other/B.md", "# Other B\n") }},
		{"a link target removed", func() {
			if err := os.Remove(filepath.Join(dir, "Perm", "Gone.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{"an alias's note renamed", func() {
			if err := os.Rename(filepath.Join(dir, "Target.md"), filepath.Join(dir, "Renamed.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{"renamed back", func() {
			if err := os.Rename(filepath.Join(dir, "Renamed.md"), filepath.Join(dir, "Target.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{"an attachment removed", func() {
			if err := os.Remove(filepath.Join(dir, "pic.png")); err != nil {
				t.Fatal(err)
			}
		}},
		// A second file of the name Tidy.md links to: it is read again.
		{"a second A.md", func() { write("Z/A.md", "# another A\n") }},
	}
	for k, s := range steps {
		s.do()
		if onlyList {
			tidied(k == len(steps)-1, s.when)
		} else {
			check(s.when)
		}
	}
}

// After a file is added, removed or renamed, one reader's save keeps the
// other readers' sections (carry): zk list after zk check, graph, stale
// or base reads the notes naming the file that came or went, and the
// note come, not every note, and answers what a cold cache answers. That
// it keeps the others' entries is seen through Tidy.md, which names no
// file that comes or goes: zk list does not parse it again
// (Workspace.parsed). zk list's save then writes its section anew, no
// longer carried.
func TestAnotherReadersSectionOutlivesFilesComingAndGoing(t *testing.T) {
	for _, first := range []string{"check", "graph", "stale", "base"} {
		t.Run(first, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			w, _ := open(t, map[string]string{
				".obsidian/app.json": "{}",
				"A.md":               "# A\n[[B]] [[Nowhere]]\n",
				"B.md":               "# B\n[[A]]\n",
				"Gone.md":            "# Gone\n[[A]]\n",
				"C.md":               "# C\n[[Gone]]\n",
				"Tidy.md":            "#tag1 [[A]]\n",
				"views/All.base":     "views:\n  - type: table\n    name: All\n    filters: file.ext == \"md\"\n    order: [file.name, file.links]\n",
			}, Reading)
			ctx := context.Background()
			dir := w.Vault.Dir
			old := time.Now().Add(-time.Hour)
			for _, n := range []string{"A.md", "B.md", "Gone.md", "C.md", "Tidy.md", "views/All.base"} {
				os.Chtimes(filepath.Join(dir, n), old, old)
			}
			write := func(name, text string) {
				t.Helper()
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(p, old, old); err != nil {
					t.Fatal(err)
				}
			}
			other := func() {
				t.Helper()
				var err error
				switch first {
				case "check":
					_, err = w.Check(ctx, CheckRequest{})
				case "graph":
					_, err = w.Graph(ctx)
				case "stale":
					_, err = w.Stale(ctx, StaleRequest{Within: "1y"})
				case "base":
					_, err = w.Base(ctx, BaseRequest{Base: "views/All.base"})
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			fields := []string{"file.links", "file.tags"}
			list := func() []string {
				t.Helper()
				l, err := w.List(ctx, ListRequest{Fields: fields})
				if err != nil {
					t.Fatal(err)
				}
				return listed(l, fields)
			}
			list()
			other()
			took := parses(w)
			cache := os.Getenv("XDG_CACHE_HOME")
			for _, step := range []struct {
				when string
				do   func()
			}{
				{"a note added that a broken link names", func() { write("Nowhere.md", "# Nowhere\n") }},
				{"a link target removed", func() {
					if err := os.Remove(filepath.Join(dir, "Gone.md")); err != nil {
						t.Fatal(err)
					}
				}},
				{"a note renamed", func() {
					if err := os.Rename(filepath.Join(dir, "B.md"), filepath.Join(dir, "B2.md")); err != nil {
						t.Fatal(err)
					}
				}},
			} {
				step.do()
				other()
				took()
				got := list()
				if slices.Contains(took(), "Tidy.md") {
					t.Errorf("%s, %s then list: Tidy.md read again", step.when, first)
				}
				t.Setenv("XDG_CACHE_HOME", t.TempDir())
				want := list()
				t.Setenv("XDG_CACHE_HOME", cache)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s, %s then list:\n%v\nwant\n%v", step.when, first, got, want)
				}
				_, m := modelOf(t, w)
				sec, ok, err := m.Section("list")
				m.Close()
				if err != nil || !ok || sec.Carried || len(sec.Entries) != 1 {
					t.Errorf("%s: list's section after list: ok %v, carried %v, %d parts (not written anew), %v", step.when, ok, sec.Carried, len(sec.Entries), err)
				}
			}
		})
	}
}
