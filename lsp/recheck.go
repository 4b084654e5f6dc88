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
// notes at ps do (workspace.Live.Affected).
func (s *Server) affected(ps ...string) []string { return s.live.Affected(s.isOpen, ps...) }

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
		n, fs, ok := s.live.Recheck(q)
		if !ok {
			continue
		}
		text := string(n.Src)
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
