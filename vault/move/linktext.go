// Package move plans and applies the move of a note, an attachment or a
// folder, or the rename of a heading, with every link to it rewritten so
// that it still reaches the same file (zk mv). It returns plans and
// reports; it never prints.
package move

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/zk-claims/zk/vault"
)

// Link formats of Obsidian's "New link format" setting.
const (
	Shortest = "shortest"
	Relative = "relative"
	Absolute = "absolute"
)

// Format is how the vault asks for new links to be written: Obsidian's
// .obsidian/app.json keys newLinkFormat and useMarkdownLinks.
type Format struct {
	// NewLinkFormat is Shortest (Obsidian's default), Relative or Absolute.
	NewLinkFormat string `json:"newLinkFormat"`
	// UseMarkdownLinks is the kind of link Obsidian writes for a new link.
	// A rewritten link keeps its own kind, as Obsidian's rename does: a
	// wikilink stays a wikilink.
	UseMarkdownLinks bool `json:"useMarkdownLinks"`
}

// ReadFormat reads the vault's link format from .obsidian/app.json; a
// vault without one (or without the keys) gets Obsidian's defaults.
func ReadFormat(v *vault.Vault) (Format, error) {
	f := Format{NewLinkFormat: Shortest}
	b, err := v.ReadFile(".obsidian/app.json", 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("read .obsidian/app.json: %w", err)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("read .obsidian/app.json: %w", err)
	}
	switch f.NewLinkFormat {
	case Shortest, Relative, Absolute:
	case "":
		f.NewLinkFormat = Shortest
	default:
		return f, fmt.Errorf(".obsidian/app.json: newLinkFormat %q is not shortest, relative or absolute", f.NewLinkFormat)
	}
	return f, nil
}

// LinkText is the path a new link from the note at source to target is
// written with, as Obsidian's fileToLinktext writes it: a note without its
// ".md", any other file with its extension.
//
//   - shortest: the file's name when no other file of the vault has that
//     name, else its full vault path (Obsidian's API documentation: "If
//     file name is unique, use the filename. If not unique, use full
//     path");
//   - relative: the path from source's folder ("../Other/Note");
//   - absolute: the full vault path.
//
// r is the resolver of the vault as it will be. The text is checked
// against r: a text that would reach another file (a relative path that
// an exact vault path shadows, say) falls back to the full path, and ok
// is false when even that does not reach target (files that differ only
// by case, of which links reach only the first).
func LinkText(r *vault.Resolver, target, source, format string) (text string, ok bool) {
	full := target
	if vault.IsNotePath(target) {
		full = target[:len(target)-len(path.Ext(target))]
	}
	switch format {
	case Relative:
		text = relPath(path.Dir(source), full)
	case Absolute:
		text = full
	default:
		name := path.Base(full)
		if c := r.Candidates(name); len(c) == 1 && c[0] == target {
			text = name
		} else {
			text = full
		}
	}
	if reaches(r, text, source, target) {
		return text, true
	}
	if reaches(r, full, source, target) {
		return full, true
	}
	return full, false
}

func reaches(r *vault.Resolver, text, source, target string) bool {
	got, ok := r.Resolve(text, source)
	return ok && got == target
}

// relPath is the path from folder dir to p, both vault paths.
func relPath(dir, p string) string {
	if dir == "." {
		return p
	}
	from := strings.Split(dir, "/")
	to := strings.Split(p, "/")
	i := 0
	for i < len(from) && i < len(to)-1 && from[i] == to[i] {
		i++
	}
	return strings.Repeat("../", len(from)-i) + strings.Join(to[i:], "/")
}

// EncodeMarkdownPath writes a path as a markdown link's destination
// without angle brackets, as Obsidian does (encodeURI): a space is %20,
// non-ASCII is its UTF-8 percent-encoded, and so are the characters that
// would end or split the destination ("(", ")", "#", "%", "^", "|" ...).
func EncodeMarkdownPath(p string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~/!$&'*+,;=:@", c) >= 0) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
