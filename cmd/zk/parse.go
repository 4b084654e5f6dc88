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
null). --format json prints zk's own view: lower-case keys, [] for none,
lines from 0, columns and offsets in bytes, each link's kind "wikilink" or
"markdown".

EXIT STATUS
  0  printed
  2  the note was not found or could not be read`,
		Args:              nArgs(1, 1),
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
	w, err := opts.root.open(ctx, s, workspace.Reading, opts.note)
	if err != nil {
		return err
	}
	defer w.Close()
	v := w.Vault
	p, files, err := workspace.LocatePaths(ctx, v, opts.note)
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

// noteView is zk's own JSON view of a note, in the keys every zk JSON
// output uses (lower case, snake_case), with [] for none: positions as
// the vault package reads them, lines from 0, columns and offsets in
// bytes.
type noteView struct {
	Path        string         `json:"path"`
	Name        string         `json:"name"`
	Frontmatter map[string]any `json:"frontmatter,omitempty"`
	FMError     string         `json:"frontmatter_error,omitempty"`
	Headings    []headingView  `json:"headings"`
	Links       []linkView     `json:"links"`
	Embeds      []linkView     `json:"embeds"`
	Tags        []tagView      `json:"tags"`
	BlockIDs    []blockIDView  `json:"block_ids"`
	Fallback    bool           `json:"fallback,omitempty"`
}

type posView struct {
	Line   int `json:"line"`
	Col    int `json:"col"`
	Offset int `json:"offset"`
}

type spanView struct {
	Start posView `json:"start"`
	End   posView `json:"end"`
}

type headingView struct {
	Level int      `json:"level"`
	Text  string   `json:"text"`
	Span  spanView `json:"span"`
}

type linkView struct {
	// Kind is how the link is written: "wikilink" or "markdown".
	Kind        string   `json:"kind"`
	Embed       bool     `json:"embed"`
	Link        string   `json:"link"`
	Path        string   `json:"path"`
	Subpath     string   `json:"subpath"`
	Original    string   `json:"original"`
	DisplayText string   `json:"display_text"`
	HasDisplay  bool     `json:"has_display"`
	Size        string   `json:"size,omitempty"`
	Span        spanView `json:"span"`
}

type tagView struct {
	Tag  string   `json:"tag"`
	Span spanView `json:"span"`
}

type blockIDView struct {
	ID   string   `json:"id"`
	Span spanView `json:"span"`
}

func spanOf(s vault.Span) spanView {
	return spanView{Start: posView(s.Start), End: posView(s.End)}
}

func linkViews(links []vault.Link) []linkView {
	out := make([]linkView, 0, len(links))
	for _, l := range links {
		kind := "wikilink"
		if l.Kind == vault.Markdown {
			kind = "markdown"
		}
		out = append(out, linkView{Kind: kind, Embed: l.Embed, Link: l.Link, Path: l.Path, Subpath: l.Subpath,
			Original: l.Original, DisplayText: l.DisplayText, HasDisplay: l.HasDisplay, Size: l.Size, Span: spanOf(l.Span)})
	}
	return out
}

func newNoteView(n *vault.Note) noteView {
	v := noteView{Path: n.Path, Name: n.Name, Links: linkViews(n.Links), Embeds: linkViews(n.Embeds),
		Headings: make([]headingView, 0, len(n.Headings)), Tags: make([]tagView, 0, len(n.Tags)),
		BlockIDs: make([]blockIDView, 0, len(n.BlockIDs)), Fallback: n.Fallback}
	for _, h := range n.Headings {
		v.Headings = append(v.Headings, headingView{Level: h.Level, Text: h.Text, Span: spanOf(h.Span)})
	}
	for _, t := range n.Tags {
		v.Tags = append(v.Tags, tagView{Tag: t.Tag, Span: spanOf(t.Span)})
	}
	for _, b := range n.BlockIDs {
		v.BlockIDs = append(v.BlockIDs, blockIDView{ID: b.ID, Span: spanOf(b.Span)})
	}
	if fm := n.Frontmatter; fm != nil {
		v.Frontmatter = fm.Values
		if fm.Err != nil {
			v.FMError = fm.Err.Error()
		}
	}
	return v
}
