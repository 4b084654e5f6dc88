package evidence

import (
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
