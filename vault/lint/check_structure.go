package lint

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
)

// flattened reports a note whose required headings sit in the middle of
// lines, as when a note arrives flattened onto one line
// (seed/000_33d27872721eb433.txt). The other structure rules would only
// repeat it, so the caller skips them.
func (nc *noteCheck) flattened(s *vault.Schema) bool {
	// The source in lower case, made only if a section is missing; ASCII
	// only, so that every offset in it is the same offset in the source.
	var lower []byte
	var inline []string
	first := -1
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
		inline = append(inline, fmt.Sprintf("%q", want.String()))
		if first < 0 || i+1 < first {
			first = i + 1
		}
	}
	if len(inline) < 2 {
		return false
	}
	line, _ := nc.lineCol(first)
	shown := inline
	if len(shown) > 3 {
		shown = append(shown[:3:3], "…")
	}
	nc.at(RuleFlattened, first, first+len(s.Sections[0].String()),
		"the note looks flattened: %d headings (%s) run inline from line %d instead of starting lines of their own; restore the line breaks",
		len(inline), strings.Join(shown, ", "), line)
	return true
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

// structure checks a typed note against its schema: the title, each
// required section present once, in order, and not empty.
func (nc *noteCheck) structure(t *vault.NoteType) {
	n, s := nc.n, t.Schema
	if s.Title {
		nc.title()
	}
	// found[i] is the heading index of required section i, or -1.
	found := make([]int, len(s.Sections))
	for i := range found {
		found[i] = -1
	}
	for hi, h := range n.Headings {
		si := -1
		for i, want := range s.Sections {
			if strings.EqualFold(strings.TrimSpace(h.Text), strings.TrimSpace(want.Title)) {
				si = i
				break
			}
		}
		if si < 0 {
			continue
		}
		if prev := found[si]; prev >= 0 {
			nc.at(RuleDuplicateSection, h.Span.Start.Offset, h.Span.End.Offset,
				"%q appears again; the first is at line %d", s.Sections[si].String(), n.Headings[prev].Span.Start.Line+1)
			continue
		}
		found[si] = hi
	}
	for i, want := range s.Sections {
		if found[i] >= 0 {
			continue
		}
		// Report where the section belongs: at the next required section
		// present, else at the end of the note.
		line, where := nc.lastLine(), "at the end"
		for j := i + 1; j < len(s.Sections); j++ {
			if found[j] >= 0 {
				line, where = n.Headings[found[j]].Span.Start.Line, fmt.Sprintf("before %q", s.Sections[j].String())
				break
			}
		}
		nc.atLine(RuleMissingSection, line, "missing section %q (the %s template puts it %s)", want.String(), t.Name, where)
	}
	// Order: each section present must come after every earlier one.
	latest := -1 // index into s.Sections of the furthest section seen so far
	for hi, h := range n.Headings {
		si := -1
		for i := range s.Sections {
			if found[i] == hi {
				si = i
			}
		}
		if si < 0 {
			continue
		}
		if latest > si {
			nc.at(RuleSectionOrder, h.Span.Start.Offset, h.Span.End.Offset,
				"%q comes after %q (line %d); the %s template puts it before", s.Sections[si].String(),
				s.Sections[latest].String(), n.Headings[found[latest]].Span.Start.Line+1, t.Name)
			continue
		}
		latest = si
	}
	for i, want := range s.Sections {
		if found[i] < 0 {
			continue
		}
		if sec := n.Sections[found[i]]; !nc.hasContent(sec) {
			h := n.Headings[found[i]]
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

// title checks the H1 against the file name.
func (nc *noteCheck) title() {
	n := nc.n
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
		if len(evidence.Falsifiers(nc.n)) == 0 {
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
