package base

import (
	"context"
	"path"
	"strings"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/property"
)

// File is one file of the vault as a base sees it: every file, notes and
// attachments alike ("by default a base includes every file in the
// vault"); only notes have properties, tags and links.
type File struct {
	Path  string
	Size  int64
	MTime time.Time
	// CTime is the creation (birth) time where the system keeps one
	// (Linux's statx), else the modification time (docs/bases.md).
	CTime time.Time
	// noBirth says CTime is the modification time: the system keeps no
	// birth time for the file.
	noBirth bool
	// Props are the frontmatter properties as Bases values: numbers as
	// float64, ISO dates as Date, "[[links]]" as Link.
	Props map[string]any
	// Tags are the note's tags without '#', frontmatter tags first, each
	// once.
	Tags   []string
	Links  []Link
	Embeds []Link
	snap   *Snapshot
}

// Name is the file name with its extension, as file.name is.
func (f *File) Name() string { return path.Base(f.Path) }

// Basename is the file name without its extension.
func (f *File) Basename() string { return strings.TrimSuffix(f.Name(), path.Ext(f.Path)) }

// Ext is the extension without its dot.
func (f *File) Ext() string { return strings.TrimPrefix(path.Ext(f.Path), ".") }

// Folder is the parent folder's vault path, "/" for the root as in
// Obsidian.
func (f *File) Folder() string {
	if d := path.Dir(f.Path); d != "." {
		return d
	}
	return "/"
}

// Snapshot is the vault a base runs over: its files, in path order, with
// their links resolved, so that backlinks and link comparisons need no
// further reading.
type Snapshot struct {
	Files     []*File
	byPath    map[string]*File
	resolver  *vault.Resolver
	backlinks map[string][]string
	// Skipped are notes that could not be read, by path, with the reason;
	// they are still rows (as files) but have no properties.
	Skipped map[string]string
	Loc     *time.Location
	// declared are the property types the vault declares
	// (.obsidian/types.json): a text property's value stays text even when
	// it reads as a date, as Obsidian keeps it.
	declared map[string]property.Type
}

// Load reads every file of the vault: each note is parsed once, on the
// vault's workers (vault.Each), and keeps only what a base reads.
// declared are the vault's declared property types (nil: none).
func Load(ctx context.Context, v *vault.Vault, loc *time.Location, declared map[string]property.Type) (*Snapshot, error) {
	files, _, err := v.Files(ctx)
	if err != nil {
		return nil, err
	}
	if loc == nil {
		loc = time.Local
	}
	s := &Snapshot{byPath: map[string]*File{}, Skipped: map[string]string{}, Loc: loc, declared: declared}
	paths, _ := vault.SplitFiles(files)
	s.resolver = vault.NewResolver(paths)
	var notes []vault.File
	var noteIdx []int
	for _, f := range files {
		bf := &File{Path: f.Path, Size: f.Size, MTime: f.ModTime.In(loc), CTime: f.ModTime.In(loc), noBirth: true, snap: s}
		s.Files = append(s.Files, bf)
		s.byPath[f.Path] = bf
		if f.IsNote() {
			notes = append(notes, f)
			noteIdx = append(noteIdx, len(s.Files)-1)
		}
	}
	birthTimes(v, s.Files, loc)
	reasons := v.Each(ctx, notes, func(i int, n *vault.Note) {
		s.fill(s.Files[noteIdx[i]], n)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, why := range reasons {
		if why != "" {
			s.Skipped[notes[i].Path] = why
		}
	}
	s.backlinks = map[string][]string{}
	for _, f := range s.Files {
		seen := map[string]bool{}
		for _, l := range append(append([]Link(nil), f.Links...), f.Embeds...) {
			if l.Target != "" && !seen[l.Target] {
				seen[l.Target] = true
				s.backlinks[l.Target] = append(s.backlinks[l.Target], f.Path)
			}
		}
	}
	return s, nil
}

// fill sets a note's properties, tags and links from its parse. It runs
// on one worker per note and writes only that note's File.
func (s *Snapshot) fill(f *File, n *vault.Note) {
	f.Props = map[string]any{}
	if fm := n.Frontmatter; fm != nil && fm.Values != nil {
		for k, v := range fm.Values {
			if str, ok := v.(string); ok && s.declared[k] == property.Text {
				if _, isDate := parseDate(str, s.Loc); isDate {
					f.Props[k] = str
					continue
				}
			}
			f.Props[k] = s.fromYAML(v, n.Path, 0)
			if strings.EqualFold(k, "tags") || s.declared[k] == property.Tags {
				f.Props[k] = asTags(f.Props[k])
			}
		}
	}
	f.Tags = n.AllTags()
	for _, l := range n.Links {
		f.Links = append(f.Links, s.link(l.Path, n.Path, l.DisplayText, l.HasDisplay))
	}
	for _, l := range n.FrontmatterLinks {
		f.Links = append(f.Links, s.link(l.Path, n.Path, l.DisplayText, l.DisplayText != ""))
	}
	for _, l := range n.Embeds {
		f.Embeds = append(f.Embeds, s.link(l.Path, n.Path, l.DisplayText, l.HasDisplay))
	}
}

// asTags makes the text of a tags property (a list, or one tag) Tags, so
// that contains() matches them as tags.
func asTags(v any) any {
	switch x := v.(type) {
	case string:
		return []any{Tag(x)}
	case []any: // fromYAML's own copy: changed in place
		for i, e := range x {
			if t, ok := e.(string); ok {
				x[i] = Tag(t)
			}
		}
		return x
	}
	return v
}

func (s *Snapshot) link(p, from, display string, hasDisplay bool) Link {
	l := Link{Text: p}
	if hasDisplay {
		l.Display = display
	}
	if p == "" {
		return l
	}
	l.Target, _ = s.resolver.Resolve(p, from)
	return l
}

// maxDepth bounds how deep a frontmatter value is converted; the vault's
// YAML decoder has bounded it already, this keeps the conversion total.
const maxDepth = 64

// fromYAML converts a frontmatter value to a Bases value.
func (s *Snapshot) fromYAML(v any, from string, depth int) any {
	if depth > maxDepth {
		return nil
	}
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case float64, bool, nil:
		return x
	case time.Time:
		return Date{T: x.In(s.Loc), HasTime: x.Hour() != 0 || x.Minute() != 0 || x.Second() != 0}
	case string:
		if d, ok := parseDate(x, s.Loc); ok {
			return d
		}
		if t := strings.TrimSpace(x); strings.HasPrefix(t, "[[") && strings.HasSuffix(t, "]]") && !strings.Contains(t[2:len(t)-2], "]]") {
			inner := t[2 : len(t)-2]
			target, display, hasDisplay := strings.Cut(inner, "|")
			p, _, _ := strings.Cut(target, "#")
			return s.link(p, from, display, hasDisplay)
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = s.fromYAML(e, from, depth+1)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = s.fromYAML(e, from, depth+1)
		}
		return out
	}
	return toString(v)
}

// File returns the file at a vault path, or nil.
func (s *Snapshot) File(p string) *File { return s.byPath[p] }

// resolve finds the file a path or link text names, as a link would.
func (s *Snapshot) resolve(p, from string) *File {
	if f := s.byPath[p]; f != nil {
		return f
	}
	if t, ok := s.resolver.Resolve(p, from); ok {
		return s.byPath[t]
	}
	return nil
}
