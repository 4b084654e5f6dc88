package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rivo/uniseg"
)

// TestTable: columns line up as a terminal draws them (an emoji with
// VS16 is two columns, as are CJK characters; a combining accent none),
// the header is always there, and the last column wraps to the width, or
// goes under its row when the others leave it too little room.
func TestTable(t *testing.T) {
	tests := []struct {
		name  string
		t     table
		width int
		want  string
	}{
		{"widths", table{header: []string{"PATH", "TYPE"}, rows: [][]string{
			{"❤️ Love.md", "x"}, {"标注.md", "y"}, {"e\u0301te\u0301.md", "z"}, {"plain.md", "w"}}}, 0,
			"PATH        TYPE\n" +
				"❤️ Love.md  x\n" +
				"标注.md     y\n" +
				"e\u0301te\u0301.md      z\n" +
				"plain.md    w\n"},
		{"right", table{header: []string{"N", "NAME"}, right: map[int]bool{0: true}, rows: [][]string{{"7", "a"}, {"123", "b"}}}, 0,
			"  N  NAME\n  7  a\n123  b\n"},
		{"wrap", table{header: []string{"RUN", "COMMAND"}, rows: [][]string{
			{"r1", "zk probe openai --url http://127.0.0.1:8080/v1 --concurrency 1,4,16 --format json"}}}, 40,
			"RUN  COMMAND\n" +
				"r1   zk probe openai --url\n" +
				"     http://127.0.0.1:8080/v1\n" +
				"     --concurrency 1,4,16 --format json\n"},
		{"under", table{header: []string{"A", "B"}, rows: [][]string{
			{strings.Repeat("a", 30), "one two three four five six seven eight nine ten"}}}, 40,
			"A                               B\n" +
				strings.Repeat("a", 30) + "\n" +
				"    one two three four five six seven\n" +
				"    eight nine ten\n"},
		{"keep last", table{header: []string{"DUE", "NOTE"}, keepLast: true, rows: [][]string{
			{"today", "Permanent Notes/A rather long note name that will not fit.md"}}}, 40,
			"DUE\n" +
				"    NOTE\n" +
				"today\n" +
				"    Permanent Notes/A rather long note name that will not fit.md\n"},
		{"keep last, fits", table{header: []string{"DUE", "NOTE"}, keepLast: true, rows: [][]string{
			{"today", "Permanent Notes/Short.md"}}}, 40,
			"DUE    NOTE\n" +
				"today  Permanent Notes/Short.md\n"},
		{"stacked", table{header: []string{"NOTE", "N", "VERDICT", "CRITERION"}, right: map[int]bool{1: true}, rows: [][]string{
			{"Permanent Notes/A rather long note name.md", "1", "refutes", "rate = 50; refuted if rate < 100: refuted"},
			{"B.md", "12", "never-run", ""}}}, 44,
			"NOTE\n" +
				"     N  VERDICT    CRITERION\n" +
				"Permanent Notes/A rather long note name.md\n" +
				"     1  refutes    rate = 50; refuted if\n" +
				"                   rate < 100: refuted\n" +
				"B.md\n" +
				"    12  never-run\n"},
		{"broken word", table{header: []string{"X", "Y"}, rows: [][]string{
			{"x", strings.Repeat("b", 60)}}}, 30 + 3,
			"X  Y\n" +
				"x  " + strings.Repeat("b", 30) + "\n" +
				"   " + strings.Repeat("b", 30) + "\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := tt.t.write(&b, tt.width); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, b.String(), tt.want)
		}
		for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if tt.width > 0 && !strings.HasSuffix(l, ".md") && cellWidth(l) > tt.width {
				t.Errorf("%s: %q is %d columns, wider than %d", tt.name, l, cellWidth(l), tt.width)
			}
		}
	}
}

// cellWidth's ASCII shortcut measures what uniseg measures.
func TestCellWidthAgreesWithUniseg(t *testing.T) {
	for _, s := range []string{"", "Permanent Notes/00/Claim 00001 about cache.md", "tab\there", "del\x7f", "日本語.md", "e\u0301", "👍🏽 ok", "a\x1b[31m"} {
		if got, want := cellWidth(s), uniseg.StringWidth(s); got != want {
			t.Errorf("cellWidth(%q) = %d, uniseg says %d", s, got, want)
		}
	}
}

// TestTableWholeAgreesWithLines: with no width (a pipe), a table is
// written line by line from one buffer (writeWhole); it writes what its
// lines are, for every shape of table: cells missing, empty or ending in
// spaces, a last column aligned right or kept, wide characters.
func TestTableWholeAgreesWithLines(t *testing.T) {
	rows := [][]string{{"❤️ Love.md", "12", "x", "a b "}, {"标注.md"}, {"", "", "", ""}, {"plain.md", "1", "", "last"},
		{"e\u0301te\u0301.md", "123", "yy ", ""}, {"tail  ", "", "z", "end  "}}
	for _, tt := range []table{
		{header: []string{"NOTE", "N", "V", "CRITERION"}, right: map[int]bool{1: true}, rows: rows},
		{header: []string{"NOTE", "N", "V", "CRITERION"}, right: map[int]bool{1: true, 3: true}, rows: rows},
		{header: []string{"DUE", "N", "V", "NOTE"}, keepLast: true, rows: rows},
		{header: []string{"ONE"}, rows: [][]string{{"a"}, {}, {"bb "}}},
		{header: []string{"NOTE", "LINKS", "N"}, right: map[int]bool{2: true}, rows: [][]string{{"a.md", strings.Repeat("x ", maxPad), "1"}, {"b.md", "y", "22"}}},
		{header: []string{"A", "B"}},
	} {
		var want strings.Builder
		for _, group := range tt.lines(0) {
			for _, l := range group {
				want.WriteString(l + "\n")
			}
		}
		var got bytes.Buffer
		if err := tt.write(&got, 0); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("header %v:\n%q\nlines give\n%q", tt.header, got.String(), want.String())
		}
	}
}

// TestTableLongCell: one cell wider than maxPad (a note's every link) is
// written whole, and the other rows are not padded to it: the table is as
// long as its cells, not its rows times its widest cell, and the other
// rows' columns still line up.
func TestTableLongCell(t *testing.T) {
	const rows = 1000
	long := strings.Repeat("[[link]], ", 10_000)
	tb := table{header: []string{"NAME", "LINKS", "STATUS"}}
	cells := 0
	for i := range rows {
		links := "[[a]]"
		if i == rows/2 {
			links = long
		}
		tb.add(fmt.Sprintf("note %d", i), links, "draft")
		cells += len(fmt.Sprintf("note %d", i)) + len(links) + len("draft")
	}
	for _, width := range []int{0, 100} {
		var b bytes.Buffer
		if err := tb.write(&b, width); err != nil {
			t.Fatal(err)
		}
		// Each row's cells and some padding: not every row padded to
		// the long cell (100 MB).
		if limit := 2*cells + (rows+1)*64; b.Len() > limit {
			t.Errorf("width %d: %d bytes, over %d: rows padded to the long cell", width, b.Len(), limit)
		}
		if !strings.Contains(b.String(), strings.TrimSpace(long)) && width == 0 {
			t.Errorf("width %d: the long cell is not written whole", width)
		}
		at := -1 // where STATUS starts in the rows of short cells
		for _, l := range strings.Split(b.String(), "\n") {
			if !strings.HasPrefix(l, "note ") || strings.Contains(l, "link") && len(l) > 200 {
				continue
			}
			i := strings.Index(l, "draft")
			if at < 0 {
				at = i
			}
			if i != at {
				t.Fatalf("width %d: %q has STATUS at %d, the others at %d", width, l, i, at)
			}
		}
	}
}

// TestRunValuesLongCell: a falsifier's runs under it (zk runs NOTE) are
// not padded to a run id of a megabyte written in a note; the other runs'
// columns still line up, and nothing is cut.
func TestRunValuesLongCell(t *testing.T) {
	const runs = 1000
	long := strings.Repeat("X", 100_000)
	var rows [][3]string
	cells := 0
	for i := range runs {
		id := fmt.Sprintf("20261205T211319Z-%04x", i)
		if i == runs/2 {
			id = long
		}
		rows = append(rows, [3]string{id, "holds", "rate = 50"})
		cells += len(id) + len("holds") + len("rate = 50")
	}
	for _, width := range []int{0, 100} {
		var b bytes.Buffer
		if err := writeRunValues(&b, rows, width); err != nil {
			t.Fatal(err)
		}
		if limit := 2*cells + runs*64; b.Len() > limit {
			t.Errorf("width %d: %d bytes, over %d: runs padded to the long id", width, b.Len(), limit)
		}
		if !strings.Contains(b.String(), long+"  holds") {
			t.Errorf("width %d: the long id is not written whole", width)
		}
		at := -1
		for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if strings.Contains(l, long) {
				continue
			}
			i := strings.Index(l, "holds")
			if at < 0 {
				at = i
			}
			if i != at {
				t.Fatalf("width %d: %q has its verdict at %d, the others at %d", width, l, i, at)
			}
		}
	}
}
