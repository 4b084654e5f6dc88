package vault

import (
	"sort"
	"strings"
	"unicode"
)

// LinkEntry is one entry of a note's Links section, in the house format
//
//   - [[Target]] — relation[ qualifier]: justification
//
// with an em dash (or "--", or an en dash) between the link and the
// relation.
type LinkEntry struct {
	// Link is the entry's first link.
	Link Link
	// Relation is the relation word, lower-cased ("extends", "contrasts");
	// empty when the entry is untyped.
	Relation string
	// Qualifier is what follows the relation before the colon ("on
	// mechanism" in "contrasts on mechanism: ...").
	Qualifier string
	// Justification is the text after the colon.
	Justification string
	// Line is the entry's 0-based line.
	Line int
}

// Typed reports whether the entry names a relation and justifies it.
func (e LinkEntry) Typed() bool { return e.Relation != "" && e.Justification != "" }

// cutRelation reads what follows an entry's link: a dash (em or en dash,
// or "--"), the relation and its qualifier, a colon, the justification.
// It returns the text before the first colon and the text after it, or
// false when there is no dash or no colon. (A hand-written cut, not a
// regexp: the regexp's backtracking was a third of zk check's rule time.)
func cutRelation(rest string) (relation, justification string, ok bool) {
	rest = strings.TrimLeft(rest, asciiSpace)
	for _, dash := range []string{"—", "–", "--"} {
		if after, found := strings.CutPrefix(rest, dash); found {
			relation, justification, ok = strings.Cut(after, ":")
			return relation, justification, ok
		}
	}
	return "", "", false
}

// asciiSpace is what RE2's \s matches.
const asciiSpace = " \t\n\f\r"

// LinkEntries returns the entries of the note's "Links" section (any
// heading level): each list item whose first line holds a link. Items
// without a link are not entries.
func LinkEntries(n *Note) []LinkEntry {
	s, ok := n.Section("Links", 0)
	if !ok {
		return nil
	}
	var out []LinkEntry
	for i, it := range n.ListItems {
		if it.Span.Start.Offset >= s.Body && it.Span.Start.Offset < s.End && out == nil {
			// Sized once, for the items of the section at most.
			k := i
			for k < len(n.ListItems) && n.ListItems[k].Span.Start.Offset < s.End {
				k++
			}
			out = make([]LinkEntry, 0, k-i)
		}
		start := it.Span.Start.Offset
		if start < s.Body || start >= s.End {
			continue
		}
		lineEnd := start + len(firstLine(n.Src[start:]))
		first := firstLinkIn(n.Links, start, lineEnd)
		if e := firstLinkIn(n.Embeds, start, lineEnd); first == nil || (e != nil && e.Span.Start.Offset < first.Span.Start.Offset) {
			first = e
		}
		if first == nil {
			continue
		}
		e := LinkEntry{Link: *first, Line: it.Span.Start.Line}
		rest := string(n.Src[first.Span.End.Offset:lineEnd])
		if rel, just, ok := cutRelation(rest); ok {
			if word, qualifier := splitRelation(rel); word != "" {
				e.Relation = strings.ToLower(strings.Trim(word, "*_`"))
				e.Qualifier = qualifier
			}
			e.Justification = strings.TrimSpace(just)
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil // as a section without entries always gave
	}
	return out
}

// splitRelation is the first word of rel and the words after it joined
// by single spaces, as strings.Fields and strings.Join make them, without
// their allocations when rel is spaced plainly, as entries are.
func splitRelation(rel string) (word, qualifier string) {
	rel = strings.TrimLeftFunc(rel, unicode.IsSpace)
	end := strings.IndexFunc(rel, unicode.IsSpace)
	if end < 0 {
		return rel, ""
	}
	word, rest := rel[:end], strings.TrimFunc(rel[end:], unicode.IsSpace)
	if plainlySpaced(rest) {
		return word, rest
	}
	return word, strings.Join(strings.Fields(rest), " ")
}

// plainlySpaced reports whether s's words are one ASCII space apart.
func plainlySpaced(s string) bool {
	prev := false // the previous rune was a space
	for _, r := range s {
		if unicode.IsSpace(r) {
			if r != ' ' || prev {
				return false
			}
			prev = true
			continue
		}
		prev = false
	}
	return true
}

// firstLinkIn returns the first of links (sorted by offset, as a note
// holds them) that starts in [start, end), or nil. A binary search, not a
// scan: LinkEntries asks once per list item.
func firstLinkIn(links []Link, start, end int) *Link {
	i := sort.Search(len(links), func(i int) bool { return links[i].Span.Start.Offset >= start })
	if i < len(links) && links[i].Span.Start.Offset < end {
		return &links[i]
	}
	return nil
}

func firstLine(b []byte) []byte {
	for i, c := range b {
		if c == '\n' {
			if i > 0 && b[i-1] == '\r' {
				return b[:i-1]
			}
			return b[:i]
		}
	}
	return b
}
