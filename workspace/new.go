package workspace

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/zk-claims/zk/config"
	"github.com/zk-claims/zk/templates"
	"github.com/zk-claims/zk/vault"
)

// NewRequest is zk new's: the note type ("" for the default,
// permanent), the title, and the time of creation, which a pinned day
// replaces (so that tests and reproducible runs render the same note).
type NewRequest struct {
	Type  string
	Title string
	Now   time.Time
}

// New creates a note from its type's template, in the folder of its
// type, and returns its vault path. It never overwrites a file: a note of
// the name is a RefusedError of vault.ErrExists.
func (w *Workspace) New(ctx context.Context, req NewRequest) (string, error) {
	p, text, err := w.RenderNew(ctx, req.Type, req.Title, req.Now)
	if err != nil {
		return "", err
	}
	files, _, err := w.Vault.Files(ctx)
	if err != nil {
		return "", err
	}
	res := vault.ResolverOf(files)
	if got, ok := res.Has(p); ok {
		return "", &RefusedError{Err: fmt.Errorf("new: %s: %w", got, vault.ErrExists)}
	}
	if err := w.Vault.CreateFile(p, text); err != nil {
		return "", refused(fmt.Errorf("new: %w", err))
	}
	// A title another note has, in another folder, is no error (Obsidian
	// allows it), but the links that name it by name alone now have two
	// notes to mean: said, as Obsidian's own "new note" says nothing of.
	name := strings.TrimSuffix(path.Base(p), ".md")
	if others := res.Candidates(name); len(others) > 0 {
		w.warn("%s: %s is named %q too, so a link [[%s]] may now reach either; link by path, or rename one with zk mv",
			p, strings.Join(others, ", "), name, name)
	}
	return p, nil
}

// RenderNew is the note New creates for a title: its vault path (in the
// folder of its type) and its text (the type's template rendered), made
// at now, or on the pinned day. zk lsp's "create the note" action renders
// the same note.
func (w *Workspace) RenderNew(ctx context.Context, typ, title string, now time.Time) (string, []byte, error) {
	v, cfg := w.Vault, w.Config
	if typ == "" {
		typ = config.DefaultType
	}
	if w.Pinned {
		now = w.Today
	}
	tmpl, _, err := cfg.Template(typ, readTemplate(v))
	if err != nil {
		return "", nil, usage(err)
	}
	if r, ok := vault.BidiControl(title); ok {
		return "", nil, usage(fmt.Errorf("new: the title holds the bidirectional control character U+%04X, which makes a file name read as another; write the title without it", r))
	}
	if i := strings.IndexFunc(title, unicode.IsControl); i >= 0 {
		// The file name drops it; the heading kept it: a NUL made the
		// note a binary file no command reads, a line break wrote the
		// rest of the title as the note's text.
		r, _ := utf8.DecodeRuneInString(title[i:])
		return "", nil, usage(fmt.Errorf("new: the title holds the control character U+%04X, which a note's heading cannot hold; write the title without it", r))
	}
	if vault.IsNotePath(title) && len(title) > len(".md") {
		// "zk new Foo.md" means the note Foo.md, as a link [[Foo.md]]
		// does in Obsidian, not Foo.md.md headed "# Foo.md".
		title = title[:len(title)-len(".md")]
	}
	name := vault.FileName(title)
	if name == "" {
		return "", nil, usage(fmt.Errorf("new: %q leaves no file name once the characters a file name cannot hold are gone", title))
	}
	dir, err := w.NewNoteFolder(ctx, typ)
	if err != nil {
		return "", nil, err
	}
	return path.Join(dir, name+".md"), templates.Render(tmpl, title, now), nil
}

// NewNoteFolder is the vault folder a new note of type typ goes into, the
// one rule of zk new, MCP's new and zk lsp's "create the note": the type's
// folder when the config sets one; else the folder its notes live in, the
// shallowest folder holding a note that one of the type's path globs
// matches (3. Resources/Permanent Notes for **/Permanent Notes/**; the one
// with most such notes on a tie); else the folder a glob names literally
// (Permanent Notes); else the vault's root.
func (w *Workspace) NewNoteFolder(ctx context.Context, typ string) (string, error) {
	t := w.Config.Types[typ]
	if t == nil {
		return "", usage(fmt.Errorf("new: no note type %q in the config", typ))
	}
	if t.Folder != "" {
		return path.Clean(filepath.ToSlash(t.Folder)), nil
	}
	files, _, err := w.Vault.Files(ctx)
	if err != nil {
		return "", err
	}
	count := map[string]int{}
	for _, f := range files {
		if !f.IsNote() {
			continue
		}
		lower := strings.ToLower(f.Path)
		for _, g := range t.Paths {
			if ok, _ := doublestar.Match(strings.ToLower(g), lower); ok {
				count[path.Dir(f.Path)]++
				break
			}
		}
	}
	best := ""
	for dir, n := range count {
		if best == "" {
			best = dir
			continue
		}
		dd, bd := strings.Count(dir, "/"), strings.Count(best, "/")
		if dd < bd || (dd == bd && (n > count[best] || (n == count[best] && dir < best))) {
			best = dir
		}
	}
	if best != "" {
		if best == "." {
			return "", nil
		}
		return best, nil
	}
	for _, g := range t.Paths {
		lit := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(g, "**/"), "/**"), "/*")
		// A glob is the vault's own text: it may name no folder a write
		// must not reach (.obsidian, .zk, outside the vault).
		if lit != "" && !strings.ContainsAny(lit, "*?[{\\") && vault.Local(lit) && !vault.InDotFolder(lit) {
			return path.Clean(lit), nil
		}
	}
	return "", nil
}
