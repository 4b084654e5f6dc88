package index

import (
	"path"
	"slices"
	"strings"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/property"
	"github.com/zk-claims/zk/vault/tending"
)

// sectionFields maps the permanent-note sections that have a field of
// their own to it; every other section goes to the body.
var sectionFields = map[string]string{
	"claim":                FieldClaim,
	"scope & conditions":   FieldScope,
	"scope and conditions": FieldScope,
	"scope":                FieldScope,
	"evidence":             FieldEvidence,
}

// segment is a run of a note's source that went into one field. Fields
// are built from segments joined by newlines, so a hit's byte offset in a
// field leads back to the section it came from.
type segment struct {
	field string
	// section is the title of the innermost heading over the run, or ""
	// before the first heading.
	section string
	// start and end are offsets in the field's text.
	start, end int
}

// noteText is a note's text split into fields, with the segments that
// map field offsets back to sections.
type noteText struct {
	// title is the note's title as shown: its H1, else its file name.
	title string
	// aliases are the values of its title-like properties (titleKeys),
	// which are searched as its title is.
	aliases  []string
	fields   map[string]string
	segments []segment
}

// titleKeys are the properties that name a note as its title does:
// Obsidian's aliases (its quick switcher and link suggestions find a
// note by them) and the title a publishing tool reads.
var titleKeys = map[string]bool{"aliases": true, "alias": true, "title": true}

// propSkipped are the properties whose text is not searched: the note's
// language is zk's own setting, searched with lang:.
var propSkipped = map[string]bool{"lang": true, "language": true}

// splitText divides a note's text between the title and the section
// fields. The frontmatter's text values go to the prop field (those of
// titleKeys to the title), the H1 that gives the title is the title, and a
// named section's own heading line is dropped: every note has one, so it
// would only be noise.
func splitText(n *vault.Note) noteText {
	t := noteText{title: n.Name, fields: map[string]string{}}
	var b = map[string]*strings.Builder{}
	add := func(field, section string, src []byte) {
		text := strings.ToValidUTF8(string(src), "\uFFFD")
		if strings.TrimSpace(text) == "" {
			return
		}
		sb := b[field]
		if sb == nil {
			sb = &strings.Builder{}
			b[field] = sb
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		start := sb.Len()
		sb.WriteString(text)
		t.segments = append(t.segments, segment{field: field, section: section, start: start, end: sb.Len()})
	}

	from := 0
	if fm := n.Frontmatter; fm != nil {
		from = min(fm.Span.End.Offset, len(n.Src))
		for _, key := range fm.Keys {
			if propSkipped[strings.ToLower(key)] {
				continue
			}
			for _, v := range propText(fm.Values[key]) {
				v = strings.ToValidUTF8(v, "\uFFFD")
				if titleKeys[strings.ToLower(key)] {
					t.aliases = append(t.aliases, v)
				} else {
					add(FieldProp, key, []byte(v))
				}
			}
		}
	}
	secs := n.Sections
	if len(secs) == 0 {
		add(FieldBody, "", n.Src[from:])
		return t.finish(b)
	}
	add(FieldBody, "", n.Src[from:max(from, secs[0].Start)])

	titled := false
	var named *vault.Section // the open named section, if any
	namedField := ""
	for i := range secs {
		s := &secs[i]
		end := len(n.Src)
		if i+1 < len(secs) {
			end = secs[i+1].Start
		}
		if s.Start < from || end <= s.Start {
			continue
		}
		if named != nil && s.Start >= named.End {
			named = nil
		}
		heading, content := n.Src[s.Start:s.Body], n.Src[min(s.Body, end):end]
		if named == nil && s.Level > 1 {
			if f, ok := sectionFields[strings.ToLower(strings.TrimSpace(s.Title))]; ok && !t.has(f) {
				named, namedField = s, f
				add(f, s.Title, content)
				continue
			}
		}
		switch {
		case named != nil:
			add(namedField, s.Title, n.Src[s.Start:end])
		case s.Level == 1 && !titled:
			titled = true
			t.title = strings.ToValidUTF8(strings.TrimSpace(s.Title), "\uFFFD")
			add(FieldBody, s.Title, content)
		default:
			add(FieldBody, s.Title, heading)
			add(FieldBody, s.Title, content)
		}
	}
	return t.finish(b)
}

// propText are the words of a property value: a text value, or each
// text item of a list. Numbers, checkboxes, dates and dates & times are
// left out (property.TypeOf, as Obsidian types them): "2026" or "3" would
// find every note dated that year or rated so, which zk list --where
// compares as numbers and dates; nested mappings, which Obsidian does not
// show as properties, are left out too.
func propText(v any) []string {
	switch x := v.(type) {
	case string:
		if property.TypeOf(x) == property.Text && strings.TrimSpace(x) != "" {
			return []string{x}
		}
	case []any:
		var out []string
		for _, item := range x {
			if s, ok := item.(string); ok {
				out = append(out, propText(s)...)
			}
		}
		return out
	}
	return nil
}

// has reports whether a named section already claimed the field: only the
// first "## Claim" of a note is its claim.
func (t *noteText) has(field string) bool {
	for _, s := range t.segments {
		if s.field == field {
			return true
		}
	}
	return false
}

func (t noteText) finish(b map[string]*strings.Builder) noteText {
	for f, sb := range b {
		t.fields[f] = sb.String()
	}
	return t
}

// sectionAt returns the section of a byte offset in a field.
func (t noteText) sectionAt(field string, off int) (segment, bool) {
	for _, s := range t.segments {
		if s.field == field && off >= s.start && off < s.end {
			return s, true
		}
	}
	return segment{}, false
}

// newDoc builds what bleve indexes for a note. Link targets are recorded
// as the path they resolve to and the name a wikilink writes (both without
// ".md"); an unresolved link keeps what the note wrote.
func newDoc(n *vault.Note, r *vault.Resolver, tended func(*vault.Note) (tending.Tended, bool), folders langFolders) doc {
	t := splitText(n)
	d := doc{
		Path:      n.Path,
		Lang:      noteLang(n, t, folders),
		Title:     t.title,
		TitleText: t.field(FieldTitle),
		Whole:     wholeTitles(t.title, n.Name, t.aliases),
		Prop:      t.fields[FieldProp],
		Claim:     t.fields[FieldClaim],
		Scope:     t.fields[FieldScope],
		Evidence:  t.fields[FieldEvidence],
		Body:      t.fields[FieldBody],
		Tags:      noteTags(n),
		Links:     linkTargets(n, r),
	}
	if tended == nil {
		tended = func(n *vault.Note) (tending.Tended, bool) { return tending.LastTended(n, "", nil) }
	}
	if td, ok := tended(n); ok && td.Err == nil {
		d.Tended = &td.Date
	}
	return d
}

// maxTagDepth bounds the parents a nested tag is indexed under. Every
// parent is a term of its own, so indexing them all would cost d×l/2
// bytes for a tag of depth d and length l (a 20 KB "#a/a/a/…" was 100 MB
// of terms, 750 MB of memory); with the first maxTagDepth parents a tag
// costs at most maxTagDepth+1 times its length, linear in the note's
// bytes. Obsidian's own vaults nest tags 2–4 levels deep.
const maxTagDepth = 8

// noteLang is the language a note is analysed in: its frontmatter's lang
// or language when it names one, else its folder's (Options.Languages),
// else the one its text reads as.
func noteLang(n *vault.Note, t noteText, folders langFolders) string {
	if fm := n.Frontmatter; fm != nil {
		for _, key := range []string{"lang", "language"} {
			if v, ok := fm.Values[key].(string); ok && strings.TrimSpace(v) != "" {
				code, _ := normLang(v)
				return code
			}
		}
	}
	if code, ok := folders.of(n.Path); ok {
		return code
	}
	var b strings.Builder
	for _, f := range []string{FieldTitle, FieldClaim, FieldBody, FieldScope, FieldEvidence} {
		if b.Len() >= detectSample {
			break
		}
		b.WriteString(t.field(f))
		b.WriteByte('\n')
	}
	return detectLang(b.String())
}

// wholeTitles are the names a note is known by: its title and, when
// the H1 says something else, its file name, then its aliases.
func wholeTitles(title, name string, aliases []string) []string {
	name = strings.ToValidUTF8(name, "\uFFFD")
	out := []string{title}
	for _, a := range append([]string{name}, aliases...) {
		if !slices.ContainsFunc(out, func(s string) bool { return strings.EqualFold(s, a) }) {
			out = append(out, a)
		}
	}
	return out
}

// noteTags are the note's inline and frontmatter tags without '#'. A
// nested tag also counts as each of its parents, as in Obsidian's search:
// #project/zk is tagged project/zk and project. Past maxTagDepth levels
// the whole tag is still indexed, its deeper parents are not.
func noteTags(n *vault.Note) []string {
	seen := map[string]bool{}
	var out []string
	keep := func(tag string) {
		key := strings.ToLower(tag)
		if !seen[key] {
			seen[key] = true
			out = append(out, tag)
		}
	}
	add := func(tag string) {
		tag = strings.ToValidUTF8(strings.TrimPrefix(strings.TrimSpace(tag), "#"), "\uFFFD")
		if tag == "" {
			return
		}
		keep(tag)
		// The parents, shortest last as before: project/zk, then project.
		var parents []string
		for i, depth := 0, 1; depth <= maxTagDepth; depth++ {
			j := strings.IndexByte(tag[i:], '/')
			if j < 0 {
				break
			}
			i += j
			parents = append(parents, tag[:i])
			i++
		}
		for k := len(parents) - 1; k >= 0; k-- {
			if parents[k] != "" {
				keep(parents[k])
			}
		}
	}
	for _, tg := range n.AllTags() {
		add(tg)
	}
	return out
}

// linkTargets are the notes and files a note links to or embeds.
func linkTargets(n *vault.Note, r *vault.Resolver) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		s = strings.ToValidUTF8(strings.TrimSuffix(s, ".md"), "\uFFFD")
		if s != "" && !seen[strings.ToLower(s)] {
			seen[strings.ToLower(s)] = true
			out = append(out, s)
		}
	}
	for l := range n.LinksAndEmbeds() {
		if l.Path == "" {
			continue // a link inside the note itself
		}
		target := l.Path
		if r != nil {
			if p, ok := r.Resolve(l.Path, n.Path); ok {
				target = p
			}
		}
		add(target)
		add(path.Base(target))
	}
	return out
}
