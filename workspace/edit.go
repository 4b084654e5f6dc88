package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zk-claims/zk/vault"
)

// Edits an agent asks for (zk mcp's append_section and set_property),
// each through the vault's safe write path, as zk tend writes.

// AppendRequest appends Text to the end of the section under the heading
// Section of the note Note.
type AppendRequest struct {
	Note, Section, Text string
}

// Edited is what an edit did: the vault path written, and whether the
// note already read as asked.
type Edited struct {
	Path      string
	Unchanged bool
}

// AppendSection appends to one section of a note (vault.AppendToSection).
func (w *Workspace) AppendSection(ctx context.Context, req AppendRequest) (Edited, error) {
	return w.edit(ctx, req.Note, func(n *vault.Note) ([]byte, error) {
		out, err := vault.AppendToSection(n, req.Section, req.Text)
		if errors.Is(err, vault.ErrNoSection) {
			var hs []string
			for _, h := range n.Headings {
				hs = append(hs, strings.TrimSpace(h.Text))
			}
			return nil, usage(fmt.Errorf("%s has no section %q; its headings: %s", n.Path, req.Section, strings.Join(hs, ", ")))
		}
		if err != nil {
			return nil, usage(err)
		}
		return out, nil
	})
}

// PropertyRequest sets the frontmatter property Key of the note Note to
// Value (a string, number, boolean or list of them; nil clears it).
type PropertyRequest struct {
	Note, Key string
	Value     any
}

// SetProperty sets one frontmatter property of a note (vault.SetProperty).
func (w *Workspace) SetProperty(ctx context.Context, req PropertyRequest) (Edited, error) {
	return w.edit(ctx, req.Note, func(n *vault.Note) ([]byte, error) {
		out, err := vault.SetProperty(n, req.Key, req.Value)
		if err != nil {
			return nil, usage(fmt.Errorf("%s: %w", n.Path, err))
		}
		return out, nil
	})
}

// edit writes the note arg names as change makes it, through EditNote:
// change runs on the text as read, and again on the text of a note saved
// meanwhile.
func (w *Workspace) edit(ctx context.Context, arg string, change func(*vault.Note) ([]byte, error)) (Edited, error) {
	v := w.Vault
	p, _, err := LocatePaths(ctx, v, arg)
	if err != nil {
		return Edited{}, err
	}
	n, err := v.ReadNote(p)
	if err != nil {
		return Edited{}, err
	}
	if _, err := change(n); err != nil {
		return Edited{}, err // refused before any write
	}
	res, err := v.EditNote(p, func(src []byte) ([]byte, error) {
		return change(vault.NewParser().Parse(p, src))
	}, vault.WriteOptions{Base: n.Src})
	if err != nil {
		var ue *UsageError
		if errors.As(err, &ue) {
			return Edited{}, err
		}
		return Edited{}, refused(err)
	}
	return Edited{Path: res.Path, Unchanged: res.Unchanged}, nil
}
