package lsp

import (
	"slices"
	"strings"

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
// for it. A note that can no longer be read (deleted) has its
// diagnostics cleared, if any were published: the client lists them
// until told otherwise. The caller holds recheck.
func (s *Server) recheckNotes(qs []string) {
	// Checked together (workspace.Live.RecheckNotes): one by one, a save
	// of the refuted note at the end of a chain of N had each of the N
	// notes resting on it walk the rest of the chain, N²/2 notes.
	qs = slices.DeleteFunc(slices.Clone(qs), s.isOpen) // an open note's diagnostics are of the editor's text, not the disk's
	ns, fss, ok := s.live.RecheckNotes(qs)
	if !ok {
		return
	}
	for i, q := range qs {
		n, fs := ns[i], fss[i]
		if n == nil {
			s.clearSent(q)
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

// clearSent publishes no diagnostics for the note at p, not open, if it
// had some published, and forgets them.
func (s *Server) clearSent(p string) {
	s.mu.Lock()
	_, had := s.sent[p]
	delete(s.sent, p)
	notify := s.notify
	s.mu.Unlock()
	if had {
		notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: s.uriOf(p), Diagnostics: []protocol.Diagnostic{}})
	}
}

// sentUnder are the notes not open with diagnostics published that are
// at one of ps or in a folder at one: a client may tell of a folder
// deleted and not of each note in it.
func (s *Server) sentUnder(ps []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for q := range s.sent {
		for _, p := range ps {
			if q == p || strings.HasPrefix(q, p+"/") {
				out = append(out, q)
				break
			}
		}
	}
	return out
}
