package vault

// ObsidianPos is a position as Obsidian's metadata cache writes it: 0-based
// line, and col and offset in UTF-16 code units.
type ObsidianPos struct {
	Line   int `json:"line"`
	Col    int `json:"col"`
	Offset int `json:"offset"`
}

// ObsidianSpan is Obsidian's {start, end} position.
type ObsidianSpan struct {
	Start ObsidianPos `json:"start"`
	End   ObsidianPos `json:"end"`
}

// ObsidianLink is Obsidian's LinkCache / EmbedCache.
type ObsidianLink struct {
	Link        string       `json:"link"`
	Original    string       `json:"original"`
	DisplayText string       `json:"displayText"`
	Position    ObsidianSpan `json:"position"`
}

// ObsidianHeading is Obsidian's HeadingCache.
type ObsidianHeading struct {
	Heading  string       `json:"heading"`
	Level    int          `json:"level"`
	Position ObsidianSpan `json:"position"`
}

// ObsidianBlock is Obsidian's BlockCache.
type ObsidianBlock struct {
	ID       string       `json:"id"`
	Position ObsidianSpan `json:"position"`
}

// ObsidianTag is Obsidian's TagCache.
type ObsidianTag struct {
	Tag      string       `json:"tag"`
	Position ObsidianSpan `json:"position"`
}

// ObsidianFrontmatterLink is Obsidian's FrontmatterLinkCache.
type ObsidianFrontmatterLink struct {
	Key         string `json:"key"`
	Link        string `json:"link"`
	Original    string `json:"original"`
	DisplayText string `json:"displayText"`
}

// ObsidianSection is one entry of Obsidian's sections.
type ObsidianSection struct {
	Type     string       `json:"type"`
	Position ObsidianSpan `json:"position"`
}

// ObsidianCache is a note's metadata in the shape of Obsidian's
// CachedMetadata, plus Resolved: each link text mapped to the vault path it
// resolves to, or nil. Empty categories are omitted, as Obsidian omits them.
type ObsidianCache struct {
	Links               []ObsidianLink            `json:"links,omitempty"`
	Embeds              []ObsidianLink            `json:"embeds,omitempty"`
	Headings            []ObsidianHeading         `json:"headings,omitempty"`
	Blocks              map[string]ObsidianBlock  `json:"blocks,omitempty"`
	Tags                []ObsidianTag             `json:"tags,omitempty"`
	Sections            []ObsidianSection         `json:"sections,omitempty"`
	Frontmatter         map[string]any            `json:"frontmatter,omitempty"`
	FrontmatterLinks    []ObsidianFrontmatterLink `json:"frontmatterLinks,omitempty"`
	FrontmatterPosition *ObsidianSpan             `json:"frontmatterPosition,omitempty"`
	Resolved            map[string]*string        `json:"resolved"`
}

// Obsidian returns the note's metadata as Obsidian's metadata cache holds
// it. With a resolver, Resolved maps every link to its target.
func (n *Note) Obsidian(r *Resolver) ObsidianCache {
	u := newUTF16Counter(n.Src)
	conv := func(p Pos) ObsidianPos {
		lineStart := p.Offset - p.Col
		return ObsidianPos{Line: p.Line, Col: u.at(p.Offset) - u.at(lineStart), Offset: u.at(p.Offset)}
	}
	span := func(s Span) ObsidianSpan { return ObsidianSpan{Start: conv(s.Start), End: conv(s.End)} }
	links := func(ls []Link) []ObsidianLink {
		var out []ObsidianLink
		for _, l := range ls {
			out = append(out, ObsidianLink{Link: l.Link, Original: l.Original, DisplayText: l.DisplayText, Position: span(l.Span)})
		}
		return out
	}
	c := ObsidianCache{Links: links(n.Links), Embeds: links(n.Embeds), Resolved: map[string]*string{}}
	for _, h := range n.Headings {
		c.Headings = append(c.Headings, ObsidianHeading{Heading: h.Text, Level: h.Level, Position: span(h.Span)})
	}
	for _, b := range n.BlockIDs {
		if c.Blocks == nil {
			c.Blocks = map[string]ObsidianBlock{}
		}
		c.Blocks[lowerASCII(b.ID)] = ObsidianBlock{ID: b.ID, Position: span(b.Span)}
	}
	for _, t := range n.Tags {
		c.Tags = append(c.Tags, ObsidianTag{Tag: t.Tag, Position: span(t.Span)})
	}
	for _, b := range n.Blocks {
		c.Sections = append(c.Sections, ObsidianSection{Type: b.Kind, Position: span(b.Span)})
	}
	if fm := n.Frontmatter; fm != nil {
		s := span(fm.Span)
		c.FrontmatterPosition = &s
		c.Frontmatter = fm.Values
		if c.Frontmatter == nil && fm.Err == nil {
			c.Frontmatter = map[string]any{}
		}
		for _, l := range n.FrontmatterLinks {
			c.FrontmatterLinks = append(c.FrontmatterLinks, ObsidianFrontmatterLink{Key: l.Key, Link: l.Link, Original: l.Original, DisplayText: l.DisplayText})
		}
	}
	if r != nil {
		add := func(link, p string) {
			if _, done := c.Resolved[link]; done {
				return
			}
			if got, ok := r.Resolve(p, n.Path); ok {
				c.Resolved[link] = &got
			} else {
				c.Resolved[link] = nil
			}
		}
		// Obsidian's resolveLinkToPath covers links, not embeds.
		for _, l := range n.Links {
			add(l.Link, l.Path)
		}
		for _, l := range n.FrontmatterLinks {
			add(l.Link, l.Path)
		}
	}
	return c
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
