package lint

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/zk-claims/zk/vault"
)

// linkUse is a link of a checked note, resolved, with its place: the
// link rules run on it once every note's headings and block ids are known.
type linkUse struct {
	Line, Column, EndLine, EndColumn int
	Original, Path, Subpath          string
	// Target is the path the link resolves to, or "" when it names nothing.
	Target string
	// Key is the frontmatter property holding the link, if it is there.
	Key string
}

// links records every link and embed of the note, resolved.
func (nc *noteCheck) links() {
	n, r := nc.n, nc.c.resolver
	hidden := nc.commentSpans()
	for _, l := range n.AllLinks() {
		if hidden.covers(l.Span.Start.Offset) {
			continue
		}
		u := linkUse{Original: l.Original, Path: l.Path, Subpath: l.Subpath, Target: n.Path}
		u.Line, u.Column = nc.lineCol(l.Span.Start.Offset)
		u.EndLine, u.EndColumn = nc.lineCol(l.Span.End.Offset)
		if l.Path != "" {
			u.Target, _ = r.Resolve(l.Path, n.Path)
		}
		nc.uses = append(nc.uses, u)
	}
	for _, l := range n.FrontmatterLinks {
		if l.Path == "" {
			continue
		}
		u := linkUse{Original: l.Original, Path: l.Path, Key: l.Key, Column: 1}
		u.Line = nc.frontmatterKeyLine(l.Key) + 1
		u.Target, _ = r.Resolve(l.Path, n.Path)
		nc.uses = append(nc.uses, u)
	}
}

// linkFindings appends what is wrong with one link of the note at path:
// the file exists, and a #heading or #^block it names exists in it.
func (c *checker) linkFindings(out []Finding, path string, l linkUse) []Finding {
	f := Finding{Path: path, Line: l.Line, Column: l.Column, EndLine: l.EndLine, EndColumn: l.EndColumn}
	if l.Target == "" {
		f.Rule, f.Message = RuleBrokenLink, c.brokenMessage(l.Path, l.Original)
		if l.Key != "" {
			f.Message += " (frontmatter " + l.Key + ")"
		}
		return c.add(out, f)
	}
	if l.Subpath == "" || l.Key != "" {
		return out
	}
	t := c.summaries[l.Target]
	if t == nil {
		return out // not a note: a PDF's #page=3 is a viewer parameter
	}
	if len(l.Subpath) > 1 && l.Subpath[1] == '^' {
		id := l.Subpath[2:]
		if !slices.ContainsFunc(t.blocks, func(b string) bool { return strings.EqualFold(b, id) }) {
			f.Rule, f.Message = RuleBrokenBlock, fmt.Sprintf("no block %q in %q", l.Subpath[1:], t.name)
			out = c.add(out, f)
		}
		return out
	}
	if !hasHeadingPath(t.headings, l.Subpath) {
		f.Rule, f.Message = RuleBrokenHeading, fmt.Sprintf("no heading %q in %q", l.Subpath, t.name)
		if best, ok := closestHeading(t.headings, l.Subpath); ok {
			f.Message += fmt.Sprintf("; the closest is %q", "#"+best)
		}
		out = c.add(out, f)
	}
	return out
}

// brokenMessage says a link names nothing, and when the name is an alias
// of a note, how to link to that note instead.
func (c *checker) brokenMessage(linkpath, original string) string {
	msg := fmt.Sprintf("%s: no note or file %q in the vault", original, linkpath)
	if owners := c.aliases[vault.FoldName(linkpath)]; len(owners) > 0 {
		msg += fmt.Sprintf("; it is an alias of %q, and aliases do not resolve links: write [[%s|%s]]", owners[0], owners[0], linkpath)
	}
	return msg
}

// frontmatterKeyLine is the 0-based line of a top-level frontmatter key
// ("cast" for "cast.0"), or the frontmatter's first line.
func (nc *noteCheck) frontmatterKeyLine(key string) int {
	fm := nc.n.Frontmatter
	if fm == nil {
		return 0
	}
	top, _, _ := strings.Cut(key, ".")
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(top) + `[ \t]*:`)
	start := fm.Span.Start.Offset
	if loc := re.FindIndex(nc.n.Src[start:fm.Span.End.Offset]); loc != nil {
		return nc.lines.Pos(start + loc[0]).Line
	}
	return fm.Span.Start.Line
}

// noteAliases are the note's frontmatter aliases (a list, or a scalar as
// some vaults write it).
func noteAliases(n *vault.Note) []string {
	if n.Frontmatter == nil || n.Frontmatter.Values == nil {
		return nil
	}
	var out []string
	for _, key := range []string{"aliases", "alias"} {
		switch v := n.Frontmatter.Values[key].(type) {
		case string:
			out = append(out, strings.TrimSpace(v))
		case []any:
			for _, a := range v {
				if s, ok := a.(string); ok && strings.TrimSpace(s) != "" {
					out = append(out, strings.TrimSpace(s))
				}
			}
		}
	}
	return out
}

// hasHeadingPath reports whether "#H1#H2" names headings of n: each part
// matches, normalised and ignoring case, a heading after the previous
// part's match (research/obsidian-spec.md §E3–E5).
func hasHeadingPath(headings []string, subpath string) bool {
	from := 0
	for _, part := range strings.Split(strings.TrimPrefix(subpath, "#"), "#") {
		want := normHeading(part)
		if want == "" {
			continue
		}
		i := from
		for ; i < len(headings); i++ {
			if normHeading(headings[i]) == want {
				break
			}
		}
		if i == len(headings) {
			return false
		}
		from = i + 1
	}
	return true
}

// headingPunct is what Obsidian's heading matching ignores.
const headingPunct = "!\"#$%&()*+,.:;<=>?@^`{|}~[]\\/"

// normHeading is a heading as link matching compares it: wikilink
// brackets and punctuation become spaces, runs of spaces one, lower case.
func normHeading(s string) string {
	s = strings.NewReplacer("[[", " ", "]]", " ").Replace(s)
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(headingPunct, r) {
			return ' '
		}
		return r
	}, s)
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// closestHeading is the heading nearest, by edit distance on the
// normalised text, to the last part of subpath.
func closestHeading(headings []string, subpath string) (string, bool) {
	parts := strings.Split(subpath, "#")
	want := normHeading(parts[len(parts)-1])
	best, bestD := "", -1
	for _, h := range headings {
		if d := editDistance(want, normHeading(h)); bestD < 0 || d < bestD {
			best, bestD = strings.TrimSpace(h), d
		}
	}
	return best, bestD >= 0
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// untypedLinks reports a Links-section entry without a relation or
// without the justification after it.
func (nc *noteCheck) untypedLinks() {
	for _, e := range vault.LinkEntries(nc.n) {
		sp := e.Link.Span
		switch {
		case e.Relation == "":
			nc.at(RuleUntypedLink, sp.Start.Offset, sp.End.Offset,
				"entry %s has no relation; write \"%s — relation: why\"", e.Link.Original, e.Link.Original)
		case e.Justification == "":
			nc.at(RuleUntypedLink, sp.Start.Offset, sp.End.Offset,
				"entry %s names %q but gives no justification after the colon", e.Link.Original, e.Relation)
		}
	}
}

// unknownRelations reports a Links-section relation not in the
// vocabulary, with the word it most likely meant.
func (nc *noteCheck) unknownRelations() {
	for _, e := range vault.LinkEntries(nc.n) {
		if e.Relation == "" || nc.c.relations[e.Relation] {
			continue
		}
		msg := fmt.Sprintf("%q is not a known relation", e.Relation)
		if near, ok := nc.c.closestRelation(e.Relation); ok {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		msg += " (known: " + strings.Join(nc.c.vocab, ", ") + ")"
		sp := e.Link.Span
		nc.at(RuleUnknownRelation, sp.Start.Offset, sp.End.Offset, "%s", msg)
	}
}

// closestRelation is the vocabulary word within two edits of rel.
func (c *checker) closestRelation(rel string) (string, bool) {
	best, bestD := "", 3
	for _, v := range c.vocab {
		if d := editDistance(rel, strings.ToLower(v)); d < bestD {
			best, bestD = v, d
		}
	}
	return best, best != ""
}

// spans are half-open byte ranges of a note, in order.
type spans [][2]int

// covers reports whether off lies in one of the spans.
func (s spans) covers(off int) bool {
	i, found := slices.BinarySearchFunc(s, off, func(sp [2]int, off int) int { return cmp.Compare(sp[0], off) })
	if found {
		return true
	}
	return i > 0 && off < s[i-1][1]
}

// commentSpans are the note's %% comments, "%%" to "%%" (an unclosed one
// runs to the end; a "%%" in a code block is code), unless the options
// check comments. The parser hides the links of a comment spanning lines;
// those of a comment within a line it records, as Obsidian does, and the
// link rules skip them here.
func (nc *noteCheck) commentSpans() spans {
	src := nc.n.Src
	if nc.c.opts.Comments || !bytes.Contains(src, []byte("%%")) {
		return nil
	}
	var code spans
	for _, b := range nc.n.Blocks {
		if b.Kind == "code" {
			code = append(code, [2]int{b.Span.Start.Offset, b.Span.End.Offset})
		}
	}
	next := func(from int) int { // the next "%%" outside code, or -1
		for from < len(src) {
			i := bytes.Index(src[from:], []byte("%%"))
			if i < 0 {
				return -1
			}
			if !code.covers(from + i) {
				return from + i
			}
			from += i + 2
		}
		return -1
	}
	var out spans
	for off := 0; ; {
		start := next(off)
		if start < 0 {
			return out
		}
		end := next(start + 2)
		if end < 0 {
			return append(out, [2]int{start, len(src)})
		}
		off = end + 2
		out = append(out, [2]int{start, off})
	}
}

// collisions reports each note that no link can reach because another
// file's path differs from its own only by case or Unicode normal form.
func (c *checker) collisions(out []Finding) []Finding {
	for _, group := range c.resolver.Collisions() {
		for _, p := range group[1:] {
			if !vault.IsNotePath(p) || (c.opts.Only != nil && !c.opts.Only(p)) {
				continue
			}
			// Names that differ by normal form look alike: escape them.
			format := "%+q differs from %+q only by Unicode normal form"
			if strings.EqualFold(p, group[0]) {
				format = "%q differs from %q only by case"
			}
			out = c.add(out, Finding{Path: p, Line: 1, Column: 1, Rule: RuleNameCollision,
				Message: fmt.Sprintf(format+": every link reaches the other, so this note can never be linked", p, group[0])})
		}
	}
	return out
}
