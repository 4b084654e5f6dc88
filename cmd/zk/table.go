package main

import (
	"bufio"
	"bytes"
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
	// flat: never stacked (the table under a stacked table's first
	// column).
	flat bool
}

// add adds a row; a tab in a cell is a space (printable keeps tabs).
func (t *table) add(cells ...string) {
	for i, c := range cells {
		if strings.IndexByte(c, '\t') >= 0 { // most cells have none: not a Replace call each
			cells[i] = strings.ReplaceAll(c, "\t", " ")
		}
	}
	t.rows = append(t.rows, cells)
}

// tableGap is the space between two columns.
const tableGap = 2

// maxPad is the widest a column is padded to. A wider cell (a long list
// of links) is written whole, the next column after the gap, and is not
// a width every other row is padded to: obsidian-hub's base of every
// note's links had one cell 303,800 columns wide, and zk base printed
// 1.1 GB of spaces for its 6,659 rows. Past it, a table is as long as
// its cells, not its rows times its widest cell.
const maxPad = 256

// padWidth is what a cell of width w counts toward its column's: nothing
// past maxPad.
func padWidth(w int) int {
	if w > maxPad {
		return 0
	}
	return w
}

// minWrap is the narrowest the last column is wrapped to beside the
// others; narrower, it goes on lines of its own under its row.
const minWrap = 24

// write prints the table, each cell as given (the caller makes it
// printable), fitting width display cells when width > 0: the last column
// is wrapped at spaces (a word longer than the room is broken), its
// continuation lines indented to it. No cell but the last is ever cut: a
// path is data. When the columns before the last leave it too little
// room and the first is over half the width (a path), the table is
// stacked: the first column on a line of its own, the others under it,
// indented, as a table of their own; a last column kept whole (keepLast,
// a path) goes under its row.
// Only a path wider than the width by itself is left wider. No line ends
// in spaces.
func (t *table) write(w io.Writer, width int) error {
	// Line by line through a buffer, not a copy of the whole table in one
	// string grown as it went, nor a string per line and its newline.
	bw := bufio.NewWriterSize(w, 64<<10)
	if width <= 0 {
		t.writeWhole(bw)
		return bw.Flush()
	}
	for _, group := range t.lines(width) {
		for _, l := range group {
			bw.WriteString(l)
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// writeWhole writes the table as lines does for no width (a pipe: each
// row one line, nothing wrapped or stacked), each line built in one
// buffer and written, without a string of each line and a slice of them
// all (20,000 rows of zk runs at 10,000 notes: 1.4 MB made twice over).
func (t *table) writeWhole(bw *bufio.Writer) {
	put := t.whole()
	for r := range 1 + len(t.rows) {
		put(bw, r)
	}
}

// whole measures the table as writeWhole writes it and returns what
// writes its line r (0 the header, r the rth row): zk base puts its
// groups' headings between the rows.
func (t *table) whole() func(bw *bufio.Writer, r int) {
	n := len(t.header)
	widths := make([]int, n)
	// Each cell measured once, as lines measures them.
	cws := make([]int32, (1+len(t.rows))*n)
	measure := func(r int, row []string) {
		for i, c := range row[:min(n, len(row))] {
			w := cellWidth(c)
			cws[r*n+i], widths[i] = int32(w), max(widths[i], padWidth(w))
		}
	}
	measure(0, t.header)
	for r, row := range t.rows {
		measure(r+1, row)
	}
	right := make([]bool, n) // t.right, not looked up in a map per cell
	for i := range right {
		right[i] = t.right[i]
	}
	var line []byte
	pad := func(k int) {
		for k > 0 {
			m := min(k, len(spaces))
			line = append(line, spaces[:m]...)
			k -= m
		}
	}
	return func(bw *bufio.Writer, r int) {
		row := t.header
		if r > 0 {
			row = t.rows[r-1]
		}
		line = line[:0]
		for i := range n {
			c := ""
			if i < len(row) {
				c = row[i]
			}
			w := widths[i] - int(cws[r*n+i])
			switch {
			case i == n-1:
				if right[i] {
					pad(w)
				}
				line = append(line, c...)
			case right[i]:
				pad(w)
				line = append(line, c...)
				pad(tableGap)
			default:
				line = append(line, c...)
				pad(max(w, 0) + tableGap)
			}
		}
		line = append(bytes.TrimRight(line, " "), '\n')
		bw.Write(line)
	}
}

// stackIndent is how far the columns of a stacked table stand in under
// their first column, and a last column set under its row.
const stackIndent = 4

// lines lays the table out, the header's lines first, then each row's.
func (t *table) lines(width int) [][]string {
	n := len(t.header)
	all := append([][]string{t.header}, t.rows...)
	widths := make([]int, n)
	// Each cell measured once: a cell that is not printable ASCII is
	// segmented into graphemes to measure it (zk runs' statements).
	cws := make([]int, len(all)*n)
	for r, row := range all {
		for i, c := range row[:min(n, len(row))] {
			cws[r*n+i] = cellWidth(c)
			widths[i] = max(widths[i], padWidth(cws[r*n+i]))
		}
	}
	prefix := 0 // the columns before the last, with their gaps
	for i := range n - 1 {
		prefix += widths[i] + tableGap
	}
	cell := func(row []string, i int) string {
		if i < len(row) {
			return row[i]
		}
		return ""
	}
	if width > 0 && n > 2 && !t.keepLast && !t.flat && prefix > width-minWrap && widths[0] > width/2 {
		// Stacked: the first column alone, the rest a table under it.
		sub := table{header: t.header[1:], right: map[int]bool{}, flat: true}
		for i := range t.right {
			if i > 0 {
				sub.right[i-1] = t.right[i]
			}
		}
		for _, row := range t.rows {
			if len(row) > 0 {
				sub.rows = append(sub.rows, row[1:])
			} else {
				sub.rows = append(sub.rows, nil)
			}
		}
		indent := strings.Repeat(" ", stackIndent)
		var out [][]string
		for k, group := range sub.lines(max(width-stackIndent, minWrap)) {
			lines := []string{cell(all[k], 0)}
			for _, l := range group {
				// A row whose other cells are all empty adds no blank line.
				if l = strings.TrimRight(l, " "); l != "" {
					lines = append(lines, indent+l)
				}
			}
			out = append(out, lines)
		}
		return out
	}
	// A last column kept whole that does not fit beside the others goes
	// under its row, in every row, so that the columns read alike.
	under := false
	if width > 0 && t.keepLast && prefix+widths[n-1] > width {
		under = true
	}
	out := make([][]string, 0, len(all))
	for r, row := range all {
		// Written piece by piece, without a string per pad and cell: a
		// listing of 10,000 rows spent most of this function there.
		var line strings.Builder
		last := cell(row, n-1)
		line.Grow(prefix + len(last))
		for i := range n - 1 {
			c := cell(row, i)
			pad := widths[i] - cws[r*n+i]
			if t.right[i] {
				writeSpaces(&line, pad)
				line.WriteString(c)
			} else {
				line.WriteString(c)
				writeSpaces(&line, pad)
			}
			writeSpaces(&line, tableGap)
		}
		lastW := cws[r*n+n-1]
		var lines []string
		switch room := width - prefix; {
		case under:
			lines = append(lines, strings.TrimRight(line.String(), " "))
			if last != "" {
				lines = append(lines, strings.Repeat(" ", stackIndent)+last)
			}
		case width <= 0 || t.keepLast || lastW <= room:
			if t.right[n-1] {
				writeSpaces(&line, widths[n-1]-lastW)
			}
			line.WriteString(last)
			lines = append(lines, strings.TrimRight(line.String(), " "))
		case room >= minWrap:
			for k, part := range wrapText(last, room) {
				if k == 0 {
					lines = append(lines, strings.TrimRight(line.String()+part, " "))
				} else {
					lines = append(lines, strings.Repeat(" ", prefix)+part)
				}
			}
		default:
			// The other columns leave too little room: the last one
			// goes under its row, indented.
			lines = append(lines, strings.TrimRight(line.String(), " "))
			for _, part := range wrapText(last, max(width-stackIndent, minWrap)) {
				lines = append(lines, strings.Repeat(" ", stackIndent)+part)
			}
		}
		out = append(out, lines)
	}
	return out
}

// spaces are what writeSpaces writes from.
const spaces = "                                                                "

// writeSpaces writes n spaces to b (none for n < 1).
func writeSpaces(b *strings.Builder, n int) {
	for n > 0 {
		k := min(n, len(spaces))
		b.WriteString(spaces[:k])
		n -= k
	}
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
