package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/hugepage"
	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault/base"
	"github.com/zk-claims/zk/view"
	"github.com/zk-claims/zk/workspace"
)

type baseOptions struct {
	root   *rootOptions
	format string
	view   string
	embed  string
	this   string
	arg    string
}

func newBaseCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &baseOptions{root: root}
	cmd := &cobra.Command{
		Use:   "base <file.base | note>",
		Short: "Evaluate an Obsidian base (.base file or base code block) headless",
		Long: `Evaluate an Obsidian base as Obsidian's Bases plugin does, without the
app: its filters (global and the view's, and/or/not), formulas, property
display names, sort, limit and groupBy, over every file of the vault. The
argument is a .base file (a path, or a name as a wikilink writes it:
"Books" for Books.base when no note is called so), or a note that embeds
bases: base code blocks and ![[File.base]] or ![[File.base#View]]
embeds, in the order the note has them. The first is evaluated, or the one
--embed N (1 is the first) or --embed VIEW (the embed showing that view,
or the base that has it) names; this is the note, as in Obsidian.
--this NOTE makes this that note instead, as Obsidian's sidebar does for
the active note.

The view is the first of the base, the one an embed names, or --view
NAME. Text output is the view's columns aligned under a header of their
names; grouped views put a "== property: value" line before each group.
csv and tsv add the group as a first column (unless it is a column);
markdown prints a table per group; paths prints one vault path per line;
json prints {"base","view","type","columns","groupBy","total","groups":
[{"key","rows":[{"path","values"}],"summaries"}],"summaries","excluded",
"cellErrors","warnings"}. A view's summaries head their group ("-- price
Average: 18.5") and, over all rows, end the text under "== all N rows";
markdown adds them as a last table row; csv, tsv and paths hold only the
rows.

Whatever zk does not evaluate as Obsidian would it says: a filter it
cannot evaluate (an unsupported function or operator) fails the view,
since dropping it would list files the base excludes; a value it cannot
compute is a warning naming the function, and "#error" in its column.
Files a filter fails on as it fails in Obsidian (contains() on a missing
value) are left out silently, as Obsidian does, and counted in json's
"excluded". docs/bases.md lists what is supported and the limits on what
a base may cost.

EXIT STATUS
  0  evaluated (warnings, if any, on stderr)
  2  the base or note was not found, does not parse, names no such view
     or embed, has a filter zk cannot evaluate, or costs more than zk's
     limits`,
		Args:              nArgs(1, 1),
		ValidArgsFunction: completeNote(root, s),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.arg = args[0]
			return runBase(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.view, "view", "", "evaluate the view of this `name` (default: the first)")
	cmd.Flags().StringVar(&opts.embed, "embed", "", "evaluate the note's `N`th embedded base (1 is the first), or the one showing view VIEW")
	cmd.Flags().StringVar(&opts.this, "this", "", "evaluate with this as `NOTE` (default: the .base file, or the note embedding the base)")
	addFormatFlag(cmd, &opts.format, "output `format`", "text", "json", "csv", "tsv", "markdown", "paths")
	return cmd
}

func runBase(ctx context.Context, opts *baseOptions, s *streams) error {
	w, err := opts.root.open(ctx, s, workspace.Reading, opts.arg)
	if err != nil {
		return err
	}
	defer w.Close()
	r, err := w.Base(ctx, workspace.BaseRequest{Base: opts.arg, View: opts.view, Embed: opts.embed, This: opts.this, Outside: true})
	where, res := r.Where, r.Result
	for _, warn := range r.Warnings {
		fmt.Fprintf(s.err, "zk: warning: %s\n", printable.Of(warn))
	}
	if err != nil {
		return err
	}
	switch opts.format {
	case "json":
		return writeBaseJSON(s.out, where, res)
	case "csv", "tsv":
		return writeBaseTable(s, res, opts.format)
	case "markdown":
		return writeBaseMarkdown(s.out, res)
	case "paths":
		for _, r := range res.Rows {
			fmt.Fprintln(s.out, printable.Of(r.File.Path))
		}
		return nil
	}
	return writeBaseText(s.out, res, opts.root.outWidth(s))
}

// groupLabel is a group's value in a heading: the rows without a value
// are a group too.
func groupLabel(v any) string {
	if v == nil {
		return "(none)"
	}
	return base.String(v)
}

func baseHeader(res *base.Result) []string {
	out := make([]string, len(res.Columns))
	for i, c := range res.Columns {
		out[i] = c.Name
	}
	return out
}

// writeBaseText prints the view's columns aligned under their names, a
// group's "== property: value" line and its summaries before its rows,
// and the summaries over all rows, labelled, at the end. The cells are
// laid out by the table every text listing uses (display widths, the
// last column wrapped to width, stacked when a path leaves no room),
// aligned across groups; every cell is printable.
func writeBaseText(w io.Writer, res *base.Result, width int) error {
	cell := func(s string) string { return printable.Of(s) }
	header := baseHeader(res)
	for i := range header {
		header[i] = cell(header[i])
	}
	groups := res.Grouped()
	// The rows' cells, then the lines written in a second pass over the
	// groups, their headings made again: no list of every line (2.4 MB
	// at 100,000 notes, grown by doubling), and every row's cells from
	// one allocation, both in huge pages (hugepage).
	t := table{header: header, rows: hugepage.Make[[]string](len(res.Rows))[:0]}
	n := 0
	for _, g := range groups {
		for _, r := range g.Rows {
			n += len(r.Values)
		}
	}
	arena := hugepage.Make[string](n)
	for _, g := range groups {
		for _, r := range g.Rows {
			cells := arena[:len(r.Values):len(r.Values)]
			arena = arena[len(r.Values):]
			for i, v := range r.Values {
				cells[i] = cell(base.String(v))
			}
			t.add(cells...)
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	text := func(l string) {
		bw.WriteString(l)
		bw.WriteByte('\n')
	}
	// put writes the table's line r (0 the header): a pipe's each row one
	// line, written as it is made (table.writeWhole), else the row laid
	// out to width.
	var put func(r int)
	if width <= 0 {
		whole := t.whole()
		put = func(r int) { whole(bw, r) }
	} else {
		laid := t.lines(width)
		put = func(r int) {
			for _, out := range laid[r] {
				text(strings.TrimRight(out, " "))
			}
		}
	}
	put(0)
	r := 1
	for _, g := range groups {
		if res.GroupBy != nil {
			text(fmt.Sprintf("== %s: %s", printable.Of(res.GroupBy.Name), printable.Of(groupLabel(g.Key))))
			for _, l := range summaryLines(res, g.Summaries) { // a group's summaries head it, as in Obsidian
				text(l)
			}
		}
		for range g.Rows {
			put(r)
			r++
		}
	}
	if len(res.Summaries) > 0 {
		text("== all " + quantity(len(res.Rows), "row"))
		for _, l := range summaryLines(res, res.Summaries) {
			text(l)
		}
	}
	return bw.Flush()
}

// columnName is a property's name in the view: its column's, else its id.
func columnName(res *base.Result, id string) string {
	for _, c := range res.Columns {
		if c.ID == id {
			return c.Name
		}
	}
	return id
}

// summaryLines are summaries one a line, as Obsidian shows their values:
// "-- price Average: 18.5".
func summaryLines(res *base.Result, sums []base.Summary) []string {
	var out []string
	for _, sm := range sums {
		value := "(none)"
		if sm.Value != nil {
			value = base.Display(sm.Value)
		}
		out = append(out, fmt.Sprintf("-- %s %s: %s", printable.Of(columnName(res, sm.Property)), printable.Of(sm.Name), printable.Of(value)))
	}
	return out
}

// summaryCells are summaries as a table row under the columns: "Average:
// 18.5" under price.
func summaryCells(res *base.Result, sums []base.Summary) ([]string, bool) {
	cells := make([]string, len(res.Columns))
	any := false
	for _, sm := range sums {
		for i, c := range res.Columns {
			if c.ID == sm.Property {
				cells[i] = sm.Name + ": " + base.Display(sm.Value)
				any = true
			}
		}
	}
	return cells, any
}

// writeBaseTable prints the rows as csv or tsv, the group as a first
// column when the view groups by a property it does not show.
func writeBaseTable(s *streams, res *base.Result, format string) error {
	header := baseHeader(res)
	// The group is a first column, unless it is one of the view's: a
	// header names each column once.
	groupCol := res.GroupBy != nil && !slices.ContainsFunc(res.Columns, func(c base.Column) bool { return c.ID == res.GroupBy.ID })
	if groupCol {
		header = append([]string{res.GroupBy.Name}, header...)
	}
	var rows [][]string
	for _, g := range res.Grouped() {
		for _, r := range g.Rows {
			var rec []string
			if groupCol {
				rec = append(rec, base.String(g.Key))
			}
			rows = append(rows, append(rec, baseCells(r)...))
		}
	}
	return writeDelimited(s.out, format, s.outTTY, header, rows)
}

// baseCells are a row's values as text.
func baseCells(r base.Row) []string {
	cells := make([]string, len(r.Values))
	for i, v := range r.Values {
		cells[i] = base.String(v)
	}
	return cells
}

// writeBaseMarkdown prints a table per group, a group's summaries as its
// last row, and the view's summaries in a table of their own when it groups.
func writeBaseMarkdown(w io.Writer, res *base.Result) error {
	header := baseHeader(res)
	for gi, g := range res.Grouped() {
		if gi > 0 {
			fmt.Fprintln(w)
		}
		if res.GroupBy != nil {
			fmt.Fprintf(w, "### %s: %s\n\n", mdText(res.GroupBy.Name), mdText(groupLabel(g.Key)))
		}
		var rows [][]string
		for _, r := range g.Rows {
			rows = append(rows, baseCells(r))
		}
		sums := res.Summaries
		if res.GroupBy != nil {
			sums = g.Summaries
		}
		if cells, ok := summaryCells(res, sums); ok {
			rows = append(rows, cells)
		}
		io.WriteString(w, markdownTable(header, rows))
	}
	if cells, ok := summaryCells(res, res.Summaries); ok && res.GroupBy != nil {
		fmt.Fprintf(w, "\n### All\n\n%s", markdownTable(header, [][]string{cells}))
	}
	return nil
}

// mdText is text for a Markdown heading: printable, its pipes escaped as in
// a table.
func mdText(x string) string { return strings.ReplaceAll(printable.Of(x), "|", `\|`) }

func writeBaseJSON(w io.Writer, where string, res *base.Result) error {
	return writeJSON(w, view.NewBase(where, res))
}
