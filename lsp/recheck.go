package lsp

import (
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// The whole vault on save: a note saved can change the findings of notes
// that are not open — a heading renamed breaks the links to it, a run
// recorded refutes a note that others rest on. Those notes, and only
// they, are checked again and their diagnostics published when they
// differ from what the client was last sent.

// affected are the notes not open whose findings may change when the
// notes at ps do: those that link to one of them (backlinks), and those
// that rest on one through a chain of Links entries
// (lint.Session.Dependents); ps themselves left out.
func (s *Server) affected(ps ...string) []string {
	seen := map[string]bool{}
	for _, p := range ps {
		seen[p] = true
	}
	var out []string
	add := func(q string) {
		if !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
	}
	deps := s.session.Dependents(ps...)
	changed := make(map[string]bool, len(ps))
	for _, p := range ps {
		changed[p] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rs := range s.edges {
		for _, r := range rs {
			if r.to != "" && changed[r.to] {
				add(r.from)
				break
			}
		}
	}
	for _, q := range deps {
		add(q)
	}
	closed := out[:0]
	for _, q := range out {
		if s.docs[q] == nil {
			closed = append(closed, q)
		}
	}
	return closed
}

// recheckDependents checks again the notes not open that the save of p
// may have changed, publishing the diagnostics of each whose findings
// differ from those last published for it.
func (s *Server) recheckDependents(p string) {
	s.recheck.Lock()
	defer s.recheck.Unlock()
	s.recheckNotes(s.affected(p))
}

// recheckNotes checks again the notes qs (not open), publishing the
// diagnostics of each whose findings differ from those last published
// for it. The caller holds recheck.
func (s *Server) recheckNotes(qs []string) {
	for _, q := range qs {
		n, err := s.v.ReadNote(q)
		if err != nil {
			continue
		}
		text := string(n.Src)
		fs := s.session.Check(n)
		diags := s.diagnostics(text, fs)
		key := findingsKey(fs)
		s.mu.Lock()
		same := s.sent[q] == key
		if key == "" {
			delete(s.sent, q)
		} else {
			s.sent[q] = key
		}
		notify := s.notify
		s.mu.Unlock()
		if !same {
			notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: s.uriOf(q), Diagnostics: diags})
		}
	}
}
