package lint

import (
	"strings"
	"testing"
)

// SummaryLen is the length AppendSummary writes, to the byte, for
// summaries of every field and of lengths whose uvarints take one byte,
// two and three.
func TestSummaryLen(t *testing.T) {
	long := strings.Repeat("x", 200)
	for _, s := range []Summary{
		{},
		{Path: "a.md", sum: noteSummary{name: "a"}},
		{Path: "n/" + long + ".md", sum: noteSummary{name: long, headings: []string{"H", long, ""}, blocks: []string{"b1"},
			aliases: []string{"A", "é"}, refuted: "why", relations: []string{"supports", "refines"},
			restsOn: []restEdge{{link: "b", relation: "supports", line: 3, column: 200, endLine: 1 << 20, endColumn: -1},
				{link: long, relation: "refines", line: 127, column: 128, endLine: 16383, endColumn: 16384}}}},
		{Path: "m.md", sum: noteSummary{headings: make([]string, 300)}},
	} {
		if got, want := SummaryLen(s), len(AppendSummary(nil, s)); got != want {
			t.Errorf("SummaryLen(%q) = %d, AppendSummary wrote %d", s.Path, got, want)
		}
	}
}
