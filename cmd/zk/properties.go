package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/view"
	"github.com/zk-claims/zk/workspace"
)

type propertiesOptions struct {
	root   *rootOptions
	format string
}

func newPropertiesCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &propertiesOptions{root: root}
	cmd := &cobra.Command{
		Use:   "properties",
		Short: "List the vault's frontmatter properties, their types and counts",
		Long: `List every frontmatter property of the vault's notes, by name: its type
and how many notes have it. The type is the one .obsidian/types.json
declares (marked "declared"), else the type most of its values have, as
Obsidian infers it: text, list, number, checkbox, date (2020-08-21),
datetime (2020-08-21T10:30:00). Values of another type are counted after
it; zk check reports those that do not fit a declared type
(frontmatter/type-mismatch).

--format json prints {"properties":[{"name","type","declared","notes",
"types":{TYPE:N}}]}.

EXIT STATUS
  0  listed (also when there are none)
  2  a usage or runtime error`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProperties(cmd.Context(), opts, s)
		},
	}
	addFormatFlag(cmd, &opts.format, "output `format`", "text", "json")
	return cmd
}

func runProperties(ctx context.Context, opts *propertiesOptions, s *streams) error {
	tuneGC(streamHeapLimit)
	w, err := opts.root.open(ctx, s, workspace.Reading, "")
	if err != nil {
		return err
	}
	defer w.Close()
	sums, err := w.Properties(ctx)
	if err != nil {
		return err
	}
	props := view.NewProperties(sums)
	views := props.List
	if opts.format == "json" {
		return writeJSON(s.out, props)
	}
	if len(views) == 0 {
		fmt.Fprintln(s.err, "no properties in the vault")
		return nil
	}
	t := table{header: []string{"PROPERTY", "TYPE", "NOTES", "OTHER TYPES"}, right: map[int]bool{2: true}}
	for _, pv := range views {
		typ := string(pv.Type)
		if pv.Declared {
			typ += " (declared)"
		}
		t.add(printable.Of(pv.Name), typ, fmt.Sprint(pv.Notes), otherTypes(pv))
	}
	return t.write(s.out, opts.root.outWidth(s))
}

// otherTypes is "text 2, empty 1": the notes whose value is not of the
// property's type, by type, the most first.
func otherTypes(pv view.Property) string {
	type count struct {
		t string
		n int
	}
	var cs []count
	form := string(pv.Type.Form())
	for t, n := range pv.Types {
		if t != form {
			cs = append(cs, count{t, n})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].n != cs[j].n {
			return cs[i].n > cs[j].n
		}
		return cs[i].t < cs[j].t
	})
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s %d", c.t, c.n)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
