package lsp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/vault"
)

// A change is kept, not parsed: a hundred changes cost nothing until the
// note is asked for, and then one parse, of the last (issue 23: each was
// parsed as it came, 100 of 1 MB a backlog of half a minute). A text over
// the note size cap is not kept at all.
func TestChangesParsedOnce(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "N.md"), []byte("# N\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	v.MaxNoteSize = 1 << 20
	s := New(Options{Vault: v, Debounce: time.Hour}) // no publish in the test
	if err := s.Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	uri := "file://" + filepath.ToSlash(filepath.Join(dir, "N.md"))
	if err := s.didOpen(nil, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, Version: 1, Text: "# N\n"}}); err != nil {
		t.Fatal(err)
	}
	change := func(version int32, text string) {
		t.Helper()
		err := s.didChange(nil, &protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: version},
			ContentChanges: []any{protocol.TextDocumentContentChangeEventWhole{Text: text}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	for v := int32(2); v <= 101; v++ {
		change(v, fmt.Sprintf("# Version %d\n\n[[Nope]]\n", v))
	}
	s.mu.Lock()
	parsed := s.docs["N.md"].parsed != nil
	s.mu.Unlock()
	if parsed {
		t.Error("a change was parsed before anything asked for the note")
	}
	n, err := s.note("N.md")
	if err != nil || n.Headings[0].Text != "Version 101" {
		t.Fatalf("the note after 100 changes: %v, %v; want the last", n, err)
	}

	change(102, "# Big\n\n"+strings.Repeat("x", 1<<20))
	s.mu.Lock()
	d := s.docs["N.md"]
	kept, size := len(d.text), d.tooLarge
	s.mu.Unlock()
	if kept != 0 || size != 1<<20+7 {
		t.Errorf("a text over the cap: %d bytes kept, tooLarge %d", kept, size)
	}
	if n, _ := s.note("N.md"); len(n.Src) != 0 {
		t.Errorf("a text over the cap was parsed: %d bytes", len(n.Src))
	}
}

// An open note is parsed within the parse budget, as zk check parses it:
// the language server parsed open notes without one, and 400 KB of "[x]("
// kept it from its first diagnostics for 34 s (66 s of CPU); such a note
// is now read by the fallback scanner at once.
func TestOpenNoteParsedWithinTheBudget(t *testing.T) {
	dir := t.TempDir()
	text := "# Hostile\n\n[[Kept]]\n\n" + strings.Repeat("[x](", 100_000) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "H.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	s := New(Options{Vault: v, Debounce: time.Hour}) // no publish in the test
	if err := s.Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	uri := "file://" + filepath.ToSlash(filepath.Join(dir, "H.md"))
	if err := s.didOpen(nil, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, Version: 1, Text: text}}); err != nil {
		t.Fatal(err)
	}
	n, err := s.note("H.md")
	if err != nil {
		t.Fatal(err)
	}
	if !n.Fallback || len(n.Links) != 1 {
		t.Errorf("the open note: fallback %v, %d links; want the fallback scanner's one link", n.Fallback, len(n.Links))
	}
}

// positioner answers what runePosition answers, for findings in order or
// not, on text with line breaks, runes of two UTF-16 units and columns
// past a line's end or lines past the text's.
func TestPositionerMatchesRunePosition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "é", "😀", "\n", " ", "[[x]]", "\r\n"}
	for trial := range 200 {
		var b strings.Builder
		for range r.IntN(200) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		lines := strings.Count(text, "\n") + 1
		p := &positioner{text: text}
		for range 50 {
			line, col := r.IntN(lines+2)+1, r.IntN(40)+1
			got, want := p.at(line, col), runePosition(text, line, col)
			if got != want {
				t.Fatalf("trial %d: %q at %d:%d: %+v, want %+v", trial, text, line, col, got, want)
			}
			// The end of its line, as the diagnostic of a finding without
			// a span was given before.
			ls := lineStart(text, int(want.Line))
			le := strings.IndexByte(text[ls:], '\n')
			if le < 0 {
				le = len(text) - ls
			}
			if end, wantEnd := p.lineEnd(), position(text, ls+le); end != wantEnd {
				t.Fatalf("trial %d: %q line end after %d:%d: %+v, want %+v", trial, text, line, col, end, wantEnd)
			}
		}
	}
}
