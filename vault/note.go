package vault

import (
	"iter"
	"strings"
	"time"
	"unicode"
)

// Pos is a place in a note's source. Line and Col are 0-based; Col and
// Offset count bytes. Obsidian counts UTF-16 code units instead; see
// (*Note).Obsidian for the conversion.
type Pos struct {
	Line   int
	Col    int
	Offset int
}

// Span is a half-open byte range [Start, End) of a note's source.
type Span struct {
	Start, End Pos
}

// LinkKind tells how a link was written.
type LinkKind int

const (
	// Wikilink is [[Target#Sub|Display]] (or ![[...]] when embedded).
	Wikilink LinkKind = iota
	// Markdown is [Display](Target#Sub) (or ![alt](...) when embedded).
	Markdown
)

// Link is one link or embed in a note's body, in Obsidian's terms.
type Link struct {
	Kind LinkKind
	// Embed is true for ![[...]] and ![...](...).
	Embed bool
	// Frontmatter is true for a link in a frontmatter property, one of
	// FrontmatterLinks as GraphLinks yields it: a wikilink, never an
	// embed. (Beside Embed, it takes no room of its own.)
	Frontmatter bool
	// Link is what Obsidian records as the link text: path plus subpath,
	// percent-decoded for markdown links ("Note#Heading", "#^id").
	Link string
	// Path is Link before its first '#': the part that names a file.
	// Empty for a same-note link.
	Path string
	// Subpath is Link from its first '#' on ("#H1#H2", "#^id"), or "".
	Subpath string
	// Original is the link exactly as written in the source.
	Original string
	// DisplayText is the text Obsidian shows for the link.
	DisplayText string
	// HasDisplay is true when the source gave display text explicitly.
	HasDisplay bool
	// Size is an image embed's "|WxH" or "|W" size, when one was given.
	Size string
	Span Span
}

// IsBlockRef reports whether the link points at a block id (#^id).
func (l Link) IsBlockRef() bool { return len(l.Subpath) > 1 && l.Subpath[1] == '^' }

// FrontmatterLink is a [[wikilink]] inside a frontmatter string value.
type FrontmatterLink struct {
	// Key is the property path: "link", or "cast.0" for a list item.
	Key         string
	Link        string
	Path        string
	Subpath     string
	Original    string
	DisplayText string
}

// Heading is an ATX (or setext) heading. Text is the raw source text of the
// heading, inline syntax included, as Obsidian stores it.
type Heading struct {
	Level int
	Text  string
	Span  Span
}

// BlockID is a ^block-id at the end of a paragraph or list item, or on a
// line of its own after a list, quote, callout or table.
type BlockID struct {
	ID   string
	Span Span
}

// Tag is an inline #tag. Frontmatter tags are in Frontmatter.Tags.
type Tag struct {
	// Tag includes the leading '#', in the spelling the note uses.
	Tag  string
	Span Span
}

// Frontmatter is the YAML block at the very top of a note.
type Frontmatter struct {
	// Raw is the YAML text between the fences.
	Raw []byte
	// Span covers the whole block, both fences included.
	Span Span
	// Values are the properties as Obsidian reads them: dates stay
	// strings, numbers are float64 or int64, lists are []any. Nil when the
	// YAML does not parse or is not a mapping.
	Values map[string]any
	// Keys are the top-level property names in source order.
	Keys []string
	// KeyLines are the 0-based note lines of Keys.
	KeyLines []int
	// Err is the YAML error, if the block does not parse.
	Err error
	// ErrLine is the 0-based note line Err points at, or -1.
	ErrLine int
}

// Section is the span of one heading's section: from the heading line to
// the next heading of the same or a higher level (or the end of the note).
type Section struct {
	// Heading indexes Note.Headings.
	Heading int
	Level   int
	Title   string
	// Start is the offset of the heading line; Body the offset just after
	// it; End the offset where the section stops.
	Start, Body, End int
}

// Block is one top-level block of the note (Obsidian's "sections"):
// paragraph, heading, list, code, html, comment, callout, blockquote,
// table, thematicBreak, math, yaml.
type Block struct {
	Kind string
	Span Span
}

// ListItem is one list item, with its nesting.
type ListItem struct {
	// Parent is the index in Note.ListItems of the enclosing item, or -1.
	Parent int
	// Task is the character between "[ ]" brackets, or 0 for a plain item.
	Task rune
	// Text is the item's first line without its marker.
	Text string
	Span Span
}

// Note is a parsed note. Src is kept so that callers can read sections and
// splice edits at exact offsets.
type Note struct {
	// Path is vault-relative with forward slashes, e.g. "Projects/Plan.md".
	Path string
	// Name is the file name without ".md": what a wikilink writes.
	Name    string
	Size    int64
	ModTime time.Time
	Src     []byte

	Frontmatter      *Frontmatter
	Headings         []Heading
	Sections         []Section
	Blocks           []Block
	ListItems        []ListItem
	Links            []Link
	Embeds           []Link
	FrontmatterLinks []FrontmatterLink
	BlockIDs         []BlockID
	Tags             []Tag

	// Fallback is set when the full parser ran out of budget and a plain
	// line scanner produced what is here.
	Fallback bool

	// lines are the line starts of Src the parser indexed, for Lines.
	lines *lineIndex
}

// Lines indexes the note's lines, as NewLines(n.Src) does, reusing the
// line starts the parser found: the rules of zk check asked for them
// again for every note.
func (n *Note) Lines() Lines {
	l := n.lines
	if l == nil || len(l.src) != len(n.Src) || (len(l.src) > 0 && &l.src[0] != &n.Src[0]) {
		return NewLines(n.Src) // Src was replaced since the parse
	}
	// Its own index over the same starts: col fills marks lazily, and a
	// note may be read from several goroutines.
	return Lines{&lineIndex{src: l.src, starts: l.starts}}
}

// AllLinks returns links and embeds in source order.
func (n *Note) AllLinks() []Link {
	out := make([]Link, 0, len(n.Links)+len(n.Embeds))
	for l := range n.LinksAndEmbeds() {
		out = append(out, l)
	}
	return out
}

// LinksAndEmbeds yields what AllLinks returns, in the same order, without
// the copy: a note of 200,000 links is 34 MB of them. Its frontmatter
// links are not among them: GraphLinks yields both.
func (n *Note) LinksAndEmbeds() iter.Seq[Link] {
	return func(yield func(Link) bool) {
		i, j := 0, 0
		for i < len(n.Links) || j < len(n.Embeds) {
			var l Link
			if j >= len(n.Embeds) || (i < len(n.Links) && n.Links[i].Span.Start.Offset < n.Embeds[j].Span.Start.Offset) {
				l = n.Links[i]
				i++
			} else {
				l = n.Embeds[j]
				j++
			}
			if !yield(l) {
				return
			}
		}
	}
}

// Section returns the first section whose heading matches title
// case-insensitively at the given level (0 for any level).
func (n *Note) Section(title string, level int) (Section, bool) {
	for _, s := range n.Sections {
		if (level == 0 || s.Level == level) && equalFoldTrim(s.Title, title) {
			return s, true
		}
	}
	return Section{}, false
}

// AllTags are the note's tags as Obsidian counts them (its getAllTags),
// without '#', each once ignoring case, in its first spelling: the
// frontmatter's tags first, then the inline #tags in source order. The
// frontmatter's `tags` is a list, one tag an item, or one string holding
// one tag; a string of several (`tags: a, b`) gives none since Obsidian
// 1.9.2, and `tag` is no longer read (obsidian-spec I3).
func (n *Note) AllTags() []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		t = strings.TrimPrefix(strings.TrimSpace(t), "#")
		if k := strings.ToLower(t); t != "" && !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	if fm := n.Frontmatter; fm != nil {
		switch v := fm.Values["tags"].(type) {
		case string:
			if !strings.ContainsFunc(strings.TrimSpace(v), func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
				add(v)
			}
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					add(s)
				}
			}
		}
	}
	for _, t := range n.Tags {
		add(t.Tag)
	}
	return out
}

// GraphLinks yields every link of n that zk's graph is made of, what zk
// links and zk backlinks list and a backlink count counts (NoteEdges,
// LinkedFiles): its body's links and embeds as LinksAndEmbeds yields
// them, then its frontmatter links (FrontmatterLinks) as wikilinks with
// Frontmatter set, each spanning its text in the frontmatter
// (FrontmatterLinkOffsets), or, where that text is not there as parsed
// (a YAML escape, a folded line), empty at the start of its property's
// line, where zk check reports it. One home for the set, so that the
// language server's references and the CLI's backlinks cannot differ.
func (n *Note) GraphLinks() iter.Seq[Link] {
	return func(yield func(Link) bool) {
		for l := range n.LinksAndEmbeds() {
			if !yield(l) {
				return
			}
		}
		if len(n.FrontmatterLinks) == 0 {
			return
		}
		f := n.newFMLinkFinder()
		for _, fl := range n.FrontmatterLinks {
			l := Link{Kind: Wikilink, Frontmatter: true, Link: fl.Link, Path: fl.Path, Subpath: fl.Subpath,
				Original: fl.Original, DisplayText: fl.DisplayText}
			if len(fl.Original) >= 4 {
				_, _, l.HasDisplay = splitWikiInner(fl.Original[2 : len(fl.Original)-2])
			}
			if off := f.next(fl.Original); off >= 0 {
				l.Span = Span{Start: f.pos(off), End: f.pos(off + len(fl.Original))}
			} else {
				at := f.keyLine(fl.Key)
				l.Span = Span{Start: at, End: at}
			}
			if !yield(l) {
				return
			}
		}
	}
}
