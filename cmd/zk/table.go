package main

import (
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rivo/uniseg"
	"golang.org/x/term"
)

// table is the text table of zk runs, list, stale, properties and run
// --due: a header row always (a pipe needs the columns named as much as
// a reader does), columns as wide as terminals draw them (an emoji with
// VS16, CJK, a combining accent: text/tabwriter counts runes, and shifted
// a column), and the last column wrapped to the width the output has.
type table struct {
	header []string
	rows   [][]string
	// right aligns a column's cells to the right (numbers).
	right map[int]bool
	// keepLast never wraps the last column: a path, which is data.
	keepLast bool
}

// add adds a row; a tab in a cell is a space (printable keeps tabs).
func (t *table) add(cells ...string) {
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(c, "\t", " ")
	}
	t.rows = append(t.rows, cells)
}

// tableGap is the space between two columns.
const tableGap = 2

// minWrap is the narrowest the last column is wrapped to beside the
// others; narrower, it goes on lines of its own under its row.
const minWrap = 24

// write prints the table, each cell as given (the caller makes it
// printable), fitting width display cells when width > 0: the last column
// is wrapped at spaces (a word longer than the room is broken), its
// continuation lines indented to it. Columns before the last are never
// cut: a path is data. No line ends in spaces.
func (t *table) write(w io.Writer, width int) error {
	n := len(t.header)
	widths := make([]int, n)
	for _, row := range append([][]string{t.header}, t.rows...) {
		for i, c := range row[:min(n, len(row))] {
			widths[i] = max(widths[i], cellWidth(c))
		}
	}
	prefix := 0 // the columns before the last, with their gaps
	for i := range n - 1 {
		prefix += widths[i] + tableGap
	}
	var b strings.Builder
	for _, row := range append([][]string{t.header}, t.rows...) {
		var line strings.Builder
		for i := range n - 1 {
			c := ""
			if i < len(row) {
				c = row[i]
			}
			pad := strings.Repeat(" ", widths[i]-cellWidth(c))
			if t.right[i] {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c + pad)
			}
			line.WriteString(strings.Repeat(" ", tableGap))
		}
		last := ""
		if n-1 < len(row) {
			last = row[n-1]
		}
		switch room := width - prefix; {
		case width <= 0 || t.keepLast || cellWidth(last) <= room:
			if t.right[n-1] {
				last = strings.Repeat(" ", widths[n-1]-cellWidth(last)) + last
			}
			b.WriteString(strings.TrimRight(line.String()+last, " ") + "\n")
		case room >= minWrap:
			for k, part := range wrapText(last, room) {
				if k == 0 {
					b.WriteString(strings.TrimRight(line.String()+part, " ") + "\n")
				} else {
					b.WriteString(strings.Repeat(" ", prefix) + part + "\n")
				}
			}
		default:
			// The other columns leave too little room: the last one
			// goes under its row, indented.
			b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
			for _, part := range wrapText(last, max(width-4, minWrap)) {
				b.WriteString("    " + part + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cellWidth is how many columns a terminal draws s in: printable ASCII
// one column a byte, without segmenting it into graphemes (a listing of
// 10,000 notes spent a fifth of its CPU there), anything else as uniseg
// measures it.
func cellWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return uniseg.StringWidth(s)
		}
	}
	return len(s)
}

// wrapText breaks s into lines of at most width columns, at spaces; a
// word wider than width is broken between grapheme clusters.
func wrapText(s string, width int) []string {
	var lines []string
	var cur strings.Builder
	curW := 0
	flush := func() {
		lines = append(lines, cur.String())
		cur.Reset()
		curW = 0
	}
	for _, word := range strings.Fields(s) {
		ww := cellWidth(word)
		if curW > 0 && curW+1+ww <= width {
			cur.WriteString(" " + word)
			curW += 1 + ww
			continue
		}
		if curW > 0 {
			flush()
		}
		for ww > width {
			// Break the word: as many clusters as fit.
			head, used, state := "", 0, -1
			rest := word
			for rest != "" {
				var cluster string
				var cw int
				cluster, rest, cw, state = uniseg.FirstGraphemeClusterInString(rest, state)
				if used+cw > width && used > 0 {
					rest = cluster + rest
					break
				}
				head += cluster
				used += cw
			}
			lines = append(lines, head)
			word, ww = rest, cellWidth(rest)
		}
		cur.WriteString(word)
		curW = ww
	}
	if curW > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

// outWidth is the width text output is fitted to: the terminal's, else
// $COLUMNS, else 0 (a pipe: rows stay whole, one line each, for grep and
// cut).
func (o *rootOptions) outWidth(s *streams) int {
	if s.outTTY {
		if f, ok := s.out.(*os.File); ok {
			if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
				return w
			}
		}
	}
	if n, err := strconv.Atoi(o.getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}
