package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/workspace"
)

type parseOptions struct {
	root   *rootOptions
	format string
	note   string
}

func newParseCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &parseOptions{root: root}
	cmd := &cobra.Command{
		Use:   "parse <note>",
		Short: "Print a note's metadata",
		Long: `Print what zk reads from a note: frontmatter, headings, links, embeds,
block ids and tags.

--format obsidian prints the shape of Obsidian's metadata cache
(CachedMetadata): positions 0-based, columns and offsets in UTF-16 code units,
plus "resolved", each link's text mapped to the vault path it resolves to (or
null). --format json prints zk's own view, with byte offsets.

EXIT STATUS
  0  printed
  2  the note was not found or could not be read`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeNote(root, s),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.note = args[0]
			return runParse(cmd.Context(), opts, s)
		},
	}
	addFormatFlag(cmd, &opts.format, "output `format`", "json", "obsidian")
	return cmd
}

func runParse(ctx context.Context, opts *parseOptions, s *streams) error {
	w, err := opts.root.open(s, workspace.Reading, opts.note)
	if err != nil {
		return err
	}
	defer w.Close()
	v := w.Vault
	p, files, err := workspace.Locate(ctx, v, opts.note)
	if err != nil {
		return err
	}
	n, err := v.ReadNote(p)
	if err != nil {
		return err
	}
	if opts.format == "obsidian" {
		return writeJSON(s.out, n.Obsidian(vault.ResolverOf(files)))
	}
	return writeJSON(s.out, newNoteView(n))
}

// noteView is zk's own JSON view of a note: byte positions, 1-based lines.
type noteView struct {
	Path        string          `json:"path"`
	Name        string          `json:"name"`
	Frontmatter map[string]any  `json:"frontmatter,omitempty"`
	FMError     string          `json:"frontmatter_error,omitempty"`
	Headings    []vault.Heading `json:"headings"`
	Links       []vault.Link    `json:"links"`
	Embeds      []vault.Link    `json:"embeds"`
	Tags        []vault.Tag     `json:"tags"`
	BlockIDs    []vault.BlockID `json:"block_ids"`
	Fallback    bool            `json:"fallback,omitempty"`
}

func newNoteView(n *vault.Note) noteView {
	v := noteView{Path: n.Path, Name: n.Name, Headings: n.Headings, Links: n.Links, Embeds: n.Embeds,
		Tags: n.Tags, BlockIDs: n.BlockIDs, Fallback: n.Fallback}
	if fm := n.Frontmatter; fm != nil {
		v.Frontmatter = fm.Values
		if fm.Err != nil {
			v.FMError = fm.Err.Error()
		}
	}
	return v
}
