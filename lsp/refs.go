package lsp

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/workspace"
)

// References and code lens: the links into a note, into one of its
// headings or blocks, and the notes that carry a tag. What is asked about
// is what is under the cursor: a link asks about what it reaches (its
// #heading or #^block when it has one), a heading line about the heading
// (the H1 that is the note's title about the note), a ^block id about the
// block, a tag (#tag in the text, or an entry of the frontmatter's tags)
// about the tag; anywhere else, about the note.

type refKind int

const (
	refNote refKind = iota
	refHeading
	refBlock
	refTag
)

// refQuery is what references at a place ask about.
type refQuery struct {
	kind    refKind
	note    string // the note linked to (refNote, refHeading, refBlock)
	heading int    // the index of the heading in the note's Headings (refHeading)
	block   string // the block id (refBlock)
	tag     string // the tag without '#' (refTag)
	// decl is the heading or block itself, the declaration a client may
	// ask for besides the references; its URI is "" for none.
	decl protocol.Location
}

func (s *Server) references(_ *glsp.Context, params *protocol.ReferenceParams) ([]protocol.Location, error) {
	return s.referencesAt(params.TextDocument.URI, params.Position, params.Context.IncludeDeclaration)
}

// referencesAt are the references to what is at pos of the document uri.
func (s *Server) referencesAt(uri string, pos protocol.Position, withDecl bool) ([]protocol.Location, error) {
	if err := s.wait(); err != nil {
		return nil, err
	}
	n, err := s.noteOf(uri)
	if n == nil || err != nil {
		return nil, err
	}
	q := s.queryAt(n, offset(string(n.Src), pos))
	out := []protocol.Location{}
	if withDecl && q.decl.URI != "" {
		out = append(out, q.decl)
	}
	if q.kind == refTag {
		return append(out, s.tagRefs(q.tag)...), nil
	}
	for _, r := range s.refsMatching(q) {
		out = append(out, protocol.Location{URI: s.uriOf(r.From), Range: rangeOf(r)})
	}
	return out, nil
}

// queryAt is what references at byte offset off of n ask about.
func (s *Server) queryAt(n *vault.Note, off int) refQuery {
	if l, ok := linkAt(n, off); ok {
		to := n.Path
		if l.Path != "" {
			t, ok := s.live.Resolver().Resolve(l.Path, n.Path)
			if !ok {
				return refQuery{kind: refNote, note: n.Path}
			}
			to = t
		}
		q := refQuery{kind: refNote, note: to}
		if !vault.IsNotePath(to) || l.Subpath == "" {
			return q
		}
		target, err := s.note(to)
		if err != nil {
			return q
		}
		if l.IsBlockRef() {
			if b, ok := vault.BlockOf(target, l.Subpath[2:]); ok {
				return s.blockQuery(target, b)
			}
			return q
		}
		if i, ok := headingIndex(target).Find(l.Subpath); ok && i >= 0 {
			return s.headingQuery(target, i)
		}
		return q
	}
	if tag, ok := tagAt(n, off); ok {
		return refQuery{kind: refTag, tag: tag}
	}
	for i, h := range n.Headings {
		if off >= h.Span.Start.Offset && off <= h.Span.End.Offset {
			if isTitle(n, h) {
				break
			}
			return s.headingQuery(n, i)
		}
	}
	for _, b := range n.BlockIDs {
		if off >= b.Span.Start.Offset && off <= b.Span.End.Offset {
			return s.blockQuery(n, b)
		}
	}
	return refQuery{kind: refNote, note: n.Path}
}

func (s *Server) headingQuery(n *vault.Note, i int) refQuery {
	text, h := string(n.Src), n.Headings[i]
	return refQuery{kind: refHeading, note: n.Path, heading: i, decl: protocol.Location{URI: s.uriOf(n.Path),
		Range: protocol.Range{Start: position(text, h.Span.Start.Offset), End: position(text, h.Span.End.Offset)}}}
}

func (s *Server) blockQuery(n *vault.Note, b vault.BlockID) refQuery {
	text := string(n.Src)
	return refQuery{kind: refBlock, note: n.Path, block: b.ID, decl: protocol.Location{URI: s.uriOf(n.Path),
		Range: protocol.Range{Start: position(text, b.Span.Start.Offset), End: position(text, b.Span.End.Offset)}}}
}

// isTitle reports whether h is the H1 that names its note (what rename
// and zk check's structure/title take for the note's title).
func isTitle(n *vault.Note, h vault.Heading) bool {
	return h.Level == 1 && strings.EqualFold(strings.TrimSpace(h.Text), n.Name)
}

// headingIndex indexes n's headings as links find them.
func headingIndex(n *vault.Note) *vault.HeadingIndex {
	texts := make([]string, len(n.Headings))
	for i, h := range n.Headings {
		texts[i] = h.Text
	}
	return vault.NewHeadingIndex(texts)
}

// isBlockSub reports whether a link's subpath names a block ("#^id").
func isBlockSub(sub string) bool { return len(sub) > 1 && sub[1] == '^' }

// refsInto are the links into the note at p, from every note, in order of
// the linking note's path and then of place: the saved notes' links, and
// for a note open in the editor its links as the editor holds them.
func (s *Server) refsInto(p string) []ref {
	out := s.live.LinksInto(p, s.isOpen)
	res := s.live.Resolver()
	s.mu.Lock()
	for _, d := range s.docs {
		for _, r := range workspace.LinksOf(s.docNote(d), res) {
			if r.To == p {
				out = append(out, r)
			}
		}
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.From != b.From {
			return a.From < b.From
		}
		return a.Start.Line < b.Start.Line || (a.Start.Line == b.Start.Line && a.Start.Char < b.Start.Char)
	})
	return out
}

// isOpen reports whether the note at p is open in the editor.
func (s *Server) isOpen(p string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[p] != nil
}

// refsMatching are the links q asks about (q not a tag's): into the note
// from other notes, or into its heading or block from any note, itself
// included ([[#Heading]]).
func (s *Server) refsMatching(q refQuery) []ref {
	in := s.refsInto(q.note)
	var idx *vault.HeadingIndex
	if q.kind == refHeading {
		n, err := s.note(q.note)
		if err != nil {
			return nil
		}
		idx = headingIndex(n)
	}
	var out []ref
	for _, r := range in {
		switch q.kind {
		case refNote:
			if r.From == q.note {
				continue
			}
		case refBlock:
			if !isBlockSub(r.Sub) || !strings.EqualFold(r.Sub[2:], q.block) {
				continue
			}
		case refHeading:
			if r.Sub == "" || isBlockSub(r.Sub) {
				continue
			}
			if i, ok := idx.Find(r.Sub); !ok || i != q.heading {
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

// tagRefs are the places that carry tag, or a tag nested under it (#a
// finds #a/b, as Obsidian's tag search does), in every note: inline #tags
// and entries of the frontmatter's tags. The notes read are those whose
// tags the scan recorded, and the notes open.
func (s *Server) tagRefs(tag string) []protocol.Location {
	paths := s.live.NotesWithTag(tag)
	s.mu.Lock()
	for p := range s.docs {
		paths = append(paths, p)
	}
	s.mu.Unlock()
	slices.Sort(paths)
	paths = slices.Compact(paths)
	out := []protocol.Location{}
	for _, p := range paths {
		n, err := s.note(p)
		if err != nil {
			continue
		}
		var spans [][2]int
		for _, t := range tagSpans(n) {
			if workspace.TagUnder(t.tag, tag) {
				spans = append(spans, [2]int{t.start, t.end})
			}
		}
		for _, r := range spanRanges(n.Src, spans) {
			out = append(out, protocol.Location{URI: s.uriOf(p), Range: r})
		}
	}
	return out
}

// tagSpan is a tag written in a note: its text (a '#' included when
// written) and its byte span.
type tagSpan struct {
	tag        string
	start, end int
}

// tagSpans are the tags written in n, in source order: the entries of
// the frontmatter's tags, then the inline #tags.
func tagSpans(n *vault.Note) []tagSpan {
	out := frontmatterTagSpans(n)
	for _, t := range n.Tags {
		out = append(out, tagSpan{tag: t.Tag, start: t.Span.Start.Offset, end: t.Span.End.Offset})
	}
	return out
}

// frontmatterTagSpans are where the frontmatter's tags property writes
// each of its tags: the words of its lines (the key's, after the colon,
// and the list items below it) that are tags Obsidian reads there
// (Note.AllTags), so that a YAML comment or a key's name is never one.
func frontmatterTagSpans(n *vault.Note) []tagSpan {
	fm := n.Frontmatter
	if fm == nil {
		return nil
	}
	line := -1
	for i, k := range fm.Keys {
		if k == "tags" && i < len(fm.KeyLines) {
			line = fm.KeyLines[i]
		}
	}
	if line < 0 {
		return nil
	}
	// The tags the frontmatter gives: the note's tags before its inline
	// ones, which AllTags lists after them; an inline one of the same
	// name matches too, which does no harm, as the word is a tag either way.
	known := map[string]bool{}
	for _, t := range n.AllTags() {
		known[strings.ToLower(t)] = true
	}
	text := string(n.Src)
	var out []tagSpan
	off := lineStart(text, line)
	first := true
	for off < fm.Span.End.Offset && off < len(text) {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text) - off
		}
		l := text[off : off+end]
		from := 0
		if first {
			i := strings.IndexByte(l, ':')
			if i < 0 {
				break
			}
			from = i + 1
		} else if l == "" || (l[0] != ' ' && l[0] != '\t' && l[0] != '-') || strings.HasPrefix(l, "---") {
			break // the next key, or the closing fence
		}
		first = false
		l = l[:yamlComment(l, from)]
		for i := from; i < len(l); {
			if l[i] != '#' && !isTagRune(rune(l[i])) {
				i++
				continue
			}
			j := i + 1
			for j < len(l) && isTagRune(rune(l[j])) {
				j++
			}
			if w := strings.TrimPrefix(l[i:j], "#"); w != "" && known[strings.ToLower(w)] {
				out = append(out, tagSpan{tag: l[i:j], start: off + i, end: off + j})
			}
			i = j
		}
		off += end + 1
	}
	return out
}

// yamlComment is where a YAML comment starts in line l, searching from
// byte from: a '#' after a space or at the line's start, outside quotes;
// len(l) when none. ("- #tag" unquoted is a comment, for Obsidian too.)
func yamlComment(l string, from int) int {
	var quote byte
	for i := from; i < len(l); i++ {
		switch c := l[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || l[i-1] == ' ' || l[i-1] == '\t'):
			return i
		}
	}
	return len(l)
}

// tagAt is the tag written at byte offset off of n, without '#'.
func tagAt(n *vault.Note, off int) (string, bool) {
	for _, t := range tagSpans(n) {
		if off >= t.start && off <= t.end {
			return strings.TrimPrefix(t.tag, "#"), true
		}
	}
	return "", false
}

// codeLens counts, above the note's title (else its first line), the
// links into the note from other notes, and above each of its headings
// and blocks that links reach, the links into it: each the count its
// references give, and running it (zk.references) lists them.
func (s *Server) codeLens(_ *glsp.Context, params *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	if err := s.wait(); err != nil {
		return nil, err
	}
	n, err := s.noteOf(params.TextDocument.URI)
	if n == nil || err != nil {
		return nil, err
	}
	idx := headingIndex(n)
	notes := 0
	headings := map[int]int{}
	blocks := map[string]int{}
	for _, r := range s.refsInto(n.Path) {
		if r.From != n.Path {
			notes++
		}
		switch {
		case isBlockSub(r.Sub):
			blocks[vault.BlockKey(r.Sub[2:])]++
		case r.Sub != "":
			if i, ok := idx.Find(r.Sub); ok && i >= 0 {
				headings[i]++
			}
		}
	}
	type lensAt struct {
		off   int
		title string
	}
	titleAt, title := 0, -1
	for i, h := range n.Headings {
		if isTitle(n, h) {
			titleAt, title = h.Span.Start.Offset, i
			break
		}
	}
	lenses := []lensAt{{titleAt, count(notes, "backlink")}}
	for i, h := range n.Headings {
		if c := headings[i]; c > 0 && i != title {
			lenses = append(lenses, lensAt{h.Span.Start.Offset, count(c, "link") + " to this heading"})
		}
	}
	for _, b := range n.BlockIDs {
		if c := blocks[vault.BlockKey(b.ID)]; c > 0 {
			lenses = append(lenses, lensAt{b.Span.Start.Offset, count(c, "link") + " to this block"})
		}
	}
	spans := make([][2]int, len(lenses))
	for i, l := range lenses {
		spans[i] = [2]int{l.off, l.off}
	}
	out := make([]protocol.CodeLens, len(lenses))
	for i, r := range spanRanges(n.Src, spans) {
		out[i] = protocol.CodeLens{Range: r,
			Command: &protocol.Command{Title: lenses[i].title, Command: CommandReferences, Arguments: []any{params.TextDocument.URI, r.Start}}}
	}
	return out, nil
}

// count is "1 thing" or "n things".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// refreshLenses asks a client that can to compute its code lenses again:
// a note saved changes the counts of the notes it links to.
func (s *Server) refreshLenses() {
	s.mu.Lock()
	refresh, ask := s.lensRefresh, s.ask
	s.mu.Unlock()
	if refresh {
		ask(string(protocol.ServerWorkspaceCodeLensRefresh), nil)
	}
}
