package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault/query"
	"github.com/zk-claims/zk/view"
	"github.com/zk-claims/zk/workspace"
)

type listOptions struct {
	root   *rootOptions
	format string

	types, folders, tags, where, verdicts, fields []string
	linksTo, linkedFrom, dueWithin, sort          string
	transitive, orphans, deadEnds, stale, reverse bool
	limit                                         int
	noCache                                       bool
}

func newListCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &listOptions{root: root}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List notes matching type, folder, tag, property or link filters",
		Long: `List the vault's notes that pass every filter given (none: every note),
sorted by path unless --sort says otherwise. A filter given twice: --type,
--folder and --verdict take any of the values, --tag and --where all.

  --where 'status = draft'   a property condition: KEY OP VALUE, OP one
                             of = != < <= > >=; KEY alone (has it), !KEY
                             (has not). Numbers compare as numbers, dates
                             as dates, a list property "=" a value when
                             it contains it; text ignores case. A note
                             without the property matches only != and
                             !KEY. KEY may be a file.* attribute
                             (--fields): file.due < 2027-01-01,
                             file.folder = inbox.
  --tag project              the tag or one nested under it (#project/zk)
  --links-to NOTE            notes linking to NOTE (--linked-from: notes
                             NOTE links to); --transitive follows chains
  --orphans, --dead-ends     no other note links to it; it links to no
                             other file (as Obsidian's CLI counts them)
  --stale, --due-within 14d  past the maintenance date (as zk stale); or
                             due within the interval
  --verdict refutes          a falsifier whose latest run has this
                             verdict (supports, refutes, inconclusive,
                             error, none, never-run)

Columns are the path, the note's type and the --fields asked for:
properties by name, or file.name, file.folder, file.mtime, file.tags,
file.links, file.tended, file.due, file.verdicts (a property no note
listed has is an empty column, with a warning on stderr). --format json prints
{"notes":[{"path","type","fields":{...}}],"matched","read"}; csv and tsv a
header and a row per note; markdown a table whose first column links each
note; paths one path per line, for xargs.

Every note's record is kept in a cache outside the vault, as zk check keeps
its findings: on the next run only the notes changed since are read again
(a file added or removed reads them all). --no-cache reads every note.

EXIT STATUS
  0  listed (also when no note matches: text says so on stderr)
  2  a usage or runtime error: a bad condition (author => x, file.size,
     published > yesterday where published holds dates), an unknown
     --type or --folder, a NOTE not found`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runList(cmd.Context(), opts, s)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&opts.types, "type", nil, "notes of this note `type` (\"none\": of no type)")
	f.StringArrayVar(&opts.folders, "folder", nil, "notes under this vault `folder`")
	f.StringArrayVar(&opts.tags, "tag", nil, "notes carrying this `tag` or one nested under it")
	f.StringArrayVar(&opts.where, "where", nil, "notes whose properties satisfy this `condition` (status=draft, rating>3, !done)")
	f.StringVar(&opts.linksTo, "links-to", "", "notes linking to this `NOTE`")
	f.StringVar(&opts.linkedFrom, "linked-from", "", "notes this `NOTE` links to")
	f.BoolVar(&opts.transitive, "transitive", false, "--links-to and --linked-from follow chains of links")
	f.BoolVar(&opts.orphans, "orphans", false, "notes no other note links to")
	f.BoolVar(&opts.deadEnds, "dead-ends", false, "notes that link to no other file")
	f.BoolVar(&opts.stale, "stale", false, "notes past their maintenance date")
	f.StringVar(&opts.dueWithin, "due-within", "", "notes past due or due within this `interval` (14d, 2w, 1m)")
	f.StringArrayVar(&opts.verdicts, "verdict", nil, "notes with a falsifier whose latest run has this `verdict`")
	f.StringSliceVar(&opts.fields, "fields", nil, "extra `columns`, comma-separated: properties, or file.name, file.mtime, file.tags, file.tended, ...")
	f.StringVar(&opts.sort, "sort", "path", "sort by `key`: path, name, mtime, tended, due, or a property")
	f.BoolVar(&opts.reverse, "reverse", false, "reverse the order (notes without the sort key stay last)")
	f.IntVar(&opts.limit, "limit", 0, "list at most `N` notes (0: all)")
	f.BoolVar(&opts.noCache, "no-cache", false, "read every note, ignoring and not writing the list's cache")
	addFormatFlag(cmd, &opts.format, "output `format`", "text", "json", "csv", "tsv", "markdown", "paths")
	_ = cmd.RegisterFlagCompletionFunc("sort", cobra.FixedCompletions(query.SortKeys(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("verdict", cobra.FixedCompletions(workspace.Verdicts, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// request is the use case's request the flags make.
func (o *listOptions) request() workspace.ListRequest {
	return workspace.ListRequest{Types: o.types, Folders: o.folders, Tags: o.tags, Where: o.where, Verdicts: o.verdicts, Fields: o.fields,
		LinksTo: o.linksTo, LinkedFrom: o.linkedFrom, DueWithin: o.dueWithin, Sort: o.sort,
		Transitive: o.transitive, Orphans: o.orphans, DeadEnds: o.deadEnds, Stale: o.stale, Reverse: o.reverse, Limit: o.limit, NoCache: o.noCache}
}

func runList(ctx context.Context, opts *listOptions, s *streams) error {
	tuneGC(streamHeapLimit)
	req := opts.request()
	if _, err := workspace.ParseList(req, flagTerm); err != nil {
		return err // before the vault is opened
	}
	w, err := opts.root.open(ctx, s, workspace.Reading, "")
	if err != nil {
		return err
	}
	defer w.Close()
	res, err := w.List(ctx, req)
	if err != nil {
		return err
	}
	if err := writeList(s, opts, res); err != nil {
		return err
	}
	for _, warn := range w.ListWarnings(res, opts.fields) {
		fmt.Fprintf(s.err, "zk: warning: %s\n", printable.Of(warn))
	}
	return nil
}

func writeList(s *streams, opts *listOptions, res query.Result) error {
	if opts.format == "text" { // from the records: no view of each made first
		if len(res.Notes) == 0 {
			fmt.Fprintf(s.err, "no notes match (%s read)\n", quantity(res.Read, "note"))
			return nil
		}
		return writeListText(s, res.Notes, opts.fields, opts.root.outWidth(s))
	}
	lv := view.NewList(res, opts.fields)
	switch opts.format {
	case "json":
		return writeJSON(s.out, lv)
	case "csv", "tsv":
		header, rows := listTable(lv, opts.fields, false)
		return writeDelimited(s.out, opts.format, s.outTTY, header, rows)
	case "markdown":
		header, rows := listTable(lv, opts.fields, true)
		_, err := io.WriteString(s.out, markdownTable(header, rows))
		return err
	case "paths":
		bw := bufio.NewWriterSize(s.out, 64<<10) // not a write per note
		for _, n := range lv.Notes {
			bw.WriteString(printable.Of(n.Path))
			bw.WriteByte('\n')
		}
		return bw.Flush()
	}
	return nil
}

// listCell is a field's value as one cell of text: a list's items joined
// by ", ", nothing for no value.
func listCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = listCell(e)
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(v)
}

func listRow(n view.ListNote, fields []string) []string {
	row := []string{n.Path, n.Type}
	for _, f := range fields {
		row = append(row, listCell(n.Fields[f]))
	}
	return row
}

// writeListText prints aligned columns under a header, every cell
// printable, so a value cannot split a row.
func writeListText(s *streams, notes []query.Note, fields []string, width int) error {
	// Every row's cells in one array, the rows sized once: 10,000 rows
	// of a slice each, and a slice of them grown by doubling, were a
	// megabyte of fresh memory at 10,000 notes.
	t := table{header: []string{"PATH", "TYPE"}, rows: make([][]string, 0, len(notes))}
	for _, f := range fields {
		t.header = append(t.header, strings.ToUpper(printable.Of(f)))
	}
	k := len(t.header)
	cells := make([]string, k*len(notes))
	for i, n := range notes {
		row := cells[i*k : i*k+2 : (i+1)*k]
		row[0], row[1] = n.Path, n.Type
		if row[1] == "" {
			row[1] = "-"
		}
		for _, f := range fields {
			v, _ := n.Field(f) // as view.NewList reads it
			row = append(row, listCell(v))
		}
		for i := range row {
			row[i] = printable.Of(row[i])
		}
		t.add(row...)
	}
	return t.write(s.out, width)
}

// listTable is the view as a header and rows: path (or its link, for
// markdown, so that it resolves to exactly that note), type, the fields.
func listTable(lv view.List, fields []string, link bool) ([]string, [][]string) {
	header := append([]string{"path", "type"}, fields...)
	if link {
		header[0] = "note"
	}
	rows := make([][]string, len(lv.Notes))
	for i, n := range lv.Notes {
		rows[i] = listRow(n, fields)
		if link {
			rows[i][0] = "[[" + strings.TrimSuffix(n.Path, ".md") + "]]"
		}
	}
	return header, rows
}
