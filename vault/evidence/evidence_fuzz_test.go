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
