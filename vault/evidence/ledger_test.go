package evidence

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestReadLedgerFollowsMoves(t *testing.T) {
	lines := strings.Join([]string{
		`{"id":"r1","note":"A.md","falsifier_id":"f-0001","verdict":"refutes"}`,
		`{"id":"r2","note":"X.md","verdict":"supports"}`,
		`{"moved":"A.md","to":"B.md"}`,
		// A new note at A's old path has entries of its own.
		`{"id":"r3","note":"A.md","verdict":"refutes"}`,
		`{"moved":"B.md","to":"d/C.md"}`,
		`{"moved":"gone.md","to":"E.md"}`,
		`not json`,
	}, "\n") + "\n"
	got := ReadLedger([]byte(lines))
	show := func(es []LedgerEntry) string {
		var s []string
		for _, e := range es {
			s = append(s, fmt.Sprintf("%s@%s:%d", e.ID, e.Note, e.Line))
		}
		return strings.Join(s, " ")
	}
	for p, want := range map[string]string{"d/C.md": "r1@d/C.md:1", "A.md": "r3@A.md:4", "X.md": "r2@X.md:2", "B.md": "", "E.md": ""} {
		if s := show(got[p]); s != want {
			t.Errorf("%s: %q, want %q", p, s, want)
		}
	}
	if len(got) != 3 {
		t.Errorf("notes %d, want 3: %v", len(got), got)
	}
}

func TestLedgerMoves(t *testing.T) {
	ledger := map[string][]LedgerEntry{"a/x.md": nil, "a/y/z.md": nil, "ab.md": nil, "a.md": nil}
	show := func(ms []LedgerMove) string { return fmt.Sprint(ms) }
	if got, want := show(LedgerMoves(ledger, "a", "b", true)), "[{a/x.md b/x.md} {a/y/z.md b/y/z.md}]"; got != want {
		t.Errorf("folder: %s, want %s", got, want)
	}
	if got, want := show(LedgerMoves(ledger, "a.md", "c.md", false)), "[{a.md c.md}]"; got != want {
		t.Errorf("file: %s, want %s", got, want)
	}
	if got := LedgerMoves(ledger, "none.md", "c.md", false); len(got) != 0 {
		t.Errorf("a note without entries: %v", got)
	}
	// What LedgerMoves makes, ReadLedger follows.
	b := LedgerLine(LedgerEntry{ID: "r1", Note: "a/x.md", Verdict: VerdictRefutes})
	for _, m := range LedgerMoves(map[string][]LedgerEntry{"a/x.md": nil}, "a", "b", true) {
		b = append(b, fmt.Sprintf(`{"moved":%q,"to":%q}`+"\n", m.Moved, m.To)...)
	}
	if got := ReadLedger(b)["b/x.md"]; len(got) != 1 || got[0].Note != "b/x.md" {
		t.Errorf("ReadLedger after the moves = %v", ReadLedger(b))
	}
}

func TestRehome(t *testing.T) {
	const runA = "20261201T100100Z-0001"
	block := "<!-- zk:run id=" + runA + " v=1 -->\n"
	entry := LedgerEntry{ID: runA, Note: "A.md", FalsifierID: "f-0001", Verdict: VerdictRefutes, Line: 1}
	tests := []struct {
		name  string
		notes map[string]string
		want  string // the entry's home, "-" an orphan
	}{
		{"its block in its note", map[string]string{"A.md": block, "B.md": "- x ^f-0001\n"}, "A.md"},
		{"its block gone, its falsifier in its note", map[string]string{"A.md": "- x ^f-0001\n", "B.md": "- y ^f-0001\n"}, "A.md"},
		{"renamed: its block elsewhere", map[string]string{"R.md": "- x ^f-0001\n" + block}, "R.md"},
		{"renamed, its block deleted: its falsifier id", map[string]string{"R.md": "- x ^f-0001\n", "S.md": "- y ^f-00012\n"}, "R.md"},
		{"merged: its falsifier id in another note, its own without it", map[string]string{"A.md": "# A\n", "B.md": "- x ^f-0001\n"}, "B.md"},
		{"its falsifier id in two other notes, its own there", map[string]string{"A.md": "# A\n", "B.md": "^f-0001\n", "C.md": "^f-0001\n"}, "A.md"},
		{"its falsifier id in two other notes, its own gone", map[string]string{"B.md": "^f-0001\n", "C.md": "^f-0001\n"}, "-"},
		{"all gone", map[string]string{"B.md": "# B\n"}, "-"},
		// A copy of a renamed note: the block in two notes, the first by
		// path holds it.
		{"copied: its block in two notes", map[string]string{"S.md": "- x ^f-0001\n" + block, "R.md": "- x ^f-0001\n" + block}, "R.md"},
		// The block cut from its note and pasted into another (an
		// archive of old runs), its falsifier still in its note: the
		// refutation is of its note's claim, and stays there, where its
		// block is gone (evidence/run-vanished), not in the archive.
		{"its block moved to another note, its falsifier in its own", map[string]string{"A.md": "- x ^f-0001\n", "Archive.md": block}, "A.md"},
		{"its block moved to a note holding its falsifier id too, its falsifier in its own", map[string]string{"A.md": "- x ^f-0001\n", "B.md": "- x ^f-0001\n" + block}, "A.md"},
		// Split: the falsifier went with its block.
		{"its block and its falsifier moved to another note", map[string]string{"A.md": "# A\n", "B.md": "- x ^f-0001\n" + block}, "B.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ledger := map[string][]LedgerEntry{"A.md": {entry, {ID: "other", Note: "A.md", Verdict: VerdictSupports, Line: 2}}}
			reads := 0
			read := func(p string) ([]byte, bool) { s, ok := tt.notes[p]; return []byte(s), ok }
			each := func(f func(string, Held)) {
				reads++
				for p, s := range tt.notes {
					f(p, HeldIn([]byte(s)))
				}
			}
			h := Rehome(ledger, read, each)
			got := "-"
			for p, es := range h.Notes {
				for _, e := range es {
					if e.ID == runA {
						got = p
					}
				}
			}
			if got != tt.want {
				t.Errorf("home %s, want %s", got, tt.want)
			}
			// A note gone whose refutation went elsewhere was renamed:
			// its other runs go with it, as the run that answered the
			// refutation answers only in the note the ledger places it
			// in (answer.go).
			wantOther := "A.md"
			if _, ok := tt.notes["A.md"]; !ok && tt.want != "-" {
				wantOther = tt.want
			}
			for p, es := range h.Notes {
				for _, e := range es {
					if e.ID == "other" && p != wantOther {
						t.Errorf("the supporting entry in %s, want %s", p, wantOther)
					}
				}
			}
			if (len(h.Orphans) == 1) != (tt.want == "-") {
				t.Errorf("orphans %v", h.Orphans)
			}
			if (len(h.Moved) > 0) != (tt.want != "A.md") {
				t.Errorf("moved %v: the cache key must say where it went", h.Moved)
			}
			if tt.want == "A.md" && strings.Contains(tt.notes["A.md"], block) && reads != 0 {
				t.Errorf("the vault read for an entry whose block is in its note")
			}
			if len(ledger["A.md"]) != 2 {
				t.Errorf("the ledger given was changed: %v", ledger)
			}
		})
	}
}

// HeldIn's lookups say what a read of the note's bytes says, for every id
// zk writes (a block id): the run's block start, the block id as Obsidian
// ends a block with it.
func TestHeldIn(t *testing.T) {
	long := strings.Repeat("a", 64)
	tests := []struct {
		src       string
		runs, ids string
		notRuns   []string
		notBlocks []string
	}{
		{"", "", "", []string{"r1"}, []string{"f-0001"}},
		{"<!-- zk:run id=r1 v=1 -->\n- x ^f-0001\n", "r1", "f-0001", []string{"r", "r12"}, []string{"f-000", "f-00012"}},
		// No space after the id: not a block's start.
		{"<!-- zk:run id=r1", "", "", []string{"r1"}, nil},
		{"<!-- zk:run id=r1-->", "", "", []string{"r1"}, nil},
		// Repeats, and ids in any order: sorted, once each.
		{"^b ^a ^b <!-- zk:run id=z x <!-- zk:run id=y x <!-- zk:run id=z x", "y z", "a b", nil, nil},
		// A block id ends at a character no id holds, or the end.
		{"x^f-1.\nfootnote[^2]\n^end", "", "2 end f-1", nil, []string{"f", "en"}},
		{"^" + long + " ^" + long + "b", "", long, nil, []string{long + "b"}},
		// A marker inside a marker's id.
		{"<!-- zk:run id=ab<!-- zk:run id=cd x", "cd", "", []string{"ab"}, nil},
		{"^^a ^", "", "a", nil, nil},
	}
	for _, tt := range tests {
		h := HeldIn([]byte(tt.src))
		if h.Runs != tt.runs || h.Blocks != tt.ids {
			t.Errorf("HeldIn(%q) = %+v, want runs %q, blocks %q", tt.src, h, tt.runs, tt.ids)
		}
		for _, id := range strings.Fields(tt.runs) {
			if !h.HasRun(id) {
				t.Errorf("%q: HasRun(%q) false", tt.src, id)
			}
		}
		for _, id := range strings.Fields(tt.ids) {
			if !h.HasBlock(id) {
				t.Errorf("%q: HasBlock(%q) false", tt.src, id)
			}
		}
		for _, id := range tt.notRuns {
			if h.HasRun(id) {
				t.Errorf("%q: HasRun(%q) true", tt.src, id)
			}
		}
		for _, id := range tt.notBlocks {
			if h.HasBlock(id) {
				t.Errorf("%q: HasBlock(%q) true", tt.src, id)
			}
		}
	}
}

// FuzzHeldIn: for any note and any block id, what HeldIn holds is what a
// read of the note's bytes finds (Rehome's lookups before Held).
func FuzzHeldIn(f *testing.F) {
	f.Add("<!-- zk:run id=r1 v=1 -->\n- x ^f-0001\n", "r1")
	f.Add("- x ^f-0001\n", "f-0001")
	f.Add("^f-00012 <!-- zk:run id=f-0001", "f-0001")
	f.Add("<!-- zk:run id=ab<!-- zk:run id=cd x ^^cd", "cd")
	f.Fuzz(func(t *testing.T, note, id string) {
		if !IsBlockID(id) {
			return // none zk writes: found in no other note
		}
		src := []byte(note)
		h := HeldIn(src)
		if got, want := h.HasRun(id), bytes.Contains(src, runStartMarker(id)); got != want {
			t.Errorf("HasRun(%q) = %v, the bytes say %v (%+v)", id, got, want, h)
		}
		if got, want := h.HasBlock(id), hasBlockID(src, id); got != want {
			t.Errorf("HasBlock(%q) = %v, the bytes say %v (%+v)", id, got, want, h)
		}
	})
}

// A copy's refutation stays the copy's: the copy deleted, the original
// holds the same falsifier id, and the ledger recorded runs of it in the
// original before the refutation, so the original is no rename of the
// copy. It became the original's refutation (falsifiers/refuted on a run
// never made there); now it is an orphan, the refutation of a note
// deleted. A note whose runs of that id came only after is followed, as
// before.
func TestRehomeLeavesACopysRefutation(t *testing.T) {
	const runC = "20261201T100200Z-0002"
	for _, tt := range []struct {
		name     string
		origLine int
		want     string
	}{
		{"the original ran it before the copy's refutation", 1, "-"},
		{"its runs came after", 3, "O.md"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ledger := map[string][]LedgerEntry{
				"O.md": {{ID: "20261201T100100Z-0001", Note: "O.md", FalsifierID: "f-0001", Verdict: VerdictSupports, Line: tt.origLine}},
				"C.md": {{ID: runC, Note: "C.md", FalsifierID: "f-0001", Verdict: VerdictRefutes, Line: 2}},
			}
			notes := map[string]string{"O.md": "- x ^f-0001\n"}
			read := func(p string) ([]byte, bool) { s, ok := notes[p]; return []byte(s), ok }
			each := func(f func(string, Held)) {
				for p, s := range notes {
					f(p, HeldIn([]byte(s)))
				}
			}
			h := Rehome(ledger, read, each)
			got := "-"
			for p, es := range h.Notes {
				for _, e := range es {
					if e.ID == runC {
						got = p
					}
				}
			}
			if got != tt.want {
				t.Errorf("home %s, want %s", got, tt.want)
			}
		})
	}
}
