package evidence

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
)

// block renders a run of falsifier text (id, when set) at minute m with
// verdict v, as a note holds it.
func block(m int, text, id string, v Verdict) string {
	r := Run{
		ID:          fmt.Sprintf("20261201T10%02d00Z-%04x", m, m),
		Started:     time.Date(2026, 12, 1, 10, m, 0, 0, time.UTC),
		Verdict:     v,
		Falsifier:   text,
		FalsifierID: id,
		Command:     "true",
		Criterion:   "x = 1; refuted if `x > 0`: " + map[bool]string{true: "refuted", false: "not refuted"}[v == VerdictRefutes],
	}
	return string(RenderRun(r, "\n")) + "\n"
}

// edited is a block with a line added inside its callout: its checksum
// no longer matches.
func edited(b string) string {
	return strings.Replace(b, "> - **Command:**", "> a line added\n> - **Command:**", 1)
}

// noEnd is a block without its end marker.
func noEnd(b string) string {
	return regexp.MustCompile(`(?m)^<!-- zk:run-end .*\n`).ReplaceAllString(b, "")
}

func runID(m int) string { return fmt.Sprintf("20261201T10%02d00Z-%04x", m, m) }

func noteOf(items string, blocks ...string) *vault.Note {
	src := "# N\n\n## Tests / falsifiers\n\n" + items + "\n## Evidence\n\n" + strings.Join(blocks, "\n")
	return vault.NewParser().Parse("N.md", []byte(src))
}

func TestLatestRunsIdentity(t *testing.T) {
	tests := []struct {
		name   string
		items  string
		blocks []string
		ledger []LedgerEntry
		// want is, per falsifier, its run ids oldest first and its
		// standing refutation ("" none); deleted the same for deleted
		// ones.
		want, deleted []string
	}{
		{"by id, reworded", "- New words. ^f-0001\n- Other.\n",
			[]string{block(1, "Old words.", "f-0001", VerdictRefutes)},
			nil, []string{runID(1) + " !" + runID(1), ""}, nil},
		{"by id, reordered", "- Other.\n- Old words. ^f-0001\n",
			[]string{block(1, "Old words.", "f-0001", VerdictRefutes), block(2, "Other.", "", VerdictSupports)},
			nil, []string{runID(2), runID(1) + " !" + runID(1)}, nil},
		{"before ids: by text", "- Old words.\n",
			[]string{block(1, "Old words.", "", VerdictRefutes)},
			nil, []string{runID(1) + " !" + runID(1)}, nil},
		{"before ids: by a later block's id for the same text", "- New words. ^f-0001\n",
			[]string{block(1, "Old words.", "", VerdictRefutes), block(2, "Old words.", "f-0001", VerdictInconclusive)},
			nil, []string{runID(1) + " " + runID(2) + " !" + runID(1)}, nil},
		{"before ids: by the ledger's number, reworded", "- Other.\n- New words.\n",
			[]string{block(1, "Old words.", "", VerdictRefutes), block(2, "Other.", "", VerdictSupports)},
			[]LedgerEntry{{ID: runID(1), Falsifier: 2}}, []string{runID(2), runID(1) + " !" + runID(1)}, nil},
		{"before ids: the ledger's number names a falsifier with runs of its own", "- Other.\n",
			[]string{block(1, "Old words.", "", VerdictRefutes), block(2, "Other.", "", VerdictSupports)},
			[]LedgerEntry{{ID: runID(1), Falsifier: 1}}, []string{runID(2)}, []string{runID(1) + " !" + runID(1)}},
		{"deleted, by id", "- Other.\n",
			[]string{block(1, "Old words.", "f-0001", VerdictRefutes)},
			nil, []string{""}, []string{runID(1) + " !" + runID(1)}},
		{"the item lost its id, its text is the same", "- Old words.\n",
			[]string{block(1, "Old words.", "f-0001", VerdictRefutes)},
			nil, []string{runID(1) + " !" + runID(1)}, nil},
		{"answered by a later supporting run", "- A. ^f-0001\n",
			[]string{block(1, "A.", "f-0001", VerdictRefutes), block(2, "A.", "f-0001", VerdictSupports)},
			nil, []string{runID(1) + " " + runID(2)}, nil},
		{"not answered by a run without a verdict, an inconclusive one, an error", "- A. ^f-0001\n",
			[]string{block(1, "A.", "f-0001", VerdictRefutes), block(2, "A.", "f-0001", VerdictNone),
				block(3, "A.", "f-0001", VerdictInconclusive), block(4, "A.", "f-0001", VerdictError)},
			nil, []string{runID(1) + " " + runID(2) + " " + runID(3) + " " + runID(4) + " !" + runID(1)}, nil},
		{"a later refutation stands in place of the earlier", "- A. ^f-0001\n",
			[]string{block(1, "A.", "f-0001", VerdictRefutes), block(2, "A.", "f-0001", VerdictSupports), block(3, "A.", "f-0001", VerdictRefutes)},
			nil, []string{runID(1) + " " + runID(2) + " " + runID(3) + " !" + runID(3)}, nil},
		{"oldest first, whatever the order in the note", "- A. ^f-0001\n",
			[]string{block(2, "A.", "f-0001", VerdictSupports), block(1, "A.", "f-0001", VerdictRefutes)},
			nil, []string{runID(1) + " " + runID(2)}, nil},
		// An edited block counts only as the ledger's refutation.
		{"edited, the ledger says it refuted: it still refutes", "- A. ^f-0001\n",
			[]string{edited(block(1, "A.", "f-0001", VerdictRefutes))},
			[]LedgerEntry{{ID: runID(1), FalsifierID: "f-0001", Verdict: VerdictRefutes}}, []string{runID(1) + " !" + runID(1)}, nil},
		{"edited to say supports, the ledger says it refuted", "- A. ^f-0001\n",
			[]string{edited(strings.Replace(block(1, "A.", "f-0001", VerdictRefutes), "[!failure]", "[!success]", 1))},
			[]LedgerEntry{{ID: runID(1), FalsifierID: "f-0001", Verdict: VerdictRefutes}}, []string{runID(1) + " !" + runID(1)}, nil},
		{"end marker deleted: placed by the ledger's id", "- B. ^f-0002\n- A. ^f-0001\n",
			[]string{noEnd(block(1, "A.", "f-0001", VerdictRefutes))},
			[]LedgerEntry{{ID: runID(1), FalsifierID: "f-0001", Verdict: VerdictRefutes}}, []string{"", runID(1) + " !" + runID(1)}, nil},
		{"end marker deleted, before ids: placed by the ledger's number", "- B.\n- A.\n",
			[]string{noEnd(block(1, "A.", "", VerdictRefutes))},
			[]LedgerEntry{{ID: runID(1), Falsifier: 2, Verdict: VerdictRefutes}}, []string{"", runID(1) + " !" + runID(1)}, nil},
		{"edited, its falsifier deleted: the refutation stands as deleted", "- B. ^f-0002\n",
			[]string{edited(block(1, "A.", "f-0001", VerdictRefutes))},
			[]LedgerEntry{{ID: runID(1), FalsifierID: "f-0001", Verdict: VerdictRefutes}}, []string{""}, []string{runID(1) + " !" + runID(1)}},
		// Its criterion is no longer the record's: a later supporting run
		// answers it only as its log, judged again, says (TestAnswers);
		// no log is read here.
		{"edited, a later supporting run answers only on its log", "- A. ^f-0001\n",
			[]string{edited(block(1, "A.", "f-0001", VerdictRefutes)), block(2, "A.", "f-0001", VerdictSupports)},
			[]LedgerEntry{{ID: runID(1), FalsifierID: "f-0001", Verdict: VerdictRefutes}}, []string{runID(1) + " " + runID(2) + " !" + runID(1)}, nil},
		{"edited, the ledger says it supported: not counted", "- A. ^f-0001\n",
			[]string{block(1, "A.", "f-0001", VerdictRefutes), edited(block(2, "A.", "f-0001", VerdictSupports))},
			[]LedgerEntry{{ID: runID(2), FalsifierID: "f-0001", Verdict: VerdictSupports}}, []string{runID(1) + " !" + runID(1)}, nil},
		{"edited, not in the ledger: not counted", "- A. ^f-0001\n",
			[]string{edited(block(1, "A.", "f-0001", VerdictRefutes))},
			nil, []string{""}, nil},
		// A refuting block deleted from the note (evidence/run-vanished)
		// still refutes, as the ledger says, as an edited one does: every
		// reader of verdicts (zk runs, zk list --verdict, links/
		// rests-on-refuted) says refutes, where they said never run.
		{"deleted block, the ledger says it refuted: it still refutes", "- B. ^f-0002\n- A. ^f-0001\n",
			nil,
			[]LedgerEntry{{ID: runID(1), FalsifierID: "f-0001", Verdict: VerdictRefutes}}, []string{"", runID(1) + " !" + runID(1)}, nil},
		{"deleted block, before ids: placed by the ledger's number", "- B.\n- A.\n",
			[]string{block(2, "B.", "", VerdictSupports)},
			[]LedgerEntry{{ID: runID(1), Falsifier: 2, Verdict: VerdictRefutes}}, []string{runID(2), runID(1) + " !" + runID(1)}, nil},
		{"deleted block, a later supporting run answers only on its log", "- A. ^f-0001\n",
			[]string{block(2, "A.", "f-0001", VerdictSupports)},
			[]LedgerEntry{{ID: runID(1), FalsifierID: "f-0001", Verdict: VerdictRefutes}}, []string{runID(1) + " " + runID(2) + " !" + runID(1)}, nil},
		{"deleted block of a deleted falsifier: the refutation stands as deleted", "- B. ^f-0002\n",
			nil,
			[]LedgerEntry{{ID: runID(1), FalsifierID: "f-0001", Verdict: VerdictRefutes}}, []string{""}, []string{runID(1) + " !" + runID(1)}},
		{"deleted block the ledger says supported: nothing", "- A. ^f-0001\n",
			nil,
			[]LedgerEntry{{ID: runID(1), FalsifierID: "f-0001", Verdict: VerdictSupports}}, []string{""}, nil},
	}
	show := func(ls []Latest) []string {
		var out []string
		for _, l := range ls {
			var ids []string
			for _, r := range l.Runs {
				ids = append(ids, r.ID)
			}
			s := strings.Join(ids, " ")
			if l.Refuting.ID != "" {
				s += " !" + l.Refuting.ID
			}
			out = append(out, s)
		}
		return out
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := LatestRuns(noteOf(tt.items, tt.blocks...), tt.ledger, nil)
			if got := show(st.Falsifiers); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("falsifiers %q, want %q", got, tt.want)
			}
			if got := show(st.Deleted); fmt.Sprint(got) != fmt.Sprint(tt.deleted) {
				t.Errorf("deleted %q, want %q", got, tt.deleted)
			}
		})
	}
}

func TestFalsifierID(t *testing.T) {
	n := noteOf("- First. ^f-0001\n- Second ^custom-id\n- Third.\n- Fourth ^not an id\n")
	fs := Falsifiers(n)
	got := make([]string, len(fs))
	for i, f := range fs {
		got[i] = f.ID + "|" + f.Text
	}
	want := []string{"f-0001|First.", "custom-id|Second", "|Third.", "|Fourth ^not an id"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

var idRe = regexp.MustCompile(`\^f-[0-9a-f]{4}`)

func TestIdentifyFalsifier(t *testing.T) {
	tests := []struct {
		name, items, text string
		// want is the items after, the new id written as ^ID; "" when
		// nothing is written.
		want string
	}{
		{"one line", "- A.\n- B.\n", "B.", "- A.\n- B. ^ID\n"},
		{"trailing blanks", "- A.  \n", "A.", "- A. ^ID  \n"},
		{"a paragraph on two lines", "- A\n  continued.\n  - run: `true`\n", "A", "- A\n  continued. ^ID\n  - run: `true`\n"},
		{"nested items", "- A.\n  - refuted if: `exit != 0`\n", "A.", "- A. ^ID\n  - refuted if: `exit != 0`\n"},
		{"crlf", "- A.\r\n- B.\r\n", "A.", "- A. ^ID\r\n- B.\r\n"},
		{"has an id", "- A. ^mine\n", "A.", ""},
		{"not found", "- A.\n", "Gone.", ""},
		{"two with the text", "- A.\n- A.\n", "A.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte("# N\n\n## Tests / falsifiers\n\n" + tt.items + "\n## Evidence\n")
			out, r := IdentifyFalsifier(src, "N.md", Run{Falsifier: tt.text})
			if tt.want == "" {
				if string(out) != string(src) {
					t.Errorf("wrote %q", out)
				}
				if tt.name == "has an id" && r.FalsifierID != "mine" {
					t.Errorf("FalsifierID %q, want the item's own", r.FalsifierID)
				}
				return
			}
			id := idRe.FindString(string(out))
			if id == "" || r.FalsifierID != id[1:] {
				t.Fatalf("id %q, FalsifierID %q in %q", id, r.FalsifierID, out)
			}
			want := "# N\n\n## Tests / falsifiers\n\n" + strings.ReplaceAll(tt.want, "^ID", id) + "\n## Evidence\n"
			if string(out) != want {
				t.Errorf("got %q, want %q", out, want)
			}
		})
	}
}

func TestNewFalsifierIDAvoidsTaken(t *testing.T) {
	n := noteOf("- A. ^f-0001\n")
	if id, _ := newFalsifierID(n, "f-0001"); id == "f-0001" {
		t.Errorf("took an id the note uses")
	}
	if id, _ := newFalsifierID(n, "f-0002"); id != "f-0002" {
		t.Errorf("id %q, want the preferred free one", id)
	}
	for range 100 {
		if id, _ := newFalsifierID(n, ""); id == "f-0001" || !IsBlockID(id) {
			t.Fatalf("id %q", id)
		}
	}
}

func TestStatedCriterion(t *testing.T) {
	tests := []struct{ stmt, want string }{
		{"x = 1; refuted if `x > 0`: refuted", "x > 0"},
		{"refuted if `rate < 100`: not evaluated: rate is missing", "rate < 100"},
		{"a = \"`\"; refuted if `` a == \"`\" ``: not refuted", "a == \"`\""},
		{"not evaluated: refuted if: unknown name speed (column 1)", ""},
		{"", ""},
		{"refuted if `unclosed", ""},
	}
	for _, tt := range tests {
		got, ok := StatedCriterion(tt.stmt)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("StatedCriterion(%q) = %q, %v; want %q", tt.stmt, got, ok, tt.want)
		}
		if tt.want != "" {
			// What Judge writes reads back.
			if back, _ := StatedCriterion(NotEvaluated(tt.want, "why")); back != tt.want {
				t.Errorf("NotEvaluated(%q) reads back as %q", tt.want, back)
			}
		}
	}
}
