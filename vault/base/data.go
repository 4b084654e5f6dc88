package base

import (
	"context"
	"path"
	"slices"
	"strings"
	"sync"
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
	// body is a cached entry's Props, Tags, Links and Embeds still
	// encoded (DecodeNotes), in bodyLoc's time zone; "" once built
	// (load), and for a note read from its file.
	body    string
	bodyLoc *time.Location
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
	// Files are in path order (as vault.Files sorts them): File finds
	// one by a binary search, without a map of every path.
	Files []*File
	// resolver resolves links against the vault's files; it is made when
	// first needed (a note read, a link() or file() asked): a snapshot
	// from the cache resolves no link of its own.
	resolver func() *vault.Resolver
	// backlinks are the files linking to each file, by path, made when
	// file.backlinks is first asked.
	backlinks func() map[string][]*File
	// Skipped are notes that could not be read, by path, with the reason;
	// they are still rows (as files) but have no properties.
	Skipped map[string]string
	Loc     *time.Location
	// declared are the property types the vault declares
	// (.obsidian/types.json): a text property's value stays text even when
	// it reads as a date, as Obsidian keeps it.
	declared map[string]property.Type
	// notes are the notes' entries, read or reused, for a cache.
	notes []*File
}

// Load reads every file of the vault: each note is parsed once, on the
// vault's workers (vault.Each), and keeps only what a base reads.
// declared are the vault's declared property types (nil: none).
func Load(ctx context.Context, v *vault.Vault, loc *time.Location, declared map[string]property.Type) (*Snapshot, error) {
	files, _, err := v.Files(ctx)
	if err != nil {
		return nil, err
	}
	return Read(ctx, v, files, loc, declared, nil, nil)
}

// newSnapshot is a snapshot of no file yet that reads notes as Read
// does: dates in loc (nil: the local zone), properties of the declared
// types, links resolved by the index resolver makes of every file.
func newSnapshot(resolver func() *vault.Resolver, loc *time.Location, declared map[string]property.Type) *Snapshot {
	if loc == nil {
		loc = time.Local
	}
	return &Snapshot{Loc: loc, declared: declared, resolver: resolver}
}

// Entry is what Read makes of a note parsed, read as Read's loc and
// declared say, its links resolved by the index resolver makes of every
// file: its properties, tags, links and embeds, the bytes EncodeNotes
// keeps of it (its size and times are the walk's, set when Read reuses
// it). It is for a cache that another reader's read of every note fills,
// with that read's index; it may be called from several goroutines at
// once.
func Entry(n *vault.Note, resolver func() *vault.Resolver, loc *time.Location, declared map[string]property.Type) *File {
	s := newSnapshot(resolver, loc, declared)
	f := &File{Path: n.Path, snap: s}
	s.fill(f, n)
	return f
}

// Read is the snapshot of files (a walk of the vault, sorted by path).
// A note's entry (its properties, tags and links resolved) is reuse's
// when it gives one, made under the same loc, declared types and files (a
// cache keyed by them: EncodeNotes); every other note is parsed, on the
// vault's workers, and hashed (when set) sees its source, from several
// goroutines at once. Every file's size, times and birth time are the
// walk's, a reused entry's too: a note replaced by a copy of the same size
// and modification time (cp -p, rsync -a) has the copy's birth time, which
// no cache keyed by size and time could tell. Only a symlink's birth time
// is read here (statx, the link's own), the walk following it.
func Read(ctx context.Context, v *vault.Vault, files []vault.File, loc *time.Location, declared map[string]property.Type,
	reuse func(path string) (*File, bool), hashed func(*vault.Note)) (*Snapshot, error) {
	s := newSnapshot(sync.OnceValue(func() *vault.Resolver { return vault.NewResolver(vault.Paths(files)) }), loc, declared)
	s.Files, s.Skipped = make([]*File, len(files)), map[string]string{}
	var (
		toRead  []vault.File
		readIdx []int
		links   []*File // symlinked files, whose birth time is to read
	)
	for i, f := range files {
		if reuse != nil && f.IsNote() {
			if bf, ok := reuse(f.Path); ok && bf != nil && bf.Path == f.Path {
				bf.Size, bf.MTime = f.Size, f.ModTime.In(loc)
				bf.CTime, bf.noBirth = birthOf(f, loc)
				if f.Symlink {
					links = append(links, bf)
				}
				bf.snap = s
				s.Files[i] = bf
				continue
			}
		}
		bf := &File{Path: f.Path, Size: f.Size, MTime: f.ModTime.In(loc), snap: s}
		bf.CTime, bf.noBirth = birthOf(f, loc)
		s.Files[i] = bf
		if f.Symlink {
			links = append(links, bf)
		}
		if f.IsNote() {
			toRead = append(toRead, f)
			readIdx = append(readIdx, i)
		}
	}
	birthTimes(v, links, loc)
	if len(toRead) > 0 {
		s.resolver() // made once, before the workers share it
		reasons := v.Each(ctx, toRead, func(k int, n *vault.Note) {
			s.fill(s.Files[readIdx[k]], n)
			if hashed != nil {
				hashed(n)
			}
		})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for k, why := range reasons {
			if why != "" {
				s.Skipped[toRead[k].Path] = why
			}
		}
	}
	s.notes = make([]*File, 0, len(s.Files)) // grown by doubling, 1.6 MB more at 100,000 notes
	for _, f := range s.Files {
		if f.isNote() && s.Skipped[f.Path] == "" {
			s.notes = append(s.notes, f)
		}
	}
	s.backlinks = sync.OnceValue(s.linksTo)
	return s, nil
}

// birthOf is file.ctime as the walk found it: the birth time, else the
// modification time and true (the system keeps no birth time).
func birthOf(f vault.File, loc *time.Location) (time.Time, bool) {
	if f.Birth == 0 {
		return f.ModTime.In(loc), true
	}
	return time.Unix(0, f.Birth).In(loc), false
}

// linksTo is, for each file, the files that link to it or embed it, each
// once, in path order.
func (s *Snapshot) linksTo() map[string][]*File {
	out := map[string][]*File{}
	var targets []string // one file's, each once
	for _, f := range s.Files {
		f.load()
		targets = targets[:0]
		for _, ls := range [][]Link{f.Links, f.Embeds} {
			for _, l := range ls {
				if l.Target != "" {
					targets = append(targets, l.Target)
				}
			}
		}
		if len(targets) > 1 {
			slices.Sort(targets)
			targets = slices.Compact(targets)
		}
		for _, t := range targets {
			out[t] = append(out[t], f)
		}
	}
	return out
}

// Notes are the entries of the notes read or reused (not those that
// could not be read), in path order: what a cache keeps (EncodeNotes).
func (s *Snapshot) Notes() []*File { return s.notes }

// isNote reports whether the file is a markdown note.
func (f *File) isNote() bool { return vault.File{Path: f.Path}.IsNote() }

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
	l.Target, _ = s.resolver().Resolve(p, from)
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
func (s *Snapshot) File(p string) *File {
	i, ok := slices.BinarySearchFunc(s.Files, p, func(f *File, p string) int { return strings.Compare(f.Path, p) })
	if !ok {
		return nil
	}
	return s.Files[i]
}

// resolve finds the file a path or link text names, as a link would.
func (s *Snapshot) resolve(p, from string) *File {
	if f := s.File(p); f != nil {
		return f
	}
	if t, ok := s.resolver().Resolve(p, from); ok {
		return s.File(t)
	}
	return nil
}
