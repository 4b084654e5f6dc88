package main

import (
	"bytes"
	"testing"

	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/view"
	"github.com/zk-claims/zk/workspace"
)

// TestStreamedFindingsAreWriteJSONs: check's json and sarif output, written
// a finding at a time, is byte for byte what writeJSON printed of the
// whole document, for no finding, one and many, with text JSON escapes
// (quotes, control bytes, "<&>" left as they are, non-ASCII).
func TestStreamedFindingsAreWriteJSONs(t *testing.T) {
	many := make([]lint.Finding, 0, 300)
	for i := range 300 {
		many = append(many, lint.Finding{Path: "a/<b&c>.md", Line: i + 1, Column: 2, EndLine: i + 1, EndColumn: 9,
			Rule: "links/broken", Severity: lint.Severity(i % 2), Message: "\"x\" \x1b[31m \u2028 é → [[y]]"})
	}
	for _, findings := range [][]lint.Finding{nil, many[:1], many} {
		r := checkReport{CheckResult: workspace.CheckResult{Findings: findings, Notes: 7}, Vault: "/v", WorkDir: "/v"}

		var whole, streamed bytes.Buffer
		if err := writeJSON(&whole, view.NewCheck(r.CheckResult, lint.CommandLine)); err != nil {
			t.Fatal(err)
		}
		if err := writeCheckJSON(&streamed, r, false); err != nil {
			t.Fatal(err)
		}
		if whole.String() != streamed.String() {
			t.Errorf("%d findings: json streamed differs:\n%s\nwant\n%s", len(findings), streamed.String(), whole.String())
		}

		log, index := sarifHead()
		for _, f := range findings {
			log.Runs[0].Results = append(log.Runs[0].Results, sarifResultOf(r, f, index))
		}
		whole.Reset()
		streamed.Reset()
		if err := writeJSON(&whole, log); err != nil {
			t.Fatal(err)
		}
		if err := writeSARIF(&streamed, r, false); err != nil {
			t.Fatal(err)
		}
		if whole.String() != streamed.String() {
			t.Errorf("%d findings: sarif streamed differs:\n%s\nwant\n%s", len(findings), streamed.String(), whole.String())
		}
	}
}

// TestWriteJSONArrayWritesAsItGoes: 600 KB of elements reach the writer a
// buffer's worth at a time, not in one write of the whole, and a document
// without the one empty array named is refused, not printed half.
func TestWriteJSONArrayWritesAsItGoes(t *testing.T) {
	var w countingWriter
	const n = 20_000
	doc := struct {
		Items []string `json:"items"`
	}{Items: []string{}}
	err := writeJSONArray(&w, doc, "items", n, func(int) any { return "an element of some thirty bytes" })
	if err != nil {
		t.Fatal(err)
	}
	if w.writes < 2 {
		t.Errorf("%d bytes in %d writes: the whole array was held", w.n, w.writes)
	}
	if err := writeJSONArray(&w, struct{ A, B []int }{[]int{}, []int{}}, "C", 1, nil); err == nil {
		t.Error("a document without the array was written")
	}
}

type countingWriter struct{ n, writes int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	c.writes++
	return len(p), nil
}
