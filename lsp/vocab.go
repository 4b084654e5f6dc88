package lsp

import (
	"slices"
	"strings"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
)

// relationNames are the relations to offer: the configured vocabulary
// in its order, then those the vault's notes use beyond it, most used
// first.
func (s *Server) relationNames() []string {
	out := slices.Clone(s.opts.Lint.Relations)
	if out == nil {
		out = slices.Clone(lint.DefaultRelations)
	}
	known := map[string]bool{}
	for _, r := range out {
		known[strings.ToLower(r)] = true
	}
	for _, r := range s.live.Relations() {
		if !known[r] {
			out = append(out, r)
		}
	}
	return out
}

// isTagRune reports whether r may be part of a tag, as Obsidian reads
// one: letters, digits, '_', '-', '/' (nesting), and any non-ASCII rune.
func isTagRune(r rune) bool {
	return r == '_' || r == '-' || r == '/' || r >= 0x80 ||
		('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
}

// tagCompletion completes a tag: after '#' in the text (at a line's
// start or after a space or bracket), or a word of the frontmatter's tags
// property. nil when the cursor is in neither.
func (s *Server) tagCompletion(n *vault.Note, text string, off int, line string) *protocol.CompletionList {
	word := len(line)
	for word > 0 && isTagRune(rune(line[word-1])) { // a byte past ASCII is part of a rune past it
		word--
	}
	typed := line[word:]
	hash := word > 0 && line[word-1] == '#'
	switch {
	case hash:
		if word > 1 && !strings.ContainsRune(" \t([", rune(line[word-2])) {
			return nil // "a#b", "[[Note#H": not a tag
		}
		if strings.HasSuffix(line[:word], "[[#") || inFrontmatter(n, off) {
			return nil
		}
	case inFrontmatter(n, off) && (frontmatterKeyAt(text, off) == "tags" || frontmatterKeyAt(text, off) == "tag"):
	default:
		return nil
	}
	rng := protocol.Range{Start: position(text, off-len(typed)), End: position(text, off)}
	want := strings.ToLower(typed)
	list := &protocol.CompletionList{Items: []protocol.CompletionItem{}}
	for _, t := range s.live.Tags() {
		if !strings.HasPrefix(strings.ToLower(t), want) {
			continue
		}
		list.Items = append(list.Items, item(t, protocol.CompletionItemKindKeyword, rng))
		if len(list.Items) == maxCompletions {
			list.IsIncomplete = true
			break
		}
	}
	return list
}

// inFrontmatter reports whether byte offset off is inside n's
// frontmatter, between its fences.
func inFrontmatter(n *vault.Note, off int) bool {
	fm := n.Frontmatter
	return fm != nil && off > fm.Span.Start.Offset && off < fm.Span.End.Offset
}

// frontmatterKeyAt is the top-level frontmatter property the line at off
// belongs to: the key of that line, or of the nearest line above it that
// starts at the left margin ("tags:" above "  - a").
func frontmatterKeyAt(text string, off int) string {
	for start := strings.LastIndexByte(text[:off], '\n') + 1; ; {
		line := text[start:]
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		if line != "" && line[0] != ' ' && line[0] != '\t' && line[0] != '-' {
			key, _, ok := strings.Cut(line, ":")
			if !ok || line == "---" {
				return ""
			}
			return strings.ToLower(strings.TrimSpace(key))
		}
		if start == 0 {
			return ""
		}
		start = strings.LastIndexByte(text[:start-1], '\n') + 1
	}
}

// relationCompletion completes the relation of a Links entry: after
// "[[Target]] — " (or an en dash, or "--") on a list item of the Links
// section. nil elsewhere.
func (s *Server) relationCompletion(n *vault.Note, text string, off int, lineStart int) *protocol.CompletionList {
	sec, ok := n.Section("Links", 0)
	if !ok || off < sec.Body || off > sec.End {
		return nil
	}
	var linkEnd = -1
	for l := range n.LinksAndEmbeds() {
		if l.Span.Start.Offset >= lineStart && l.Span.End.Offset <= off {
			linkEnd = l.Span.End.Offset
			break
		}
	}
	if linkEnd < 0 || !strings.HasPrefix(strings.TrimLeft(text[lineStart:], " \t"), "- ") &&
		!strings.HasPrefix(strings.TrimLeft(text[lineStart:], " \t"), "* ") {
		return nil
	}
	rest := strings.TrimLeft(text[linkEnd:off], " \t")
	dashed := false
	for _, dash := range []string{"—", "–", "--"} {
		if after, ok := strings.CutPrefix(rest, dash); ok {
			rest, dashed = strings.TrimLeft(after, " \t"), true
			break
		}
	}
	if !dashed || strings.ContainsAny(rest, " :") {
		return nil
	}
	rng := protocol.Range{Start: position(text, off-len(rest)), End: position(text, off)}
	list := &protocol.CompletionList{Items: []protocol.CompletionItem{}}
	want := strings.ToLower(rest)
	for _, r := range s.relationNames() {
		if strings.HasPrefix(strings.ToLower(r), want) {
			it := item(r, protocol.CompletionItemKindEnumMember, rng)
			it.TextEdit = protocol.TextEdit{Range: rng, NewText: r + ": "}
			list.Items = append(list.Items, it)
		}
	}
	return list
}
