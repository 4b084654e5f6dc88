package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/vaulttest"
	"github.com/zk-claims/zk/workspace"
)

// serveUninitialized serves opts on a pipe and returns the client's end,
// not initialized, and where Serve's error comes once it returns.
func serveUninitialized(t *testing.T, opts Options) (*client, <-chan error) {
	t.Helper()
	srv := New(opts)
	a, b := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, a) }()
	c := &client{t: t, diags: make(chan published, 100), calls: make(chan *jsonrpc2.Request, 10)}
	c.conn = jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(b, jsonrpc2.VSCodeObjectCodec{}),
		answerAside{c, jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			if req.Method == protocol.ServerTextDocumentPublishDiagnostics {
				var p published
				if err := json.Unmarshal(*req.Params, &p); err == nil {
					c.diags <- p
				}
			}
			return nil, nil
		})})
	t.Cleanup(func() { c.conn.Close(); cancel() })
	return c, done
}

// serveErr waits for Serve's error.
func serveErr(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return within 30 s")
	}
	return nil
}

// openAt is an Options.Open that serves the folder it is given, and
// says which on roots.
func openAt(t *testing.T, roots chan<- string) func(string) (Options, error) {
	return func(root string) (Options, error) {
		roots <- root
		v, err := vault.Open(root)
		if err != nil {
			return Options{}, err
		}
		t.Cleanup(func() { v.Close() })
		return Options{Vault: v, Debounce: time.Millisecond}, nil
	}
}

// Without a vault given, the server opens the one the client names as
// its root, at initialize: not before (an editor starts the server in a
// folder of its own: Neovim in its working directory), and the root's
// notes are what it checks. A request before initialize is refused in
// the protocol's terms, and a second initialize too.
func TestVaultOpenedFromTheClientsRoot(t *testing.T) {
	dir := vaulttest.Dir(t, testVault)
	roots := make(chan string, 2)
	c, _ := serveUninitialized(t, Options{Open: openAt(t, roots)})
	c.dir = dir

	var hover json.RawMessage
	err := c.conn.Call(context.Background(), protocol.MethodTextDocumentHover, map[string]any{
		"textDocument": map[string]any{"uri": c.uri("Rates.md")}, "position": map[string]any{"line": 0, "character": 0}}, &hover)
	if e, ok := err.(*jsonrpc2.Error); !ok || e.Code != codeServerNotInitialized {
		t.Errorf("hover before initialize: %v, want error %d", err, codeServerNotInitialized)
	}
	if len(roots) != 0 {
		t.Fatalf("the vault was opened before initialize, at %q", <-roots)
	}

	c.call(protocol.MethodInitialize, map[string]any{"processId": nil, "rootUri": fileURI(t.TempDir(), ""),
		"workspaceFolders": []map[string]any{{"uri": fileURI(dir, ""), "name": "notes"}}, "capabilities": map[string]any{}}, &c.init)
	if got := <-roots; got != dir {
		t.Errorf("opened %q, want the first workspace folder %q", got, dir)
	}
	c.open("Rates.md")
	if got := codes(c.nextDiags("Rates.md")); !slices.Equal(got, []string{lint.RuleBrokenLink}) {
		t.Errorf("diagnostics of the root's note: %v, want one %s", got, lint.RuleBrokenLink)
	}

	err = c.conn.Call(context.Background(), protocol.MethodInitialize, map[string]any{"capabilities": map[string]any{}}, &hover)
	if e, ok := err.(*jsonrpc2.Error); !ok || e.Code != jsonrpc2.CodeInvalidRequest {
		t.Errorf("a second initialize: %v, want invalid request", err)
	}
	if len(roots) != 0 {
		t.Errorf("a second initialize opened %q", <-roots)
	}
}

// The root is the first workspace folder, else rootUri, else rootPath,
// as the protocol orders them; "" when none names a folder.
func TestClientRoot(t *testing.T) {
	uri := func(s string) *protocol.DocumentUri { return &s }
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name   string
		params protocol.InitializeParams
		want   string
	}{
		{"none", protocol.InitializeParams{}, ""},
		{"rootPath", protocol.InitializeParams{RootPath: str("/a/b")}, "/a/b"},
		{"rootUri over rootPath", protocol.InitializeParams{RootURI: uri("file:///c/d%20e"), RootPath: str("/a/b")}, filepath.FromSlash("/c/d e")},
		{"workspace folder over rootUri", protocol.InitializeParams{RootURI: uri("file:///c"),
			WorkspaceFolders: []protocol.WorkspaceFolder{{URI: "file:///f/g"}, {URI: "file:///h"}}}, filepath.FromSlash("/f/g")},
		{"not a file", protocol.InitializeParams{RootURI: uri("untitled:x")}, ""},
	} {
		if got := clientRoot(&tc.params); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A vault that cannot be opened fails initialize, and Serve returns why
// (zk lsp exits 2, as when --vault names one it cannot open).
func TestInitializeFailsWhenTheVaultCannotOpen(t *testing.T) {
	c, done := serveUninitialized(t, Options{Open: func(string) (Options, error) { return Options{}, errors.New("config: bad") }})
	var init json.RawMessage
	if err := c.conn.Call(context.Background(), protocol.MethodInitialize, map[string]any{"capabilities": map[string]any{}}, &init); err == nil || !strings.Contains(err.Error(), "config: bad") {
		t.Errorf("initialize: %v, want the vault's error", err)
	}
	c.conn.Close()
	if err := serveErr(t, done); err == nil || !strings.Contains(err.Error(), "config: bad") {
		t.Errorf("Serve: %v, want the vault's error", err)
	}
}

// In a folder that is no vault the server writes nothing, as zk's
// commands write nothing there: no command that writes is offered, nor
// rename, nor the action creating a note, and zk.tend is refused even on
// a note open in the editor (which it once edited there).
func TestReadOnlyFolderWritesNothing(t *testing.T) {
	files := map[string]string{
		"Old.md": "# Old\n\nSee [[Missing]].\n\n## Maintenance\n\n- Last tended: 2020-01-01\n",
	}
	wrote := false
	c := startServerWith(t, files, func(o *Options) {
		actionOptions(o)
		o.ReadOnly = true
		o.Create = func(context.Context, string, string) (string, error) { wrote = true; return "", nil }
		o.Tend = func(context.Context, string, string) (bool, error) { wrote = true; return false, nil }
		o.Rejudge = func(context.Context, string, string) ([]string, error) { wrote = true; return nil, nil }
	}, canCreate)
	if !strings.Contains(string(c.init), `"commands":["zk.references"]`) || strings.Contains(string(c.init), "renameProvider") {
		t.Errorf("initialize: %s, want zk.references alone and no rename", c.init)
	}
	c.openText("Old.md", files["Old.md"])
	c.nextDiags("Old.md")
	for _, cmd := range []string{CommandTend, CommandNew, CommandRejudge} {
		_, err := c.execute(cmd, c.uri("Old.md"))
		if err == nil || !strings.Contains(err.Error(), "no vault") {
			t.Errorf("%s: %v, want it refused in a folder that is no vault", cmd, err)
		}
	}
	if wrote {
		t.Error("a command wrote")
	}
	c.askedMu.Lock()
	asked := slices.Clone(c.asked)
	c.askedMu.Unlock()
	if len(asked) != 0 {
		t.Errorf("the server asked the editor %v, want nothing (zk.tend's edit of the open note)", asked)
	}
	text := files["Old.md"]
	if as := byTitle(c.codeActions("Old.md", lineRange(text, "[[Missing]]")), "Create"); len(as) != 0 {
		t.Errorf("create actions offered: %+v", as)
	}
	var edit json.RawMessage
	err := c.conn.Call(context.Background(), protocol.MethodTextDocumentRename, map[string]any{
		"textDocument": map[string]any{"uri": c.uri("Old.md")}, "position": map[string]any{"line": 0, "character": 3}, "newName": "New"}, &edit)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != codeRequestFailed || !strings.Contains(err.Error(), "only in a vault") {
		t.Errorf("rename: %s %v, want it refused (RequestFailed)", edit, err)
	}
}

// exit without shutdown before it is the protocol's exit with code 1:
// Serve says so; after shutdown it returns nil.
func TestExitWithoutShutdown(t *testing.T) {
	dir := vaulttest.Dir(t, testVault)
	for _, shutdown := range []bool{false, true} {
		roots := make(chan string, 1)
		c, done := serveUninitialized(t, Options{Open: openAt(t, roots)})
		c.call(protocol.MethodInitialize, map[string]any{"rootUri": fileURI(dir, ""), "capabilities": map[string]any{}}, &c.init)
		if shutdown {
			c.call(protocol.MethodShutdown, nil, nil)
		}
		if err := c.conn.Notify(context.Background(), protocol.MethodExit, nil); err != nil {
			t.Fatal(err)
		}
		err := serveErr(t, done)
		if want := !shutdown; errors.Is(err, ErrExitWithoutShutdown) != want {
			t.Errorf("exit, shutdown first %v: Serve returned %v", shutdown, err)
		}
	}
}

// After shutdown the protocol takes only exit: a request is answered
// InvalidRequest (-32600), which glsp's handler answered as an internal
// error (-32603, "server not initialized"), as if zk had failed; a second
// shutdown is a request like any other.
func TestRequestAfterShutdownIsInvalid(t *testing.T) {
	c := startServer(t)
	c.call(protocol.MethodShutdown, nil, nil)
	at := map[string]any{"textDocument": map[string]any{"uri": c.uri("Rates.md")}, "position": map[string]any{"line": 0, "character": 2}}
	for _, method := range []string{protocol.MethodTextDocumentHover, protocol.MethodShutdown, protocol.MethodTextDocumentCompletion, protocol.MethodInitialize} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var rpcErr *jsonrpc2.Error
		err := c.conn.Call(ctx, method, at, nil)
		cancel()
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeInvalidRequest || !strings.Contains(rpcErr.Message, "shut") {
			t.Errorf("%s after shutdown: %v, want InvalidRequest saying the server is shut down", method, err)
		}
	}
}

// A command refused for what it was asked (an unknown note type, a title
// that leaves no file name) is InvalidParams (-32602), as zk.tend's bad
// argument is, where zk.new answered it InternalError (-32603), as if zk
// had failed.
func TestCommandRefusedIsInvalidParams(t *testing.T) {
	c := startServerWith(t, testVault, func(o *Options) {
		o.Create = func(context.Context, string, string) (string, error) {
			return "", &workspace.UsageError{Err: errors.New(`unknown note type: "x" (known: permanent)`)}
		}
	}, map[string]any{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var rpcErr *jsonrpc2.Error
	err := c.conn.Call(ctx, protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": "zk.new", "arguments": []any{map[string]any{"title": "T", "type": "x"}}}, nil)
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeInvalidParams || !strings.Contains(rpcErr.Message, "unknown note type") {
		t.Errorf("zk.new of an unknown type: %v, want InvalidParams saying why", err)
	}
}

// shutdown is answered once: it was handled twice (cancelling the
// requests left, then again after), its null result followed by the
// error "the server is shut down", which Neovim shows as
// NO_RESULT_CALLBACK_FOUND each time it quits. A $/cancelRequest was
// handled twice too.
func TestShutdownAnsweredOnce(t *testing.T) {
	v, err := vault.Open(vaulttest.Dir(t, testVault))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	a, b := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- New(Options{Vault: v, Debounce: time.Millisecond}).Serve(context.Background(), a) }()
	go func() {
		for _, m := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`,
			`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
			`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`,
			`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`,
			`{"jsonrpc":"2.0","method":"exit"}`,
		} {
			fmt.Fprintf(b, "Content-Length: %d\r\n\r\n%s", len(m), m)
		}
	}()
	answers := map[string]int{}
	r := bufio.NewReader(b)
	for {
		var n int
		if _, err := fmt.Fscanf(r, "Content-Length: %d\r\n\r\n", &n); err != nil {
			break
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			break
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &m) == nil && m.ID != nil && m.Method == "" {
			answers[string(m.ID)]++
			if answers[string(m.ID)] > 1 {
				t.Errorf("request %s answered again: %s", m.ID, body)
			}
		}
	}
	if err := serveErr(t, done); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if answers["1"] != 1 || answers["2"] != 1 {
		t.Errorf("answers by id %v, want initialize's and shutdown's once each", answers)
	}
}
