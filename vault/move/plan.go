package move

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/zk-claims/zk/internal/ownfile"
	"github.com/zk-claims/zk/vault"
)

// Errors callers match on.
var (
	// ErrExists: the new path is taken.
	ErrExists = errors.New("already exists")
	// ErrBadName: the new name holds a character no link can write.
	ErrBadName = errors.New("no link can name it")
	// ErrNoHeading: the note has no heading of that text.
	ErrNoHeading = errors.New("no such heading")
	// ErrDotPath: a path in a dot folder, or a dot file, which is no part
	// of the vault (.git/hooks, .obsidian, .zk).
	ErrDotPath = errors.New("a dot folder or file is not part of the vault")
)

// Edit replaces the bytes [Start, End) of a file's content with New.
type Edit struct {
	Start, End int
	// Line is the 0-based line of Start.
	Line int
	Old  string
	New  string
	// Link and NewLink are the whole link before and after the edit
	// ("[[Old#H|x]]" → "[[New#H|x]]"); empty for a heading line.
	Link, NewLink string
}

// inLink sets e's whole link: orig, which starts at offset at.
func (e Edit) inLink(orig string, at int) Edit {
	e.Link = orig
	e.NewLink = orig[:e.Start-at] + e.New + orig[e.End-at:]
	return e
}

// FileEdit is every edit of one file, in source order, and the content
// it was planned against.
type FileEdit struct {
	// Path is the file's vault path before the move.
	Path  string
	Edits []Edit
	// Old and New are the whole content before and after the edits.
	Old, New []byte
}

// Rename moves one file or folder.
type Rename struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Folder bool   `json:"folder,omitempty"`
}

// Plan is a move: the content edits, applied first, at the files' old
// paths, then the renames.
type Plan struct {
	Renames []Rename
	Files   []FileEdit
	// Links is the number of links rewritten.
	Links int
	// Captured are links that reached no file before the move and reach a
	// moved file after it ("path: [[link]]"): zk leaves them as written.
	Captured []string
	// Unwritable are links the move breaks that zk cannot rewrite
	// (reference-style markdown links, a frontmatter link in a YAML form
	// zk does not edit): "path:line: link".
	Unwritable []string
}

// Hash is the hex SHA-256 of b, as the journal records contents.
func Hash(b []byte) string {
	s := sha256.Sum256(b)
	return fmt.Sprintf("%x", s[:])
}

// badNameChars are what Obsidian forbids in a linked file's name: a link
// cannot write them.
const badNameChars = "[]#^|"

// Move plans moving the file or folder old to new (vault paths) and
// rewriting every link the move would otherwise break. files is a walk of
// the vault (vault.Files). A link that reached the moved file keeps
// reaching it, rewritten in the vault's link format (LinkText) when its
// text no longer reaches it; a link that reached another file keeps
// reaching that one; a link that reached nothing is left as written.
func Move(ctx context.Context, v *vault.Vault, files []vault.File, oldPath, newPath string, f Format) (*Plan, error) {
	oldPath, newPath = path.Clean(oldPath), path.Clean(newPath)
	if err := inVault(oldPath); err != nil {
		return nil, err
	}
	if err := inVault(newPath); err != nil {
		return nil, err
	}
	if oldPath == newPath {
		return nil, fmt.Errorf("%s: old and new are the same path", oldPath)
	}
	if strings.ContainsAny(path.Base(newPath), badNameChars) || strings.ContainsFunc(newPath, unicode.IsControl) {
		return nil, fmt.Errorf("%q: %w (a file name with any of %s, or a control character)", newPath, ErrBadName, badNameChars)
	}
	moves := map[string]string{}
	folder := false
	for _, fl := range files {
		switch {
		case fl.Path == oldPath:
			moves[fl.Path] = newPath
		case strings.HasPrefix(fl.Path, oldPath+"/"):
			moves[fl.Path] = newPath + fl.Path[len(oldPath):]
			folder = true
		}
	}
	if len(moves) == 0 {
		return nil, fmt.Errorf("%s: %w", oldPath, vault.ErrNotFound)
	}
	if folder && strings.HasPrefix(newPath+"/", oldPath+"/") {
		return nil, fmt.Errorf("%s: cannot move a folder into itself", oldPath)
	}
	caseOnly := strings.EqualFold(oldPath, newPath)
	if st, err := v.Root().Lstat(filepath.FromSlash(newPath)); err == nil {
		// On a case-insensitive file system, "note.md" is "Note.md": a
		// rename that changes only case finds its own file there.
		old, _ := v.Root().Lstat(filepath.FromSlash(oldPath))
		if !caseOnly || old == nil || !sameFile(old, st) {
			return nil, fmt.Errorf("%s: %w", newPath, ErrExists)
		}
	}
	// A folder on the way that is a symlink ("Permanent Notes" ->
	// .git/hooks) would take the note where zk's scan, following no
	// symlinked folder, cannot see it: into a dot folder zk never writes.
	if err := ownfile.CheckDirs(v.Root(), newPath); err != nil {
		return nil, fmt.Errorf("%s: %w", newPath, vault.FolderLink(err))
	}
	if err := twins(files, moves); err != nil {
		return nil, err
	}
	var title *retitle
	if !folder && vault.IsNotePath(oldPath) && linkName(oldPath) != linkName(newPath) {
		var err error
		if title, err = planRetitle(v, oldPath, linkName(newPath)); err != nil {
			return nil, err
		}
	}
	p := &Plan{Renames: []Rename{{From: oldPath, To: newPath, Folder: folder}}}
	if err := p.rewrite(ctx, v, files, moves, f, title); err != nil {
		return nil, err
	}
	return p, nil
}

// retitle is a renamed note's H1, written again with the new name when it
// was the old name (zk check's structure/title holds the two equal), and
// the links to that heading.
type retitle struct {
	path string // the note's old path
	edit Edit   // the H1's text
	want string // the old heading, normalised (vault.NormHeading)
	newH string
}

// planRetitle is the H1 edit of a note renamed to newName, or nil when its
// first H1 is not its old name (a title of its own stays).
func planRetitle(v *vault.Vault, notePath, newName string) (*retitle, error) {
	n, err := v.ReadNote(notePath)
	if err != nil {
		return nil, err
	}
	for _, h := range n.Headings {
		if h.Level != 1 {
			continue
		}
		if strings.TrimSpace(h.Text) != linkName(notePath) {
			return nil, nil
		}
		hs, he := h.Span.Start.Offset, h.Span.End.Offset
		at := bytes.Index(n.Src[hs:he], []byte(h.Text))
		if at < 0 {
			return nil, nil
		}
		return &retitle{path: notePath, want: vault.NormHeading(h.Text), newH: newName,
			edit: Edit{Start: hs + at, End: hs + at + len(h.Text), Old: h.Text, New: newName}}, nil
	}
	return nil, nil
}

// ErrTwin: the new path differs from another file's only by case or
// Unicode form. Obsidian resolves a link to one of the two, so links to
// the file already there would reach the moved one, or the other way.
var ErrTwin = errors.New("differs from a file already there only by case or Unicode form")

// twins refuses a move whose new paths are twins of files that stay.
func twins(files []vault.File, moves map[string]string) error {
	staying := make(map[string]string, len(files))
	for _, f := range files {
		if moves[f.Path] == "" {
			staying[vault.FoldName(f.Path)] = f.Path
		}
	}
	for _, np := range moves {
		if other, ok := staying[vault.FoldName(np)]; ok && other != np {
			return fmt.Errorf("%s: %w (%s)", np, ErrTwin, other)
		}
	}
	return nil
}

func inVault(p string) error {
	if p == "." || !vault.Local(p) {
		return fmt.Errorf("%s: %w", p, vault.ErrOutsideVault)
	}
	for _, part := range strings.Split(p, "/") {
		if strings.HasPrefix(part, ".") {
			return fmt.Errorf("%s: %w", p, ErrDotPath)
		}
	}
	return nil
}

// rewrite plans the link edits of a move whose files are moves (old path
// → new path).
func (p *Plan) rewrite(ctx context.Context, v *vault.Vault, files []vault.File, moves map[string]string, f Format, title *retitle) error {
	paths, notes := vault.SplitFiles(files)
	after := make([]string, len(paths))
	for i, q := range paths {
		after[i] = mapped(moves, q)
	}
	rOld, rNew := vault.NewResolver(paths), vault.NewResolver(after)
	var names []string
	for o, n := range moves {
		names = append(names, linkName(o), linkName(n))
	}
	rl := &relinker{rOld: rOld, rNew: rNew, moves: moves, format: f.NewLinkFormat, title: title}
	edits, err := scan(ctx, v, notes, needles(names, len(moves)), func(p string) bool { return moves[p] != "" }, rl.note)
	if err != nil {
		return err
	}
	p.add(edits)
	return nil
}

// relinker plans one note's link edits for a move: every link whose
// target the move would change is written again (rewrite's rules).
type relinker struct {
	rOld, rNew *vault.Resolver // the vault before and after the move
	moves      map[string]string
	format     string
	title      *retitle // nil: no H1 renamed
}

func (r *relinker) note(n *vault.Note) (FileEdit, []string, []string) {
	src := mapped(r.moves, n.Path)
	var fe FileEdit
	var captured, unwritable []string
	var pathAt map[int]int // a link's offset → its path edit, when a title is renamed
	fix := func(linkPath string) (string, bool) {
		if linkPath == "" {
			return "", false // the note itself, wherever it is
		}
		before, ok := r.rOld.Resolve(linkPath, n.Path)
		now, okNow := r.rNew.Resolve(linkPath, src)
		if !ok {
			if okNow && r.moves[unmapped(r.moves, now)] != "" {
				captured = append(captured, fmt.Sprintf("%s: %s", n.Path, linkPath))
			}
			return "", false
		}
		want := mapped(r.moves, before)
		if okNow && now == want {
			return "", false
		}
		text, _ := LinkText(r.rNew, want, src, r.format)
		return text, true
	}
	for l := range n.LinksAndEmbeds() {
		text, ok := fix(l.Path)
		if !ok {
			continue
		}
		e, ok := pathEdit(n.Src, l, text)
		if !ok {
			unwritable = append(unwritable, fmt.Sprintf("%s:%d: %s", n.Path, l.Span.Start.Line+1, l.Original))
			continue
		}
		if fe.Edits == nil {
			// Room for every link at once: grown by append, the edits of
			// a 200,000-link note allocated 83 MB for an 18 MB list.
			fe.Edits = make([]Edit, 0, len(n.Links)+len(n.Embeds)+len(n.FrontmatterLinks))
		}
		if r.title != nil {
			if pathAt == nil {
				pathAt = map[int]int{}
			}
			pathAt[l.Span.Start.Offset] = len(fe.Edits)
		}
		fe.Edits = append(fe.Edits, e.inLink(l.Original, l.Span.Start.Offset))
	}
	if t := r.title; t != nil {
		// The renamed H1, and each link to it: [[Old#Old]] becomes
		// [[New#New]], [[#Old]] inside the note [[#New]].
		if n.Path == t.path {
			fe.Edits = append(fe.Edits, t.edit)
		}
		for l := range n.LinksAndEmbeds() {
			if l.Subpath == "" || l.IsBlockRef() {
				continue
			}
			to, ok := n.Path, l.Path == ""
			if !ok {
				to, ok = r.rOld.Resolve(l.Path, n.Path)
			}
			if !ok || to != t.path {
				continue
			}
			e, ok, bad := subpathEdit(n.Src, l, t.want, t.newH)
			if bad {
				unwritable = append(unwritable, fmt.Sprintf("%s:%d: %s", n.Path, l.Span.Start.Line+1, l.Original))
			}
			if !ok {
				continue
			}
			if j, ok := pathAt[l.Span.Start.Offset]; ok {
				// One edit per link: its path, and its subpath after it.
				pe := fe.Edits[j]
				e = Edit{Start: pe.Start, End: e.End, Old: string(n.Src[pe.Start:e.End]),
					New: pe.New + string(n.Src[pe.End:e.Start]) + e.New}
				fe.Edits[j] = e.inLink(l.Original, l.Span.Start.Offset)
				continue
			}
			fe.Edits = append(fe.Edits, e.inLink(l.Original, l.Span.Start.Offset))
		}
	}
	fm := frontmatterSpans(n)
	for i, l := range n.FrontmatterLinks {
		text, ok := fix(l.Path)
		if !ok {
			continue
		}
		if fm[i] < 0 || strings.ContainsAny(text, `"'\`) {
			unwritable = append(unwritable, fmt.Sprintf("%s: frontmatter %s: %s", n.Path, l.Key, l.Original))
			continue
		}
		at := fm[i] + len("[[")
		e := Edit{Start: at, End: at + len(l.Path), Old: l.Path, New: keepExt(l.Path, text)}
		fe.Edits = append(fe.Edits, e.inLink(l.Original, fm[i]))
	}
	if cap(fe.Edits)-len(fe.Edits) > len(fe.Edits)/4+4 {
		fe.Edits = slices.Clone(fe.Edits) // the plan holds it until applied
	}
	return fe, captured, unwritable
}

// add takes the scan's edits: files in path order, each file's edits in
// source order with their lines.
func (p *Plan) add(edits []scanned) {
	for _, s := range edits {
		p.Captured = append(p.Captured, s.captured...)
		p.Unwritable = append(p.Unwritable, s.unwritable...)
		if len(s.fe.Edits) == 0 {
			continue
		}
		fe := s.fe
		sort.Slice(fe.Edits, func(i, j int) bool { return fe.Edits[i].Start < fe.Edits[j].Start })
		lines := vault.NewLines(s.src)
		var out []byte
		last := 0
		for i := range fe.Edits {
			e := &fe.Edits[i]
			e.Line = lines.Line(e.Start)
			out = append(out, s.src[last:e.Start]...)
			out = append(out, e.New...)
			last = e.End
		}
		out = append(out, s.src[last:]...)
		fe.Path, fe.Old, fe.New = s.path, s.src, out
		p.Files = append(p.Files, fe)
		for _, e := range fe.Edits {
			if e.Link != "" { // a heading's own line is no link
				p.Links++
			}
		}
	}
	sort.Slice(p.Files, func(i, j int) bool { return p.Files[i].Path < p.Files[j].Path })
}

func mapped(moves map[string]string, p string) string {
	if n, ok := moves[p]; ok {
		return n
	}
	return p
}

// unmapped is the old path of a path after the move.
func unmapped(moves map[string]string, p string) string {
	for o, n := range moves {
		if n == p {
			return o
		}
	}
	return p
}

// linkName is the name a link writes for a file: a note's without ".md".
func linkName(p string) string {
	b := path.Base(p)
	if vault.IsNotePath(b) {
		return b[:len(b)-len(path.Ext(b))]
	}
	return b
}

// keepExt writes text with ".md" when the link it replaces wrote the
// note's extension.
func keepExt(old, text string) string {
	if strings.HasSuffix(strings.ToLower(strings.TrimSpace(old)), ".md") && !vault.IsNotePath(text) {
		return text + ".md"
	}
	return text
}

// pathEdit is the edit that writes text as the path of link l of src,
// keeping its subpath, display text and form. A markdown link's path is
// percent-encoded, or written raw inside the angle brackets it had.
func pathEdit(src []byte, l vault.Link, text string) (Edit, bool) {
	start := l.Span.Start.Offset
	if l.Kind == vault.Wikilink {
		at := start + len("[[")
		if l.Embed {
			at++
		}
		if at+len(l.Path) > len(src) || string(src[at:at+len(l.Path)]) != l.Path {
			return Edit{}, false
		}
		return Edit{Start: at, End: at + len(l.Path), Old: l.Path, New: keepExt(l.Path, text)}, true
	}
	from, to, angle, ok := markdownDest(src, start, l.Span.End.Offset)
	if !ok {
		return Edit{}, false
	}
	raw := string(src[from:to])
	// The parser decodes the whole destination, or none of it when any
	// escape in it is bad: then the path is written raw, if it can be.
	_, badEscape := url.PathUnescape(raw)
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		raw, to = raw[:i], from+i
	}
	dec, err := url.PathUnescape(raw)
	if err != nil || badEscape != nil {
		dec = raw
	}
	if dec != l.Path {
		return Edit{}, false
	}
	text = keepExt(dec, text)
	switch {
	case angle:
		if strings.ContainsAny(text, "<>\n") {
			return Edit{}, false
		}
	case badEscape != nil:
		if EncodeMarkdownPath(text) != text {
			return Edit{}, false
		}
	default:
		text = EncodeMarkdownPath(text)
	}
	return Edit{Start: from, End: to, Old: raw, New: text}, true
}

// markdownDest finds the destination of the inline markdown link in
// src[start:end]: its bytes [from, to), without angle brackets, and
// whether it had them. A reference-style link has none.
func markdownDest(src []byte, start, end int) (from, to int, angle, ok bool) {
	i := start
	if i < end && src[i] == '!' {
		i++
	}
	if i >= end || src[i] != '[' {
		return 0, 0, false, false
	}
	depth := 0
	for i++; i < end; i++ {
		c := src[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '[' {
			depth++
		} else if c == ']' {
			if depth == 0 {
				break
			}
			depth--
		}
	}
	if i+1 >= end || src[i+1] != '(' {
		return 0, 0, false, false
	}
	i += 2
	for i < end && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	if i < end && src[i] == '<' {
		j := bytes.IndexByte(src[i+1:end], '>')
		if j < 0 {
			return 0, 0, false, false
		}
		return i + 1, i + 1 + j, true, true
	}
	from = i
	depth = 0
	for ; i < end; i++ {
		c := src[i]
		if c == '\\' {
			i++
			continue
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			break
		}
		if c == '(' {
			depth++
		} else if c == ')' {
			if depth == 0 {
				break
			}
			depth--
		}
	}
	return from, i, false, from < i
}

// frontmatterSpans finds each frontmatter link's "[[" in the note's
// source, in order, or -1 where its text is not there as parsed
// (vault.Note.FrontmatterLinkOffsets, where the language server finds
// them too).
func frontmatterSpans(n *vault.Note) []int { return n.FrontmatterLinkOffsets() }

// Heading plans renaming the heading oldH of the note at notePath to newH,
// with every link to it across the vault ([[Note#Old]], [[#Old]] inside
// the note, a markdown link's #Old) rewritten. Headings are compared as
// Obsidian's link matching compares them.
func Heading(ctx context.Context, v *vault.Vault, files []vault.File, notePath, oldH, newH string) (*Plan, error) {
	newH = strings.TrimSpace(newH)
	if newH == "" || strings.ContainsAny(newH, "#|^") || strings.ContainsFunc(newH, unicode.IsControl) || strings.Contains(newH, "[[") || strings.Contains(newH, "]]") {
		return nil, fmt.Errorf("heading %q: %w (a heading link cannot hold # | ^ [[ ]] or a line break)", newH, ErrBadName)
	}
	want := vault.NormHeading(oldH)
	paths, notes := vault.SplitFiles(files)
	r := vault.NewResolver(paths)
	if !r.HasExactly(notePath) {
		return nil, fmt.Errorf("%s: %w", notePath, vault.ErrNotFound)
	}
	target, err := v.ReadNote(notePath)
	if err != nil {
		return nil, err
	}
	var head *vault.Heading
	for i, h := range target.Headings {
		if vault.NormHeading(h.Text) == want {
			head = &target.Headings[i]
			break
		}
	}
	if head == nil {
		return nil, fmt.Errorf("%s#%s: %w", notePath, oldH, ErrNoHeading)
	}
	hs, he := head.Span.Start.Offset, head.Span.End.Offset
	at := bytes.Index(target.Src[hs:he], []byte(head.Text))
	if at < 0 {
		return nil, fmt.Errorf("%s#%s: the heading's text is not on its line", notePath, oldH)
	}
	headEdit := Edit{Start: hs + at, End: hs + at + len(head.Text), Old: head.Text, New: newH}
	edits, err := scan(ctx, v, notes, needles([]string{linkName(notePath), oldH}, 2), func(p string) bool { return p == notePath }, func(n *vault.Note) (FileEdit, []string, []string) {
		var fe FileEdit
		var unwritable []string
		if n.Path == notePath {
			fe.Edits = append(fe.Edits, headEdit)
		}
		for l := range n.LinksAndEmbeds() {
			if l.Subpath == "" || l.IsBlockRef() {
				continue
			}
			if to, ok := r.Resolve(l.Path, n.Path); !ok || to != notePath {
				continue
			}
			e, ok, bad := subpathEdit(n.Src, l, want, newH)
			if bad {
				unwritable = append(unwritable, fmt.Sprintf("%s:%d: %s", n.Path, l.Span.Start.Line+1, l.Original))
			}
			if ok {
				fe.Edits = append(fe.Edits, e.inLink(l.Original, l.Span.Start.Offset))
			}
		}
		fm := frontmatterSpans(n)
		for i, l := range n.FrontmatterLinks {
			if l.Subpath == "" || strings.HasPrefix(l.Subpath, "#^") {
				continue
			}
			if to, ok := r.Resolve(l.Path, n.Path); !ok || to != notePath {
				continue
			}
			sub, changed := renameParts(l.Subpath, want, newH, func(s string) string { return s })
			if !changed {
				continue
			}
			if fm[i] < 0 || strings.ContainsAny(newH, `"'\`) {
				unwritable = append(unwritable, fmt.Sprintf("%s: frontmatter %s: %s", n.Path, l.Key, l.Original))
				continue
			}
			at := fm[i] + len("[[") + len(l.Path)
			e := Edit{Start: at, End: at + len(l.Subpath), Old: l.Subpath, New: sub}
			fe.Edits = append(fe.Edits, e.inLink(l.Original, fm[i]))
		}
		return fe, nil, unwritable
	})
	if err != nil {
		return nil, err
	}
	p := &Plan{}
	p.add(edits)
	return p, nil
}

// subpathEdit rewrites the parts of link l's "#A#B" subpath that name the
// heading want (normalised) as newH. bad is set for a link that names it
// but cannot be rewritten.
func subpathEdit(src []byte, l vault.Link, want, newH string) (e Edit, ok, bad bool) {
	start := l.Span.Start.Offset
	if l.Kind == vault.Wikilink {
		at := start + len("[[") + len(l.Path)
		if l.Embed {
			at++
		}
		if at+len(l.Subpath) > len(src) || string(src[at:at+len(l.Subpath)]) != l.Subpath {
			return Edit{}, false, true
		}
		sub, changed := renameParts(l.Subpath, want, newH, func(s string) string { return s })
		if !changed {
			return Edit{}, false, false
		}
		return Edit{Start: at, End: at + len(l.Subpath), Old: l.Subpath, New: sub}, true, false
	}
	from, to, angle, okDest := markdownDest(src, start, l.Span.End.Offset)
	if !okDest {
		return Edit{}, false, true
	}
	raw := string(src[from:to])
	i := strings.IndexByte(raw, '#')
	if i < 0 {
		return Edit{}, false, true
	}
	enc := EncodeMarkdownPath
	if angle {
		enc = func(s string) string { return s }
	}
	// Compare each raw part decoded; write the new one encoded.
	parts := strings.Split(raw[i+1:], "#")
	changed := false
	for k, part := range parts {
		dec, err := url.PathUnescape(part)
		if err != nil {
			dec = part
		}
		if vault.NormHeading(dec) == want {
			parts[k], changed = enc(newH), true
		}
	}
	if !changed {
		return Edit{}, false, false
	}
	return Edit{Start: from + i, End: to, Old: raw[i:], New: "#" + strings.Join(parts, "#")}, true, false
}

// renameParts replaces each part of a "#A#B" subpath that names want.
func renameParts(sub, want, newH string, enc func(string) string) (string, bool) {
	parts := strings.Split(strings.TrimPrefix(sub, "#"), "#")
	changed := false
	for k, part := range parts {
		if vault.NormHeading(part) == want {
			parts[k], changed = enc(newH), true
		}
	}
	return "#" + strings.Join(parts, "#"), changed
}

// scanned is one note's planned edits.
type scanned struct {
	path                 string
	src                  []byte
	fe                   FileEdit
	captured, unwritable []string
}

// scan reads every note, parses those whose text holds one of the
// needles (all of them when needles is nil) and those always names (a
// moved note, whose own links may reach elsewhere from its new folder
// whatever it says) and plans each one's edits
// with plan, on the vault's workers. Most notes of a large vault name
// nothing a move touches; a substring test on the raw bytes is much
// cheaper than a parse.
func scan(ctx context.Context, v *vault.Vault, notes []vault.File, needles [][][]byte, always func(string) bool, plan func(*vault.Note) (FileEdit, []string, []string)) ([]scanned, error) {
	out := make([]scanned, len(notes))
	parsers := sync.Pool{New: func() any { return vault.NewParser() }}
	var mu sync.Mutex
	var firstErr error
	read := vault.CountProgress(ctx, len(notes))
	vault.Parallel(len(notes), func(i int) {
		if ctx.Err() != nil {
			return
		}
		defer read()
		f := notes[i]
		src, err := v.ReadFile(f.Path, v.MaxNoteSize)
		if err != nil || vault.NotText(src) != "" {
			// A file zk does not read is one whose links it cannot see,
			// as zk check skips it.
			var tl *vault.TooLargeError
			if err != nil && !errors.As(err, &tl) {
				mu.Lock()
				if firstErr == nil {
					firstErr = fmt.Errorf("read %s: %w", f.Path, err)
				}
				mu.Unlock()
			}
			return
		}
		if needles != nil && !always(f.Path) && !containsAny(src, needles) {
			return
		}
		p := parsers.Get().(*vault.Parser)
		n := p.ParseWithBudget(f.Path, src, v.ParseBudget)
		parsers.Put(p)
		fe, captured, unwritable := plan(n)
		out[i] = scanned{path: f.Path, src: src, fe: fe, captured: captured, unwritable: unwritable}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, firstErr
}

// needles are, for each of names, what any link that names it must
// contain: each of the name's runs of ASCII letters and digits, lower
// case (a link may change case, Unicode normal form and percent-encoding,
// but not those). nil, meaning "parse every note", when a name has no
// such run or there are too many names for a substring test to pay (a
// folder of many files).
func needles(names []string, files int) [][][]byte {
	if files > 16 {
		return nil
	}
	var out [][][]byte
	for _, name := range names {
		var runs [][]byte
		run := 0
		for i := 0; i <= len(name); i++ {
			if i < len(name) && name[i] < utf8.RuneSelf && isAlnum(name[i]) {
				run++
				continue
			}
			if run > 0 {
				runs = append(runs, []byte(strings.ToLower(name[i-run:i])))
			}
			run = 0
		}
		if runs == nil {
			return nil
		}
		// The longest first: the rarest, most often, so the test fails
		// soonest.
		sort.SliceStable(runs, func(i, j int) bool { return len(runs[i]) > len(runs[j]) })
		out = append(out, runs)
	}
	return out
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// containsAny reports whether src holds every run of one of the names
// (needles), ignoring ASCII case.
func containsAny(src []byte, names [][][]byte) bool {
	for _, runs := range names {
		all := true
		for _, n := range runs {
			if indexFold(src, n) < 0 {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// indexFold is bytes.Index ignoring ASCII case, for a lower-case needle,
// without copying src: it jumps between the places the needle's first
// byte occurs in either case, each found once (linear in src).
func indexFold(src, needle []byte) int {
	if len(needle) == 0 {
		return 0
	}
	lo, up := needle[0], needle[0]
	if lo >= 'a' && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	next := func(c byte, from int) int {
		if j := bytes.IndexByte(src[from:], c); j >= 0 {
			return from + j
		}
		return len(src)
	}
	nl, nu := next(lo, 0), len(src)
	if up != lo {
		nu = next(up, 0)
	}
	for {
		i := min(nl, nu)
		if i+len(needle) > len(src) {
			return -1
		}
		if equalFoldASCII(src[i:i+len(needle)], needle) {
			return i
		}
		if i == nl {
			nl = next(lo, i+1)
		} else {
			nu = next(up, i+1)
		}
	}
}

func equalFoldASCII(a, lower []byte) bool {
	for k, c := range a {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[k] {
			return false
		}
	}
	return true
}
