package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/vault"
)

// diffEdit's one edit turns any text into any other, in whole characters.
func FuzzDiffEdit(f *testing.F) {
	f.Add("a 2025-01-01 b", "a 2026-12-03 b")
	f.Add("é1", "è1")
	f.Add("😀a", "😁a")
	f.Add("x\r\n", "x\r\n- Last tended: 2026-12-03\r\n")
	f.Fuzz(func(t *testing.T, old, new string) {
		if strings.ToValidUTF8(old, "?") != old || strings.ToValidUTF8(new, "?") != new {
			return // editors hold text, not bytes
		}
		e, ok := diffEdit(old, new)
		if ok != (old != new) {
			t.Fatalf("%q → %q: ok %v", old, new, ok)
		}
		if ok {
			if got := apply(old, []protocol.TextEdit{e}); got != new {
				t.Fatalf("%q → %q: %+v gives %q", old, new, e, got)
			}
		}
	})
}

// The completions' readings of a line never fail on any text: the link's
// path span stays inside the link, and the frontmatter key is a key.
func FuzzCompletionContext(f *testing.F) {
	f.Add("---\ntags: [a]\n---\n# T\n\n## Links\n\n- [[A#b|c]] — ex\n[x](<a b.md#h>) #t\n")
	f.Add("[[")
	f.Add("- [[a]] -- \n---\n")
	f.Add("# T\n\n## Links\n\n* [[é]]–x")
	v, err := vault.Open(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	defer v.Close()
	if err := os.WriteFile(filepath.Join(v.Dir, "x.md"), []byte("# X\n\n#a #tag/nested\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	s := New(Options{Vault: v})
	if err := s.Scan(context.Background()); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		n := vault.NewParser().ParseWithBudget("n.md", []byte(text), vault.DefaultParseBudget)
		for _, l := range n.AllLinks() {
			if start, end, ok := pathSpan(text, l); ok && (start < l.Span.Start.Offset || end > l.Span.End.Offset || start > end) {
				t.Fatalf("path of %q at [%d,%d) outside the link [%d,%d)", l.Original, start, end, l.Span.Start.Offset, l.Span.End.Offset)
			}
		}
		for off := 0; off <= len(text); off++ {
			if k := frontmatterKeyAt(text, off); strings.Contains(k, "\n") {
				t.Fatalf("key %q at %d", k, off)
			}
			inFrontmatter(n, off)
			ls := strings.LastIndexByte(text[:off], '\n') + 1
			s.tagCompletion(n, text, off, text[ls:off])
			s.relationCompletion(n, text, off, ls)
		}
	})
}
