package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/query"
)

// reopen opens the vault of w again, as the next command would: nothing
// of w's memos kept, the model file (the same $XDG_CACHE_HOME) as w left
// it.
func reopen(t *testing.T, w *Workspace) *Workspace {
	t.Helper()
	o, err := Open(context.Background(), Options{Dir: w.Vault.Dir, Access: Reading, Version: w.version, Today: w.Today, Pinned: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}

// holdsOf is every note's holds, through their section of the model file.
func holdsOf(ctx context.Context, w *Workspace) ([]query.Holds, error) {
	files, _, err := w.Vault.Files(ctx)
	if err != nil {
		return nil, err
	}
	return cachedNotes(w, ctx, files, w.holdsNote(ctx, files))
}

// countNoteReads counts homedLedger's reads of notes but skip's, for the
// rest of the test.
func countNoteReads(t *testing.T, skip string) *atomic.Int64 {
	var reads atomic.Int64 // the notes are read from several goroutines
	was := readNoteFile
	t.Cleanup(func() { readNoteFile = was })
	readNoteFile = func(v *vault.Vault, p string, max int64) ([]byte, error) {
		if p != skip {
			reads.Add(1)
		}
		return was(v, p, max)
	}
	return &reads
}

// The ledger's refutations are placed from the model file as they are
// from the notes read (evidence.Rehome): cold (every note read, the
// section written) and warm (from the section), in every shape Rehome
// decides, a copy of a note holding the same block included.
func TestHomedFromTheModel(t *testing.T) {
	const run = "20261201T100100Z-0001"
	block := "<!-- zk:run id=" + run + " v=1 -->\n"
	ledger := `{"id":"` + run + `","note":"A.md","falsifier_id":"f-0001","verdict":"refutes"}` + "\n" +
		`{"id":"other","note":"A.md","verdict":"supports"}` + "\n"
	for _, tc := range []struct {
		name  string
		notes map[string]string
		want  string // the entry's home, "-" an orphan
	}{
		{"its block in its note", map[string]string{"A.md": block, "B.md": "- x ^f-0001\n"}, "A.md"},
		{"its block gone, its falsifier in its note", map[string]string{"A.md": "- x ^f-0001\n", "B.md": "- y ^f-0001\n"}, "A.md"},
		{"renamed: its block elsewhere", map[string]string{"R.md": "- x ^f-0001\n" + block}, "R.md"},
		{"renamed, its block deleted: its falsifier id", map[string]string{"R.md": "- x ^f-0001\n", "S.md": "- y ^f-00012\n"}, "R.md"},
		{"merged", map[string]string{"A.md": "# A\n", "B.md": "- x ^f-0001\n"}, "B.md"},
		{"its falsifier id in two other notes, its own there", map[string]string{"A.md": "# A\n", "B.md": "^f-0001\n", "C.md": "^f-0001\n"}, "A.md"},
		{"its falsifier id in two other notes, its own gone", map[string]string{"B.md": "^f-0001\n", "C.md": "^f-0001\n"}, "-"},
		{"copied: its block in two notes", map[string]string{"S.md": "- x ^f-0001\n" + block, "R.md": "- x ^f-0001\n" + block}, "R.md"},
		{"all gone", map[string]string{"B.md": "# B\n", "sub/C.md": "^f-00011\n"}, "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			files := map[string]string{".obsidian/app.json": "{}", ".zk/runs/ledger.jsonl": ledger}
			for p, s := range tc.notes {
				files[p] = s
			}
			w, _ := open(t, files, Reading)
			ageFiles(t, w.Vault.Dir)
			want := w.homedLedgerBy(false, nil) // every note read
			home := "-"
			for p, es := range want.Notes {
				for _, e := range es {
					if e.ID == run {
						home = p
					}
				}
			}
			if home != tc.want {
				t.Fatalf("read: home %s, want %s", home, tc.want)
			}
			reads := countNoteReads(t, "A.md") // its own note is read, as ever
			for _, when := range []string{"cold", "warm"} {
				reads.Store(0)
				got := reopen(t, w).homedLedgerBy(true, nil)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: from the model %+v, from the notes %+v", when, got, want)
				}
				if n := reads.Load(); when == "warm" && n != 0 {
					t.Errorf("warm: %d other notes read", n)
				}
			}
		})
	}
}

// A vault holding a refuted note deleted is answered from the model
// file: an unchanged vault reads no note to place the refutation (each
// was read by every zk check, list and runs: 0.6 s of CPU at 10,000
// notes), a note changed is read alone, and --no-cache reads every note.
// The answers are those of every note read.
func TestOrphanPlacedWithoutReadingEveryNote(t *testing.T) {
	const notes = 20
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	files := map[string]string{
		".obsidian/app.json": "{}",
		".zk/runs/ledger.jsonl": `{"id":"20261201T100100Z-0001","note":"Gone.md","falsifier":1,"falsifier_id":"f-dead","verdict":"refutes"}` + "\n" +
			`{"id":"20261201T100200Z-0002","note":"N00.md","falsifier":1,"verdict":"supports"}` + "\n",
	}
	for i := range notes {
		files[fmt.Sprintf("N%02d.md", i)] = fmt.Sprintf("# N%02d\n\n## Tests / falsifiers\n\n- It holds. ^f-%04d\n", i, i)
	}
	w, _ := open(t, files, Reading)
	ageFiles(t, w.Vault.Dir)
	ctx := context.Background()
	reads := countNoteReads(t, "Gone.md")
	atLedger := func(findings []lint.Finding) bool {
		for _, f := range findings {
			if f.Rule == lint.RuleRunVanished && f.Path == ".zk/runs/ledger.jsonl" {
				return true
			}
		}
		return false
	}
	readers := []struct {
		name   string
		answer func(w *Workspace) (any, error)
	}{
		{"check", func(w *Workspace) (any, error) {
			res, err := w.Check(ctx, CheckRequest{})
			return res.Findings, err // Read, how many were read, differs
		}},
		{"list", func(w *Workspace) (any, error) {
			r, err := w.List(ctx, ListRequest{Verdicts: []string{"refutes", "supports"}})
			return listed(r, nil), err
		}},
		{"runs", func(w *Workspace) (any, error) { return w.Verdicts(ctx) }},
	}
	want := map[string]any{}
	for _, r := range readers { // cold: every note read, the model file written
		got, err := r.answer(reopen(t, w))
		if err != nil {
			t.Fatal(err)
		}
		want[r.name] = got
	}
	if !atLedger(want["check"].([]lint.Finding)) {
		t.Fatalf("no evidence/run-vanished at the ledger's line: %+v", want["check"])
	}
	for _, r := range readers {
		reads.Store(0)
		got, err := r.answer(reopen(t, w))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want[r.name]) {
			t.Errorf("%s, unchanged: %+v, want %+v", r.name, got, want[r.name])
		}
		if n := reads.Load(); n != 0 {
			t.Errorf("%s, unchanged: %d notes read to place the refutation, want none", r.name, n)
		}
	}
	reads.Store(0)
	res, err := reopen(t, w).Check(ctx, CheckRequest{NoCache: true})
	if err != nil || !atLedger(res.Findings) {
		t.Fatalf("check --no-cache: %+v (%v)", res, err)
	}
	if n := reads.Load(); n != notes {
		t.Errorf("check --no-cache: %d notes read, want every one (%d)", n, notes)
	}

	// A note changed takes the falsifier id: the refutation goes there,
	// that note alone read.
	p := filepath.Join(w.Vault.Dir, "N07.md")
	if err := os.WriteFile(p, []byte("# N07\n\n## Tests / falsifiers\n\n- It holds. ^f-dead\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute) // settled, and not the stamp's time
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	reads.Store(0)
	res, err = reopen(t, w).Check(ctx, CheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range res.Findings {
		found = found || f.Rule == lint.RuleRunVanished && f.Path == "N07.md" && strings.Contains(f.Message, "f-dead")
	}
	if !found || atLedger(res.Findings) {
		t.Errorf("after N07 took the falsifier id: %+v, want evidence/run-vanished in N07.md alone", res.Findings)
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("after N07 changed: %d notes read to place the refutation, want 1", n)
	}
}
