package evidence

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault"
)

// FuzzInsertRun: for any note and any output, the note after InsertRun is
// the note before with one contiguous insertion inside its Evidence
// section, and the inserted block reads back intact.
func FuzzInsertRun(f *testing.F) {
	f.Add("# T\n\n## Evidence\n\nText.\n\n## Links\n", "ok\nline 2")
	f.Add("\ufeff## Evidence\r\nA\r\n## Links", "\x1b[31mred\x1b[0m\r\nprogress\rdone")
	f.Add("## Evidence", "```\n<!-- zk:run-end id=x sum=y -->")
	f.Add("## Evidence\n\n```\n## Links\n", "\xff\xfe")
	f.Add("---\ntitle: x\n---\n## Evidence\n- a\n  - b\n> quote\n### Runs\n", "")
	f.Add("## Claim\n", "no evidence section")
	f.Fuzz(func(t *testing.T, note, output string) {
		src := []byte(note)
		r := sampleRun()
		r.Output = &Output{Lines: strings.Count(output, "\n") + 1, Tail: strings.Split(output, "\n")}
		r.Falsifier = output
		n := vault.NewParser().Parse("", src)
		sec, hasEvidence := n.Section(EvidenceSection, 0)
		got, err := InsertRun(src, r)
		if !hasEvidence {
			if !errors.Is(err, ErrNoEvidence) {
				t.Fatalf("no Evidence section: err = %v", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		// The longest common prefix and suffix leave the insertion.
		p := 0
		for p < len(src) && src[p] == got[p] {
			p++
		}
		s := 0
		for s < len(src)-p && src[len(src)-1-s] == got[len(got)-1-s] {
			s++
		}
		if p+s != len(src) {
			t.Fatalf("not one insertion: %d bytes kept of %d\nbefore %q\nafter  %q", p+s, len(src), src, got)
		}
		// The insertion may slide within equal bytes; some placement of it
		// must fall inside the section.
		lo, hi := len(src)-s, p // any insertion offset in [lo, hi] gives got
		if hi < sec.Body || lo > sec.End {
			t.Fatalf("insertion at [%d,%d] outside Evidence [%d,%d]\nafter %q", lo, hi, sec.Body, sec.End, got)
		}
		ins := got[len(src)-s : len(got)-s]
		if !bytes.Contains(ins, []byte("<!-- zk:run id="+r.ID)) && !bytes.Contains(got, []byte("<!-- zk:run id="+r.ID)) {
			t.Fatalf("block missing from insertion %q", ins)
		}
		var found bool
		for _, run := range ParseRuns(got) {
			if run.ID == r.ID && run.Problem == "" {
				found = true
			}
		}
		if !found {
			t.Fatalf("inserted block does not read back intact: %+v\n%q", ParseRuns(got), got)
		}
	})
}

// FuzzIdentifyFalsifier: for any note, giving a falsifier its identity
// changes nothing but one " ^id" inserted, and the id reads back as that
// falsifier's, its text unchanged.
func FuzzIdentifyFalsifier(f *testing.F) {
	f.Add("## Tests / falsifiers\n\n- A.\n  - run: `true`\n\n## Evidence\n", "A.")
	f.Add("## Tests / falsifiers\r\n\r\n- A\r\n  continued\r\n- B ^b\r\n", "A")
	f.Add("## Tests / falsifiers\n\n- A. ^x\n- A.\n", "A.")
	f.Add("## Tests / falsifiers\n\n- `code` $$\n  ```zk-run\n  true\n  ```\n", "`code` $$")
	f.Add("## Tests / falsifiers\n\n1. A\\\n2. B\n", "A\\")
	f.Fuzz(func(t *testing.T, note, text string) {
		src := []byte(note)
		out, r := IdentifyFalsifier(src, "N.md", Run{Falsifier: text})
		if bytes.Equal(out, src) {
			return
		}
		ins := " ^" + r.FalsifierID
		if len(out) != len(src)+len(ins) || !IsBlockID(r.FalsifierID) {
			t.Fatalf("wrote %q for id %q", out, r.FalsifierID)
		}
		p := 0
		for p < len(src) && src[p] == out[p] {
			p++
		}
		if string(out[p:p+len(ins)]) != ins || !bytes.Equal(out[p+len(ins):], src[p:]) {
			t.Fatalf("not one insertion of %q: %q → %q", ins, src, out)
		}
		found := false
		for _, f := range Falsifiers(vault.NewParser().Parse("N.md", out)) {
			if f.ID == r.FalsifierID {
				found = oneLine(f.Text) == oneLine(text)
			}
		}
		if !found {
			t.Fatalf("id %q does not read back on a falsifier quoting %q in %q", r.FalsifierID, text, out)
		}
	})
}

// FuzzStatements: reading a statement back never fails on any text: the
// criterion it names and the values it states.
func FuzzStatements(f *testing.F) {
	f.Add("rate = 31; refuted if `rate < 50`: refuted")
	f.Add("a = 1 (95% interval 0.5–1.5, n = 12: x; y); b = \"(\"; refuted if `` a `b` ``: not refuted, 100% of 2,000 resamples agree (95% needed)")
	f.Add("not evaluated: refuted if: x")
	f.Add("x = (((; refuted if ``")
	f.Fuzz(func(t *testing.T, stmt string) {
		if c, ok := StatedCriterion(stmt); ok && !strings.Contains(stmt, c) && !strings.Contains(stmt, strings.TrimSpace(c)) {
			t.Fatalf("criterion %q is not in %q", c, stmt)
		}
		for _, v := range StatedValues(stmt) {
			if !strings.Contains(stmt, v.Expr) {
				t.Fatalf("value %+v is not in %q", v, stmt)
			}
		}
	})
}
