package lint

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/zk-claims/zk/vault"
)

// linkUse is a link of a checked note, resolved, with its place, that
// the link rules look at once every note's headings and block ids are
// known: a link that names nothing (its message names the note that has
// the name as an alias) or that names a heading or block of a file. A
// link that resolves and names no part of its target has no finding to
// wait for and is not kept: at a million notes the uses held until every
// note was read were most of a first check's memory.
type linkUse struct {
	Line, Column, EndLine, EndColumn int
	Original, Path, Subpath          string
	// Target is the path the link resolves to, or "" when it names nothing.
	Target string
	// Key is the frontmatter property holding the link, if it is there.
	Key string
}

// waits reports whether the link rules have anything to check of u once
// every note is read (linkFindings).
func (u *linkUse) waits() bool {
	return u.Target == "" || (u.Subpath != "" && u.Key == "")
}

// links records the links and embeds of the note the link rules check
// once every note is read (linkUse), and the note's link targets and
// broken link paths for its state (stateOf).
func (nc *noteCheck) links() {
	n, r := nc.n, nc.c.resolver
	hidden := nc.commentSpans()
	if k := len(n.Links) + len(n.Embeds) + len(n.FrontmatterLinks); k > 0 {
		// Most notes' links name as many files: the list grown one by
		// one was a fifth of the rules' allocations.
		nc.targets.list = make([]string, 0, min(k, 16))
	}
	// A link naming a heading or block waits for every note to be read,
	// as does a broken one: the uses are made for the first, not grown
	// one by one (the help vault's links to headings, 1.4% of its cold
	// check), and kept as long as the check, no larger.
	waiting := 0
	for _, l := range n.Links {
		if l.Subpath != "" {
			waiting++
		}
	}
	for _, l := range n.Embeds {
		if l.Subpath != "" {
			waiting++
		}
	}
	if waiting > 0 {
		nc.uses = make([]linkUse, 0, waiting)
	}
	for l := range n.LinksAndEmbeds() {
		if hidden.covers(l.Span.Start.Offset) {
			continue
		}
		u := linkUse{Original: l.Original, Path: l.Path, Subpath: l.Subpath, Target: n.Path}
		if l.Path != "" {
			u.Target, _ = r.Resolve(l.Path, n.Path)
		}
		nc.target(&u)
		if u.waits() {
			u.Line, u.Column = nc.posLineCol(l.Span.Start)
			u.EndLine, u.EndColumn = nc.posLineCol(l.Span.End)
			nc.uses = append(nc.uses, u)
		}
	}
	for _, l := range n.FrontmatterLinks {
		if l.Path == "" {
			continue
		}
		u := linkUse{Original: l.Original, Path: l.Path, Key: l.Key, Column: 1}
		u.Target, _ = r.Resolve(l.Path, n.Path)
		nc.target(&u)
		if u.waits() {
			u.Line = nc.frontmatterKeyLine(l.Key) + 1
			nc.uses = append(nc.uses, u)
		}
	}
}

// posLineCol is lineCol(p.Offset), the line taken from p, as the parser
// found it, when the note's lines agree that p.Offset is p.Col bytes into
// line p.Line: two searches of the line starts a link, not one, for the
// help vault's links to headings. A place far into a long line is
// lineCol's, whose rune counts keep that from being quadratic.
func (nc *noteCheck) posLineCol(p vault.Pos) (int, int) {
	start, src := p.Offset-p.Col, nc.n.Src
	if p.Col < 0 || p.Col > 256 || start < 0 || p.Offset > len(src) || p.Line < 0 || p.Line >= nc.lines.Count() ||
		nc.lines.LineStart(p.Line) != start || p.Line+1 < nc.lines.Count() && nc.lines.LineStart(p.Line+1) <= p.Offset {
		return nc.lineCol(p.Offset)
	}
	return p.Line + 1, utf8.RuneCount(src[start:p.Offset]) + 1
}

// target records what u's note depends on in others (NoteState): the
// file u resolves to, or its path when it names nothing, each once.
func (nc *noteCheck) target(u *linkUse) {
	switch {
	case u.Target == "":
		nc.broken.add(u.Path)
	case u.Target != nc.n.Path:
		nc.targets.add(u.Target)
	}
}

// restTargets records, as target does, where the note's rests-on
// entries lead: the links did for most, but not for an entry in a %%
// comment or in a note the options' Only leaves out, whose summary still
// rests on it. A recheck after files came or went finds the notes whose
// entries may lead elsewhere by their states' targets and broken paths.
func (nc *noteCheck) restTargets(edges []restEdge) {
	for _, e := range edges {
		u := linkUse{Path: e.link}
		u.Target, _ = nc.c.resolver.Resolve(e.link, nc.n.Path)
		nc.target(&u)
	}
}

// onceList is a list of strings, each once, in the order first added: a
// note's few are compared in the list, the thousands of a note dense with
// distinct links looked up in a set, where comparing was quadratic.
type onceList struct {
	list []string
	set  map[string]bool
}

// add appends s unless the list holds it.
func (o *onceList) add(s string) {
	if o.set == nil {
		if slices.Contains(o.list, s) {
			return
		}
		if len(o.list) < 32 {
			o.list = append(o.list, s)
			return
		}
		o.set = make(map[string]bool, 2*len(o.list))
		for _, e := range o.list {
			o.set[e] = true
		}
	}
	if !o.set[s] {
		o.set[s] = true
		o.list = append(o.list, s)
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
	t := c.summary(l.Target)
	if t == nil {
		return out // not a note: a PDF's #page=3 is a viewer parameter
	}
	if len(l.Subpath) > 1 && l.Subpath[1] == '^' {
		if !c.targets.hasBlock(t, l.Subpath[2:]) {
			f.Rule, f.Message = RuleBrokenBlock, fmt.Sprintf("no block %q in %q", l.Subpath[1:], t.name)
			out = c.add(out, f)
		}
		return out
	}
	if _, ok := c.targets.headingIndex(t).Find(l.Subpath); !ok {
		f.Rule, f.Message = RuleBrokenHeading, fmt.Sprintf("no heading %q in %q", l.Subpath, t.name)
		if best, ok := c.targets.closestHeading(t, l.Subpath); ok {
			f.Message += fmt.Sprintf("; the closest is %q", "#"+best)
		}
		out = c.add(out, f)
	}
	return out
}

// linkTargets is what the link rules derive from a target note's summary,
// made once per target rather than once per link: every link to a note of
// 40,000 block ids compared each id (40k × 40k took 5 s), and every broken
// heading link normalised every heading again. It is used by finish, from
// one goroutine, and by a Session under its lock, which forgets a
// summary's entries when the summary is replaced (forget).
type linkTargets struct {
	blocks   map[*noteSummary]map[string]bool
	headings map[*noteSummary]*vault.HeadingIndex
	// runes are a target's normalised headings in runes, made for the
	// targets of a broken heading link alone (closestHeading).
	runes   map[*noteSummary][][]rune
	closest map[*noteSummary]map[string]closestResult // by subpath
	// cells is the edit-distance work left for suggesting headings.
	cells int
}

type closestResult struct {
	best string
	ok   bool
}

// suggestCells bounds the edit-distance cells one check spends on "the
// closest is" suggestions: about a tenth of a second. Past it broken
// heading links are still reported, without a suggestion. A vault needs
// thousands of broken links into a note of thousands of headings to
// reach it (2,000 × 2,000 took 9 s before the bound).
const suggestCells = 50_000_000

func newLinkTargets() *linkTargets {
	return &linkTargets{blocks: map[*noteSummary]map[string]bool{}, headings: map[*noteSummary]*vault.HeadingIndex{},
		runes: map[*noteSummary][][]rune{}, closest: map[*noteSummary]map[string]closestResult{}, cells: suggestCells}
}

// forget drops what was derived from t, a summary replaced or gone: a
// session's summaries are replaced at every check of the note, and every
// one it linked to would otherwise be kept for the session's life.
func (lt *linkTargets) forget(t *noteSummary) {
	delete(lt.blocks, t)
	delete(lt.headings, t)
	delete(lt.runes, t)
	delete(lt.closest, t)
}

// hasBlock reports whether t has block id (vault.BlockKey).
func (lt *linkTargets) hasBlock(t *noteSummary, id string) bool {
	set := lt.blocks[t]
	if set == nil {
		set = make(map[string]bool, len(t.blocks))
		for _, b := range t.blocks {
			set[vault.BlockKey(b)] = true
		}
		lt.blocks[t] = set
	}
	return set[vault.BlockKey(id)]
}

// headingIndex is t's headings, indexed once.
func (lt *linkTargets) headingIndex(t *noteSummary) *vault.HeadingIndex {
	x := lt.headings[t]
	if x == nil {
		x = vault.NewHeadingIndex(t.headings)
		lt.headings[t] = x
	}
	return x
}

// closestHeading is closestHeading(t.headings, subpath), remembered per
// target and subpath and within the check's budget of work.
func (lt *linkTargets) closestHeading(t *noteSummary, subpath string) (string, bool) {
	if r, ok := lt.closest[t][subpath]; ok {
		return r.best, r.ok
	}
	norm := lt.runes[t]
	if norm == nil {
		norm = headingRunes(lt.headingIndex(t).Normalized())
		lt.runes[t] = norm
	}
	i, ok := closestIndex(norm, subpath, &lt.cells)
	r := closestResult{ok: ok}
	if ok {
		r.best = strings.TrimSpace(t.headings[i])
	}
	if lt.closest[t] == nil {
		lt.closest[t] = map[string]closestResult{}
	}
	lt.closest[t][subpath] = r
	return r.best, r.ok
}

// brokenMessage says a link names nothing, and when the name is an alias
// of a note, how to link to that note instead.
func (c *checker) brokenMessage(linkpath, original string) string {
	msg := fmt.Sprintf("%s: no note or file %q in the vault", original, linkpath)
	owners := c.aliases[vault.FoldName(linkpath)]
	if c.cached != nil {
		owners = append(slices.Clone(owners), c.cached.aliasOwners(vault.FoldName(linkpath))...)
	}
	if len(owners) > 0 {
		// The first name in order, not the first note read: a Session
		// records notes in another order than Check, and names the same.
		owner := slices.Min(owners)
		msg += fmt.Sprintf("; it is an alias of %q, and aliases do not resolve links: write [[%s|%s]]", owner, owner, linkpath)
	}
	return msg
}

// frontmatterKeyLine is the 0-based line of the top-level frontmatter
// property holding key ("cast" for "cast.0"), or the frontmatter's first
// line. The lines come from the YAML decoder, one map per note, so that a
// note of many frontmatter links is not rescanned for each.
func (nc *noteCheck) frontmatterKeyLine(key string) int {
	fm := nc.n.Frontmatter
	if fm == nil {
		return 0
	}
	if nc.keyLines == nil {
		nc.keyLines = make(map[string]int, len(fm.KeyLines))
		for i, line := range fm.KeyLines {
			nc.keyLines[fm.Keys[i]] = line
		}
	}
	// A list item's key is the property's, then ".N" for each level of
	// list: strip those until a property is found.
	for k := key; ; {
		if line, ok := nc.keyLines[k]; ok {
			return line
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			return fm.Span.Start.Line
		}
		k = k[:i]
	}
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

// hasHeadingPath reports whether "#H1#H2" names headings of n
// (vault.HeadingIndex.Find).
func hasHeadingPath(headings []string, subpath string) bool {
	_, ok := vault.NewHeadingIndex(headings).Find(subpath)
	return ok
}

// closestHeading is the heading nearest, by edit distance on the
// normalised text, to the last part of subpath; the first of those as near.
func closestHeading(headings []string, subpath string) (string, bool) {
	cells := math.MaxInt
	i, ok := closestIndex(headingRunes(vault.NewHeadingIndex(headings).Normalized()), subpath, &cells)
	if !ok {
		return "", false
	}
	return strings.TrimSpace(headings[i]), true
}

// headingRunes is each normalised heading in runes, in one array.
func headingRunes(norm []string) [][]rune {
	n := 0
	for _, h := range norm {
		n += utf8.RuneCountInString(h)
	}
	all := make([]rune, 0, n)
	out := make([][]rune, len(norm))
	for i, h := range norm {
		start := len(all)
		for _, r := range h {
			all = append(all, r)
		}
		out[i] = all[start:len(all):len(all)]
	}
	return out
}

// closestIndex is closestHeading on normalised headings. It computes a
// distance only where it can beat the best so far, and spends at most
// *cells of edit-distance work, reporting false once that is spent. The
// distances' rows are made once for all of them.
func closestIndex(norm [][]rune, subpath string, cells *int) (int, bool) {
	parts := strings.Split(subpath, "#")
	want := []rune(vault.NormHeading(parts[len(parts)-1]))
	best, bestD := -1, math.MaxInt
	var rows []int
	for i, h := range norm {
		if best >= 0 && abs(len(h)-len(want)) >= bestD {
			continue // the length difference alone is no better
		}
		*cells -= (len(want) + 1) * (len(h) + 1)
		if *cells < 0 {
			return 0, false
		}
		if 2*(len(h)+1) > cap(rows) {
			rows = make([]int, 2*(len(h)+1))
		}
		if d := boundedDistanceIn(want, h, bestD-1, rows); d < bestD {
			best, bestD = i, d
		}
	}
	return best, best >= 0
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	return boundedDistance([]rune(a), []rune(b), math.MaxInt-1)
}

// boundedDistance is the Levenshtein distance between a and b when it is
// at most limit, and more than limit otherwise: it stops once a whole row
// of the table is past limit.
func boundedDistance(ra, rb []rune, limit int) int {
	return boundedDistanceIn(ra, rb, limit, make([]int, 2*(len(rb)+1)))
}

// boundedDistanceIn is boundedDistance with its two rows in rows (at
// least 2*(len(rb)+1) long). A cell more than limit off the diagonal is
// more than limit (a distance is at least the lengths' difference), and
// no path through one ends within limit: only the band of cells within
// limit of the diagonal is computed, a cell past it read as limit+1. The
// suggestions of the help vault's broken heading links, compared with
// every heading of their targets, were 2% of its cold check.
func boundedDistanceIn(ra, rb []rune, limit int, rows []int) int {
	n := len(rb)
	over := limit + 1
	if abs(len(ra)-n) > limit {
		return over // the last cell is off the band
	}
	prev, cur := rows[:n+1], rows[n+1:2*(n+1)]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		lo, hi := 1, n
		if limit < n {
			lo, hi = max(1, i-limit), min(n, i+limit)
		}
		cur[0] = i
		least := cur[0]
		if lo > 1 {
			cur[lo-1] = over
		}
		for j := lo; j <= hi; j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			least = min(least, cur[j])
		}
		if hi < n {
			cur[hi+1] = over
		}
		if least > limit {
			return over
		}
		prev, cur = cur, prev
	}
	return min(prev[n], over)
}

// untypedLinks reports a Links-section entry without a relation or
// without the justification after it.
func (nc *noteCheck) untypedLinks() {
	for _, e := range nc.linkEntries() {
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
	for _, e := range nc.linkEntries() {
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

// commentSpans are the note's %% comments as the parser reads them
// (vault.CommentSpans: a "%%" in code is code), unless the options check
// comments. The parser hides the links of a comment spanning lines; those
// of a comment within a line it records, as Obsidian does, and the link
// rules skip them here.
func (nc *noteCheck) commentSpans() spans {
	if nc.c.opts.Comments {
		return nil
	}
	fmEnd := 0
	if fm := nc.n.Frontmatter; fm != nil {
		fmEnd = fm.Span.End.Offset
	}
	return vault.CommentSpans(nc.n.Src, fmEnd)
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
