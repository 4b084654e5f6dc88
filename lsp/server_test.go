package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/evidence/evidencetest"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/vaulttest"
	"github.com/zk-claims/zk/workspace"
)

var testVault = map[string]string{
	"Rates.md":            "# Rates\n\n## Claim\n\nSee [[Speedups#Baseline]], [[Speedups#^blk]], ![[Speedups]] and [md](Speedups.md).\n\n## Links\n\n- [[Missing]]\n",
	"Speedups.md":         "# Speedups\n\n## Baseline\n\nA speedup needs a baseline. ^blk\n\n### Detail\n\nLinks back: [[Rates]].\n",
	"sub/Speedy Notes.md": "# Speedy\n\nAbout [[Rates]].\n",
}

// client is a test's end of a language server session: requests, and
// the diagnostics the server publishes.
type client struct {
	t     *testing.T
	conn  *jsonrpc2.Conn
	dir   string
	diags chan published
	shown chan string            // the messages of window/showMessage
	calls chan *jsonrpc2.Request // the server's other requests to the client
	init  json.RawMessage        // the server's answer to initialize
	// asked are the methods of the server's requests, in the order read.
	askedMu sync.Mutex
	asked   []string
}

// published is a publishDiagnostics notification as the client decodes
// it: glsp's IntegerOrString cannot be decoded (its UnmarshalJSON has a
// value receiver), so the code is read as the string zk sends.
type published struct {
	URI         string `json:"uri"`
	Version     *int   `json:"version"`
	Diagnostics []struct {
		Range           protocol.Range `json:"range"`
		Severity        int            `json:"severity"`
		Code            string         `json:"code"`
		CodeDescription *struct {
			HRef string `json:"href"`
		} `json:"codeDescription"`
		Message string `json:"message"`
	} `json:"diagnostics"`
}

func startServer(t *testing.T) *client {
	t.Helper()
	return startServerWith(t, testVault, nil, map[string]any{})
}

// startServerWith serves files, with the options set sets and the client
// capabilities caps.
func startServerWith(t *testing.T, files map[string]string, set func(*Options), caps map[string]any) *client {
	t.Helper()
	dir := t.TempDir()
	for p, text := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	opts := Options{Vault: v, Debounce: time.Millisecond,
		HelpURL: func(rule string) string { return "https://example.org/#" + rule }}
	if set != nil {
		set(&opts)
	}
	srv := New(opts)
	a, b := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Serve(ctx, a); close(done) }()
	c := &client{t: t, dir: dir, diags: make(chan published, 100), shown: make(chan string, 10), calls: make(chan *jsonrpc2.Request, 10)}
	c.conn = jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(b, jsonrpc2.VSCodeObjectCodec{}),
		answerAside{c, jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			if req.Method == protocol.ServerTextDocumentPublishDiagnostics {
				var p published
				if err := json.Unmarshal(*req.Params, &p); err == nil {
					c.diags <- p
				}
			} else if req.Method == protocol.ServerWindowShowMessage {
				var m protocol.ShowMessageParams
				if err := json.Unmarshal(*req.Params, &m); err == nil {
					c.shown <- m.Message
				}
			} else if !req.Notif {
				select {
				case c.calls <- req:
				default:
				}
			}
			return nil, nil
		})})
	t.Cleanup(func() { c.conn.Close(); cancel(); <-done })
	c.call(protocol.MethodInitialize, map[string]any{"processId": nil, "rootUri": nil, "capabilities": caps}, &c.init)
	if !strings.Contains(string(c.init), `"definitionProvider":true`) {
		t.Fatalf("initialize: %s", c.init)
	}
	return c
}

// answerAside handles the server's notifications in order and answers
// its requests from goroutines of their own, as an editor reads while it
// answers: over net.Pipe, an answer written from the reading goroutine
// waits for the server, which may be writing a notification meanwhile.
type answerAside struct {
	c *client
	h jsonrpc2.Handler
}

func (a answerAside) Handle(ctx context.Context, c *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		a.h.Handle(ctx, c, req)
		return
	}
	a.c.askedMu.Lock()
	a.c.asked = append(a.c.asked, req.Method)
	a.c.askedMu.Unlock()
	go a.h.Handle(ctx, c, req)
}

func (c *client) call(method string, params, result any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.conn.Call(ctx, method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) uri(p string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(c.dir, filepath.FromSlash(p)))}
	return u.String()
}

func (c *client) open(p string) {
	c.t.Helper()
	c.openText(p, testVault[p])
}

func (c *client) openText(p, text string) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: c.uri(p), LanguageID: "markdown", Version: 1, Text: text}}); err != nil {
		c.t.Fatal(err)
	}
}

// nextDiags waits for the diagnostics of the note at p.
func (c *client) nextDiags(p string) published {
	c.t.Helper()
	for {
		select {
		case d := <-c.diags:
			if d.URI == c.uri(p) {
				return d
			}
		case <-time.After(30 * time.Second):
			c.t.Fatalf("no diagnostics for %s", p)
		}
	}
}

func codes(d published) []string {
	var out []string
	for _, x := range d.Diagnostics {
		out = append(out, x.Code)
	}
	return out
}

func TestDiagnosticsOnOpenAndChange(t *testing.T) {
	c := startServer(t)
	c.open("Rates.md")
	d := c.nextDiags("Rates.md")
	if got := codes(d); len(got) != 1 || got[0] != lint.RuleBrokenLink {
		t.Fatalf("diagnostics on open: %v, want one %s", got, lint.RuleBrokenLink)
	}
	x := d.Diagnostics[0]
	if x.Range.Start.Line != 8 || x.Range.Start.Character != 2 || x.Range.End.Character != 13 {
		t.Errorf("[[Missing]] at %+v, want line 8, characters 2-13", x.Range)
	}
	if x.CodeDescription == nil || x.CodeDescription.HRef != "https://example.org/#links/broken" {
		t.Errorf("codeDescription %+v", x.CodeDescription)
	}
	if x.Severity != int(protocol.DiagnosticSeverityError) {
		t.Errorf("severity %v", x.Severity)
	}

	// The unsaved text: the broken link fixed, a broken heading added.
	text := strings.Replace(testVault["Rates.md"], "[[Missing]]", "[[Speedups#Nope]]", 1)
	c.conn.Notify(context.Background(), protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": c.uri("Rates.md"), "version": 2},
		"contentChanges": []map[string]any{{"text": text}},
	})
	d = c.nextDiags("Rates.md")
	if got := codes(d); len(got) != 1 || got[0] != lint.RuleBrokenHeading || d.Version == nil || *d.Version != 2 {
		t.Errorf("diagnostics after the change: %v (version %v), want one %s of version 2", got, d.Version, lint.RuleBrokenHeading)
	}
}

// TestDiagnosticsOfAFlakyFalsifier: the editor reports a falsifier
// whose verdict flipped twice (falsifiers/flaky) at its item, as zk
// check does: the rule is the checker's.
func TestDiagnosticsOfAFlakyFalsifier(t *testing.T) {
	note := evidencetest.FlakyNote("Flaky", evidence.VerdictRefutes, evidence.VerdictSupports, evidence.VerdictRefutes)
	c := startServerWith(t, map[string]string{"Flaky.md": note}, nil, map[string]any{})
	c.openText("Flaky.md", note)
	d := c.nextDiags("Flaky.md")
	for _, x := range d.Diagnostics {
		if x.Code == lint.RuleFlaky {
			if x.Range.Start.Line != 4 || !strings.Contains(x.Message, "flipped 2 times over its last 3 judged runs") {
				t.Errorf("falsifiers/flaky at line %d: %s", x.Range.Start.Line, x.Message)
			}
			return
		}
	}
	t.Fatalf("diagnostics %v, want %s", codes(d), lint.RuleFlaky)
}

// A heading renamed in one open note breaks, once saved, the link of
// another open note to it.
func TestDiagnosticsOnSaveOfALinkedNote(t *testing.T) {
	c := startServer(t)
	c.open("Rates.md")
	c.nextDiags("Rates.md")
	c.open("Speedups.md")
	c.nextDiags("Speedups.md")
	text := strings.Replace(testVault["Speedups.md"], "## Baseline", "## Base", 1)
	c.conn.Notify(context.Background(), protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": c.uri("Speedups.md"), "version": 2},
		"contentChanges": []map[string]any{{"text": text}},
	})
	c.conn.Notify(context.Background(), protocol.MethodTextDocumentDidSave, map[string]any{"textDocument": map[string]any{"uri": c.uri("Speedups.md")}})
	for {
		d := c.nextDiags("Rates.md")
		if strings.Contains(strings.Join(codes(d), " "), lint.RuleBrokenHeading) {
			return
		}
	}
}

func TestDefinition(t *testing.T) {
	c := startServer(t)
	c.open("Rates.md")
	c.nextDiags("Rates.md")
	line := strings.Split(testVault["Rates.md"], "\n")[4]
	for _, tc := range []struct {
		at       string // the text the cursor is in
		uri      string
		wantLine uint32
	}{
		{"[[Speedups#Baseline]]", "Speedups.md", 2},
		{"[[Speedups#^blk]]", "Speedups.md", 4},
		{"![[Speedups]]", "Speedups.md", 0},
		{"[md](Speedups.md)", "Speedups.md", 0},
	} {
		col := strings.Index(line, tc.at) + 3
		var loc *protocol.Location
		c.call(protocol.MethodTextDocumentDefinition, protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("Rates.md")}, Position: protocol.Position{Line: 4, Character: uint32(col)}}}, &loc)
		if loc == nil || loc.URI != c.uri(tc.uri) || loc.Range.Start.Line != tc.wantLine {
			t.Errorf("definition in %s: %+v, want %s line %d", tc.at, loc, tc.uri, tc.wantLine)
		}
	}
	// Not on a link; on a broken link: no definition.
	for _, pos := range []protocol.Position{{Line: 0, Character: 2}, {Line: 8, Character: 5}} {
		var loc *protocol.Location
		c.call(protocol.MethodTextDocumentDefinition, protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("Rates.md")}, Position: pos}}, &loc)
		if loc != nil {
			t.Errorf("definition at %+v: %+v, want none", pos, loc)
		}
	}
}

// Hover on a link shows the target's title, path and Claim; off a link,
// or on a broken one, nothing.
func TestHoverShowsTheClaim(t *testing.T) {
	c := startServer(t)
	hover := func(note string, pos protocol.Position) *protocol.Hover {
		var h *protocol.Hover
		c.call(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: c.uri(note)}, Position: pos}}, &h)
		return h
	}
	h := hover("Speedups.md", protocol.Position{Line: 8, Character: 15}) // [[Rates]]
	if h == nil {
		t.Fatal("no hover on [[Rates]]")
	}
	b, _ := json.Marshal(h.Contents)
	for _, want := range []string{"**Rates**", "`Rates.md`", "See [[Speedups#Baseline]]"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("hover %s lacks %q", b, want)
		}
	}
	if h.Range == nil || h.Range.Start != (protocol.Position{Line: 8, Character: 12}) {
		t.Errorf("hover range %+v, want the link's", h.Range)
	}
	for _, p := range []struct {
		note string
		pos  protocol.Position
	}{{"Speedups.md", protocol.Position{Line: 0, Character: 2}}, {"Rates.md", protocol.Position{Line: 8, Character: 5}}} {
		if h := hover(p.note, p.pos); h != nil {
			t.Errorf("hover in %s at %+v: %+v, want none", p.note, p.pos, h)
		}
	}
}

// A title holding links is shown as Obsidian shows it, each link as its
// display text: the hover showed "**About [[Rates|rates]] ...**", raw.
func TestHoverShowsATitlesLinksAsText(t *testing.T) {
	files := maps.Clone(testVault)
	files["About.md"] = "# About [[Rates|rates]], [[Speedups#Baseline]] and [md](Rates.md)\n\n## Claim\n\nA claim.\n"
	files["From.md"] = "# From\n\nSee [[About]].\n"
	c := startServerWith(t, files, nil, nil)
	var h *protocol.Hover
	c.call(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("From.md")}, Position: protocol.Position{Line: 2, Character: 6}}}, &h)
	if h == nil {
		t.Fatal("no hover on [[About]]")
	}
	var mc protocol.MarkupContent
	b, _ := json.Marshal(h.Contents)
	if err := json.Unmarshal(b, &mc); err != nil {
		t.Fatal(err)
	}
	if want := "**About rates, Speedups > Baseline and md**"; !strings.HasPrefix(mc.Value, want) {
		t.Errorf("hover %q, want %q", mc.Value, want)
	}
}

// Workspace symbols are the notes whose name holds the query.
func TestWorkspaceSymbolsAreNotes(t *testing.T) {
	c := startServer(t)
	var syms []protocol.SymbolInformation
	c.call(protocol.MethodWorkspaceSymbol, protocol.WorkspaceSymbolParams{Query: "SPEED"}, &syms)
	got := map[string]string{}
	for _, s := range syms {
		got[s.Name] = s.Location.URI
	}
	want := map[string]string{"Speedups": c.uri("Speedups.md"), "Speedy Notes": c.uri("sub/Speedy Notes.md")}
	if !maps.Equal(got, want) {
		t.Errorf("symbols for SPEED: %v, want %v", got, want)
	}
}

func TestReferencesAreBacklinks(t *testing.T) {
	c := startServer(t)
	var locs []protocol.Location
	c.call(protocol.MethodTextDocumentReferences, protocol.ReferenceParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("Rates.md")}}}, &locs)
	if len(locs) != 2 || locs[0].URI != c.uri("Speedups.md") || locs[0].Range != (protocol.Range{Start: protocol.Position{Line: 8, Character: 12}, End: protocol.Position{Line: 8, Character: 21}}) || locs[1].URI != c.uri("sub/Speedy Notes.md") {
		t.Errorf("references to Rates: %+v", locs)
	}
}

func TestDocumentSymbolsAreHeadings(t *testing.T) {
	c := startServer(t)
	var syms []protocol.DocumentSymbol
	c.call(protocol.MethodTextDocumentDocumentSymbol, protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("Speedups.md")}}, &syms)
	if len(syms) != 1 || syms[0].Name != "Speedups" || len(syms[0].Children) != 1 || syms[0].Children[0].Name != "Baseline" ||
		len(syms[0].Children[0].Children) != 1 || syms[0].Children[0].Children[0].Name != "Detail" {
		t.Errorf("symbols: %+v", syms)
	}
}

func TestCompletion(t *testing.T) {
	c := startServer(t)
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"x [[spe", []string{"Speedups", "Speedy Notes"}},
		{"x [[notes", []string{"Speedy Notes"}},
		// A folder typed: the notes under it (the shortest link inserted).
		{"x [[sub/sp", []string{"Speedy Notes"}},
		{"x [[SUB/", []string{"Speedy Notes"}},
		{"x [[Speedups#ba", []string{"Baseline"}},
		{"x [[Speedups#^b", []string{"blk"}},
		{"x [[Speedups]] done", nil},
	} {
		c.openText("New.md", tc.text)
		var list protocol.CompletionList
		c.call(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("New.md")}, Position: protocol.Position{Line: 0, Character: uint32(workspace.UTF16Len(tc.text))}}}, &list)
		var got []string
		for _, it := range list.Items {
			got = append(got, it.Label)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("complete %q: %v, want %v", tc.text, got, tc.want)
		}
	}
}

// A heading completed after [[Note# is inserted as a link can hold it:
// a heading that holds a wikilink, | or # was inserted as written, and
// [[H#See [[Other|the other]] first]] ends at the first ]] (Obsidian
// links it as "See Other the other first", which reaches the heading as
// link matching ignores the punctuation).
func TestHeadingCompletionIsALink(t *testing.T) {
	headings := []string{"See [[Other|the other]] first", "A | B # C ^ D", "Array [i]", "Plain: words"}
	c := startServerWith(t, map[string]string{"H.md": "# H\n\n## " + strings.Join(headings, "\n\n## ") + "\n"}, nil, map[string]any{})
	text := "x [[H#"
	c.openText("New.md", text)
	var list protocol.CompletionList
	c.call(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("New.md")}, Position: protocol.Position{Line: 0, Character: uint32(len(text))}}}, &list)
	index := vault.NewHeadingIndex(append([]string{"H"}, headings...))
	inserted := map[string]string{}
	for _, it := range list.Items {
		edit, ok := it.TextEdit.(protocol.TextEdit)
		if !ok {
			t.Fatalf("%s: text edit %#v", it.Label, it.TextEdit)
		}
		inserted[it.Label] = edit.NewText
	}
	for _, h := range headings {
		got, ok := inserted[h]
		if !ok {
			t.Errorf("heading %q not offered: %v", h, inserted)
			continue
		}
		if strings.ContainsAny(got, "[]|#^") {
			t.Errorf("heading %q inserted as %q, which ends or splits the link", h, got)
		}
		if i, ok := index.Find(got); !ok || index.Normalized()[i] != vault.NormHeading(h) {
			t.Errorf("heading %q inserted as %q, which does not reach it", h, got)
		}
	}
	if got := inserted["Plain: words"]; got != "Plain: words" {
		t.Errorf("a heading a link can hold inserted as %q, want it as written", got)
	}
}

func TestPositions(t *testing.T) {
	text := "a\n😀é[[x]]\n"
	if p := position(text, strings.Index(text, "[[")); p.Line != 1 || p.Character != 3 {
		t.Errorf("position after an astral rune and é: %+v, want 1:3", p)
	}
	if off := offset(text, protocol.Position{Line: 1, Character: 3}); off != strings.Index(text, "[[") {
		t.Errorf("offset of 1:3 = %d", off)
	}
	if p := runePosition(text, 2, 3); p.Character != 3 {
		t.Errorf("rune column 3 = %+v, want character 3", p)
	}
	if off := offset(text, protocol.Position{Line: 0, Character: 99}); off != 1 {
		t.Errorf("past the line's end: %d, want 1", off)
	}
}

// A note created outside the editor, once the client says so, mends the
// open note's link to it and is offered by completion.
func TestWatchedFileCreated(t *testing.T) {
	c := startServer(t)
	c.open("Rates.md")
	if got := codes(c.nextDiags("Rates.md")); len(got) != 1 {
		t.Fatalf("before: %v", got)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "Missing.md"), []byte("# Missing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.conn.Notify(context.Background(), protocol.MethodWorkspaceDidChangeWatchedFiles, map[string]any{
		"changes": []map[string]any{{"uri": c.uri("Missing.md"), "type": protocol.FileChangeTypeCreated}}})
	if got := codes(c.nextDiags("Rates.md")); len(got) != 0 {
		t.Errorf("after Missing.md was created: %v, want no findings", got)
	}
	c.openText("New.md", "[[Miss")
	var list protocol.CompletionList
	c.call(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("New.md")}, Position: protocol.Position{Line: 0, Character: 6}}}, &list)
	if len(list.Items) != 1 || list.Items[0].Label != "Missing" {
		t.Errorf("completion after the create: %+v", list.Items)
	}
}

// workspace.LinksOf's ranges agree with position's for every link, nested ones and
// astral characters included.
func TestRefRanges(t *testing.T) {
	src := "# T\n😀 [[a]] x ![[b#h]]\n[![img](c.png)](a.md) [[a]]\n"
	n := vault.NewParser().Parse("n.md", []byte(src))
	r := vault.NewResolver([]string{"a.md", "b.md", "c.png", "n.md"})
	refs := workspace.LinksOf(n, r)
	links := n.AllLinks()
	if len(refs) != len(links) {
		t.Fatalf("%d refs for %d links", len(refs), len(links))
	}
	for i, l := range links {
		want := protocol.Range{Start: position(src, l.Span.Start.Offset), End: position(src, l.Span.End.Offset)}
		if got := rangeOf(refs[i]); got != want {
			t.Errorf("%s: %+v, want %+v", l.Original, got, want)
		}
	}
}

// A note opened is checked once the vault's files are walked, before
// every note is read: its links resolve against the files' names, and the
// notes its #heading and #^block links name are read for it. Once the
// whole vault is read it is checked again, and published only if that
// changed its findings (here an alias's hint on the broken link).
func TestFirstDiagnosticsBeforeTheScan(t *testing.T) {
	files := maps.Clone(testVault)
	files["Rates.md"] = strings.Replace(files["Rates.md"], "[[Missing]]", "[[Missing]] [[Speedups#Nope]] [[Speedups#^nope]]", 1)
	files["Other.md"] = "---\naliases: [Missing]\n---\n# Other\n"
	loading := make(chan struct{})
	release := make(chan struct{})
	c := startServerWith(t, files, func(o *Options) {
		o.beforeLoad = func() { close(loading); <-release }
	}, map[string]any{})
	<-loading
	c.openText("Rates.md", files["Rates.md"])
	first := c.nextDiags("Rates.md")
	close(release)
	want := []string{lint.RuleBrokenLink, lint.RuleBrokenHeading, lint.RuleBrokenBlock}
	if got := codes(first); !slices.Equal(got, want) {
		t.Fatalf("before the scan: %v, want %v (the sound links to Speedups not reported)", got, want)
	}
	if strings.Contains(first.Diagnostics[0].Message, "alias") {
		t.Errorf("before the scan, the aliases are not known: %q", first.Diagnostics[0].Message)
	}
	after := c.nextDiags("Rates.md")
	if got := codes(after); !slices.Equal(got, want) || !strings.Contains(after.Diagnostics[0].Message, `alias of "Other"`) {
		t.Errorf("after the scan: %v %q, want %v with the alias's hint", got, after.Diagnostics[0].Message, want)
	}
	// Checked again with nothing changed: nothing more is published.
	var refs []protocol.Location
	c.call(protocol.MethodTextDocumentReferences, protocol.ReferenceParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("Speedups.md")}}}, &refs)
	select {
	case d := <-c.diags:
		t.Errorf("published again: %+v", d)
	default:
	}
}

// A note changed or deleted outside the editor re-checks, as a save
// does, the notes not open that link to it or rest on it.
func TestWatchedFileChangeRechecksDependents(t *testing.T) {
	files := maps.Clone(testVault)
	files["A.md"] = "# A\n\n## Links\n\n- [[B]] — extends: A builds on B.\n"
	files["B.md"] = "# B\n\n## Links\n\n- [[C]] — evidence-for: B's data is C's.\n"
	files["C.md"] = "# C\n\n## Tests / falsifiers\n\n- The suite fails.\n"
	c := startServerWith(t, files, nil, map[string]any{})
	c.openText("sub/Speedy Notes.md", files["sub/Speedy Notes.md"])
	c.nextDiags("sub/Speedy Notes.md")
	watched := func(typ protocol.UInteger, ps ...string) {
		var changes []map[string]any
		for _, p := range ps {
			changes = append(changes, map[string]any{"uri": c.uri(p), "type": typ})
		}
		c.conn.Notify(context.Background(), protocol.MethodWorkspaceDidChangeWatchedFiles, map[string]any{"changes": changes})
	}
	// until collects diagnostics until those of each of ps have come.
	until := func(ps ...string) map[string]published {
		got := map[string]published{}
		for slices.ContainsFunc(ps, func(p string) bool { return got[p].URI == "" }) {
			select {
			case d := <-c.diags:
				for _, p := range ps {
					if d.URI == c.uri(p) {
						got[p] = d
					}
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("no diagnostics for %v: %+v", ps, got)
			}
		}
		return got
	}
	write := func(p, text string) {
		if err := os.WriteFile(filepath.Join(c.dir, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A heading renamed breaks Rates.md's link to it; C refuted, B rests
	// on it, and A on B.
	write("Speedups.md", strings.Replace(files["Speedups.md"], "## Baseline", "## Base", 1))
	write("C.md", vaulttest.RefutedC)
	watched(protocol.FileChangeTypeChanged, "Speedups.md", "C.md")
	got := until("Rates.md", "A.md", "B.md")
	if !slices.Contains(codes(got["Rates.md"]), lint.RuleBrokenHeading) {
		t.Errorf("Rates.md: %v, want %s", codes(got["Rates.md"]), lint.RuleBrokenHeading)
	}
	for _, p := range []string{"A.md", "B.md"} {
		if !slices.Equal(codes(got[p]), []string{lint.RuleRestsOnRefuted}) {
			t.Errorf("%s: %v, want %s", p, codes(got[p]), lint.RuleRestsOnRefuted)
		}
	}
	// Deleted: the links to it break.
	if err := os.Remove(filepath.Join(c.dir, "C.md")); err != nil {
		t.Fatal(err)
	}
	watched(protocol.FileChangeTypeDeleted, "C.md")
	if got := codes(until("B.md")["B.md"]); !slices.Contains(got, lint.RuleBrokenLink) {
		t.Errorf("B.md after C.md's delete: %v, want %s", got, lint.RuleBrokenLink)
	}
}

// TestRegistersFileWatchers: a client that registers file watchers on
// request (VS Code) is asked, once initialized, to watch every file of the
// vault; otherwise it would never send workspace/didChangeWatchedFiles.
func TestRegistersFileWatchers(t *testing.T) {
	c := startServerWith(t, testVault, nil, map[string]any{
		"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}})
	if err := c.conn.Notify(context.Background(), string(protocol.MethodInitialized), map[string]any{}); err != nil {
		t.Fatal(err)
	}
	select {
	case req := <-c.calls:
		if req.Method != string(protocol.ServerClientRegisterCapability) {
			t.Fatalf("the server asked %s, want client/registerCapability", req.Method)
		}
		var p struct {
			Registrations []struct {
				Method          string
				RegisterOptions struct {
					Watchers []struct{ GlobPattern string }
				}
			}
		}
		if err := json.Unmarshal(*req.Params, &p); err != nil {
			t.Fatal(err)
		}
		if len(p.Registrations) != 1 || p.Registrations[0].Method != "workspace/didChangeWatchedFiles" ||
			len(p.Registrations[0].RegisterOptions.Watchers) != 1 || p.Registrations[0].RegisterOptions.Watchers[0].GlobPattern != "**/*" {
			t.Errorf("registrations %s, want one watcher of every file for workspace/didChangeWatchedFiles", *req.Params)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no client/registerCapability within 30 s")
	}
}

// TestWatchedFileCreatedMendsBrokenLinks: a note created on disk is what a
// closed note's broken link names; that note is checked again and its
// diagnostics lose the broken link (the other one stays).
func TestWatchedFileCreatedMendsBrokenLinks(t *testing.T) {
	files := maps.Clone(testVault)
	files["D.md"] = "# D\n\nSee [[New note]] and [[Nowhere]].\n"
	c := startServerWith(t, files, nil, map[string]any{})
	c.openText("sub/Speedy Notes.md", files["sub/Speedy Notes.md"])
	c.nextDiags("sub/Speedy Notes.md")
	if err := os.WriteFile(filepath.Join(c.dir, "New note.md"), []byte("# New note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.conn.Notify(context.Background(), protocol.MethodWorkspaceDidChangeWatchedFiles, map[string]any{
		"changes": []map[string]any{{"uri": c.uri("New note.md"), "type": protocol.FileChangeTypeCreated}}})
	for {
		select {
		case d := <-c.diags:
			if d.URI != c.uri("D.md") {
				continue
			}
			if got := codes(d); !slices.Equal(got, []string{lint.RuleBrokenLink}) || !strings.Contains(d.Diagnostics[0].Message, "Nowhere") {
				t.Errorf("D.md after New note.md was created: %v %+v, want the one broken link to Nowhere", got, d.Diagnostics)
			}
			var refs []protocol.Location
			c.call(protocol.MethodTextDocumentReferences, map[string]any{
				"textDocument": map[string]any{"uri": c.uri("New note.md")}, "position": map[string]any{"line": 0, "character": 0},
				"context": map[string]any{"includeDeclaration": false}}, &refs)
			if len(refs) != 1 || refs[0].URI != c.uri("D.md") {
				t.Errorf("references of New note.md: %+v, want D.md's link", refs)
			}
			return
		case <-time.After(30 * time.Second):
			t.Fatal("no diagnostics for D.md within 30 s of New note.md's creation")
		}
	}
}

// The language server and zk check read a link's #heading the same way
// (vault.HeadingIndex): [[Why#Why it holds]] reaches "## Why: it holds",
// as in Obsidian. Go to definition once found no such heading while zk
// check called the link fine.
func TestDefinitionAgreesWithCheckOnHeadings(t *testing.T) {
	files := map[string]string{
		"Why.md": "# Why\n\n## Why: it holds\n\nBecause.\n",
		"A.md":   "# A\n\nSee [[Why#Why it holds]] and [[Why#Why it fails]].\n",
	}
	c := startServerWith(t, files, nil, map[string]any{})
	c.openText("A.md", files["A.md"])
	d := c.nextDiags("A.md")
	var broken []string
	for _, g := range d.Diagnostics {
		broken = append(broken, g.Code+": "+g.Message)
	}
	if len(broken) != 1 || !strings.Contains(broken[0], "links/broken-heading") || !strings.Contains(broken[0], "Why it fails") {
		t.Errorf("diagnostics %q, want only the heading that is not there", broken)
	}
	col := strings.Index(strings.Split(files["A.md"], "\n")[2], "[[Why#Why it holds]]") + 3
	var loc *protocol.Location
	c.call(protocol.MethodTextDocumentDefinition, protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("A.md")}, Position: protocol.Position{Line: 2, Character: uint32(col)}}}, &loc)
	if loc == nil || loc.URI != c.uri("Why.md") || loc.Range.Start.Line != 2 {
		t.Errorf("definition of [[Why#Why it holds]]: %+v, want Why.md line 3", loc)
	}
}

// A note opened from outside the vault gets no diagnostics; the server
// says why, once a session: before, nothing told the user that the
// editor served another vault, or none of theirs.
func TestNoteOutsideTheVaultSaysSoOnce(t *testing.T) {
	c := startServer(t)
	outside := t.TempDir()
	for _, name := range []string{"Elsewhere.md", "Another.md"} {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(outside, name))}
		if err := c.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: u.String(), LanguageID: "markdown", Version: 1, Text: "# E\n"}}); err != nil {
			t.Fatal(err)
		}
	}
	// The server handles notifications in order: once Rates.md's
	// diagnostics came, whatever the two opens before it sent came too.
	c.open("Rates.md")
	c.nextDiags("Rates.md")
	var got []string
	for len(c.shown) > 0 {
		got = append(got, <-c.shown)
	}
	if len(got) != 1 || !strings.Contains(got[0], "Elsewhere.md is outside the vault") {
		t.Errorf("messages shown: %q, want one saying Elsewhere.md is outside the vault", got)
	}
}

// A note over the note size cap is one file/skipped diagnostic at the
// severity zk check gives the rule in that note ([rules], then the
// [[claims.overrides]] matching its path): it was a warning whatever the
// config said, so a vault that made the rule an error, or turned it off
// in a folder, saw in the editor what zk check did not say.
func TestTooLargeNoteObeysTheConfiguredSeverity(t *testing.T) {
	inBig := func(p string) bool { return strings.HasPrefix(p, "Big/") }
	for _, tc := range []struct {
		name      string
		severity  map[string]lint.Severity
		overrides []lint.Override
		want      []int // the severities published, none when off
		only      func(string) bool
	}{
		{"default", nil, nil, []int{int(protocol.DiagnosticSeverityWarning)}, nil},
		{"error in [rules]", map[string]lint.Severity{lint.RuleFileSkipped: lint.Error}, nil, []int{int(protocol.DiagnosticSeverityError)}, nil},
		{"off in [rules]", map[string]lint.Severity{lint.RuleFileSkipped: lint.Off}, nil, nil, nil},
		{"off in the note's folder", nil, []lint.Override{{Match: inBig, Severity: map[string]lint.Severity{lint.RuleFileSkipped: lint.Off}}}, nil, nil},
		{"an error in the folder, off elsewhere", map[string]lint.Severity{lint.RuleFileSkipped: lint.Off},
			[]lint.Override{{Match: inBig, Severity: map[string]lint.Severity{lint.RuleFileSkipped: lint.Error}}}, []int{int(protocol.DiagnosticSeverityError)}, nil},
		{"an override of another folder", map[string]lint.Severity{lint.RuleFileSkipped: lint.Error},
			[]lint.Override{{Match: func(p string) bool { return strings.HasPrefix(p, "Small/") }, Severity: map[string]lint.Severity{lint.RuleFileSkipped: lint.Off}}},
			[]int{int(protocol.DiagnosticSeverityError)}, nil},
		// A note zk check does not check (a template: Options.Only).
		{"a note check skips", nil, nil, nil, func(p string) bool { return !strings.HasPrefix(p, "Big/") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startServerWith(t, map[string]string{"Big/N.md": "# N\n"}, func(o *Options) {
				o.Vault.MaxNoteSize = 64
				o.Lint.Severity, o.Lint.Overrides, o.Lint.Only = tc.severity, tc.overrides, tc.only
			}, map[string]any{})
			c.openText("Big/N.md", "# N\n\n"+strings.Repeat("x", 100))
			d := c.nextDiags("Big/N.md")
			var got []int
			for _, x := range d.Diagnostics {
				if x.Code != lint.RuleFileSkipped || !strings.Contains(x.Message, "not checked: the note is 105 bytes") {
					t.Errorf("diagnostic %s: %s", x.Code, x.Message)
				}
				got = append(got, x.Severity)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("severities %v, want %v", got, tc.want)
			}
		})
	}
}

// A request on a document that is no note answers as on a place with
// nothing there: a note missing (deleted, never saved) or a folder gets
// a null result, as LSP has it; a URI no file can have (a NUL byte, an
// escape that is no escape) is InvalidParams, saying so. Each was
// InternalError, one with the OS's "statat ...: invalid argument".
func TestRequestsOnNoNote(t *testing.T) {
	c := startServer(t)
	pos := protocol.TextDocumentPositionParams{Position: protocol.Position{Line: 0, Character: 1}}
	base := c.uri("")
	for _, tc := range []struct {
		name string
		uri  string
		code int64 // 0: a null result
	}{
		{"a missing note", c.uri("Gone.md"), 0},
		{"a folder", c.uri("sub"), 0},
		{"a NUL byte", base + "/A%00.md", jsonrpc2.CodeInvalidParams},
		{"a bad escape", base + "/A%zz.md", jsonrpc2.CodeInvalidParams},
	} {
		for _, method := range []string{protocol.MethodTextDocumentHover, protocol.MethodTextDocumentDefinition,
			protocol.MethodTextDocumentReferences, protocol.MethodTextDocumentDocumentSymbol, protocol.MethodTextDocumentCodeLens} {
			t.Run(tc.name+"/"+method, func(t *testing.T) {
				p := pos
				p.TextDocument.URI = tc.uri
				params := map[string]any{"textDocument": p.TextDocument, "position": p.Position, "context": map[string]any{"includeDeclaration": true}}
				var got json.RawMessage
				err := c.conn.Call(t.Context(), method, params, &got)
				if tc.code == 0 {
					if err != nil || (len(got) != 0 && string(got) != "null" && string(got) != "[]") {
						t.Errorf("%s: %s, %v; want a null result", method, got, err)
					}
					return
				}
				var e *jsonrpc2.Error
				if !errors.As(err, &e) || e.Code != tc.code || !strings.Contains(e.Message, "URI") || strings.Contains(e.Message, "invalid argument") {
					t.Errorf("%s: %s, %v; want code %d naming the URI", method, got, err, tc.code)
				}
			})
		}
	}
}

// Ordinary but wrong requests an editor or a script sends are answered
// in the protocol's terms, never InternalError (which an editor shows as
// zk's bug) and never naming Go types: a command on a note that is not
// there, a rename with no new name or of a note never saved, a negative
// position.
func TestWrongRequestsAreNoInternalError(t *testing.T) {
	c := startServerWith(t, testVault, func(o *Options) {
		o.Tend = func(_ context.Context, p, _ string) (bool, error) {
			return false, &workspace.NotFoundError{Arg: p, Vault: "v"}
		}
		o.Rejudge = func(_ context.Context, p, _ string) ([]string, error) {
			return nil, &workspace.NotFoundError{Arg: p, Vault: "v"}
		}
	}, canCreate)
	c.openText("New.md", "# New\n\nSee [[Rates]].\n")
	c.nextDiags("New.md")
	onLink := at("Rates.md", "[[Speedups#Baseline]]", 4)
	rename := func(uri string, pos protocol.Position, name string) map[string]any {
		return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos, "newName": name}
	}
	for _, tc := range []struct {
		name   string
		method string
		params any
		code   int64
		want   string
	}{
		{"zk.tend on no note", protocol.MethodWorkspaceExecuteCommand, protocol.ExecuteCommandParams{Command: CommandTend, Arguments: []any{c.uri("Gone.md")}},
			jsonrpc2.CodeInvalidParams, "no such note"},
		{"zk.rejudge on no note", protocol.MethodWorkspaceExecuteCommand, protocol.ExecuteCommandParams{Command: CommandRejudge, Arguments: []any{c.uri("Gone.md")}},
			jsonrpc2.CodeInvalidParams, "no such note"},
		{"rename to nothing", protocol.MethodTextDocumentRename, rename(c.uri("Rates.md"), onLink, ""), jsonrpc2.CodeInvalidParams, "new name"},
		{"rename to blanks", protocol.MethodTextDocumentRename, rename(c.uri("Rates.md"), onLink, "  "), jsonrpc2.CodeInvalidParams, "new name"},
		{"rename to a slash", protocol.MethodTextDocumentRename, rename(c.uri("Rates.md"), onLink, "/"), jsonrpc2.CodeInvalidParams, "new name"},
		{"rename of a note never saved", protocol.MethodTextDocumentRename, rename(c.uri("New.md"), protocol.Position{Line: 0, Character: 3}, "Newer"),
			codeRequestFailed, "save it"},
		{"a negative position", protocol.MethodTextDocumentHover, map[string]any{"textDocument": map[string]any{"uri": c.uri("Rates.md")},
			"position": map[string]any{"line": 0, "character": -5}}, jsonrpc2.CodeInvalidParams, "position.character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got json.RawMessage
			err := c.conn.Call(t.Context(), tc.method, tc.params, &got)
			var e *jsonrpc2.Error
			if !errors.As(err, &e) || e.Code != tc.code || !strings.Contains(e.Message, tc.want) || strings.Contains(e.Message, "Go ") {
				t.Errorf("%s: %s, %v; want code %d and %q", tc.method, got, err, tc.code, tc.want)
			}
		})
	}
}
