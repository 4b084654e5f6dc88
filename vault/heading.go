package vault

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// How a link's #heading or #^block finds its target, as Obsidian finds it: one
// function for zk check (is the link broken?), the language server (where
// does it go?) and zk mv (which links name the heading renamed), which
// once had three readings and disagreed ([[Note#Why it holds]] reaches the
// heading "Why: it holds" in Obsidian and zk check, and went nowhere in
// the editor).

// headingPunct is what Obsidian's heading matching ignores.
const headingPunct = "!\"#$%&()*+,.:;<=>?@^`{|}~[]\\/"

// NormHeading is a heading as link matching compares it: wikilink
// brackets and punctuation become spaces, runs of spaces one, lower case
// (research on Obsidian: punctuation and [[ ]] ignored, case ignored).
// An ASCII heading is read in one pass into one string: a check
// normalises every heading of every note a link's #heading names, and
// the replacer, map, fields and join below were a twentieth of a cold
// check of the help vault.
func NormHeading(s string) string {
	if n, ok := normASCIIHeading(s); ok {
		return n
	}
	return normAnyHeading(s)
}

// normAnyHeading is NormHeading for any s, in one pass as for ASCII
// (the help vault's headings in its other languages went through a map,
// fields, a join and a lower-casing, 1.4% of its cold check). "[[" and
// "]]" need no replacer of their own: '[' and ']' are punctuation, each
// a space, and runs of spaces are one. A byte of no UTF-8 is U+FFFD, as
// strings.Map made it.
func normAnyHeading(s string) string {
	b := make([]byte, 0, len(s)+8)
	space := false
	for _, r := range s {
		if r < utf8.RuneSelf && strings.IndexByte(headingPunct, byte(r)) >= 0 || unicode.IsSpace(r) {
			space = len(b) > 0
			continue
		}
		if space {
			b, space = append(b, ' '), false
		}
		b = utf8.AppendRune(b, unicode.ToLower(r))
	}
	return string(b)
}

// normASCIIHeading is NormHeading for an ASCII s; ok is false for any
// other.
func normASCIIHeading(s string) (string, bool) {
	var buf [128]byte
	b := buf[:0]
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			return "", false
		case c == ' ' || '\t' <= c && c <= '\r' || strings.IndexByte(headingPunct, c) >= 0:
			space = len(b) > 0
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if space {
			b, space = append(b, ' '), false
		}
		b = append(b, c)
	}
	if len(b) == len(s) && string(b) == s {
		return s, true // already normal: no copy
	}
	return string(b), true
}

// linkBreakers are what a wikilink's #heading cannot hold: [ and ] (a
// "]]" ends the link), | (the display text's start), # (the next
// heading's) and ^ (a block's).
const linkBreakers = "[]|#^"

// LinkHeading is heading as a link's #heading can hold it and still
// reach it: each of linkBreakers a space, runs of spaces one, which link
// matching ignores (NormHeading), so the link reaches the heading as zk
// check matches it; a heading that holds none, as written.
func LinkHeading(heading string) string {
	if !strings.ContainsAny(heading, linkBreakers) {
		return heading
	}
	return strings.Join(strings.FieldsFunc(heading, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(linkBreakers, r)
	}), " ")
}

// HeadingIndex is a note's headings normalised once, and where each
// normalised text occurs, so that a link's heading path costs a lookup
// per part rather than a pass over every heading.
type HeadingIndex struct {
	norm []string
	at   map[string][]int // ascending
}

// NewHeadingIndex indexes headings, the texts of a note's headings in
// order. A text's one heading, as most have, is a slice of one array,
// not an allocation of its own (append copies it out for a second).
func NewHeadingIndex(headings []string) *HeadingIndex {
	x := &HeadingIndex{norm: make([]string, len(headings)), at: make(map[string][]int, len(headings))}
	one := make([]int, len(headings))
	for i, h := range headings {
		n := NormHeading(h)
		x.norm[i] = n
		if at, ok := x.at[n]; ok {
			x.at[n] = append(at, i)
		} else {
			one[i] = i
			x.at[n] = one[i : i+1 : i+1]
		}
	}
	return x
}

// Find reports whether the subpath "#H1#H2" names headings of the note,
// each part matching a heading after the previous part's match, and
// returns the index of the heading the last part matched: where the link
// goes. A subpath of no words matches, at index -1 (the note itself).
func (x *HeadingIndex) Find(subpath string) (int, bool) {
	from, last := 0, -1
	for part := range strings.SplitSeq(strings.TrimPrefix(subpath, "#"), "#") {
		want := NormHeading(part)
		if want == "" {
			continue
		}
		at := x.at[want]
		k, _ := slices.BinarySearch(at, from)
		if k == len(at) {
			return 0, false
		}
		last = at[k]
		from = last + 1
	}
	return last, true
}

// Normalized is each heading as NormHeading gives it, in the note's
// order (for edit distances, which the caller reads in runes: only the
// targets of a broken heading link need them, not every target).
func (x *HeadingIndex) Normalized() []string { return x.norm }

// HeadingOf is the heading of n that subpath names (Find), if any.
func HeadingOf(n *Note, subpath string) (Heading, bool) {
	texts := make([]string, len(n.Headings))
	for i, h := range n.Headings {
		texts[i] = h.Text
	}
	i, ok := NewHeadingIndex(texts).Find(subpath)
	if !ok || i < 0 {
		return Heading{}, false
	}
	return n.Headings[i], true
}

// BlockKey is a block id as links match it, case ignored as
// strings.EqualFold ignores it: one string per class (each rune the least
// of its simple case folding orbit), to key a map by. zk check, the
// language server's go to definition, references and code lenses all
// match block ids through it or BlockOf.
func BlockKey(id string) string {
	ascii := true
	for i := 0; i < len(id) && ascii; i++ {
		ascii = id[i] < utf8.RuneSelf
	}
	if ascii {
		// An ASCII letter's orbit is its two cases and, for k and s, the
		// Kelvin and long-s signs: the upper case is the least.
		return strings.ToUpper(id)
	}
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, id)
}

// BlockOf is n's block that id (without its ^) names, case ignored.
func BlockOf(n *Note, id string) (BlockID, bool) {
	for _, b := range n.BlockIDs {
		if strings.EqualFold(b.ID, id) {
			return b, true
		}
	}
	return BlockID{}, false
}
