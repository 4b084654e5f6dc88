package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zk-claims/zk/checkcache"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/move"
)

// A Live answers a long-lived front end from one start: a note checked
// against the whole vault, the notes a change reaches, the links into a
// note, tags, and files created outside the front end, through the
// model file's entries as through reading every note.
func TestLiveAnswersAFrontEnd(t *testing.T) {
	w, _ := open(t, map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "# A\n\nSee [[B#H]] and [[B#Gone]] and [[D]]. #topic/sub\n",
		"B.md":               "# B\n\n## H\n\nText.\n",
		"C.md":               "# C\n\n[[B]] #topic\n",
	}, Reading)
	for i, cached := range []bool{false, true, true, true} {
		w.mapCache = i == 3 // the cache read in place, mapped
		opts := LiveOptions{Vault: w.Vault, Lint: w.LintOptions()}
		if cached {
			opts.Cache = w.LiveCache
		}
		l := NewLive(opts)
		walked, known := 0, 0
		if err := l.Start(context.Background(), func() { walked++ }, func() { known++ }); err != nil {
			t.Fatal(err)
		}
		if walked != 1 || known != 1 || l.WaitKnown() != nil || l.WaitNamed() != nil || l.WaitEarly() != nil {
			t.Fatalf("cached %v: walked %d, known %d", cached, walked, known)
		}
		n, fs, ok := l.Recheck("A.md")
		if !ok || n == nil {
			t.Fatalf("cached %v: A.md not checked", cached)
		}
		var rules []string
		for _, f := range fs {
			rules = append(rules, f.Rule)
		}
		slices.Sort(rules)
		if want := []string{lint.RuleBrokenLink, lint.RuleBrokenHeading}; !slices.Equal(rules, want) { // sorted
			t.Errorf("cached %v: A's findings %q, want a broken heading and a broken link", cached, rules)
		}
		var from []string
		for _, r := range l.LinksInto("B.md", nil) {
			from = append(from, r.From)
		}
		slices.Sort(from)
		if want := []string{"A.md", "A.md", "C.md"}; !slices.Equal(from, want) {
			t.Errorf("cached %v: links into B from %q, want %q", cached, from, want)
		}
		aff := l.Affected(func(p string) bool { return p == "C.md" }, "B.md")
		if !slices.Equal(aff, []string{"A.md"}) {
			t.Errorf("cached %v: affected by B, C open: %q, want A.md", cached, aff)
		}
		if got := l.NotesWithTag("topic"); len(got) != 2 {
			t.Errorf("cached %v: notes with #topic %q, want A and C", cached, got)
		}
		if links, _, _ := l.CompletionLinks(); !slices.Equal(links, []string{"A", "B", "C"}) {
			t.Errorf("cached %v: completion links %q", cached, links)
		}
	}

	// A file created outside the front end mends the link to it.
	l := NewLive(LiveOptions{Vault: w.Vault, Lint: w.LintOptions(), Cache: w.LiveCache})
	if err := l.Start(context.Background(), nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Vault.Dir, "D.md"), []byte("# D\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, changed, err := l.FilesChanged(context.Background(), FileChanges{Created: []string{"D.md"}, Changed: []string{"D.md"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again, []string{"A.md"}) || !slices.Equal(changed, []string{"D.md"}) {
		t.Errorf("after D is created: check again %q, changed %q; want A.md, D.md", again, changed)
	}
	if got := l.LinksInto("D.md", nil); len(got) != 1 || got[0].From != "A.md" {
		t.Errorf("links into D after its creation: %+v", got)
	}
}

// A note saved after the walk, before every note is known, keeps the
// links it was saved with, not the start's entry of it; a note deleted
// since has no links, and reaches no note's dependents. The same with no
// cache, and from one that holds every note as it is.
func TestLiveLinksAfterTheStart(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	files := map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "# A\n\nSee [[B#H]] and [[C]].\n",
		"B.md":               "# B\n\n## H\n\nText.\n",
		"C.md":               "# C\n\n[[B]]\n",
	}
	w, _ := open(t, files, Reading)
	w.mapCache = true
	long := time.Now().Add(-time.Hour) // settled: the cache trusts the files' stamps
	c := filepath.Join(w.Vault.Dir, "C.md")
	for p := range files {
		if err := os.Chtimes(filepath.Join(w.Vault.Dir, p), long, long); err != nil {
			t.Fatal(err)
		}
	}
	from := func(l *Live, p string) []string {
		var out []string
		for _, r := range l.LinksInto(p, nil) {
			out = append(out, r.From)
		}
		slices.Sort(out)
		return out
	}
	for i := range 3 { // no cache, then one of every note as it is
		l := NewLive(LiveOptions{Vault: w.Vault, Lint: w.LintOptions(), Cache: w.LiveCache})
		saved := func() { l.Update(vault.NewParser().Parse("C.md", []byte("# C\n\nNone.\n"))) }
		if err := l.Start(context.Background(), saved, nil); err != nil {
			t.Fatal(err)
		}
		if got := from(l, "B.md"); !slices.Equal(got, []string{"A.md"}) {
			t.Errorf("start %d: links into B from %q after C was saved without its link, want A.md", i, got)
		}
		l.Update(vault.NewParser().Parse("C.md", []byte(files["C.md"])))
		if got := from(l, "B.md"); !slices.Equal(got, []string{"A.md", "C.md"}) {
			t.Errorf("start %d: links into B from %q after C was saved with it again", i, got)
		}
		if err := os.Remove(c); err != nil {
			t.Fatal(err)
		}
		if _, _, err := l.FilesChanged(context.Background(), FileChanges{Deleted: []string{"C.md"}}, nil); err != nil {
			t.Fatal(err)
		}
		if got := from(l, "B.md"); !slices.Equal(got, []string{"A.md"}) {
			t.Errorf("start %d: links into B from %q after C was deleted, want A.md", i, got)
		}
		if got := l.Affected(nil, "B.md"); !slices.Equal(got, []string{"A.md"}) {
			t.Errorf("start %d: affected by B after C was deleted: %q, want A.md", i, got)
		}
		// C as it was, for the next start.
		if err := os.WriteFile(c, []byte(files["C.md"]), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(c, long, long); err != nil {
			t.Fatal(err)
		}
	}
}

// A model file cut short under its mapping while the entries decode
// beside the walk is a damaged cache: every note is read, the answers
// are the same, and the file is written whole again.
func TestLiveMappedCacheCutShort(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	w, _ := open(t, map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "# A\n\nSee [[B#H]] and [[C]].\n",
		"B.md":               "# B\n\n## H\n\nText.\n",
		"C.md":               "# C\n\n[[B]]\n",
	}, Reading)
	w.mapCache = true
	file, err := checkcache.ModelFile(w.Vault.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []bool{false, true} {
		l := NewLive(LiveOptions{Vault: w.Vault, Lint: w.LintOptions(), Cache: func() EntryCache {
			c := w.LiveCache()
			if cut {
				if err := os.Truncate(file, 0); err != nil {
					t.Fatal(err)
				}
			}
			return c
		}})
		if err := l.Start(context.Background(), nil, nil); err != nil {
			t.Fatal(err)
		}
		var from []string
		for _, r := range l.LinksInto("B.md", nil) {
			from = append(from, r.From)
		}
		slices.Sort(from)
		if want := []string{"A.md", "C.md"}; !slices.Equal(from, want) {
			t.Errorf("cut %v: links into B from %q, want %q", cut, from, want)
		}
	}
	m, err := checkcache.OpenModel(file)
	if err != nil {
		t.Fatalf("the model file after a start on it cut short: %v", err)
	}
	defer m.Close()
	if _, ok, err := m.Section("lsp"); !ok || err != nil {
		t.Errorf("no entries written again: %v %v", ok, err)
	}
}

// A start's tags are counted at the first question, and a note saved
// before it keeps the tags it was saved with.
func TestVocabPendingWords(t *testing.T) {
	v := newVocab()
	entry := func(p string, tags ...string) NoteEntry { return NoteEntry{sum: lint.Summary{Path: p}, tags: tags} }
	v.setAll([]NoteEntry{entry("a.md", "x", "y"), entry("b.md", "x"), entry("c.md")})
	v.set("b.md", []string{"z"})
	if got, want := v.words(), []string{"x", "y", "z"}; !slices.Equal(got, want) {
		t.Errorf("words %q, want %q", got, want)
	}
	got := v.notesWith("x")
	slices.Sort(got)
	if want := []string{"a.md"}; !slices.Equal(got, want) {
		t.Errorf("notes with x %q, want %q", got, want)
	}
	v.set("a.md", nil)
	if got := v.words(); !slices.Equal(got, []string{"z"}) {
		t.Errorf("words after a.md's are gone: %q", got)
	}
}

// A rename planned for an editor rewrites the links to the note and the
// H1 that is its name, once; a heading's rename the links to it.
func TestLivePlansRenames(t *testing.T) {
	w, _ := open(t, map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "# A\n\n## Why\n\nText.\n",
		"B.md":               "# B\n\nSee [[A]] and [[A#Why]].\n",
	}, Reading)
	l := NewLive(LiveOptions{Vault: w.Vault, Lint: w.LintOptions()})
	if err := l.Start(context.Background(), nil, nil); err != nil {
		t.Fatal(err)
	}
	edited := func(files []move.FileEdit) map[string][]string {
		out := map[string][]string{}
		for _, f := range files {
			for _, e := range f.Edits {
				out[f.Path] = append(out[f.Path], e.New)
			}
		}
		return out
	}
	plan, err := l.PlanRename(context.Background(), "A.md", "Z.md")
	if err != nil {
		t.Fatal(err)
	}
	got := edited(plan.Files)
	if len(plan.Renames) != 1 || plan.Renames[0].To != "Z.md" || !slices.Equal(got["A.md"], []string{"Z"}) || len(got["B.md"]) != 2 {
		t.Errorf("rename of A to Z: renames %+v, edits %q", plan.Renames, got)
	}
	plan, err = l.PlanHeadingRename(context.Background(), "A.md", "Why", "Because")
	if err != nil {
		t.Fatal(err)
	}
	if got := edited(plan.Files); len(got["B.md"]) != 1 || len(plan.Renames) != 0 {
		t.Errorf("rename of A#Why: renames %+v, edits %q", plan.Renames, got)
	}
}

// A rename refused says, by its type, whose to mend it is: a new name no
// link can write or out of the vault the caller's (UsageError); a name
// another file holds the vault's as it stands (RefusedError); sentinels
// stay matchable through either.
func TestLiveRenameRefusals(t *testing.T) {
	w, _ := open(t, map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "# A\n\n## Why\n",
		"B.md":               "# B\n",
	}, Reading)
	l := NewLive(LiveOptions{Vault: w.Vault, Lint: w.LintOptions()})
	if err := l.Start(context.Background(), nil, nil); err != nil {
		t.Fatal(err)
	}
	var ue *UsageError
	var re *RefusedError
	for _, tc := range []struct {
		to      string
		heading string
		is      error
		typed   any
	}{
		{to: "A#1.md", is: move.ErrBadName, typed: &ue},
		{to: ".obsidian/A.md", is: move.ErrDotPath, typed: &ue},
		{to: "../A.md", is: vault.ErrOutsideVault, typed: &ue},
		{to: "B.md", is: move.ErrExists, typed: &re},
		{to: "b.md", is: move.ErrTwin, typed: &re},
		{heading: "Nope", to: "Other", is: move.ErrNoHeading, typed: &ue},
	} {
		var err error
		if tc.heading != "" {
			_, err = l.PlanHeadingRename(context.Background(), "A.md", tc.heading, tc.to)
		} else {
			_, err = l.PlanRename(context.Background(), "A.md", tc.to)
		}
		if !errors.Is(err, tc.is) || !errors.As(err, tc.typed) {
			t.Errorf("rename to %s: %v (%T), want %v as %T", tc.to, err, err, tc.is, tc.typed)
		}
	}
}

// countingEntries is an EntryCache that notes the path of every note read.
type countingEntries struct {
	EntryCache
	mu   *sync.Mutex
	read *[]string
}

func (c countingEntries) Entries(ctx context.Context, files []vault.File,
	read func(func(string) (NoteEntry, bool), func(*vault.Note)) ([]NoteEntry, error)) ([]NoteEntry, error) {
	return c.EntryCache.Entries(ctx, files, func(reuse func(string) (NoteEntry, bool), hashed func(*vault.Note)) ([]NoteEntry, error) {
		return read(reuse, func(n *vault.Note) {
			c.mu.Lock()
			*c.read = append(*c.read, n.Path)
			c.mu.Unlock()
			hashed(n)
		})
	})
}

// After a file is added, removed or renamed, the language server's start
// reads the notes whose links name it, and the note come, not every
// note, whether its own save or another reader's (zk list) came first;
// its links are those of a cold start.
func TestLiveStartAfterFilesComeAndGo(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	files := map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "# A\n\nSee [[B]] and [[Nowhere]].\n",
		"B.md":               "# B\n\n[[C]]\n",
		"C.md":               "# C\n\nAlone.\n",
		"D.md":               "# D\n\n[[C]]\n",
	}
	w, _ := open(t, files, Reading)
	dir := w.Vault.Dir
	long := time.Now().Add(-time.Hour)
	for p := range files {
		os.Chtimes(filepath.Join(dir, p), long, long)
	}
	start := func(cache func() EntryCache) ([]string, map[string][]string) {
		t.Helper()
		var mu sync.Mutex
		var read []string
		opts := LiveOptions{Vault: w.Vault, Lint: w.LintOptions()}
		if cache != nil {
			opts.Cache = func() EntryCache { return countingEntries{EntryCache: cache(), mu: &mu, read: &read} }
		}
		l := NewLive(opts)
		if err := l.Start(context.Background(), nil, nil); err != nil {
			t.Fatal(err)
		}
		into := map[string][]string{}
		for _, p := range []string{"A.md", "B.md", "C.md", "D.md", "Nowhere.md", "B2.md"} {
			for _, r := range l.LinksInto(p, nil) {
				into[p] = append(into[p], r.From)
			}
			slices.Sort(into[p])
		}
		slices.Sort(read)
		return read, into
	}
	write := func(p, text string) {
		full := filepath.Join(dir, p)
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(full, long, long)
	}
	start(w.LiveCache)
	for _, st := range []struct {
		name      string
		edit      func()
		listFirst bool
		read      []string
	}{
		{"a note added that a broken link names", func() { write("Nowhere.md", "# Nowhere\n") }, false, []string{"A.md", "Nowhere.md"}},
		{"a note removed", func() { os.Remove(filepath.Join(dir, "C.md")) }, false, []string{"B.md", "D.md"}},
		{"a note renamed, zk list first", func() { os.Rename(filepath.Join(dir, "B.md"), filepath.Join(dir, "B2.md")) }, true, []string{"A.md", "B2.md"}},
		{"unchanged", func() {}, false, nil},
	} {
		st.edit()
		if st.listFirst {
			if _, err := w.List(context.Background(), ListRequest{}); err != nil {
				t.Fatal(err)
			}
		}
		read, got := start(w.LiveCache)
		if !slices.Equal(read, st.read) {
			t.Errorf("%s: read %q, want %q", st.name, read, st.read)
		}
		_, want := start(nil)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: links into\n%v\ncold\n%v", st.name, got, want)
		}
	}
}
