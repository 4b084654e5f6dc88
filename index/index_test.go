package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
)

// testVault writes notes (path → text) into a new vault and opens it.
func testVault(t *testing.T, notes map[string]string) *vault.Vault {
	t.Helper()
	dir := t.TempDir()
	for p, text := range notes {
		writeNote(t, dir, p, text)
	}
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

func writeNote(t testing.TB, dir, p, text string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// An mtime well in the past, so that no note is "racy".
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(full, old, old); err != nil {
		t.Fatal(err)
	}
}

func searchPaths(t *testing.T, v *vault.Vault, opts Options, q string) ([]string, *Result) {
	t.Helper()
	res, err := Search(context.Background(), v, opts, Request{Query: q, Limit: 50, MaxUpdate: 100})
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	var paths []string
	for _, h := range res.Hits {
		paths = append(paths, h.Path)
	}
	slices.Sort(paths)
	return paths, res
}

var sample = map[string]string{
	"A.md":     "# A\n\n## Claim\n\nAlpha claims a falsifier.\n\n## Links\n\n- [[B]] — supports: x\n",
	"sub/B.md": "# B\n\nBravo text with alpha.\n",
	"C.md":     "# C\n\nCharlie, #tagged\n",
}

func TestUpdateIncremental(t *testing.T) {
	v := testVault(t, sample)
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
	ctx := context.Background()
	st, err := Update(ctx, v, opts, false)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Built || st.Rebuilt != "" || st.Notes != 3 || st.Added != 3 {
		t.Fatalf("first update = %+v, want a first build of 3 notes", st)
	}
	if st, _ = Update(ctx, v, opts, false); st.Built || st.Added+st.Changed+st.Deleted != 0 {
		t.Fatalf("unchanged update = %+v, want nothing done", st)
	}

	// Touched, not changed: no re-index.
	later := time.Now().Add(-30 * time.Minute)
	os.Chtimes(filepath.Join(v.Dir, "C.md"), later, later)
	if st, _ = Update(ctx, v, opts, false); st.Added+st.Changed+st.Deleted != 0 {
		t.Fatalf("after touch = %+v, want nothing re-indexed", st)
	}

	// Edit, rename, delete.
	writeNote(t, v.Dir, "C.md", "# C\n\nCharlie now says zulu.\n")
	os.Rename(filepath.Join(v.Dir, "sub/B.md"), filepath.Join(v.Dir, "sub/B2.md"))
	os.Remove(filepath.Join(v.Dir, "A.md"))
	st, err = Update(ctx, v, opts, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Added != 1 || st.Changed != 1 || st.Deleted != 2 || st.Notes != 2 {
		t.Fatalf("after edit+rename+delete = %+v, want +1 ~1 -2 of 2 notes", st)
	}
	for q, want := range map[string][]string{
		"zulu":       {"C.md"},
		"charlie":    {"C.md"},
		"tag:tagged": nil,
		"alpha":      {"sub/B2.md"},
		"bravo":      {"sub/B2.md"},
	} {
		if got, _ := searchPaths(t, v, opts, q); !slices.Equal(got, want) {
			t.Errorf("search %q = %v, want %v", q, got, want)
		}
	}
}

// A note added under a name other notes link to is indexed with them, so
// that links: follows what the link resolves to now.
func TestUpdateRelinks(t *testing.T) {
	v := testVault(t, map[string]string{
		"A.md": "# A\n\nSee [[Target]].\n",
	})
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
	if _, err := Update(context.Background(), v, opts, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := searchPaths(t, v, opts, `links:"dir/Target"`); got != nil {
		t.Fatalf("before the target exists: %v", got)
	}
	writeNote(t, v.Dir, "dir/Target.md", "# Target\n")
	st, err := Update(context.Background(), v, opts, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Added != 1 || st.Changed != 1 {
		t.Errorf("stats = %+v, want the target added and A re-indexed", st)
	}
	if got, _ := searchPaths(t, v, opts, `links:"dir/Target"`); !slices.Equal(got, []string{"A.md"}) {
		t.Errorf(`links:"dir/Target" = %v, want [A.md]`, got)
	}
}

// A search brings a slightly stale index up to date first, and says when
// it did not.
func TestSearchFreshness(t *testing.T) {
	v := testVault(t, sample)
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
	if _, err := Update(context.Background(), v, opts, false); err != nil {
		t.Fatal(err)
	}
	writeNote(t, v.Dir, "D.md", "# D\n\nDelta.\n")
	writeNote(t, v.Dir, "E.md", "# E\n\nDelta again.\n")

	res, err := Search(context.Background(), v, opts, Request{Query: "delta", MaxUpdate: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stale != 2 || len(res.Hits) != 0 || !res.Checked {
		t.Errorf("over MaxUpdate: stale=%d hits=%d checked=%v, want 2 stale, no hits", res.Stale, len(res.Hits), res.Checked)
	}
	res, err = Search(context.Background(), v, opts, Request{Query: "delta", MaxUpdate: -1})
	if err != nil || res.Checked || res.Unchecked == "" || len(res.Hits) != 0 {
		t.Errorf("no update: %v checked=%v unchecked=%q hits=%d", err, res.Checked, res.Unchecked, len(res.Hits))
	}
	got, res := searchPaths(t, v, opts, "delta")
	if !slices.Equal(got, []string{"D.md", "E.md"}) || res.Stale != 0 || res.Updated == nil || res.Updated.Added != 2 || !res.Checked {
		t.Errorf("within MaxUpdate: hits %v, stale %d, checked %v, updated %+v", got, res.Stale, res.Checked, res.Updated)
	}
}

// A note edited to bytes of the same size, its mtime given back (touch
// -r, rsync -t, git checkout, a sync client), is seen by the next search
// and indexed again: its ctime moved, which no program sets back. A stamp
// of size and mtime alone kept the old text.
func TestSearchSeesASameSizeEditUnderItsOldMtime(t *testing.T) {
	v := testVault(t, sample)
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
	if _, err := Update(context.Background(), v, opts, false); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(v.Dir, "C.md")
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("# C\n\nCharlie, #taggee\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	got, res := searchPaths(t, v, opts, "taggee")
	if !slices.Equal(got, []string{"C.md"}) || res.Updated == nil || res.Updated.Changed != 1 {
		t.Errorf("after a same-size edit under its old mtime: hits %v, updated %+v; want C.md, changed 1", got, res.Updated)
	}
}

// Over MaxCheckNotes a search stats the folders, not the notes: a note
// added, removed or renamed is seen at any size (its folder's time
// moves), an edit written into an existing note only where every note is
// stat-ed, and the answer says which it was.
func TestSearchFolderFreshness(t *testing.T) {
	v := testVault(t, map[string]string{"A.md": "# A\n\nAlpha.\n", "sub/B.md": "# B\n\nBeta.\n", "sub/C.md": "# C\n\nGamma.\n"})
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
	ctx := context.Background()
	past := time.Now().Add(-time.Hour)
	settle := func() { // every file and folder an hour old, and indexed so
		t.Helper()
		for _, p := range []string{"A.md", "sub/B.md", "sub/C.md", "sub", "."} {
			os.Chtimes(filepath.Join(v.Dir, p), past, past)
		}
		if _, err := Update(ctx, v, opts, false); err != nil {
			t.Fatal(err)
		}
	}
	folders := Request{Limit: 10, MaxUpdate: 10, MaxCheckNotes: 1}
	settle()

	// Added in a new folder, removed from an old one: seen by the folders.
	writeNote(t, v.Dir, "new/D.md", "# D\n\nDelta.\n")
	os.Remove(filepath.Join(v.Dir, "sub/C.md"))
	req := folders
	req.Query = "delta"
	res, err := Search(ctx, v, opts, req)
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Path != "new/D.md" || res.Checked || !strings.Contains(res.Unchecked, "in place") {
		t.Fatalf("added note, folders checked: %v %+v", err, res)
	}
	req.Query = "gamma"
	if res, err := Search(ctx, v, opts, req); err != nil || len(res.Hits) != 0 {
		t.Fatalf("removed note, folders checked: %v %+v", err, res)
	}

	// Written in place: the folder's time does not move.
	settle()
	f, err := os.OpenFile(filepath.Join(v.Dir, "sub/B.md"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nZeta.\n")
	f.Close()
	req.Query = "zeta"
	res, err = Search(ctx, v, opts, req)
	if err != nil || len(res.Hits) != 0 || res.Checked || res.Unchecked == "" {
		t.Fatalf("edited in place, folders checked: %v %+v; want no hit and the reason", err, res)
	}
	req.MaxCheckNotes = 0 // every note stat-ed
	res, err = Search(ctx, v, opts, req)
	if err != nil || len(res.Hits) != 1 || res.Hits[0].Path != "sub/B.md" || !res.Checked || res.Unchecked != "" {
		t.Fatalf("edited in place, notes checked: %v %+v; want sub/B.md", err, res)
	}
}

// A second writer waits at most Options.Wait, then reports ErrBusy; a
// search answers meanwhile (from the index as it is).
func TestBusy(t *testing.T) {
	v := testVault(t, sample)
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx"), Wait: 50 * time.Millisecond}
	if _, err := Update(context.Background(), v, opts, false); err != nil {
		t.Fatal(err)
	}
	s, err := openStore(opts.Dir, v.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	held, err := s.lock(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held()
	if _, err := Update(context.Background(), v, opts, false); !errors.Is(err, ErrBusy) {
		t.Fatalf("update while locked: err = %v, want ErrBusy", err)
	}
	writeNote(t, v.Dir, "D.md", "# D\n\nDelta.\n")
	got, res := searchPaths(t, v, opts, "alpha")
	if len(got) != 2 || res.Stale != 1 {
		t.Errorf("search while locked: %v stale=%d, want 2 hits and 1 stale note", got, res.Stale)
	}
}

// damagedIndex indexes the sample vault and then damages the index.
func damagedIndex(t *testing.T, damage func(t *testing.T, gen string)) (*vault.Vault, Options) {
	t.Helper()
	v := testVault(t, sample)
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx"), Wait: time.Second}
	if _, err := Update(context.Background(), v, opts, false); err != nil {
		t.Fatal(err)
	}
	s, err := openStore(opts.Dir, v.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	gen, _ := s.current()
	damage(t, s.path(gen))
	return v, opts
}

// Every kind of damage is detected and repaired from the notes: the
// search after it gives the same answer as a fresh index, never a panic.
func TestDamagedIndexIsRebuilt(t *testing.T) {
	flip := func(name string) func(t *testing.T, gen string) {
		return func(t *testing.T, gen string) {
			matches, _ := filepath.Glob(filepath.Join(gen, name))
			if len(matches) == 0 {
				t.Fatalf("no %s in %s", name, gen)
			}
			for _, m := range matches {
				b, err := os.ReadFile(m)
				if err != nil {
					t.Fatal(err)
				}
				for i := len(b) / 3; i < len(b); i += len(b)/7 + 1 {
					b[i] ^= 0xff
				}
				os.WriteFile(m, b, 0o600)
			}
		}
	}
	truncate := func(name string, size int64) func(t *testing.T, gen string) {
		return func(t *testing.T, gen string) {
			matches, _ := filepath.Glob(filepath.Join(gen, name))
			if len(matches) == 0 {
				t.Fatalf("no %s in %s", name, gen)
			}
			for _, m := range matches {
				if err := os.Truncate(m, size); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	write := func(name, text string) func(t *testing.T, gen string) {
		return func(t *testing.T, gen string) { os.WriteFile(filepath.Join(gen, name), []byte(text), 0o600) }
	}
	for name, damage := range map[string]func(t *testing.T, gen string){
		"zap truncated":    truncate("store/*.zap", 100),
		"zap emptied":      truncate("store/*.zap", 0),
		"zap byte-flipped": flip("store/*.zap"),
		"zap deleted": func(t *testing.T, gen string) {
			m, _ := filepath.Glob(filepath.Join(gen, "store/*.zap"))
			os.Remove(m[0])
		},
		"root.bolt truncated":     truncate("store/root.bolt", 1000),
		"root.bolt garbage":       write("store/root.bolt", strings.Repeat("garbage ", 4096)),
		"root.bolt byte-flipped":  flip("store/root.bolt"),
		"index_meta.json corrupt": write("index_meta.json", "{not json"),
		"index_meta.json missing": func(t *testing.T, gen string) { os.Remove(filepath.Join(gen, "index_meta.json")) },
		"CURRENT garbage": func(t *testing.T, gen string) {
			os.WriteFile(filepath.Join(filepath.Dir(gen), currentName), []byte("../../etc"), 0o600)
		},
		"marker from another zk": func(t *testing.T, gen string) {
			os.WriteFile(filepath.Join(filepath.Dir(gen), markerName), []byte(`{"format":"zk-index","schema":0,"vault":"x"}`), 0o600)
		},
		"generation folder gone": func(t *testing.T, gen string) { os.RemoveAll(gen) },
	} {
		t.Run(name+"/update", func(t *testing.T) {
			v, opts := damagedIndex(t, damage)
			st, err := Update(context.Background(), v, opts, false)
			if err != nil {
				t.Fatalf("update after damage: %v", err)
			}
			if !st.Built && name != "root.bolt byte-flipped" {
				t.Errorf("update after damage did not rebuild: %+v", st)
			}
			if got, _ := searchPaths(t, v, opts, "alpha"); !slices.Equal(got, []string{"A.md", "sub/B.md"}) {
				t.Errorf("search after the update = %v", got)
			}
		})
		t.Run(name+"/search", func(t *testing.T) {
			v, opts := damagedIndex(t, damage)

			got, res := searchPaths(t, v, opts, "alpha")
			if want := []string{"A.md", "sub/B.md"}; !slices.Equal(got, want) {
				t.Errorf("search after damage = %v, want %v", got, want)
			}
			// bbolt checksums its meta pages only: flipped bytes in a free
			// page go unnoticed, and harmlessly (the answer above is right).
			if (res.Updated == nil || !res.Updated.Built) && name != "root.bolt byte-flipped" {
				t.Errorf("search after damage did not rebuild: %+v", res.Updated)
			}
			if got, _ := searchPaths(t, v, opts, "tag:tagged"); !slices.Equal(got, []string{"C.md"}) {
				t.Errorf("second search = %v", got)
			}
			// And zk index after a repair finds nothing to do.
			st, err := Update(context.Background(), v, opts, false)
			if err != nil || st.Built || st.Added+st.Changed+st.Deleted != 0 {
				t.Errorf("update after repair = %+v, %v", st, err)
			}
		})
	}
}

// A damaged index found by zk index is moved aside and rebuilt, and the
// last damaged generation is kept for a bug report.
func TestUpdateMovesDamageAside(t *testing.T) {
	v := testVault(t, sample)
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
	ctx := context.Background()
	for i := range 3 {
		if _, err := Update(ctx, v, opts, false); err != nil {
			t.Fatal(err)
		}
		s, _ := openStore(opts.Dir, v.Dir, false)
		gen, _ := s.current()
		zaps, _ := filepath.Glob(filepath.Join(s.path(gen), "store/*.zap"))
		os.Truncate(zaps[0], 10)
		st, err := Update(ctx, v, opts, false)
		if err != nil || !st.Built || !strings.Contains(st.Rebuilt, "damaged") || st.Notes != 3 {
			t.Fatalf("round %d: update = %+v, %v; want a rebuild of 3 notes", i, st, err)
		}
	}
	broken, _ := filepath.Glob(filepath.Join(opts.Dir, "gen-*"+brokenExt))
	live, _ := filepath.Glob(filepath.Join(opts.Dir, "gen-*[0-9]"))
	if len(broken) != 1 || len(live) != 1 {
		t.Errorf("folders: broken %v, live %v; want one of each", broken, live)
	}
}

// A query bleve parses and its searchers refuse (a fuzziness past 2, a
// regexp the index cannot compile) is a bad query, said before the index
// is opened: it was taken for damage found by the search, and the index
// was moved aside and rebuilt from the notes at each such query.
func TestSearchOfAnUnsearchableQueryKeepsTheIndex(t *testing.T) {
	v := testVault(t, sample)
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
	ctx := context.Background()
	if _, err := Update(ctx, v, opts, false); err != nil {
		t.Fatal(err)
	}
	s, _ := openStore(opts.Dir, v.Dir, false)
	live, _ := s.current()
	for _, q := range []string{"claim~5", "/(/", `/a\b/`} {
		res, err := Search(ctx, v, opts, Request{Query: q, Limit: 10, MaxUpdate: 100})
		if !errors.Is(err, ErrQuery) {
			t.Errorf("search %q: %v, want a bad query", q, err)
		}
		if res != nil && res.Updated != nil {
			t.Errorf("search %q rebuilt the index: %+v", q, *res.Updated)
		}
		if gen, _ := s.current(); gen != live {
			t.Errorf("search %q: the live generation is %s, was %s", q, gen, live)
		}
	}
	if broken, _ := filepath.Glob(filepath.Join(opts.Dir, "gen-*"+brokenExt)); len(broken) != 0 {
		t.Errorf("generations moved aside: %v", broken)
	}
}

func TestRebuildFlag(t *testing.T) {
	v := testVault(t, sample)
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
	Update(context.Background(), v, opts, false)
	st, err := Update(context.Background(), v, opts, true)
	if err != nil || !st.Built || st.Rebuilt != "--rebuild" || st.Added != 3 {
		t.Fatalf("rebuild = %+v, %v", st, err)
	}
}

func TestSkippedNotes(t *testing.T) {
	v := testVault(t, map[string]string{"ok.md": "# ok\n\nfine\n", "bin.md": "\x00\x01\x02binary"})
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
	st, err := Update(context.Background(), v, opts, false)
	if err != nil || st.Notes != 1 || len(st.Skipped) != 1 || st.Skipped[0].Path != "bin.md" {
		t.Fatalf("update = %+v, %v; want 1 note and bin.md skipped", st, err)
	}
	if st, _ := Update(context.Background(), v, opts, false); st.Added+st.Changed != 0 || len(st.Skipped) != 1 {
		t.Errorf("second update = %+v; want bin.md still skipped, not re-read", st)
	}
}

// Hostile notes index and search like any other: a 300 KB word, a note of
// 20,000 tags, 50,000 links, invalid UTF-8 and control characters.
func TestHostileNotes(t *testing.T) {
	var tags, links strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&tags, "#t%d ", i)
	}
	for i := range 50_000 {
		fmt.Fprintf(&links, "[[n%d]] ", i)
	}
	v := testVault(t, map[string]string{
		"word.md":  "# W\n\n" + strings.Repeat("a", 300_000) + " needle\n",
		"tags.md":  "# T\n\n" + tags.String() + "\n",
		"links.md": "# L\n\n" + links.String() + "\n",
		"bytes.md": "# B\n\nA sentence long enough to be text, with a few bad bytes: ok \xc3\x28 \x01\x02\x7f needle \xff\xfe\n",
		"n1.md":    "# n1\n",
	})
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
	st, err := Update(context.Background(), v, opts, false)
	if err != nil || st.Notes != 5 {
		t.Fatalf("update = %+v, %v", st, err)
	}
	for q, want := range map[string][]string{
		"needle":     {"bytes.md", "word.md"},
		"tag:t19999": {"tags.md"},
		"links:n1":   {"links.md"},
	} {
		if got, _ := searchPaths(t, v, opts, q); !slices.Equal(got, want) {
			t.Errorf("search %q = %v, want %v", q, got, want)
		}
	}
}

// A build cut short (a killed zk index --rebuild) leaves its generation
// behind; the next update, with the writer lock that every build holds,
// removes it, but not the live one, nor while another zk holds the lock.
func TestAbandonedGenerationsSwept(t *testing.T) {
	v := testVault(t, sample)
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
	ctx := context.Background()
	if _, err := Update(ctx, v, opts, false); err != nil {
		t.Fatal(err)
	}
	s, err := openStore(opts.Dir, v.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	live, _ := s.current()
	abandoned := []string{"gen-1", "gen-2", "gen-3" + brokenExt, "gen-4" + brokenExt}
	for _, g := range abandoned {
		if err := os.MkdirAll(filepath.Join(s.path(g), "store"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.path(g), "index_meta.json"), []byte(`{"storage":"scorch"}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	gens := func() []string {
		t.Helper()
		ents, err := os.ReadDir(opts.Dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), genPrefix) {
				out = append(out, e.Name())
			}
		}
		return out
	}
	unlock, err := s.lock(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Update(ctx, v, opts, false); !errors.Is(err, ErrBusy) {
		t.Fatalf("update while another zk holds the lock = %v, want busy", err)
	}
	if got := gens(); len(got) != 5 {
		t.Errorf("with the lock held elsewhere: %v, want every generation kept", got)
	}
	unlock()
	st, err := Update(ctx, v, opts, false)
	if err != nil || st.Built || st.Notes != 3 {
		t.Fatalf("update = %+v, %v; want an unchanged index of 3 notes", st, err)
	}
	if got, want := gens(), []string{live, "gen-4" + brokenExt}; !slices.Equal(got, want) {
		t.Errorf("after an update: %v, want %v (the live one and the newest broken one)", got, want)
	}
	if paths, _ := searchPaths(t, v, opts, "alpha"); len(paths) != 2 {
		t.Errorf("alpha = %v after the sweep", paths)
	}
}
