package lsp

import (
	"net/url"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/tending"
	"github.com/zk-claims/zk/workspace"
)

// Code actions: each fixes one finding, and carries the diagnostic it
// fixes. The findings are those of the note's text as the server holds
// it, checked again, not the client's copy of the diagnostics: glsp
// cannot decode a diagnostic's code (IntegerOrString's UnmarshalJSON has
// a value receiver), and a client may send none.

// maxRelationActions bounds the "add — relation:" actions of one entry.
const maxRelationActions = 12

func (s *Server) codeAction(_ *glsp.Context, params *protocol.CodeActionParams) (any, error) {
	if err := s.wait(); err != nil {
		return nil, err
	}
	if only := params.Context.Only; len(only) > 0 && !slices.ContainsFunc(only, func(k string) bool {
		return k == protocol.CodeActionKindQuickFix || k == protocol.CodeActionKindEmpty
	}) {
		return []protocol.CodeAction{}, nil
	}
	p, ok := s.vaultPath(params.TextDocument.URI)
	if !ok || !vault.IsNotePath(p) {
		return nil, nil
	}
	n, err := s.note(p)
	if err != nil {
		return nil, nil // gone: nothing to fix
	}
	text := string(n.Src)
	// The lines asked about, whole: a client asks at the cursor, and the
	// finding may be further along its line.
	first := protocol.Position{Line: params.Range.Start.Line}
	to := lineStart(text, int(params.Range.End.Line)+1)
	out := []protocol.CodeAction{}
	fs, _ := s.live.Check(n) // after the wait: it can
	// The findings published (diagnostics), their places found in one
	// pass as there, and each broken link's link found in a table: each
	// found from the top of the note made a request over 40,000 broken
	// links on a line quadratic.
	fs = fs[:min(len(fs), maxDiagnostics)]
	starts, ends := &positioner{text: text}, &positioner{text: text}
	var linkAt map[int]vault.Link
	for _, f := range fs {
		d := s.diagnosticAt(starts, ends, f)
		start := starts.off
		if starts.line == 0 { // past the last line
			start = len(text)
		}
		if before(d.Range.End, first) || start > to { // not in the range asked about
			continue
		}
		switch {
		case strings.HasPrefix(f.Rule, "maintenance/"):
			if a, ok := s.tendAction(n, params.TextDocument.URI, d); ok {
				out = append(out, a)
			}
		case f.Rule == lint.RuleBrokenLink:
			if linkAt == nil {
				linkAt = linksByStart(n)
			}
			l, ok := linkAt[start]
			if !ok {
				continue
			}
			if a, ok := s.relinkAction(n, params.TextDocument.URI, l, d); ok {
				out = append(out, a)
			}
			if a, ok := s.createAction(n, l, d); ok {
				out = append(out, a)
			}
		case f.Rule == lint.RuleUntypedLink:
			out = append(out, s.relationActions(n, params.TextDocument.URI, start, d)...)
		}
	}
	return out, nil
}

// quickFix is a code action of one edit of one document.
func quickFix(title, uri string, d protocol.Diagnostic, edits []protocol.TextEdit, preferred bool) protocol.CodeAction {
	kind := protocol.CodeActionKindQuickFix
	a := protocol.CodeAction{Title: title, Kind: &kind, Diagnostics: []protocol.Diagnostic{d},
		Edit: &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{uri: edits}}}
	if preferred {
		a.IsPreferred = &preferred
	}
	return a
}

// tendAction sets the note's Last tended date to today, by the edit zk
// tend makes (tending.SetLastTended), sent as the one span it changes.
func (s *Server) tendAction(n *vault.Note, uri string, d protocol.Diagnostic) (protocol.CodeAction, bool) {
	date := s.today().Format(time.DateOnly)
	section := vault.TendedSection(s.opts.Lint.Types, n)
	out, err := tending.SetLastTended(n.Path, n.Src, date, section, s.opts.Lint.TendedKeys)
	if err != nil {
		return protocol.CodeAction{}, false
	}
	e, ok := diffEdit(string(n.Src), string(out))
	if !ok {
		return protocol.CodeAction{}, false
	}
	return quickFix("Set Last tended to "+date, uri, d, []protocol.TextEdit{e}, true), true
}

// diffEdit is the one edit that turns old into new: the span between
// their common prefix and common suffix, kept to whole characters. False
// when they are the same.
func diffEdit(old, new string) (protocol.TextEdit, bool) {
	if old == new {
		return protocol.TextEdit{}, false
	}
	pre := 0
	for pre < len(old) && pre < len(new) && old[pre] == new[pre] {
		pre++
	}
	for pre > 0 && ((pre < len(old) && !utf8.RuneStart(old[pre])) || (pre < len(new) && !utf8.RuneStart(new[pre]))) {
		pre--
	}
	suf := 0
	for suf < len(old)-pre && suf < len(new)-pre && old[len(old)-1-suf] == new[len(new)-1-suf] {
		suf++
	}
	for suf > 0 && (!utf8.RuneStart(old[len(old)-suf]) || !utf8.RuneStart(new[len(new)-suf])) {
		suf--
	}
	return protocol.TextEdit{Range: protocol.Range{Start: position(old, pre), End: position(old, len(old)-suf)},
		NewText: new[pre : len(new)-suf]}, true
}

// linksByStart are n's links and embeds by the offset they start at, the
// first of any two at one offset.
func linksByStart(n *vault.Note) map[int]vault.Link {
	out := map[int]vault.Link{}
	for l := range n.LinksAndEmbeds() {
		if _, ok := out[l.Span.Start.Offset]; !ok {
			out[l.Span.Start.Offset] = l
		}
	}
	return out
}

// before reports whether position a is before b.
func before(a, b protocol.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

// almostNamed is the one note a broken link's path almost names: the
// note of the same name in another folder, else the one whose name
// differs only in case, spaces, hyphens or underscores. False when none
// or several do.
func (s *Server) almostNamed(linkpath string) (string, bool) {
	if c := s.live.Resolver().Candidates(path.Base(linkpath)); len(c) == 1 && vault.IsNotePath(c[0]) {
		return c[0], true
	}
	want := looseName(linkpath)
	found := ""
	for _, p := range s.live.Notes() {
		if looseName(p) == want {
			if found != "" {
				return "", false
			}
			found = p
		}
	}
	return found, found != ""
}

// looseName is a note's name (the last part of a path, without .md) with
// case, spaces, hyphens and underscores left out.
func looseName(p string) string {
	name := strings.TrimSuffix(path.Base(p), ".md")
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_', '\t':
			return -1
		}
		return r
	}, strings.ToLower(name))
}

// relinkAction rewrites a broken link's path to the note it almost
// names, keeping its heading, block and display text.
func (s *Server) relinkAction(n *vault.Note, uri string, l vault.Link, d protocol.Diagnostic) (protocol.CodeAction, bool) {
	target, ok := s.almostNamed(l.Path)
	if !ok {
		return protocol.CodeAction{}, false
	}
	start, end, ok := pathSpan(string(n.Src), l)
	if !ok {
		return protocol.CodeAction{}, false
	}
	with := workspace.ShortestLink(target, s.live.Resolver())
	if l.Kind == vault.Markdown {
		with = (&url.URL{Path: target}).EscapedPath()
	}
	text := string(n.Src)
	e := protocol.TextEdit{Range: protocol.Range{Start: position(text, start), End: position(text, end)}, NewText: with}
	name := strings.TrimSuffix(path.Base(target), ".md")
	return quickFix("Link to \""+name+"\" ("+target+")", uri, d, []protocol.TextEdit{e}, true), true
}

// pathSpan is where a link's path is written in the source: after "[[" of
// a wikilink, or "](" (and an optional "<") of a markdown link, up to the
// subpath, display text or end.
func pathSpan(text string, l vault.Link) (int, int, bool) {
	src := text[l.Span.Start.Offset:l.Span.End.Offset]
	var at int
	var stop string
	if l.Kind == vault.Wikilink {
		i := strings.Index(src, "[[")
		if i < 0 {
			return 0, 0, false
		}
		at, stop = i+2, "#|]"
	} else {
		i := strings.LastIndex(src, "](")
		if i < 0 {
			return 0, 0, false
		}
		at, stop = i+2, "#) "
		if strings.HasPrefix(src[at:], "<") {
			at, stop = at+1, "#>"
		}
	}
	end := at + strings.IndexAny(src[at:], stop)
	if end < at {
		return 0, 0, false
	}
	return l.Span.Start.Offset + at, l.Span.Start.Offset + end, true
}

// createAction creates the note a broken [[link]] names, from the
// template of the linking note's type (the default type's when it has
// none), rendered as zk new renders it, at the path zk new would give it
// (or in the link's folder when the link names one).
func (s *Server) createAction(n *vault.Note, l vault.Link, d protocol.Diagnostic) (protocol.CodeAction, bool) {
	s.mu.Lock()
	canCreate := s.canCreate
	s.mu.Unlock()
	if s.opts.NewNote == nil || s.opts.ReadOnly || !canCreate || l.Path == "" || (path.Ext(l.Path) != "" && path.Ext(l.Path) != ".md") {
		return protocol.CodeAction{}, false
	}
	linkpath := strings.TrimSuffix(strings.TrimPrefix(strings.ReplaceAll(l.Path, `\`, "/"), "/"), ".md")
	if strings.HasPrefix(linkpath, "./") || strings.HasPrefix(linkpath, "../") || strings.Contains(linkpath, "/../") {
		return protocol.CodeAction{}, false
	}
	title := path.Base(linkpath)
	typ := ""
	if t := vault.TypeOf(s.opts.Lint.Types, n); t != nil {
		typ = t.Name
	}
	p, content, err := s.opts.NewNote(typ, title)
	if err != nil || path.Base(p) != title+".md" {
		return protocol.CodeAction{}, false // a title no file name can hold
	}
	if dir := path.Dir(linkpath); dir != "." {
		p = dir + "/" + title + ".md"
	}
	_, exists := s.live.Resolver().Has(p)
	// zk new and zk mv make no note in a dot folder (git runs what
	// .git/hooks holds; Obsidian loads .obsidian) nor out of the vault.
	if exists || vault.InDotFolder(p) || s.v.Inside(p) != nil {
		return protocol.CodeAction{}, false
	}
	uri := s.uriOf(p)
	no := false
	kind := protocol.CodeActionKindQuickFix
	return protocol.CodeAction{Title: "Create \"" + title + "\" (" + p + ")", Kind: &kind, Diagnostics: []protocol.Diagnostic{d},
		Edit: &protocol.WorkspaceEdit{DocumentChanges: []any{
			protocol.CreateFile{Kind: "create", URI: uri, Options: &protocol.CreateFileOptions{Overwrite: &no, IgnoreIfExists: &no}},
			protocol.TextDocumentEdit{TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}},
				Edits: []any{protocol.TextEdit{Range: protocol.Range{}, NewText: string(content)}}},
		}}}, true
}

// relationActions type an untyped Links entry: one action per relation
// the vault knows, each writing " — relation: " after the entry's link.
func (s *Server) relationActions(n *vault.Note, uri string, at int, d protocol.Diagnostic) []protocol.CodeAction {
	var entry *vault.LinkEntry
	for _, e := range vault.LinkEntries(n) {
		if e.Link.Span.Start.Offset == at && e.Relation == "" {
			entry = &e
			break
		}
	}
	if entry == nil {
		return nil // a relation without a justification: the writer's to finish
	}
	text := string(n.Src)
	end := entry.Link.Span.End.Offset
	rest := text[end:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	rest = strings.TrimRight(rest, "\r")
	// Text already after the link becomes the justification; a dash
	// already there gives way to the house one.
	trimmed := strings.TrimLeft(rest, " \t")
	for _, dash := range []string{"—", "–", "--", "-"} {
		if after, ok := strings.CutPrefix(trimmed, dash); ok {
			trimmed = strings.TrimLeft(after, " \t")
			break
		}
	}
	rng := protocol.Range{Start: position(text, end), End: position(text, end+len(rest)-len(trimmed))}
	var out []protocol.CodeAction
	for _, rel := range s.relationNames() {
		if len(out) == maxRelationActions {
			break
		}
		out = append(out, quickFix("Add \"— "+rel+":\"", uri, d, []protocol.TextEdit{{Range: rng, NewText: " — " + rel + ": "}}, false))
	}
	return out
}
