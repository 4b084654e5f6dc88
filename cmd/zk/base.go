package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/base"
	"github.com/zk-claims/zk/workspace"
)

type baseOptions struct {
	root   *rootOptions
	format string
	view   string
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
"Books" for Books.base when no note is called so), or a note holding a
base code block (the first
one is evaluated, and this is that note) or embedding a base file
(![[File.base]], ![[File.base#View]]: that view, this being the note).

The view is the first of the base, or --view NAME. Text output is a header
of the view's column names and one tab-separated line per file; grouped
views put a "== property: value" line before each group. csv and tsv add
the group as a first column; markdown prints a table per group; paths
prints one vault path per line; json prints {"base","view","type",
"columns","groupBy","total","groups":[{"key","rows":[{"path","values"}],
"summaries"}],"summaries","warnings"}. A view's summaries follow its rows
("-- price Average: 18.5"; a group's head the group) in text, and are a
last table row in markdown; csv, tsv and paths hold only the rows.

Whatever zk does not evaluate it says: a filter it cannot evaluate (an
unsupported function or operator) fails the view, since dropping it would
list files the base excludes; a formula it cannot evaluate is a warning on
stderr and "#error" in its column. docs/bases.md lists what is supported.

EXIT STATUS
  0  evaluated (warnings, if any, on stderr)
  2  the base or note was not found, does not parse, names no such view,
     or has a filter zk cannot evaluate`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeNote(root, s),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.arg = args[0]
			return runBase(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.view, "view", "", "evaluate the view of this `name` (default: the first)")
	addFormatFlag(cmd, &opts.format, "output `format`", "text", "json", "csv", "tsv", "markdown", "paths")
	return cmd
}

func runBase(ctx context.Context, opts *baseOptions, s *streams) error {
	w, err := opts.root.open(s, workspace.Reading, opts.arg)
	if err != nil {
		return err
	}
	defer w.Close()
	bs, err := readBase(ctx, w.Vault, opts.arg)
	if err != nil {
		return err
	}
	where := bs.where
	if bs.warn != "" {
		fmt.Fprintf(s.err, "zk: warning: %s\n", printable.Of(bs.warn))
	}
	b, err := base.Parse(bs.src)
	if err != nil {
		return fmt.Errorf("%s: %w", printable.Of(where), err)
	}
	snap, err := base.Load(ctx, w.Vault, time.Local, w.PropTypes)
	if err != nil {
		return err
	}
	for _, p := range slices.Sorted(maps.Keys(snap.Skipped)) {
		fmt.Fprintf(s.err, "zk: warning: %s: skipped (%s): a row without properties, tags or links\n", printable.Of(p), printable.Of(snap.Skipped[p]))
	}
	now := time.Now()
	if opts.root.pinned() {
		t := w.Today
		now = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.Local)
	}
	view := opts.view
	if view == "" {
		view = bs.view
	}
	res, err := base.Evaluate(ctx, snap, b, base.Options{View: view, Now: now, This: snap.File(bs.thisPath)})
	if err != nil {
		var fe *base.FilterError
		if errors.As(err, &fe) {
			return fmt.Errorf("%s: the view cannot be evaluated: %s", printable.Of(where), printable.Of(strings.ReplaceAll(err.Error(), "\n", "; ")))
		}
		return fmt.Errorf("%s: %w", printable.Of(where), err)
	}
	for _, warn := range res.Warnings {
		fmt.Fprintf(s.err, "zk: warning: %s: %s\n", printable.Of(where), printable.Of(warn))
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
	return writeBaseText(s.out, res)
}

// baseSource is the base an argument names: its YAML, where it is (for
// messages), the vault path this refers to ("" for a .base file outside
// the vault), and a warning to print ("" for none).
type baseSource struct {
	src                   []byte
	where, thisPath, warn string
	// view is the view an embed names (![[File.base#View]]), or "".
	view string
}

// readBase reads the base an argument names: a .base file (in the vault,
// or anywhere), or a note's first base code block.
func readBase(ctx context.Context, v *vault.Vault, arg string) (*baseSource, error) {
	if !strings.EqualFold(filepath.Ext(arg), ".base") {
		p, files, err := workspace.Locate(ctx, v, arg)
		if errors.Is(err, vault.ErrNotFound) {
			// No note of the name: a base of the name, as a wikilink
			// names one ([[Books.base]]), written without its extension.
			if bp, ok := vault.ResolverOf(files).Resolve(arg+".base", ""); ok {
				src, err := v.ReadFile(bp, base.MaxSize)
				return &baseSource{src: src, where: bp, thisPath: bp}, err
			}
		}
		if err != nil {
			return nil, err
		}
		n, err := v.ReadNote(p)
		if err != nil {
			return nil, err
		}
		blocks := base.Blocks(n.Src)
		if len(blocks) == 0 {
			return embeddedBase(v, files, n)
		}
		bs := &baseSource{src: []byte(blocks[0]), where: p, thisPath: p}
		if len(blocks) > 1 {
			bs.warn = fmt.Sprintf("%s has %d base code blocks; evaluating the first", p, len(blocks))
		}
		return bs, nil
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return nil, err
	}
	if rel, err := filepath.Rel(v.Dir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		if _, err := os.Stat(abs); err == nil {
			p := filepath.ToSlash(rel)
			src, err := v.ReadFile(p, base.MaxSize)
			return &baseSource{src: src, where: p, thisPath: p}, err
		}
	}
	if p := filepath.ToSlash(filepath.Clean(arg)); !filepath.IsAbs(arg) {
		if src, err := v.ReadFile(p, base.MaxSize); err == nil {
			return &baseSource{src: src, where: p, thisPath: p}, nil
		}
	}
	f, err := os.Open(arg)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, base.MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	return &baseSource{src: src, where: arg}, nil
}

// embeddedBase is the base file a note embeds (![[File.base]] or
// ![[File.base#View]]), evaluated with this as the note, as Obsidian shows
// an embedded base.
func embeddedBase(v *vault.Vault, files []vault.File, n *vault.Note) (*baseSource, error) {
	r := vault.ResolverOf(files)
	for _, e := range n.Embeds {
		target, ok := r.Resolve(e.Path, n.Path)
		if !ok || !strings.EqualFold(path.Ext(target), ".base") {
			continue
		}
		src, err := v.ReadFile(target, base.MaxSize)
		if err != nil {
			return nil, err
		}
		return &baseSource{src: src, where: target, thisPath: n.Path, view: strings.TrimPrefix(e.Subpath, "#")}, nil
	}
	return nil, fmt.Errorf("%s has no base code block (```base) and embeds no .base file", printable.Of(n.Path))
}

// baseCell is a value as a line of text shows it.
func baseCell(v any) string { return printable.Of(base.String(v)) }

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

// baseGroups is the result as groups: one unnamed group when the view has
// no groupBy.
func baseGroups(res *base.Result) []base.Group {
	if res.GroupBy == nil {
		return []base.Group{{Rows: res.Rows}}
	}
	return res.Groups
}

func writeBaseText(w io.Writer, res *base.Result) error {
	header := baseHeader(res)
	for i := range header {
		header[i] = printable.Of(header[i])
	}
	fmt.Fprintln(w, strings.Join(header, "\t"))
	for _, g := range baseGroups(res) {
		if res.GroupBy != nil {
			fmt.Fprintf(w, "== %s: %s\n", printable.Of(res.GroupBy.Name), printable.Of(groupLabel(g.Key)))
			writeSummaryLines(w, res, g.Summaries) // a group's summaries head it, as in Obsidian
		}
		for _, r := range g.Rows {
			cells := make([]string, len(r.Values))
			for i, v := range r.Values {
				cells[i] = baseCell(v)
			}
			fmt.Fprintln(w, strings.Join(cells, "\t"))
		}
	}
	writeSummaryLines(w, res, res.Summaries)
	return nil
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

// writeSummaryLines prints summaries one a line: "-- price Average: 18.5".
func writeSummaryLines(w io.Writer, res *base.Result, sums []base.Summary) {
	for _, sm := range sums {
		fmt.Fprintf(w, "-- %s %s: %s\n", printable.Of(columnName(res, sm.Property)), printable.Of(sm.Name), printable.Of(groupLabel(sm.Value)))
	}
}

// summaryCells are summaries as a table row under the columns: "Average:
// 18.5" under price.
func summaryCells(res *base.Result, sums []base.Summary) ([]string, bool) {
	cells := make([]string, len(res.Columns))
	any := false
	for _, sm := range sums {
		for i, c := range res.Columns {
			if c.ID == sm.Property {
				cells[i] = sm.Name + ": " + base.String(sm.Value)
				any = true
			}
		}
	}
	return cells, any
}

// writeBaseTable prints the rows as csv or tsv, the group as a first
// column when the view groups.
func writeBaseTable(s *streams, res *base.Result, format string) error {
	header := baseHeader(res)
	if res.GroupBy != nil {
		header = append([]string{res.GroupBy.Name}, header...)
	}
	var rows [][]string
	for _, g := range baseGroups(res) {
		for _, r := range g.Rows {
			var rec []string
			if res.GroupBy != nil {
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
	for gi, g := range baseGroups(res) {
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

type baseRowJSON struct {
	Path   string         `json:"path"`
	Values map[string]any `json:"values"`
}

type baseGroupJSON struct {
	Key       any               `json:"key"`
	Rows      []baseRowJSON     `json:"rows"`
	Summaries []baseSummaryJSON `json:"summaries,omitempty"`
}

type baseSummaryJSON struct {
	Property string `json:"property"`
	Summary  string `json:"summary"`
	Value    any    `json:"value"`
}

func summariesJSON(sums []base.Summary) []baseSummaryJSON {
	var out []baseSummaryJSON
	for _, sm := range sums {
		out = append(out, baseSummaryJSON{sm.Property, sm.Name, base.JSON(sm.Value)})
	}
	return out
}

func writeBaseJSON(w io.Writer, where string, res *base.Result) error {
	groups := []baseGroupJSON{}
	for _, g := range baseGroups(res) {
		out := baseGroupJSON{Key: base.JSON(g.Key), Rows: []baseRowJSON{}, Summaries: summariesJSON(g.Summaries)}
		for _, r := range g.Rows {
			vals := map[string]any{}
			for i, c := range res.Columns {
				vals[c.ID] = base.JSON(r.Values[i])
			}
			out.Rows = append(out.Rows, baseRowJSON{Path: r.File.Path, Values: vals})
		}
		groups = append(groups, out)
	}
	warnings := res.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	return writeJSON(w, struct {
		Base      string            `json:"base"`
		View      string            `json:"view"`
		Type      string            `json:"type"`
		Columns   []base.Column     `json:"columns"`
		GroupBy   *base.Column      `json:"groupBy"`
		Total     int               `json:"total"`
		Groups    []baseGroupJSON   `json:"groups"`
		Summaries []baseSummaryJSON `json:"summaries,omitempty"`
		Warnings  []string          `json:"warnings"`
	}{where, res.View, res.Type, res.Columns, res.GroupBy, res.Total, groups, summariesJSON(res.Summaries), warnings})
}
