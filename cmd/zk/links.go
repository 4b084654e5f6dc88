package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/view"
	"github.com/zk-claims/zk/workspace"
)

type linksOptions struct {
	root     *rootOptions
	format   string
	note     string
	incoming bool
}

func newLinksCmd(root *rootOptions, s *streams) *cobra.Command {
	return linksCommand(root, s, false)
}

func newBacklinksCmd(root *rootOptions, s *streams) *cobra.Command {
	return linksCommand(root, s, true)
}

// linksCommand builds links and backlinks, which differ only in direction.
func linksCommand(root *rootOptions, s *streams, incoming bool) *cobra.Command {
	opts := &linksOptions{root: root, incoming: incoming}
	use, short, long := "links <note>", "List a note's outgoing links", `List the links, embeds and frontmatter links of a note, each with the
file it resolves to (or "unresolved") and, for an entry of the note's Links
section, its relation and justification.

Text output is a table, a row per link: target (the vault path, or
"unresolved:" and the link's path), line ("-" for a frontmatter link,
which Obsidian records without one), kind (a frontmatter link's with its
property, "frontmatter (up)"; json "key"), relation, link text.`
	if incoming {
		use, short, long = "backlinks <note>", "List the notes that link to a note", `List every link into a note from the vault's notes, with the relation
each linking note gives it in its Links section. A name no file has but
notes link to is a note not written yet (Obsidian's backlinks pane shows
one): its links are listed, a note on stderr says so, json has
"unresolved": true; a name nothing links to is not found.

Text output is a table, a row per link: source note, line ("-" for a
frontmatter link, which Obsidian records without one), kind (a
frontmatter link's with its property, "frontmatter (up)"; json "key"),
relation, link text.`
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long: long + `

EXIT STATUS
  0  listed (an empty list too)
  2  the note was not found, or a usage error`,
		Args:              nArgs(1, 1),
		ValidArgsFunction: completeNote(root, s),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.note = args[0]
			return runLinks(cmd.Context(), opts, s)
		},
	}
	addFormatFlag(cmd, &opts.format, "output `format`", "text", "json")
	return cmd
}

func runLinks(ctx context.Context, opts *linksOptions, s *streams) error {
	in, err := linkEdges(ctx, opts, s)
	if err != nil {
		return err
	}
	p, views := in.Note, view.NewEdges(in.Edges)
	if opts.format == "json" {
		if opts.incoming {
			return writeJSON(s.out, view.Backlinks{Note: p, Unresolved: in.Unwritten, Edges: views})
		}
		return writeJSON(s.out, view.Links{Note: p, Edges: views})
	}
	if n := in.Notice(); n != "" {
		fmt.Fprintf(s.err, "zk: %s\n", n)
	}
	if len(views) == 0 {
		if opts.incoming {
			fmt.Fprintf(s.err, "no note links to %s\n", printable.Of(p))
		} else {
			fmt.Fprintf(s.err, "%s links to nothing\n", printable.Of(p))
		}
		return nil
	}
	t := table{header: []string{"TARGET", "LINE", "KIND", "RELATION", "LINK"}, right: map[int]bool{1: true}}
	if opts.incoming {
		t = table{header: []string{"NOTE", "LINE", "KIND", "RELATION", "LINK"}, right: map[int]bool{1: true}}
	}
	for _, v := range views {
		// Obsidian records a frontmatter link without a line, and json
		// leaves it out: "-", not a line 0 no editor has.
		line := "-"
		if v.Line > 0 {
			line = strconv.Itoa(v.Line)
		}
		kind := v.Kind
		if v.Key != "" {
			kind += " (" + printable.Of(v.Key) + ")" // where the link is, having no line
		}
		if opts.incoming {
			t.add(printable.Of(v.From), line, kind, printable.Of(dash(v.Relation)), printable.Of(v.Link))
			continue
		}
		to := v.To
		if !v.Resolved {
			to = "unresolved:" + to
		}
		t.add(printable.Of(to), line, kind, printable.Of(dash(v.Relation)), printable.Of(v.Link))
	}
	return t.write(s.out, opts.root.outWidth(s))
}

// linkEdges are the note's outgoing edges, or with opts.incoming its
// incoming ones (of a note not written yet too), and the note's vault
// path.
func linkEdges(ctx context.Context, opts *linksOptions, s *streams) (workspace.Inbound, error) {
	w, err := opts.root.open(ctx, s, workspace.Reading, opts.note)
	if err != nil {
		return workspace.Inbound{}, err
	}
	defer w.Close()
	if opts.incoming {
		return w.Backlinks(ctx, opts.note)
	}
	p, edges, err := w.Links(ctx, opts.note)
	return workspace.Inbound{Note: p, Edges: edges}, err
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
