package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/tending"
)

// Commands a client runs with workspace/executeCommand. Each writes, if
// it writes, as the zk command of its name does: no command runs what a
// note says to run (a falsifier's command runs through zk run, or zk
// mcp's run_falsifier, once the user approved it with zk trust).
const (
	// CommandReferences lists the references at a place: its arguments
	// are a document URI and a position. The code lens runs it.
	CommandReferences = "zk.references"
	// CommandNew creates a note as zk new does: its argument is the
	// title, or {"title": ..., "type": ...}. The editor is asked to show
	// it (window/showDocument) when it can.
	CommandNew = "zk.new"
	// CommandTend sets a note's Last tended date as zk tend does: its
	// argument is the note's URI, or {"uri": ..., "date": "YYYY-MM-DD"}.
	// A note open in the editor is edited there (workspace/applyEdit), so
	// that the editor's unsaved text is neither overwritten nor stale; a
	// note not open is written on disk (Options.Tend).
	CommandTend = "zk.tend"
	// CommandRejudge judges a note's falsifiers again under their
	// criteria as written now, and records it, as zk run --rejudge does:
	// its argument is the note's URI, or {"uri": ..., "falsifier": N or
	// a piece of its text}. Nothing runs. A note open with unsaved
	// changes is refused (the judgement is written on disk); an open
	// note's buffer is then brought to the text written
	// (workspace/applyEdit).
	CommandRejudge = "zk.rejudge"
)

// commands are the commands this server runs.
func (s *Server) commands() []string {
	out := []string{CommandReferences}
	if s.opts.ReadOnly {
		return out
	}
	if s.opts.Create != nil {
		out = append(out, CommandNew)
	}
	out = append(out, CommandTend)
	if s.opts.Rejudge != nil {
		out = append(out, CommandRejudge)
	}
	return out
}

// commandResult is what zk.new and zk.tend answer.
type commandResult struct {
	Path string `json:"path"`
	URI  string `json:"uri"`
	Date string `json:"date,omitempty"`
	// InEditor is set when the edit was sent to the editor to apply to
	// the note it holds open, rather than written on disk.
	InEditor bool `json:"inEditor,omitempty"`
	// Unchanged is set when the note already had that date.
	Unchanged bool `json:"unchanged,omitempty"`
}

// invalidParams is a request's error in the protocol's terms.
func invalidParams(format string, args ...any) error {
	return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// requestFailed is a request understood, its params valid, that cannot be
// done as things stand (LSP 3.17's RequestFailed): the message says why.
func requestFailed(format string, args ...any) error {
	return &jsonrpc2.Error{Code: codeRequestFailed, Message: fmt.Sprintf(format, args...)}
}

func (s *Server) executeCommand(ctx *glsp.Context, params *protocol.ExecuteCommandParams) (any, error) {
	if s.opts.ReadOnly && (params.Command == CommandNew || params.Command == CommandTend || params.Command == CommandRejudge) {
		// zk.tend edits even a note open in the editor: a write all the
		// same, which zk makes in no folder but a vault.
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: fmt.Sprintf(
			"%s writes, and %s is no vault (no .obsidian/ or .zk/ in it or above it): zk writes nothing there; make it one with zk init, or start zk lsp with --vault",
			params.Command, s.v.Dir)}
	}
	switch params.Command {
	case CommandReferences:
		var uri string
		var pos protocol.Position
		if len(params.Arguments) != 2 || decodeArg(params.Arguments[0], &uri) != nil || decodeArg(params.Arguments[1], &pos) != nil {
			return nil, invalidParams("%s takes a document URI and a position", CommandReferences)
		}
		return s.referencesAt(uri, pos, false)
	case CommandNew:
		if s.opts.Create == nil {
			break
		}
		var args struct {
			Title string `json:"title"`
			Type  string `json:"type"`
		}
		if err := objectOrString(params.Arguments, &args, &args.Title); err != nil || args.Title == "" {
			return nil, invalidParams(`%s takes a title, or {"title": ..., "type": ...}`, CommandNew)
		}
		return s.newNote(ctx, args.Type, args.Title)
	case CommandTend:
		var args struct {
			URI  string `json:"uri"`
			Date string `json:"date"`
		}
		if err := objectOrString(params.Arguments, &args, &args.URI); err != nil || args.URI == "" {
			return nil, invalidParams(`%s takes a note's URI, or {"uri": ..., "date": "YYYY-MM-DD"}`, CommandTend)
		}
		if _, err := time.Parse(time.DateOnly, args.Date); args.Date != "" && err != nil {
			return nil, invalidParams("%s: date %q is not of the form YYYY-MM-DD", CommandTend, args.Date)
		}
		return s.tend(args.URI, args.Date)
	case CommandRejudge:
		if s.opts.Rejudge == nil {
			break
		}
		var args struct {
			URI       string `json:"uri"`
			Falsifier any    `json:"falsifier"`
		}
		if err := objectOrString(params.Arguments, &args, &args.URI); err != nil || args.URI == "" {
			return nil, invalidParams(`%s takes a note's URI, or {"uri": ..., "falsifier": N}`, CommandRejudge)
		}
		falsifier := ""
		switch f := args.Falsifier.(type) {
		case nil:
		case string:
			falsifier = f
		case float64:
			falsifier = fmt.Sprint(int(f))
		default:
			return nil, invalidParams("%s: falsifier is a number or a piece of its text", CommandRejudge)
		}
		return s.rejudge(args.URI, falsifier)
	}
	return nil, invalidParams("unknown command %q; this server runs %v", params.Command, s.commands())
}

// decodeArg decodes a command's argument, as the connection decoded it
// (a string, a number, a map), into v.
func decodeArg(arg, v any) error {
	b, err := json.Marshal(arg)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// objectOrString decodes a command's one argument: an object into obj,
// or a string into str.
func objectOrString(args []any, obj any, str *string) error {
	if len(args) != 1 {
		return errors.New("one argument")
	}
	if s, ok := args[0].(string); ok {
		*str = s
		return nil
	}
	return decodeArg(args[0], obj)
}

// newNote is zk.new: the note created by Options.Create, taken into the
// server's walk (links to it resolve), then shown by the editor if it can.
func (s *Server) newNote(ctx *glsp.Context, typ, title string) (any, error) {
	if err := s.wait(); err != nil {
		return nil, err
	}
	p, err := s.opts.Create(context.Background(), typ, title)
	if err != nil {
		return nil, err
	}
	uri := s.uriOf(p)
	if err := s.didChangeWatchedFiles(ctx, &protocol.DidChangeWatchedFilesParams{Changes: []protocol.FileEvent{
		{URI: uri, Type: uint32(protocol.FileChangeTypeCreated)}}}); err != nil {
		return nil, err
	}
	s.mu.Lock()
	show, ask := s.canShow, s.ask
	s.mu.Unlock()
	if show {
		yes := true
		ask(string(protocol.ServerWindowShowDocument), protocol.ShowDocumentParams{URI: uri, TakeFocus: &yes})
	}
	return commandResult{Path: p, URI: uri}, nil
}

// tend is zk.tend on the note uri names.
func (s *Server) tend(uri, date string) (any, error) {
	if err := s.waitNamed(); err != nil {
		return nil, err
	}
	p, ok := s.vaultPath(uri)
	// A dot folder's .md (.git/hooks, .obsidian, .zk/templates) is no
	// note of the vault: zk tend and zk run refuse it too.
	if !ok || !vault.IsNotePath(p) || vault.InDotFolder(p) {
		return nil, invalidParams("%s: %s is not a note of the vault", CommandTend, uri)
	}
	if date == "" {
		date = s.today().Format(time.DateOnly)
	}
	s.mu.Lock()
	d := s.docs[p]
	s.mu.Unlock()
	if d == nil {
		if s.opts.Tend == nil {
			return nil, fmt.Errorf("%s: open the note to tend it here, or run zk tend", CommandTend)
		}
		unchanged, err := s.opts.Tend(context.Background(), p, date)
		if err != nil {
			return nil, err
		}
		s.reread(p)
		return commandResult{Path: p, URI: uri, Date: date, Unchanged: unchanged}, nil
	}
	s.mu.Lock()
	n, version := s.docNote(d), d.version
	s.mu.Unlock()
	out, err := tending.SetLastTended(p, n.Src, date, vault.TendedSection(s.opts.Lint.Types, n), s.opts.Lint.TendedKeys)
	if err != nil {
		return nil, err
	}
	e, changed := diffEdit(string(n.Src), string(out))
	if !changed {
		return commandResult{Path: p, URI: d.uri, Date: date, InEditor: true, Unchanged: true}, nil
	}
	v := protocol.Integer(version)
	label := "Set Last tended to " + date
	edit := protocol.WorkspaceEdit{DocumentChanges: []any{protocol.TextDocumentEdit{
		TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{Version: &v, TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: d.uri}},
		Edits:        []any{e}}}}
	s.mu.Lock()
	ask := s.ask
	s.mu.Unlock()
	ask(string(protocol.ServerWorkspaceApplyEdit), protocol.ApplyWorkspaceEditParams{Label: &label, Edit: edit})
	return commandResult{Path: p, URI: d.uri, Date: date, InEditor: true}, nil
}

// reread takes the note at p, not open, as it is now on disk: after the
// server itself wrote it.
func (s *Server) reread(p string) {
	if n, err := s.v.ReadNote(p); err == nil {
		s.live.Update(n)
	}
}

// rejudgeResult is what zk.rejudge answers.
type rejudgeResult struct {
	Path string `json:"path"`
	// Judged is one line per falsifier judged again.
	Judged []string `json:"judged"`
	// InEditor is set when the note open in the editor was brought to
	// the text written (workspace/applyEdit).
	InEditor bool `json:"inEditor,omitempty"`
}

// rejudge is zk.rejudge on the note uri names.
func (s *Server) rejudge(uri, falsifier string) (any, error) {
	if err := s.waitNamed(); err != nil {
		return nil, err
	}
	p, ok := s.vaultPath(uri)
	// A dot folder's .md (.git/hooks, .obsidian, .zk/templates) is no
	// note of the vault: zk tend and zk run refuse it too.
	if !ok || !vault.IsNotePath(p) || vault.InDotFolder(p) {
		return nil, invalidParams("%s: %s is not a note of the vault", CommandRejudge, uri)
	}
	s.mu.Lock()
	d := s.docs[p]
	var held []byte
	var version int32
	if d != nil {
		held, version = s.docNote(d).Src, d.version
	}
	s.mu.Unlock()
	if d != nil {
		if disk, err := s.v.ReadFile(p, s.v.MaxNoteSize); err != nil || string(disk) != string(held) {
			return nil, fmt.Errorf("%s: %s has unsaved changes: save it, then judge again", CommandRejudge, p)
		}
	}
	judged, err := s.opts.Rejudge(context.Background(), p, falsifier)
	if err != nil {
		return nil, err
	}
	out := rejudgeResult{Path: p, Judged: judged}
	if out.Judged == nil {
		out.Judged = []string{}
	}
	if d == nil {
		s.reread(p)
		return out, nil
	}
	// The buffer holds what was on disk: bring it to what is now.
	disk, err := s.v.ReadFile(p, s.v.MaxNoteSize)
	if err != nil {
		return out, nil
	}
	if e, changed := diffEdit(string(held), string(disk)); changed {
		v := protocol.Integer(version)
		label := "Judged again"
		s.mu.Lock()
		ask := s.ask
		s.mu.Unlock()
		ask(string(protocol.ServerWorkspaceApplyEdit), protocol.ApplyWorkspaceEditParams{Label: &label, Edit: protocol.WorkspaceEdit{DocumentChanges: []any{protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{Version: &v, TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: d.uri}},
			Edits:        []any{e}}}}})
		out.InEditor = true
	}
	return out, nil
}
