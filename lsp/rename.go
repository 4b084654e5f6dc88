package lsp

import (
	"context"
	"errors"
	"path"
	"strings"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/move"
)

// Rename is zk mv in the editor: on a link, or on the H1 that is the
// note's title, it renames the file the link reaches (or the note) and
// rewrites every link to it; on a link's #heading, or on a heading line,
// it renames the heading and rewrites every link to it. The edits are
// zk mv's plan (vault/move), sent as a WorkspaceEdit for the client to
// apply: text edits first, at the files' old paths, then the file's
// RenameFile.

// renameTarget is what a rename at a place renames.
type renameTarget struct {
	note    string // the vault path of the file renamed, or of the heading's note
	heading string // the heading's text; "" for a file rename
	title   bool   // on the note's H1 that names it: the H1 follows the name (zk mv's plan renames it)
	rng     protocol.Range
	text    string // what the client shows to be replaced
}

// renameTargetAt is the rename at byte offset off of n.
func (s *Server) renameTargetAt(n *vault.Note, off int) (renameTarget, bool) {
	text := string(n.Src)
	span := func(from, to int) protocol.Range {
		return protocol.Range{Start: position(text, from), End: position(text, to)}
	}
	if l, ok := linkAt(n, off); ok {
		to := n.Path
		if l.Path != "" {
			t, ok := s.live.Resolver().Resolve(l.Path, n.Path)
			if !ok {
				return renameTarget{}, false
			}
			to = t
		}
		start := l.Span.Start.Offset
		if l.Kind != vault.Wikilink {
			if l.Path == "" {
				return renameTarget{}, false
			}
			return renameTarget{note: to, rng: span(start, l.Span.End.Offset), text: linkName(to)}, true
		}
		at := start + len("[[")
		if l.Embed {
			at++
		}
		pathEnd := at + len(l.Path)
		if off >= pathEnd && l.Subpath != "" && !l.IsBlockRef() && vault.IsNotePath(to) {
			// On "#A#B": the part under the cursor.
			p := pathEnd
			for _, part := range strings.Split(l.Subpath[1:], "#") {
				p++ // its '#'
				if off <= p+len(part) {
					return renameTarget{note: to, heading: part, rng: span(p, p+len(part)), text: part}, true
				}
				p += len(part)
			}
		}
		if l.Path == "" {
			return renameTarget{}, false
		}
		return renameTarget{note: to, rng: span(at, pathEnd), text: l.Path}, true
	}
	for _, h := range n.Headings {
		if off < h.Span.Start.Offset || off >= h.Span.End.Offset {
			continue
		}
		hs, he := h.Span.Start.Offset, h.Span.End.Offset
		i := strings.Index(text[hs:he], h.Text)
		if i < 0 || strings.TrimSpace(h.Text) == "" {
			return renameTarget{}, false
		}
		r := span(hs+i, hs+i+len(h.Text))
		if h.Level == 1 && strings.EqualFold(strings.TrimSpace(h.Text), n.Name) {
			return renameTarget{note: n.Path, title: true, rng: r, text: h.Text}, true
		}
		return renameTarget{note: n.Path, heading: h.Text, rng: r, text: h.Text}, true
	}
	return renameTarget{}, false
}

// linkName is the name a link writes for p: a note's without ".md".
func linkName(p string) string {
	b := path.Base(p)
	if vault.IsNotePath(b) {
		return b[:len(b)-len(path.Ext(b))]
	}
	return b
}

func (s *Server) prepareRename(_ *glsp.Context, params *protocol.PrepareRenameParams) (any, error) {
	if s.opts.ReadOnly {
		return nil, errReadOnlyRename
	}
	if err := s.wait(); err != nil {
		return nil, err
	}
	n, err := s.noteOf(params.TextDocument.URI)
	if n == nil || err != nil {
		return nil, err
	}
	t, ok := s.renameTargetAt(n, offset(string(n.Src), params.Position))
	if !ok {
		return nil, nil
	}
	return protocol.RangeWithPlaceholder{Range: t.rng, Placeholder: t.text}, nil
}

// errReadOnlyRename refuses a rename in a folder that is no vault, as zk
// mv refuses it there; initialize offered none.
var errReadOnlyRename = &jsonrpc2.Error{Code: codeRequestFailed, Message: "rename moves files and rewrites links, as zk mv does, which zk does only in a vault (a folder with .obsidian/ or .zk/)"}

func (s *Server) rename(_ *glsp.Context, params *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	if s.opts.ReadOnly {
		return nil, errReadOnlyRename
	}
	if err := s.wait(); err != nil {
		return nil, err
	}
	n, err := s.noteOf(params.TextDocument.URI)
	if n == nil || err != nil {
		return nil, err
	}
	t, ok := s.renameTargetAt(n, offset(string(n.Src), params.Position))
	if !ok {
		return nil, requestFailed("nothing to rename here: put the cursor on a link, a heading or the note's title")
	}
	ctx := context.Background()
	newName := strings.TrimSpace(params.NewName)
	if strings.Trim(newName, "/") == "" {
		// Else "" names ".md", a dot file, and the refusal says so.
		return nil, invalidParams("rename needs a new name: %q names no file", params.NewName)
	}
	var plan *move.Plan
	var newPath string
	if t.heading != "" {
		if plan, err = s.live.PlanHeadingRename(ctx, t.note, t.heading, newName); err != nil {
			return nil, unsaved(t.note, err)
		}
	} else {
		newPath = renamedPath(t.note, newName)
		if newPath == t.note {
			return &protocol.WorkspaceEdit{}, nil
		}
		// Planned first, so that a client that cannot rename files is sent
		// to zk mv only with a rename zk mv makes.
		if plan, err = s.live.PlanRename(ctx, t.note, newPath); err != nil {
			return nil, unsaved(t.note, err)
		}
		s.mu.Lock()
		canRename := s.canRename
		s.mu.Unlock()
		if !canRename {
			// Applied without its file rename, the edit would point every
			// link at a note that does not exist.
			return nil, requestFailed("this editor cannot rename files in a workspace edit; rename the note with zk mv %q %q, which rewrites the links too", t.note, newPath)
		}
	}
	if len(plan.Unwritable) > 0 {
		return nil, requestFailed("the rename would break %d links zk cannot rewrite: %s", len(plan.Unwritable), strings.Join(plan.Unwritable, "; "))
	}
	return s.workspaceEdit(plan)
}

// unsaved is a rename's err when the note p is not on disk (opened in
// the editor, never saved): zk mv plans from the saved files, so the
// client is told to save it; any other err is as it is.
func unsaved(p string, err error) error {
	if errors.Is(err, vault.ErrNotFound) {
		return requestFailed("%s is not on disk (never saved, or deleted since): save it, then rename", p)
	}
	return err
}

// renamedPath is the path a rename to name gives the file p: name beside
// p, or the vault path name when it has a folder; a note keeps its .md.
func renamedPath(p, name string) string {
	np := path.Join(path.Dir(p), name)
	if strings.Contains(name, "/") {
		np = path.Clean(strings.TrimPrefix(name, "/"))
	}
	if vault.IsNotePath(p) && !vault.IsNotePath(np) {
		np += ".md"
	} else if !vault.IsNotePath(p) && path.Ext(np) == "" {
		np += path.Ext(p)
	}
	return np
}

// workspaceEdit is a plan as the client applies it: each file's text
// edits, positioned in the text the plan read, then the renames. A note
// open with unsaved changes is refused: the plan is of the saved file.
func (s *Server) workspaceEdit(plan *move.Plan) (*protocol.WorkspaceEdit, error) {
	var changes []any
	for _, fe := range plan.Files {
		text := string(fe.Old)
		id := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: s.uriOf(fe.Path)}}
		s.mu.Lock()
		d := s.docs[fe.Path]
		var n *vault.Note
		if d != nil {
			n = s.docNote(d)
		}
		s.mu.Unlock()
		if d != nil {
			if string(n.Src) != text {
				return nil, requestFailed("%s has unsaved changes: save it, then rename", fe.Path)
			}
			version := protocol.Integer(d.version)
			id.Version = &version
		}
		spans := make([][2]int, len(fe.Edits))
		for i, e := range fe.Edits {
			spans[i] = [2]int{e.Start, e.End}
		}
		var edits []any
		for i, r := range spanRanges(fe.Old, spans) {
			edits = append(edits, protocol.TextEdit{Range: r, NewText: fe.Edits[i].New})
		}
		changes = append(changes, protocol.TextDocumentEdit{TextDocument: id, Edits: edits})
	}
	for _, r := range plan.Renames {
		changes = append(changes, protocol.RenameFile{Kind: "rename", OldURI: s.uriOf(r.From), NewURI: s.uriOf(r.To)})
	}
	return &protocol.WorkspaceEdit{DocumentChanges: changes}, nil
}
