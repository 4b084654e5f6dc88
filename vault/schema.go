package vault

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// Schema is what a note type requires, read from its template
// (docs/design.md, note types): the headings it writes are the required sections, in
// that order, and the section holding its "Last tended:" line is where the
// maintenance date belongs.
type Schema struct {
	// Title is set when the template opens with "# {{title}}": a note of
	// the type needs an H1 equal to its file name.
	Title bool
	// Sections are the template's headings other than the title, in order.
	Sections []SchemaSection
	// TendedIn is the title of the section holding the template's Last
	// tended line, or "" when the template has none.
	TendedIn string
	// Properties are the properties the template's frontmatter writes,
	// in its order: a note of the type is to have each.
	Properties []string
}

// SchemaSection is one required section.
type SchemaSection struct {
	Title string
	Level int
}

// String is the section as a note writes it: "## Claim".
func (s SchemaSection) String() string { return strings.Repeat("#", s.Level) + " " + s.Title }

// ErrEmptyTemplate is returned for a template without a single section.
var ErrEmptyTemplate = errors.New("template has no sections: its headings are the sections a note of the type must have; give it one, such as \"## Maintenance\" over \"- Last tended: {{date}}\"")

// ParseSchema reads the schema of a note type from its template.
func ParseSchema(tmpl []byte) (*Schema, error) {
	n := NewParser().Parse("template.md", tmpl)
	s := &Schema{Properties: templateProperties(n)}
	for i, h := range n.Headings {
		if i == 0 && h.Level == 1 && strings.Contains(h.Text, "{{") {
			s.Title = true
			continue
		}
		s.Sections = append(s.Sections, SchemaSection{Title: strings.TrimSpace(h.Text), Level: h.Level})
	}
	if len(s.Sections) == 0 {
		return nil, ErrEmptyTemplate
	}
	// The Last tended line belongs to the innermost section holding it.
	lines := newLineIndex(n.Src)
	for off := 0; off < len(n.Src); off = lines.lineEnd(off) + 1 {
		if !tendedLineRe().Match(n.Src[off:lines.lineEnd(off)]) {
			continue
		}
		for _, sec := range n.Sections {
			if sec.Start <= off && off < sec.End && !(s.Title && sec.Heading == 0) {
				s.TendedIn = sec.Title
			}
		}
		break
	}
	return s, nil
}

// NoteType is a kind of note: a schema and the rule saying which notes
// are of the type.
type NoteType struct {
	Name   string
	Schema *Schema
	// Paths are doublestar globs ("**/Permanent Notes/**") matched against
	// a note's vault path, ignoring case.
	Paths []string
	// Property and Value select notes by frontmatter ("type: permanent"),
	// ignoring case; an empty Property selects none.
	Property, Value string
	// Interval is how often a note of the type wants tending; the zero
	// Interval means the checker's default.
	Interval Interval
}

// DefaultTypePaths are the globs of the default type: any folder named
// Permanent Notes.
var DefaultTypePaths = []string{"**/Permanent Notes/**"}

// Matches reports whether n is a note of type t: its path matches one of
// t's globs, or its frontmatter names t.
func (t *NoteType) Matches(n *Note) bool {
	return t.matchesPath(n) || t.named(n)
}

func (t *NoteType) matchesPath(n *Note) bool {
	p := strings.ToLower(n.Path)
	for _, g := range t.Paths {
		if ok, _ := doublestar.Match(strings.ToLower(g), p); ok {
			return true
		}
	}
	return false
}

// named reports whether n's frontmatter property gives t's value.
func (t *NoteType) named(n *Note) bool {
	if t.Property == "" || n.Frontmatter == nil || n.Frontmatter.Values == nil {
		return false
	}
	switch v := n.Frontmatter.Values[t.Property].(type) {
	case string:
		return strings.EqualFold(strings.TrimSpace(v), t.Value)
	case []any: // "type: [permanent, literature]"
		for _, e := range v {
			if s, ok := e.(string); ok && strings.EqualFold(strings.TrimSpace(s), t.Value) {
				return true
			}
		}
	}
	return false
}

// ValidGlob reports whether a type's path glob is well formed.
func ValidGlob(g string) error {
	if !doublestar.ValidatePattern(g) {
		return fmt.Errorf("%q is not a valid glob", g)
	}
	return nil
}

// unsafeNameChars are the characters Obsidian refuses in a file name
// (it warns about * " \ / < > : | ?) and those it cannot link through
// (# ^ [ ] |), which Windows, macOS and Linux forbid or misread too.
const unsafeNameChars = `*"\/<>:|?#^[]`

// BidiControl is the first bidirectional control character in s (an
// override, an embedding, an isolate or a mark: U+202A-202E, U+2066-2069,
// U+200E, U+200F, U+061C), if any. In a file name one makes the name read
// as another ("Invoice\u202Edm.exe" shows as "Invoiceexe.md"), so zk
// makes no name that holds one.
func BidiControl(s string) (rune, bool) {
	for _, r := range s {
		if (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c {
			return r, true
		}
	}
	return 0, false
}

// FileName turns a note title into a file name without extension that
// every OS and Obsidian accept: unsafe characters become spaces, control
// characters go, runs of spaces collapse, leading dots (hidden files) and
// the spaces among them ("../x" is "x", not " x") and trailing dots and
// spaces (Windows) are trimmed, and the name is cut to 200 bytes at a
// rune boundary. It returns "" when nothing is left.
func FileName(title string) string {
	var b strings.Builder
	space := false
	for _, r := range title {
		switch {
		case r == utf8.RuneError || unicode.IsControl(r):
			continue
		case strings.ContainsRune(unsafeNameChars, r) || unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	name := strings.TrimLeft(b.String(), ". ")
	name = strings.TrimRight(name, ". ")
	for len(name) > 200 {
		_, size := utf8.DecodeLastRuneInString(name)
		name = strings.TrimRight(name[:len(name)-size], ". ")
	}
	if reservedName(name) {
		name += " note"
	}
	return name
}

// reservedName reports Windows' reserved device names (CON, NUL, COM1...),
// which no file may be called whatever its extension.
func reservedName(name string) bool {
	base := strings.ToUpper(strings.TrimSuffix(name, path.Ext(name)))
	switch base {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	return len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) && base[3] >= '1' && base[3] <= '9'
}

// TendedSection is the title of the section holding n's Last tended
// line: the one the template of n's type puts it in, else
// DefaultTendedSection.
func TendedSection(types []*NoteType, n *Note) string {
	return typeOf(types, n).TendedSection()
}

// TendedSection is the title of the section a note of type t keeps its
// Last tended line in; a nil type keeps it in DefaultTendedSection.
func (t *NoteType) TendedSection() string {
	if t == nil || t.Schema == nil || t.Schema.TendedIn == "" {
		return DefaultTendedSection
	}
	return t.Schema.TendedIn
}

// typeOf is the first of types that n's frontmatter names, else the
// first whose paths match n's, or nil.
func typeOf(types []*NoteType, n *Note) *NoteType {
	// The type a note's frontmatter names first, then the folders: a
	// note that says type: literature is literature in Permanent Notes
	// too, whichever of the two types comes first.
	for _, t := range types {
		if t.named(n) {
			return t
		}
	}
	for _, t := range types {
		if t.matchesPath(n) {
			return t
		}
	}
	return nil
}
