package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zk-claims/zk/checkcache"
	"github.com/zk-claims/zk/templates"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// checkBoth is w's check through the cache, and without it.
func checkBoth(t *testing.T, w *Workspace) (got, want CheckResult) {
	t.Helper()
	got, err := w.Check(context.Background(), CheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if want, err = w.Check(context.Background(), CheckRequest{NoCache: true}); err != nil {
		t.Fatal(err)
	}
	return got, want
}

// modelOf is w's vault's model file, and the file opened.
func modelOf(t *testing.T, w *Workspace) (string, *checkcache.Model) {
	t.Helper()
	file, err := checkcache.ModelFile(w.Vault.Dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := checkcache.OpenModel(file)
	if err != nil {
		t.Fatal(err)
	}
	return file, m
}

// A check through the cache finds, after each edit, what a check without
// it finds; an edit of notes, or a note added, removed or renamed, reads
// only the notes it can change, while another config or types.json reads
// every note.
func TestCachedCheckAfterEdits(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	tmpl, _ := templates.Default("permanent")
	w, _ := open(t, map[string]string{
		".obsidian/app.json":         "{}",
		".zk/config.toml":            "[claims.types.permanent]\nfolder = \"Notes\"\n",
		".zk/templates/permanent.md": string(tmpl),
		"Notes/A.md":                 "# A\n\nSee [[B#Why]] and [[B#^blk]] and [[Bee]].\n\n## Links\n\n- [[B]] — extends: A builds on B.\n",
		"Notes/B.md":                 "---\nrating: 3\n---\n# B\n\n## Why\n\nBecause. ^blk\n\n## Links\n\n- [[C]] — evidence-for: B's data is C's.\n",
		"Notes/C.md":                 "# C\n\n## Tests / falsifiers\n\n- The suite fails.\n",
		"Notes/D.md":                 "# D\n\nAlone, linking [[E]].\n",
		"Notes/E.md":                 "# E\n",
		"Other/F.md":                 "# F\n\n[[D]]\n",
	}, Reading)
	write, remove, _ := vaultEdits(t, w.Vault.Dir)
	const all = readAll
	steps := []checkStep{
		{"first check", func() {}, all},
		{"unchanged", func() {}, 0},
		{"rename a heading others link to", func() {
			write("Notes/B.md", "---\nrating: 3\n---\n# B\n\n## Why not\n\nBecause. ^blk\n\n## Links\n\n- [[C]] — evidence-for: B's data is C's.\n")
		}, 2}, // B, and A linking to it
		{"remove a block id", func() {
			write("Notes/B.md", "---\nrating: 3\n---\n# B\n\n## Why not\n\nBecause.\n\n## Links\n\n- [[C]] — evidence-for: B's data is C's.\n")
		}, 2},
		{"add an alias", func() {
			write("Notes/B.md", "---\nrating: 3\naliases: [Bee]\n---\n# B\n\n## Why\n\nBecause. ^blk\n\n## Links\n\n- [[C]] — evidence-for: B's data is C's.\n")
		}, 2},
		{"refute a note others rest on", func() { write("Notes/C.md", vaulttest.RefutedC) }, 3}, // C, B on it, A on B
		{"change its falsifier", func() {
			write("Notes/C.md", strings.Replace(vaulttest.RefutedC, "The suite fails.", "The suite fails twice.", 1))
		}, 3},
		{"edit a note nothing links to", func() { write("Other/F.md", "# F\n\n[[D]] and [[D#Nowhere]]\n") }, 1},
		{"edit two notes at once", func() {
			write("Notes/D.md", "# D\n\nAlone, linking [[E#Gone]].\n")
			write("Notes/E.md", "# E\n\n## Here\n")
		}, 2}, // D and E: F links to D, whose headings and the rest of its summary are the same
		{"add a note", func() { write("Notes/G.md", "# G\n\n[[A]]\n") }, 1},
		{"add a note a broken link names", func() { write("Other/Bee.md", "# Bee\n") }, 2}, // it, and A
		{"remove a note", func() { remove("Notes/E.md") }, 1},                              // D, linking to it
		{"rename a note", func() {
			remove("Notes/G.md")
			write("Notes/H.md", "# G\n\n[[A]]\n")
		}, 1},
		{"add a note of a name another has", func() { write("Other/D.md", "# D again\n") }, 2}, // it, and F linking to D
		{"change types.json", func() { write(".obsidian/types.json", `{"types":{"rating":"text"}}`) }, all},
		{"change the config", func() {
			write(".zk/config.toml", "[claims.types.permanent]\nfolder = \"Notes\"\n[claims.rules]\n\"links/broken-heading\" = \"warning\"\n")
		}, all},
		{"unchanged again", func() {}, 0},
	}
	checkSteps(t, w, steps)
}

// zk check keeps its result in the one model file: an earlier zk's
// check cache and states left in the cache folder are removed, not
// read; another reader writing the file anew (dropping the deltas check
// appended) leaves check a result it can trust; and every check through
// the file finds what a check without it finds.
func TestCheckInTheModelFile(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	w, _ := open(t, map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "# A\n\n[[B#Why]] [[C]]\n",
		"B.md":               "# B\n\n## Why\n",
		"C.md":               "# C\n",
	}, Reading)
	ctx := context.Background()
	file, err := checkcache.ModelFile(w.Vault.Dir)
	if err != nil {
		t.Fatal(err)
	}
	retired := checkcache.Retired(file)
	for _, f := range retired {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("an earlier zk's: A.md has no findings"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	edit := func(p, text string) {
		full := filepath.Join(w.Vault.Dir, p)
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(full, old, old); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name string
		do   func()
		read int
	}{
		{"first check", func() {}, 3},
		{"unchanged", func() {}, 0},
		{"a heading renamed", func() { edit("B.md", "# B\n\n## Why not\n") }, 2},
		{"properties written anew by another reader", func() {
			if _, err := w.Properties(ctx); err != nil {
				t.Fatal(err)
			}
		}, 2}, // B's edit, dropped with check's delta, checked again: B and A
		{"another edit", func() { edit("C.md", "# C\n\n[[Nowhere]]\n") }, 1}, // C: its summary is the same, for those linking to it
		{"unchanged again", func() {}, 0},
	}
	for _, st := range steps {
		st.do()
		got, want := checkBoth(t, w)
		if !slices.Equal(got.Findings, want.Findings) || got.Notes != want.Notes {
			t.Errorf("%s: through the cache\n%+v\nwithout\n%+v", st.name, got.Findings, want.Findings)
		}
		if got.Read != st.read {
			t.Errorf("%s: %d notes read, want %d", st.name, got.Read, st.read)
		}
		for _, f := range retired {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("%s: %s left in the cache folder", st.name, f)
			}
		}
	}
	m, err := checkcache.OpenModel(file)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, name := range []string{checkcache.FindingsSection, checkcache.StatesSection, "properties"} {
		if _, ok, err := m.Section(name); !ok || err != nil {
			t.Errorf("%s: not in the model file (%v)", name, err)
		}
	}
}

// States too large to keep (checkcache.ErrStatesTooLarge) leave the
// findings alone in the model file, with a warning: an unchanged vault
// reads them, an edit checks every note, and the answer is always the
// one without the cache.
func TestCheckWithStatesTooLarge(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	defer func(e func([]vault.File, int, []lint.NoteState) ([][]byte, error)) { encodeStates = e }(encodeStates)
	encodeStates = func([]vault.File, int, []lint.NoteState) ([][]byte, error) { return nil, checkcache.ErrStatesTooLarge }
	w, notices := open(t, map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "# A\n\n[[B#Why]] [[C]]\n",
		"B.md":               "# B\n\n## Why\n",
		"C.md":               "# C\n",
	}, Reading)
	for _, st := range []struct {
		name string
		do   func()
		read int
	}{
		{"first check", func() {}, 3},
		{"unchanged", func() {}, 0},
		{"a heading renamed", func() {
			full := filepath.Join(w.Vault.Dir, "B.md")
			if err := os.WriteFile(full, []byte("# B\n\n## Why not\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-time.Hour)
			if err := os.Chtimes(full, old, old); err != nil {
				t.Fatal(err)
			}
		}, 3},
	} {
		st.do()
		*notices = nil
		got, want := checkBoth(t, w)
		if !slices.Equal(got.Findings, want.Findings) || got.Notes != want.Notes || got.Read != st.read {
			t.Errorf("%s: through the cache (%d read, want %d)\n%+v\nwithout\n%+v", st.name, got.Read, st.read, got.Findings, want.Findings)
		}
		if warned := slices.ContainsFunc(*notices, func(n Notice) bool { return n.Warning && strings.Contains(n.Text, "4 GiB") }); warned != (st.read > 0) {
			t.Errorf("%s: warned %v of the states, notices %+v", st.name, warned, *notices)
		}
	}
	_, m := modelOf(t, w)
	defer m.Close()
	if _, ok, _ := m.Section(checkcache.FindingsSection); !ok {
		t.Error("no findings kept")
	}
	if _, ok, _ := m.Section(checkcache.StatesSection); ok {
		t.Error("states kept")
	}
}

// A states section damaged where only a recheck reads it (a state's
// bytes, not the indexes checked when it is opened) costs a whole check
// after an edit, never a wrong result or a panic.
func TestCheckWithDamagedStates(t *testing.T) {
	const damaged = 60
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	w, _ := open(t, map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "# A\n\n[[B#Why]] [[C]]\n",
		"B.md":               "# B\n\n## Why\n",
		"C.md":               "# C\n",
	}, Reading)
	ctx := context.Background()
	if _, err := w.Check(ctx, CheckRequest{}); err != nil {
		t.Fatal(err)
	}
	file, m := modelOf(t, w)
	fs, _, _ := m.Section(checkcache.FindingsSection)
	ss, ok, err := m.Section(checkcache.StatesSection)
	if !ok || err != nil {
		t.Fatalf("no states section: %v", err)
	}
	b := slices.Clone(ss.Entries[0])
	for i := len(b) - damaged; i < len(b); i++ { // the last states' bytes: C's, then B's
		b[i] = 0xff
	}
	ss.Entries = [][]byte{b}
	stamps := m.Stamps
	if err := checkcache.SaveModel(file, m, checkcache.Update{Written: time.Now().UnixNano(), Stamps: stamps,
		Sections: []checkcache.Section{fs, ss}}); err != nil {
		t.Fatal(err)
	}
	m.Close()
	p := filepath.Join(w.Vault.Dir, "B.md")
	if err := os.WriteFile(p, []byte("# B\n\n## Why not\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, want := checkBoth(t, w)
	if !slices.Equal(got.Findings, want.Findings) || got.Notes != want.Notes {
		t.Errorf("through damaged states\n%+v\nwithout the cache\n%+v", got.Findings, want.Findings)
	}
	if got.Read != 3 { // undamaged: B and A, linking to it
		t.Errorf("%d notes read, want every one (3)", got.Read)
	}
}

// After a file is added, removed or renamed, a check through the cache
// finds what a check without it finds, reading the note that came and
// only the notes whose findings it can change: those linking to a file
// of a name that came or went (a link made ambiguous, or resolving again
// to the file it found before), those with a broken link it resolves,
// and those resting on them (links/rests-on-refuted names the chain);
// a name collision comes and goes with the file making it.
func TestCheckAfterFilesComeAndGo(t *testing.T) {
	w, steps := comeAndGo(t)
	checkSteps(t, w, steps)
}

// After another reader's save over the files that came or went (zk list
// writing the model file anew), a check reads what it reads after its
// own: its sections are kept whole with the files they were made over,
// and it checks again what the files that came or went since change,
// over one save or two.
func TestCheckAfterAnotherReadersSave(t *testing.T) {
	w, steps := comeAndGo(t)
	ctx := context.Background()
	for i := range steps {
		edit := steps[i].edit
		steps[i].edit = func() {
			edit()
			if _, err := w.List(ctx, ListRequest{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	write, remove, _ := vaultEdits(t, w.Vault.Dir)
	steps = append(steps, checkStep{"two saves, over two changes", func() {
		write("Other/B.md", "# B too\n")
		if _, err := w.List(ctx, ListRequest{}); err != nil {
			t.Fatal(err)
		}
		remove("Notes/B2.md")
		if _, err := w.Graph(ctx); err != nil {
			t.Fatal(err)
		}
	}, 4}) // it; A and X, whose [[B#Why]] now finds it; Z resting on A
	checkSteps(t, w, steps)
}

// comeAndGo is the vault and the steps of TestCheckAfterFilesComeAndGo.
func comeAndGo(t *testing.T) (*Workspace, []checkStep) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	_, refutes, _ := strings.Cut(vaulttest.RefutedC, "\n")
	w, _ := open(t, map[string]string{
		".obsidian/app.json": "{}",
		"Notes/A.md":         "# A\n\nSee [[B#Why]] and [[Missing]].\n\n## Links\n\n- [[C]] — extends: A builds on C.\n",
		"Notes/B.md":         "# B\n\n## Why\n\nBecause.\n",
		"Notes/C.md":         "# C\n" + refutes,
		"Notes/Z.md":         "# Z\n\n## Links\n\n- [[A]] — extends: Z builds on A.\n",
		"Other/X.md":         "# X\n\nSee [[B#Why]].\n",
		"Other/Y.md":         "# Y\n\nAlone.\n",
		"Other/W.md":         "# W\n\n%% [[Gone]] %%\n\n## Links\n\n- [[C]] — extends: W builds on C.\n",
	}, Reading)
	write, remove, rename := vaultEdits(t, w.Vault.Dir)
	const all = readAll
	steps := []checkStep{
		{"first check", func() {}, all},
		{"add a note of a name a link names elsewhere", func() { write("Other/B.md", "# B too\n") }, 4},     // it; X's [[B#Why]] now finds it, A's still Notes/B; Z resting on A
		{"rename it to the name of a broken link", func() { rename("Other/B.md", "Other/Missing.md") }, 4},  // it; A's [[Missing]] resolves, X's [[B]] goes back; Z
		{"rename it away, breaking the link again", func() { rename("Other/Missing.md", "Other/Q.md") }, 3}, // it, A, and Z
		{"add a note nothing names", func() { write("Other/New.md", "# New\n") }, 1},                        // it alone
		{"remove a note others rest on", func() { remove("Notes/C.md") }, 3},                                // A and W linking to it, Z resting on A
		{"bring it back", func() { write("Notes/C.md", "# C\n"+refutes) }, 4},                               // it, A, W, Z
		{"a name differing by case alone", func() { write("Notes/b.md", "# b\n") }, 4},                      // it, A and X linking to B, Z
		{"and gone again", func() { remove("Notes/b.md") }, 3},                                              // A, X and Z
		{"rename a note others link to", func() { rename("Notes/B.md", "Notes/B2.md") }, 4},                 // it, A, X and Z
		{"unchanged", func() {}, 0},
	}
	return w, steps
}

// vaultEdits returns the three ways the tests change a vault's files under
// dir by vault path: write (making its folder), remove and rename.
func vaultEdits(t *testing.T, dir string) (write func(p, text string), remove func(p string), rename func(from, to string)) {
	full := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	write = func(p, text string) {
		if err := os.MkdirAll(filepath.Dir(full(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full(p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	remove = func(p string) {
		if err := os.Remove(full(p)); err != nil {
			t.Fatal(err)
		}
	}
	rename = func(from, to string) {
		if err := os.Rename(full(from), full(to)); err != nil {
			t.Fatal(err)
		}
	}
	return write, remove, rename
}

// readAll in a checkStep's read: every note the check without the cache read.
const readAll = -1

// A checkStep edits the vault, then checks it through the cache and
// without, expecting read notes read: readAll, or the notes the edit can
// change.
type checkStep struct {
	name string
	edit func()
	read int
}

// checkSteps runs steps in order, the model file read and read in place
// by turns: each check through the cache must find what one without it
// finds, reading the notes the step expects.
func checkSteps(t *testing.T, w *Workspace, steps []checkStep) {
	t.Helper()
	for k, st := range steps {
		w.mapCache = k%2 == 1
		st.edit()
		got, want := checkBoth(t, w)
		if !reflect.DeepEqual(got.Findings, want.Findings) || got.Notes != want.Notes {
			t.Errorf("%s: through the cache\n%+v\nwithout\n%+v", st.name, got.Findings, want.Findings)
		}
		read := st.read
		if read == readAll {
			read = want.Read
		}
		if got.Read != read {
			t.Errorf("%s: %d notes read, want %d", st.name, got.Read, read)
		}
	}
}

// A check of the vault's own folder (zk check ., from the vault) is a
// check of every note, through the cache as a check naming no path is;
// a folder inside it is not.
func TestCheckOfTheVaultFolderIsCached(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		paths  func(dir string) []string
		cached bool
	}{
		{"no path", func(string) []string { return nil }, true},
		{"the vault's folder", func(dir string) []string { return []string{dir} }, true},
		{"the vault's folder and a note", func(dir string) []string { return []string{"A", dir} }, true},
		{"a folder of it", func(dir string) []string { return []string{filepath.Join(dir, "sub")} }, false},
		{"a note", func(string) []string { return []string{"A"} }, false},
	} {
		w, _ := open(t, map[string]string{
			".obsidian/app.json": "{}",
			"A.md":               "# A\n\n[[Nowhere]]\n",
			"sub/B.md":           "# B\n\n[[A]]\n",
		}, Reading)
		got, err := w.Check(ctx, CheckRequest{Paths: tc.paths(w.Vault.Dir)})
		if err != nil {
			t.Fatal(err)
		}
		file, err := checkcache.ModelFile(w.Vault.Dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = os.Stat(file)
		if cached := err == nil; cached != tc.cached {
			t.Errorf("%s: checked through the cache %v, want %v", tc.name, cached, tc.cached)
		}
		if tc.cached {
			want, err := w.Check(ctx, CheckRequest{NoCache: true})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Findings, want.Findings) || got.Notes != want.Notes {
				t.Errorf("%s: %+v (%d notes), want every note's %+v (%d)", tc.name, got.Findings, got.Notes, want.Findings, want.Notes)
			}
		}
	}
}

// TestSharedRunJudgedAgainOnce: 20 notes share a run (a note copied
// keeps its blocks) whose criterion changed since. zk check, through the
// cache and without it, and zk runs read its log once each, not once for
// each note: each read of a 24 MB JSON log decoded it again (3 s and 460
// MB), and 21 notes ran zk check out of memory.
func TestSharedRunJudgedAgainOnce(t *testing.T) {
	const n, id = 20, "20261203T133032Z-2d8e"
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	block := evidence.RenderRun(evidence.Run{ID: id, Started: time.Date(2026, 12, 1, 13, 30, 32, 0, time.UTC),
		Exit: 0, Verdict: evidence.VerdictSupports, Falsifier: "A is over 2.", FalsifierID: "f-1a2b",
		Criterion: "json.a[0] = 1.5; refuted if `json.a[0] > 2`: not refuted", Log: ".zk/runs/" + id + ".log"}, "\n")
	files := map[string]string{".zk/runs/" + id + ".log": `{"a":[1.5,1.5]}` + "\n"}
	for i := range n {
		files[fmt.Sprintf("c%02d.md", i)] = fmt.Sprintf("# c%02d\n\n## Tests / falsifiers\n\n- A is over 2. ^f-1a2b\n  - run: `echo`\n  - refuted if: `json.a[0] > 1`\n\n## Evidence\n\n%s\n", i, block)
	}
	w, _ := open(t, files, Reading)
	var reads atomic.Int64 // Check's notes are judged from several goroutines
	defer func(was func(*vault.Vault, string, int) ([]byte, error)) { readLogFile = was }(readLogFile)
	readLogFile = func(v *vault.Vault, id string, k int) ([]byte, error) {
		reads.Add(1)
		return evidence.ReadLog(v, id, k)
	}
	ctx := context.Background()
	for _, c := range []struct {
		name string
		run  func() (int, error)
	}{
		{"check", func() (int, error) {
			res, err := w.Check(ctx, CheckRequest{})
			return countRule(res.Findings, lint.RuleCriterionChanged, "on the same output it refutes the claim"), err
		}},
		{"check --no-cache", func() (int, error) {
			res, err := w.Check(ctx, CheckRequest{NoCache: true})
			return countRule(res.Findings, lint.RuleCriterionChanged, "on the same output it refutes the claim"), err
		}},
		{"runs", func() (int, error) {
			vs, err := w.Verdicts(ctx)
			k := 0
			for _, v := range vs {
				if v.Rejudged != nil && v.Rejudged.Now.Verdict == evidence.VerdictRefutes {
					k++
				}
			}
			return k, err
		}},
	} {
		reads.Store(0)
		judged, err := c.run()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if judged != n || reads.Load() != 1 {
			t.Errorf("%s: %d notes' run judged again, its log read %d times; want %d, once", c.name, judged, reads.Load(), n)
		}
	}
}

// countRule counts the findings of rule whose message holds text.
func countRule(fs []lint.Finding, rule, text string) int {
	k := 0
	for _, f := range fs {
		if f.Rule == rule && strings.Contains(f.Message, text) {
			k++
		}
	}
	return k
}

// TestNoteRejudgeBudget: one note of 50 falsifiers, each criterion
// changed since its run, each run naming a log of its own. zk runs NOTE
// and zk run NOTE --rejudge read logs up to evidence.RejudgeBudget (past
// one log), as zk check does, where each read every log: 50 logs of 24
// MB took 32 s. --rejudge records the judgements it made and leaves the
// rest (Left) to a request naming each; naming one judges it.
func TestNoteRejudgeBudget(t *testing.T) {
	const n, size = 50, 8 << 20
	var note strings.Builder
	note.WriteString("# C\n\n## Tests / falsifiers\n\n")
	var blocks strings.Builder
	for i := range n {
		fid := fmt.Sprintf("f-%04x", i)
		fmt.Fprintf(&note, "- A %d is over 2. ^%s\n  - refuted if: `json.a[0] > 1`\n", i, fid)
		id := fmt.Sprintf("20261203T13%02d%02dZ-2d8e", i/60, i%60)
		blocks.Write(evidence.RenderRun(evidence.Run{ID: id, Started: time.Date(2026, 12, 1, 13, i/60, i%60, 0, time.UTC),
			Exit: 0, Verdict: evidence.VerdictSupports, Falsifier: fmt.Sprintf("A %d is over 2.", i), FalsifierID: fid,
			Criterion: "json.a[0] = 1.5; refuted if `json.a[0] > 2`: not refuted", Log: ".zk/runs/" + id + ".log"}, "\n"))
		blocks.WriteString("\n")
	}
	note.WriteString("\n## Evidence\n\n" + blocks.String())
	// Every log is the same 8 MiB of bytes, made once: the budget counts
	// the bytes read, not the files.
	log := []byte(`{"a":[1.5,1.5]}` + strings.Repeat(" ", size-15))
	var reads atomic.Int64
	defer func(was func(*vault.Vault, string, int) ([]byte, error)) { readLogFile = was }(readLogFile)
	readLogFile = func(*vault.Vault, string, int) ([]byte, error) {
		reads.Add(1)
		return log, nil
	}
	const most = evidence.RejudgeBudget/size + 1
	w, _ := open(t, map[string]string{".obsidian/app.json": "{}", "C.md": note.String()}, Writing)
	ctx := context.Background()

	nr, err := w.Runs(ctx, "C")
	if err != nil {
		t.Fatal(err)
	}
	judged, left := 0, 0
	for _, rj := range nr.Rejudged {
		switch {
		case rj.Err == nil && rj.Now.Verdict == evidence.VerdictRefutes:
			judged++
		case errors.Is(rj.Err, evidence.ErrRejudgeBudget):
			left++
		}
	}
	if reads.Load() > most || judged == 0 || judged+left != n {
		t.Errorf("runs NOTE: read %d logs (at most %d), %d judged again, %d past the budget; want %d in all", reads.Load(), most, judged, left, n)
	}

	reads.Store(0)
	res, err := w.RejudgeRuns(ctx, RejudgeRequest{Note: "C"})
	if err != nil {
		t.Fatal(err)
	}
	if reads.Load() > most || len(res.Runs) != len(res.Judged) || len(res.Judged) == 0 || len(res.Judged)+len(res.Left) != n {
		t.Errorf("run --rejudge: read %d logs (at most %d), %d judged and recorded (%d), %d left; want %d in all", reads.Load(), most, len(res.Judged), len(res.Runs), len(res.Left), n)
	}
	for _, j := range res.Left {
		if !errors.Is(j.Err, evidence.ErrRejudgeBudget) {
			t.Errorf("falsifier %d left: %v", j.Falsifier.N, j.Err)
		}
	}
	if len(res.Left) > 0 {
		reads.Store(0)
		one, err := w.RejudgeRuns(ctx, RejudgeRequest{Note: "C", Falsifier: strconv.Itoa(res.Left[0].Falsifier.N)})
		if err != nil || len(one.Judged) != 1 || len(one.Runs) != 1 || reads.Load() != 1 {
			t.Errorf("run --rejudge --falsifier %d: %+v, %v, %d reads", res.Left[0].Falsifier.N, one, err, reads.Load())
		}
	}
}

// A note edited to bytes of the same size, its mtime set back as it was
// (touch -r, rsync -t, git checkout, a sync client), is checked again:
// the check through the cache finds what one without it finds, the new
// broken link, where a stamp of size and mtime alone answered the
// findings of the bytes before. An unchanged vault reads no note; the
// edit, that note alone.
func TestCheckSameSizeEditUnderItsOldMtime(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	w, _ := open(t, map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "# A\n\n[[B]]\n",
		"B.md":               "# B\n",
	}, Reading)
	ageFiles(t, w.Vault.Dir)
	for _, step := range []struct {
		name string
		do   func()
		read int
	}{
		{"first check", func() {}, 2},
		{"unchanged", func() {}, 0},
		{"A's link edited to one of the same size, its mtime as it was", func() {
			p := filepath.Join(w.Vault.Dir, "A.md")
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("# A\n\n[[C]]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, 1},
		{"unchanged again", func() {}, 0},
	} {
		step.do()
		got, want := checkBoth(t, w)
		if !slices.Equal(got.Findings, want.Findings) {
			t.Errorf("%s: through the cache\n%+v\nwithout\n%+v", step.name, got.Findings, want.Findings)
		}
		if got.Read != step.read {
			t.Errorf("%s: %d notes read, want %d", step.name, got.Read, step.read)
		}
	}
	if got, _ := checkBoth(t, w); !slices.ContainsFunc(got.Findings, func(f lint.Finding) bool { return f.Rule == "links/broken" }) {
		t.Errorf("no broken link found: %+v", got.Findings)
	}
}
