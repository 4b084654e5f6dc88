package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/workspace"
)

// memCache is a per-note cache held in memory, as zk's keeps it on disk:
// the entries encoded and the files they were read for, every entry
// reused and the files named when reuse is set.
type memCache struct {
	mu     sync.Mutex
	b      []byte
	paths  []string
	reuse  bool
	parsed []string
}

func (m *memCache) open() workspace.EntryCache { return m }

func (m *memCache) Paths() []string {
	if !m.reuse {
		return nil
	}
	return m.paths
}

func (m *memCache) Decode() {}

func (m *memCache) Close() {}

func (m *memCache) Entries(ctx context.Context, files []vault.File, read func(func(string) (workspace.NoteEntry, bool), func(*vault.Note)) ([]workspace.NoteEntry, error)) ([]workspace.NoteEntry, error) {
	var reuse func(string) (workspace.NoteEntry, bool)
	if m.reuse {
		old, err := workspace.DecodeEntries(m.b)
		if err != nil {
			return nil, err
		}
		byPath := make(map[string]workspace.NoteEntry, len(old))
		for _, e := range old {
			byPath[e.Path()] = e
		}
		reuse = func(p string) (workspace.NoteEntry, bool) {
			e, ok := byPath[p]
			return e, ok
		}
	}
	before := len(m.parsed)
	es, err := read(reuse, func(n *vault.Note) {
		m.mu.Lock()
		m.parsed = append(m.parsed, n.Path)
		m.mu.Unlock()
	})
	if err == nil && (reuse == nil || len(m.parsed) > before) { // as zk's: nothing read, nothing written
		m.b = workspace.EncodeEntries(es)
		m.paths, _ = vault.SplitFiles(files)
	}
	return es, err
}

// A start whose cache holds every note's entry parses none of them and
// answers from the entries: references to Rates name the note whose
// cached entry links to it, though that note, never parsed here, no
// longer does on disk.
func TestStartAnswersFromCachedEntries(t *testing.T) {
	m := &memCache{}
	c := startServerWith(t, testVault, func(o *Options) { o.Cache = m.open }, map[string]any{})
	refsTo := func(c *client, p string) []string {
		var locs []protocol.Location
		c.call(protocol.MethodTextDocumentReferences, protocol.ReferenceParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: c.uri(p)}}}, &locs)
		var out []string
		for _, l := range locs {
			out = append(out, l.URI)
		}
		return out
	}
	if got := refsTo(c, "Rates.md"); len(got) != 2 {
		t.Fatalf("references to Rates, no cache: %v", got)
	}
	slices.Sort(m.parsed)
	if want := []string{"Rates.md", "Speedups.md", "sub/Speedy Notes.md"}; !slices.Equal(m.parsed, want) {
		t.Fatalf("parsed at the first start: %v, want %v", m.parsed, want)
	}

	m.reuse, m.parsed = true, nil
	files := maps.Clone(testVault)
	files["sub/Speedy Notes.md"] = "# Speedy\n\nAbout nothing.\n"
	c = startServerWith(t, files, func(o *Options) { o.Cache = m.open }, map[string]any{})
	if got, want := refsTo(c, "Rates.md"), []string{c.uri("Speedups.md"), c.uri("sub/Speedy Notes.md")}; !slices.Equal(got, want) {
		t.Errorf("references to Rates from the cache: %v, want %v", got, want)
	}
	if len(m.parsed) != 0 {
		t.Errorf("parsed with every entry cached: %v", m.parsed)
	}

	// An entry the cache does not give (its stamp changed) is read again.
	m.b = workspace.EncodeEntries(slices.DeleteFunc(mustDecode(t, m.b), func(e workspace.NoteEntry) bool { return e.Path() == "sub/Speedy Notes.md" }))
	m.parsed = nil
	c = startServerWith(t, files, func(o *Options) { o.Cache = m.open }, map[string]any{})
	if got, want := refsTo(c, "Rates.md"), []string{c.uri("Speedups.md")}; !slices.Equal(got, want) {
		t.Errorf("references to Rates, one entry read again: %v, want %v", got, want)
	}
	if want := []string{"sub/Speedy Notes.md"}; !slices.Equal(m.parsed, want) {
		t.Errorf("parsed: %v, want %v", m.parsed, want)
	}
}

func mustDecode(t *testing.T, b []byte) []workspace.NoteEntry {
	t.Helper()
	es, err := workspace.DecodeEntries(b)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// namesCache names the files of the vault as a cache written earlier
// would, and keeps no entry.
type namesCache []string

func (c namesCache) Paths() []string { return c }
func (namesCache) Decode()           {}
func (namesCache) Close()            {}
func (namesCache) Entries(_ context.Context, _ []vault.File, read func(func(string) (workspace.NoteEntry, bool), func(*vault.Note)) ([]workspace.NoteEntry, error)) ([]workspace.NoteEntry, error) {
	return read(nil, nil)
}

// A note opened while the vault is walked is checked at once against the
// files the cache names: its link to a note deleted since resolves, its
// link to a note added since is broken. Once the walk finds the files as
// they are, it is checked again and its diagnostics sent again, before
// every note is read.
func TestFirstDiagnosticsFromTheCachedFiles(t *testing.T) {
	files := map[string]string{
		"A.md":   "# A\n\nSee [[Gone]] and [[New]] and [[B]].\n",
		"B.md":   "# B\n",
		"New.md": "# New\n",
	}
	c, release := startHeldAtTheWalk(t, files, namesCache{"A.md", "B.md", "Gone.md"})
	c.openText("A.md", files["A.md"])
	first := c.nextDiags("A.md")
	close(release)
	broken := func(d published) []string {
		var out []string
		for _, x := range d.Diagnostics {
			if x.Code == lint.RuleBrokenLink {
				out = append(out, x.Message)
			}
		}
		return out
	}
	if got := broken(first); len(got) != 1 || !strings.Contains(got[0], "New") {
		t.Fatalf("before the walk, from the cached files: broken links %q, want the one to New", got)
	}
	after := c.nextDiags("A.md")
	if got := broken(after); len(got) != 1 || !strings.Contains(got[0], "Gone") {
		t.Errorf("after the walk: broken links %q, want the one to Gone", got)
	}
}

// startHeldAtTheWalk starts a server over files whose cache names cached,
// and returns when its walk of the vault is about to start: the walk
// waits until release is closed, and the reading of every note after it
// until the test ends, so that a test sees the answers made from the
// cached files, then those of the walk, before any note is read.
func startHeldAtTheWalk(t *testing.T, files map[string]string, cached namesCache) (c *client, release chan struct{}) {
	t.Helper()
	walking, release, loaded := make(chan struct{}), make(chan struct{}), make(chan struct{})
	c = startServerWith(t, files, func(o *Options) {
		o.Cache = func() workspace.EntryCache { return cached }
		o.beforeWalk = func() { close(walking); <-release }
		o.beforeLoad = func() { <-loaded }
	}, map[string]any{})
	t.Cleanup(func() { close(loaded) }) // before the server's own clean-up, registered first
	<-walking
	return c, release
}

// closedCache names files, as a cache written earlier would, and counts
// the times it is released.
type closedCache struct {
	namesCache
	closed *int
}

func (c closedCache) Close() { *c.closed++ }

// A start whose walk of the vault fails releases the cache it opened:
// the model file was left open for the rest of the session.
func TestScanReleasesTheCacheWhenTheWalkFails(t *testing.T) {
	v, err := vault.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	closed := 0
	s := New(Options{Vault: v, Cache: func() workspace.EntryCache {
		return closedCache{namesCache{"A.md"}, &closed}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the walk fails
	if err := s.Scan(ctx); err == nil {
		t.Fatal("Scan of a cancelled walk: no error")
	}
	if closed != 1 {
		t.Errorf("the cache was released %d times, want 1", closed)
	}
}

// TestRequestsWaitingForTheVaultHoldNothing: while the vault is still
// read at the start, a completion or code lens waits for it, and was
// handled on the connection's one goroutine: the change typed after it,
// its diagnostics, a hover, $/cancelRequest and shutdown all waited
// (35 s at 100,000 notes). Now such a request is answered later, on its
// own: the rest is answered meanwhile, a cancellation answers it with
// RequestCancelled, and shutdown cancels those left.
func TestRequestsWaitingForTheVaultHoldNothing(t *testing.T) {
	files := map[string]string{"A.md": "# A\n\nSee [[B]].\n", "B.md": "# B\n"}
	c, release := startHeldAtTheWalk(t, files, namesCache{"A.md", "B.md"})
	close(release) // walked; every note's read is held until the test ends
	c.openText("A.md", files["A.md"])
	c.nextDiags("A.md")
	ctx := context.Background()
	at := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("A.md")}, Position: protocol.Position{Line: 2, Character: 7}}
	completion, err := c.conn.DispatchCall(ctx, protocol.MethodTextDocumentCompletion, at, jsonrpc2.PickID(jsonrpc2.ID{Num: 777}))
	if err != nil {
		t.Fatal(err)
	}
	lens, err := c.conn.DispatchCall(ctx, protocol.MethodTextDocumentCodeLens, map[string]any{"textDocument": at.TextDocument})
	if err != nil {
		t.Fatal(err)
	}

	// A change typed meanwhile is checked, and a hover answered.
	if err := c.conn.Notify(ctx, protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": c.uri("A.md"), "version": 2},
		"contentChanges": []any{map[string]any{"text": "# A\n\nSee [[B]] and [[Nowhere]].\n"}}}); err != nil {
		t.Fatal(err)
	}
	c.diagsUntil("A.md", hasCode(lint.RuleBrokenLink))
	var hover json.RawMessage
	c.call(protocol.MethodTextDocumentHover, at, &hover)
	if !strings.Contains(string(hover), "B.md") {
		t.Errorf("hover on [[B]]: %s", hover)
	}

	cancelled := func(w jsonrpc2.Waiter, what string) {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		var rpcErr *jsonrpc2.Error
		if err := w.Wait(wctx, nil); !errors.As(err, &rpcErr) || rpcErr.Code != codeRequestCancelled {
			t.Errorf("%s: %v, want the error RequestCancelled", what, err)
		}
	}
	if err := c.conn.Notify(ctx, "$/cancelRequest", map[string]any{"id": 777}); err != nil {
		t.Fatal(err)
	}
	cancelled(completion, "the completion cancelled")
	c.call(protocol.MethodShutdown, nil, nil)
	cancelled(lens, "the code lens at shutdown")
}

// TestSaveAndWatchedChangesHoldNothing: a save and a change on disk
// reported while the vault is still read at the start waited for it on
// the connection's one goroutine, as the requests did before they were
// answered later: the change typed after them, its diagnostics and
// shutdown waited tens of seconds on 100,000 notes. Now they are taken
// once the vault is read, in the order they came, and hold nothing.
func TestSaveAndWatchedChangesHoldNothing(t *testing.T) {
	files := map[string]string{"A.md": "# A\n\nSee [[B]].\n", "B.md": "# B\n", "C.md": "# C\n"}
	walking, release, loaded := make(chan struct{}), make(chan struct{}), make(chan struct{})
	c := startServerWith(t, files, func(o *Options) {
		o.Cache = func() workspace.EntryCache { return namesCache{"A.md", "B.md", "C.md"} }
		o.beforeWalk = func() { close(walking); <-release }
		o.beforeLoad = func() { <-loaded }
	}, map[string]any{})
	var once sync.Once
	load := func() { once.Do(func() { close(loaded) }) }
	t.Cleanup(load)
	<-walking
	close(release)
	c.openText("A.md", files["A.md"])
	c.nextDiags("A.md")
	// Sent from a goroutine: over net.Pipe a message the server does not
	// read holds its sender, and the test would hang, not fail.
	ctx := context.Background()
	c.write("C.md", "# C\n\nSee [[Nowhere]].\n")
	go func() {
		c.conn.Notify(ctx, protocol.MethodTextDocumentDidSave, map[string]any{"textDocument": map[string]any{"uri": c.uri("A.md")}}) //nolint:errcheck // seen by the diagnostics awaited
		c.conn.Notify(ctx, protocol.MethodWorkspaceDidChangeWatchedFiles, map[string]any{"changes": []any{                           //nolint:errcheck
			map[string]any{"uri": c.uri("C.md"), "type": protocol.FileChangeTypeChanged}}})
		// A change typed meanwhile is checked.
		c.conn.Notify(ctx, protocol.MethodTextDocumentDidChange, map[string]any{ //nolint:errcheck
			"textDocument":   map[string]any{"uri": c.uri("A.md"), "version": 2},
			"contentChanges": []any{map[string]any{"text": "# A\n\nSee [[B]] and [[Elsewhere]].\n"}}})
	}()
	c.diagsUntil("A.md", hasCode(lint.RuleBrokenLink))

	// The change on disk is taken once the vault is read: C's broken link.
	load()
	c.diagsUntil("C.md", hasCode(lint.RuleBrokenLink))
}
