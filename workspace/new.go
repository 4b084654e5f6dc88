package workspace

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"time"

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
	p, text, err := w.RenderNew(req.Type, req.Title, req.Now)
	if err != nil {
		return "", err
	}
	files, _, err := w.Vault.Files(ctx)
	if err != nil {
		return "", err
	}
	if got, ok := vault.ResolverOf(files).Has(p); ok {
		return "", &RefusedError{Err: fmt.Errorf("new: %s: %w", got, vault.ErrExists)}
	}
	if err := w.Vault.CreateFile(p, text); err != nil {
		return "", refused(fmt.Errorf("new: %w", err))
	}
	return p, nil
}

// RenderNew is the note New creates for a title: its vault path (in the
// folder of its type) and its text (the type's template rendered), made
// at now, or on the pinned day. zk lsp's "create the note" action renders
// the same note.
func (w *Workspace) RenderNew(typ, title string, now time.Time) (string, []byte, error) {
	v, cfg := w.Vault, w.Config
	if typ == "" {
		typ = config.DefaultType
	}
	if w.Pinned {
		now = w.Today
	}
	tmpl, _, err := cfg.Template(typ, func(p string) ([]byte, error) { return v.ReadFile(p, v.MaxNoteSize) })
	if err != nil {
		return "", nil, usage(err)
	}
	if r, ok := vault.BidiControl(title); ok {
		return "", nil, usage(fmt.Errorf("new: the title holds the bidirectional control character U+%04X, which makes a file name read as another; write the title without it", r))
	}
	name := vault.FileName(title)
	if name == "" {
		return "", nil, usage(fmt.Errorf("new: %q leaves no file name once the characters a file name cannot hold are gone", title))
	}
	return path.Join(filepath.ToSlash(cfg.Types[typ].Folder), name+".md"), templates.Render(tmpl, title, now), nil
}
