package lint

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
)

// flattened finds a note whose required headings sit in the middle of
// lines, as when a note arrives flattened onto one line (the way the
// reference note was first received), or returns nil. The other structure
// rules would only repeat it, so the checker skips them (Rule.whole).
func (nc *noteCheck) flattened(s *vault.Schema) *flatness {
	// The source in lower case, made only if a section is missing; ASCII
	// only, so that every offset in it is the same offset in the source.
	var lower []byte
	f := &flatness{first: -1, heading: s.Sections[0].String()}
	for _, want := range s.Sections {
		if nc.headingIndex(want.Title) >= 0 {
			continue
		}
		if lower == nil {
			lower = lowerASCII(nc.n.Src)
		}
		needle := lowerASCII([]byte(" " + want.String() + " "))
		i := bytes.Index(lower, needle)
		if i < 0 {
			continue
		}
		f.inline = append(f.inline, fmt.Sprintf("%q", want.String()))
		if f.first < 0 || i+1 < f.first {
			f.first = i + 1
		}
	}
	if len(f.inline) < 2 {
		return nil
	}
	return f
}

// flatness is where a flattened note's headings run inline.
type flatness struct {
	inline  []string // the section headings found inline, quoted
	first   int      // the offset of the first
	heading string   // the template's first section, for the span
}

// flattenedFinding reports a note whose headings run inline.
func (nc *noteCheck) flattenedFinding() {
	f := nc.flat
	if f == nil {
		return
	}
	line, _ := nc.lineCol(f.first)
	shown := f.inline
	if len(shown) > 3 {
		shown = append(shown[:3:3], "…")
	}
	nc.at(RuleFlattened, f.first, f.first+len(f.heading),
		"the note looks flattened: %d headings (%s) run inline from line %d instead of starting lines of their own; restore the line breaks",
		len(f.inline), strings.Join(shown, ", "), line)
}

// headingIndex is the index in Note.Headings of the first heading titled
// title (any level), or -1.
func (nc *noteCheck) headingIndex(title string) int {
	for i, h := range nc.n.Headings {
		if strings.EqualFold(strings.TrimSpace(h.Text), strings.TrimSpace(title)) {
			return i
		}
	}
	return -1
}

// sectionMatch is a typed note's headings matched to its schema's
// sections, which four rules read.
type sectionMatch struct {
	// found[i] is the heading index of required section i, or -1.
	found []int
	// again are the headings that repeat a section found earlier.
	again []int
}

// matchSections matches the note's headings to its type's sections, once.
func (nc *noteCheck) matchSections() *sectionMatch {
	if nc.sections != nil {
		return nc.sections
	}
	s := nc.typ.Schema
	m := &sectionMatch{found: make([]int, len(s.Sections))}
	for i := range m.found {
		m.found[i] = -1
	}
	for hi, h := range nc.n.Headings {
		si := slices.IndexFunc(s.Sections, func(want vault.SchemaSection) bool {
			return strings.EqualFold(strings.TrimSpace(h.Text), strings.TrimSpace(want.Title))
		})
		switch {
		case si < 0:
		case m.found[si] >= 0:
			m.again = append(m.again, hi)
		default:
			m.found[si] = hi
		}
	}
	nc.sections = m
	return m
}

// duplicateSections reports a required section written twice.
func (nc *noteCheck) duplicateSections() {
	n, s, m := nc.n, nc.typ.Schema, nc.matchSections()
	for _, hi := range m.again {
		h := n.Headings[hi]
		si := slices.IndexFunc(s.Sections, func(want vault.SchemaSection) bool {
			return strings.EqualFold(strings.TrimSpace(h.Text), strings.TrimSpace(want.Title))
		})
		nc.at(RuleDuplicateSection, h.Span.Start.Offset, h.Span.End.Offset,
			"%q appears again; the first is at line %d", s.Sections[si].String(), n.Headings[m.found[si]].Span.Start.Line+1)
	}
}

// missingSections reports each required section the note lacks, where the
// template puts it: before the next required section present, else at
// the end of the note.
func (nc *noteCheck) missingSections() {
	n, t, m := nc.n, nc.typ, nc.matchSections()
	s := t.Schema
	if len(s.Sections) > 1 && !slices.ContainsFunc(m.found, func(hi int) bool { return hi >= 0 }) {
		// A note with none of them (an old note, a note of another
		// tool's shape) is one fact, not a line per section at one place.
		names := make([]string, len(s.Sections))
		for i, want := range s.Sections {
			names[i] = strconv.Quote(want.String())
		}
		nc.atLine(RuleMissingSection, nc.lastLine(), "no section of the %s template: missing %s (the template puts them in this order, at the end)", t.Name, strings.Join(names, ", "))
		return
	}
	// The sections missing from one place (before the same section, or
	// at the end) are one finding: a note with only its Claim gets one
	// line for the five after it, not five at one line and column.
	for i := 0; i < len(s.Sections); i++ {
		if m.found[i] >= 0 {
			continue
		}
		line, where := nc.lastLine(), "at the end"
		j := i + 1
		for ; j < len(s.Sections); j++ {
			if m.found[j] >= 0 {
				line, where = n.Headings[m.found[j]].Span.Start.Line, fmt.Sprintf("before %q", s.Sections[j].String())
				break
			}
		}
		if j == i+1 {
			nc.atLine(RuleMissingSection, line, "missing section %q (the %s template puts it %s)", s.Sections[i].String(), t.Name, where)
			continue
		}
		names := make([]string, 0, j-i)
		for k := i; k < j; k++ {
			names = append(names, strconv.Quote(s.Sections[k].String()))
		}
		nc.atLine(RuleMissingSection, line, "missing sections %s (the %s template puts them %s, in this order)", strings.Join(names, ", "), t.Name, where)
		i = j
	}
}

// sectionOrder reports a section that comes after one the template puts
// after it.
func (nc *noteCheck) sectionOrder() {
	n, t, m := nc.n, nc.typ, nc.matchSections()
	s := t.Schema
	latest := -1 // index into s.Sections of the furthest section seen so far
	for hi, h := range n.Headings {
		si := slices.Index(m.found, hi)
		if si < 0 {
			continue
		}
		if latest > si {
			nc.at(RuleSectionOrder, h.Span.Start.Offset, h.Span.End.Offset,
				"%q comes after %q (line %d); the %s template puts it before", s.Sections[si].String(),
				s.Sections[latest].String(), n.Headings[m.found[latest]].Span.Start.Line+1, t.Name)
			continue
		}
		latest = si
	}
}

// emptySections reports a required section with nothing in it. An empty
// Tests / falsifiers is falsifiers/missing's to report, one finding for
// one gap.
func (nc *noteCheck) emptySections() {
	n, m := nc.n, nc.matchSections()
	for i, want := range nc.typ.Schema.Sections {
		if m.found[i] < 0 || nc.c.severityAt(RuleFalsifiersMissing, nc.n.Path) != Off && slices.ContainsFunc(evidence.FalsifierSections, func(t string) bool {
			return strings.EqualFold(t, strings.TrimSpace(want.Title))
		}) {
			continue
		}
		if sec := n.Sections[m.found[i]]; !nc.hasContent(sec) {
			h := n.Headings[m.found[i]]
			nc.at(RuleEmptySection, h.Span.Start.Offset, h.Span.End.Offset, "section %q is empty", want.String())
		}
	}
}

// hasContent reports whether a section holds anything but comments.
func (nc *noteCheck) hasContent(sec vault.Section) bool {
	for _, b := range nc.n.Blocks {
		if b.Span.Start.Offset >= sec.Body && b.Span.Start.Offset < sec.End && !isComment(nc.n, b) {
			return true
		}
	}
	if nc.n.Fallback { // the fallback scanner records no blocks
		return len(bytes.TrimSpace(nc.n.Src[sec.Body:sec.End])) > 0
	}
	return false
}

// title checks the H1 against the file name, for a type whose template
// opens with "# {{title}}".
func (nc *noteCheck) title() {
	n := nc.n
	if !nc.typ.Schema.Title {
		return
	}
	for _, h := range n.Headings {
		if h.Level != 1 {
			continue
		}
		text := strings.TrimSpace(h.Text)
		if text != n.Name && vault.FileName(text) != n.Name {
			nc.at(RuleTitle, h.Span.Start.Offset, h.Span.End.Offset, "the H1 %q differs from the file name %q", text, n.Name)
		}
		return
	}
	line := 0
	if n.Frontmatter != nil {
		line = n.Frontmatter.Span.End.Line + 1
	}
	nc.atLine(RuleTitle, line, "no H1 title; add \"# %s\"", n.Name)
}

// claim checks that the Claim states one idea: one paragraph.
func (nc *noteCheck) claim() {
	sec, ok := nc.n.Section("Claim", 0)
	if !ok {
		return
	}
	var paras []vault.Block
	for _, b := range nc.n.Blocks {
		if b.Kind == "paragraph" && b.Span.Start.Offset >= sec.Body && b.Span.Start.Offset < sec.End {
			paras = append(paras, b)
		}
	}
	if len(paras) > 1 {
		nc.at(RuleClaimNotAtomic, paras[1].Span.Start.Offset, paras[1].Span.Start.Offset,
			"the Claim has %d paragraphs; state one claim in one, and move the rest to Scope & conditions or Evidence", len(paras))
	}
}

// falsifiers checks that a Tests / falsifiers section lists one.
func (nc *noteCheck) falsifiers() {
	for _, title := range evidence.FalsifierSections {
		sec, ok := nc.n.Section(title, 0)
		if !ok {
			continue
		}
		if len(nc.falsifierList()) == 0 {
			h := nc.n.Headings[sec.Heading]
			nc.at(RuleFalsifiersMissing, h.Span.Start.Offset, h.Span.End.Offset,
				"%q lists no falsifier; add a list item saying what observation would prove the claim wrong", "## "+sec.Title)
		}
		return
	}
}

// isComment reports whether a block is only a comment: %% ... %% or an
// HTML block that is one <!-- ... --> comment.
func isComment(n *vault.Note, b vault.Block) bool {
	switch b.Kind {
	case "comment":
		return true
	case "html":
		t := bytes.TrimSpace(n.Src[b.Span.Start.Offset:b.Span.End.Offset])
		return bytes.HasPrefix(t, []byte("<!--")) && bytes.HasSuffix(t, []byte("-->")) && bytes.Count(t, []byte("-->")) == 1
	}
	return false
}

// lowerASCII is b with ASCII letters in lower case and every other byte
// kept, so that an offset into it is the same offset into b.
func lowerASCII(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}
