// Package lsp is zk's language server: zk check's findings as
// diagnostics on the text being edited, go to definition on links,
// references to notes, headings, blocks and tags with code lens counts,
// headings as document symbols, completion of note names, headings and
// block ids inside [[links]], code actions, rename, and the commands
// zk.new and zk.tend.
//
// It is an adapter over workspace.Live, which holds what the server knows
// of the vault (the check session, the resolver, every note's entry) and
// answers it; this package holds the protocol: the notes open in the
// editor, what was last sent, positions, and the translation of findings
// into diagnostics.
//
// It speaks LSP over any stream with sourcegraph/jsonrpc2 and the types
// and dispatch of tliron/glsp's protocol_3_16; glsp's own server is not
// used because it binds os.Stdin and a global logger, where zk serves the
// streams it is given and prints nothing but the protocol on stdout.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/workspace"
)

// Options configure a server.
type Options struct {
	// Vault is the vault served; the caller opens and closes it. nil
	// leaves it to Open, at initialize.
	Vault *vault.Vault
	// Open, when Vault is nil, opens the vault at initialize from the
	// folder the client names as its root: its first workspace folder,
	// else its rootUri, else its rootPath ("" when it names none). An
	// editor starts the server in a folder of its own choosing (Neovim in
	// its working directory, whatever root it names), so the root it
	// names, not the process's folder, says which vault it edits. Open
	// returns the options to serve it with, which replace these (their
	// Vault set; their Open unused); the caller closes the vault.
	Open func(root string) (Options, error)
	// ReadOnly serves a folder that is no vault (no .obsidian/ or .zk/),
	// which zk writes nothing in, as its commands write nothing there:
	// the commands that write (zk.new, zk.tend, zk.rejudge), the action
	// that creates a note and rename are neither offered nor run.
	ReadOnly bool
	// Lint are zk check's options for this vault (its types, relations,
	// severities, and Only leaving out the templates folder).
	Lint lint.Options
	// HelpURL is the address of a rule's help, the diagnostic's
	// codeDescription; nil for none.
	HelpURL func(rule string) string
	// Debounce is how long diagnostics wait after a change for the next
	// one; 0 means DefaultDebounce.
	Debounce time.Duration
	// Version is zk's version, told to the client.
	Version string
	// NewNote renders a new note titled title from the template of the
	// note type typ ("" for the default type), as zk new does: its vault
	// path and text. nil offers no "create the note" action.
	NewNote func(typ, title string) (path string, text []byte, err error)
	// Create writes a new note of the note type typ ("" for the default
	// type) titled title, as zk new does (never over a note), and returns
	// its vault path: the zk.new command. nil offers no zk.new.
	Create func(ctx context.Context, typ, title string) (path string, err error)
	// Tend sets the Last tended date of the note at vault path p to date
	// (YYYY-MM-DD) through the vault's safe write path, as zk tend does:
	// zk.tend on a note not open in the editor. nil refuses that.
	Tend func(ctx context.Context, p, date string) (unchanged bool, err error)
	// Rejudge judges again, under its criterion as written now, the
	// latest run of the falsifier of the note at vault path p that
	// falsifier names ("" for every one whose criterion changed), and
	// records it, as zk run --rejudge does: nothing runs. It returns one
	// line per falsifier judged. nil offers no zk.rejudge.
	Rejudge func(ctx context.Context, p, falsifier string) (judged []string, err error)

	// Clock is the time now, asked at each check for today's date (the
	// maintenance rules, the "Set Last tended" action); nil means
	// time.Now. A Lint.Today that is set pins the day instead (zk's
	// --today or $ZK_TODAY).
	Clock func() time.Time

	// Cache, when set, opens the caller's per-note cache at the start
	// (zk's, beside zk check's): a note opened is checked at once against
	// the files it names, and on a vault unchanged since it was written
	// the start parses no note. nil reads every note.
	Cache func() workspace.EntryCache

	// beforeLoad, when set, runs between the walk and the read of every
	// note; beforeWalk before the walk: a test holds the start there.
	beforeLoad, beforeWalk func()
	// onRescan, when set, runs when a walk of the vault after a save or
	// an open is asked for (rescan), not when one is skipped.
	onRescan func()
	// onSaveTaken, when set, runs when a save has been taken (after the
	// walk it asks for is asked for or skipped): a test counts saves
	// taken, not answers, which a save's queue does not order.
	onSaveTaken func()
}

// ErrExitWithoutShutdown is Serve's error when the client said exit
// without asking for shutdown first: the protocol has the server exit
// with code 1 then.
var ErrExitWithoutShutdown = errors.New("lsp: exit without shutdown")

// DefaultDebounce lets a typist finish a word before the note is checked.
const DefaultDebounce = 150 * time.Millisecond

// Server is one client's session.
type Server struct {
	opts Options
	v    *vault.Vault

	// live is the vault's model: the check session, the resolver and
	// every note's entry, read at the start (Scan) and kept current.
	live *workspace.Live

	mu      sync.Mutex
	docs    map[string]*document // open notes, by vault path
	timers  map[string]*time.Timer
	parsers sync.Pool
	// canCreate is set when the client can create files in a workspace
	// edit.
	canCreate bool
	// canRename is set when the client can rename files in a workspace
	// edit: a note's rename is offered only then, for a client that
	// applies the link edits and drops the rename breaks every link.
	canRename bool
	// watch is set when the client registers file watchers on request
	// (VS Code): asked in initialized, it reports changes on disk.
	watch bool
	// canShow is set when the client shows a document on request
	// (window/showDocument): zk.new opens the note it created.
	// lensRefresh is set when the client refreshes code lenses on request:
	// a save changes other notes' backlink counts.
	canShow, lensRefresh bool
	// toldOutside is set once the client was told that a note it opened
	// is outside the vault (didOpen): said once a session, not per note.
	toldOutside bool
	// sent is the key of the diagnostics last published for each note
	// not open, by path (recheck.go); recheck runs one re-check at a time.
	sent    map[string]string
	recheck sync.Mutex
	// publishing runs one publish of an open note at a time; checkCost is
	// how long the last took (ns), which the debounce of a change is at
	// least twice: a note that takes 300 ms to check, changed every 200
	// ms, is checked at most every 600 ms rather than at every change.
	publishing sync.Mutex
	checkCost  atomic.Int64

	notify func(method string, params any)
	// ask sends a request to the client without waiting for its answer,
	// before the answer to the request being handled: jsonrpc.el (eglot)
	// stops reading a chunk of messages at the answer it waits for, and
	// a request after it in the same chunk waits for the server's next
	// message.
	ask func(method string, params any)

	// scan starts Scan in the background, under Serve's context: at
	// once when the vault is given, else once initialize opened it.
	// openErr is why initialize could not open the vault, which Serve
	// returns. ready is set once initialize succeeded; read and
	// written, as scan and openErr, on the connection's goroutine.
	scan    func()
	openErr error
	ready   bool

	// ctx is Serve's: it ends when the client is gone. bg are the
	// goroutines Serve waits for before it returns (rescan's).
	ctx context.Context
	bg  sync.WaitGroup
	// walking runs one new walk of the vault at a time (a change
	// reported, a rescan). rescanning is set while a rescan runs, and
	// rescanAgain when one was asked for meanwhile, stopped once Serve
	// waits for bg; guarded by rescanMu.
	walking                          sync.Mutex
	rescanMu                         sync.Mutex
	rescanning, rescanAgain, stopped bool
	// queued are the saves and changes on disk told while the vault is
	// still read, taken in order once it is (whenKnown); draining is set
	// while the goroutine that takes them runs. Guarded by rescanMu.
	queued   []func()
	draining bool
	// watching is set while the client watches the vault's files on the
	// server's request (initialized): the walk after a save or an open
	// runs at most every walkGap then. walked is when the last walk
	// ended and walkCost how long it took; guarded by rescanMu.
	watching atomic.Bool
	walked   time.Time
	walkCost time.Duration
	// call sends a request to the client and waits for its answer.
	call func(method string, params, result any) error
}

// document is a note open in the editor: its text as the editor holds it.
// A change stores the text and nothing more; it is parsed when something
// needs the note (docNote), so that a hundred changes arriving faster
// than a parse cost one parse, of the last (issue 23: 100 changes of 1 MB
// each parsed as it came built a backlog of half a minute).
type document struct {
	uri     string
	path    string
	version int32
	text    string // the editor's text, until parsed
	// parsed is the note parsed from text, nil until asked for: read it
	// through Server.docNote, never directly.
	parsed *vault.Note
	// tooLarge is the size of a text over the vault's note size cap, which
	// is neither kept nor parsed: the note is checked as empty and says so.
	tooLarge int
	// sent is the version and findingsKey of the diagnostics last
	// published for it; guarded by the server's mu.
	sent string
}

// New returns a server for the vault, or for the one Options.Open opens
// at initialize; Scan must run before it answers (Serve runs it).
func New(opts Options) *Server {
	s := &Server{docs: map[string]*document{}, timers: map[string]*time.Timer{}, sent: map[string]string{}, ctx: context.Background(),
		notify: func(string, any) {}, ask: func(string, any) {}, call: func(string, any, any) error { return errors.New("no client") }}
	s.parsers.New = func() any { return vault.NewParser() }
	s.opts = opts
	if opts.Vault != nil {
		s.use(opts)
	}
	return s
}

// use takes opts, their Vault set, as the server's: the vault it serves.
// Called before Serve, or by initialize before any other request.
func (s *Server) use(opts Options) {
	if opts.Debounce == 0 {
		opts.Debounce = DefaultDebounce
	}
	s.opts, s.v = opts, opts.Vault
	s.live = workspace.NewLive(workspace.LiveOptions{Vault: opts.Vault, Lint: opts.Lint, Today: s.today, Cache: opts.Cache,
		BeforeWalk: opts.beforeWalk, BeforeRead: opts.beforeLoad})
}

// Scan reads the vault once (workspace.Live.Start): a note opened is
// checked at once against the files the cache names, else once the walk
// is done. After the walk the notes open are checked again against its
// files, and their diagnostics sent again where that changed them (a
// file added or deleted since the cache was written); after every note's
// entry is read, again against the whole vault (an alias's hint on a
// broken link, links/rests-on-refuted).
func (s *Server) Scan(ctx context.Context) error {
	again := func() {
		s.mu.Lock()
		open := s.openPaths()
		s.mu.Unlock()
		for _, p := range open {
			s.publishNote(p, true)
		}
	}
	return s.live.Start(ctx, again, again)
}

// openPaths are the notes open. The caller holds mu.
func (s *Server) openPaths() []string {
	out := make([]string, 0, len(s.docs))
	for p := range s.docs {
		out = append(out, p)
	}
	return out
}

// today is the day maintenance is measured against: the pinned one, else
// the clock's date, as zk's other commands take it (midnight, UTC).
func (s *Server) today() time.Time {
	if !s.opts.Lint.Today.IsZero() {
		return s.opts.Lint.Today
	}
	now := time.Now()
	if s.opts.Clock != nil {
		now = s.opts.Clock()
	}
	return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
}

// wait waits for the whole vault to be read.
func (s *Server) wait() error { return s.live.WaitKnown() }

// waitEarly waits until a note opened can be checked: against the files
// the cache names, or the walk's.
func (s *Server) waitEarly() error { return s.live.WaitEarly() }

// waitNamed waits for the vault's files to be walked: enough to resolve
// links and check one note.
func (s *Server) waitNamed() error { return s.live.WaitNamed() }

// Serve answers one client on rw until it exits or ctx ends. The scan
// of the vault starts at once when the vault is given, so that it
// overlaps the client's start, else once initialize opened it. Its error
// is initialize's failure to open the vault, or ErrExitWithoutShutdown.
func (s *Server) Serve(ctx context.Context, rw io.ReadWriteCloser) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = ctx
	s.scan = func() {
		// Waited for by Serve, as the other goroutines are: the scan
		// saves the vault's model into the cache, and a Serve that
		// returned before it let that write run on into a folder its
		// caller then removed (TestLSPOverridesPerPath, "directory not
		// empty", in CI).
		// Waited for: the scan saves the vault's model into the cache,
		// and ran on after Serve returned into a folder its caller then
		// removed (TestLSPOverridesPerPath, "directory not empty", in CI).
		s.background(func() {
			s.Scan(ctx) //nolint:errcheck // the error is kept in scanErr and returned by wait
		})
	}
	if s.live != nil {
		s.scan()
	}
	h := s.handler()
	texts := &changeTexts{}
	// shutdown is read by requests answered later too; exitEarly is read
	// and written on the connection's one goroutine.
	var shutdown atomic.Bool
	var exitEarly bool
	// The connection is the handler's to give: the first messages can be
	// handled before NewConn returns, and a note opened then would have
	// its diagnostics sent nowhere.
	var connected sync.Once
	conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(rw, boundedCodec{max: maxMessage, texts: texts}),
		&answerLater{s: s, pending: map[jsonrpc2.ID]*later{}, next: jsonrpc2.HandlerWithError(func(ctx context.Context, c *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			connected.Do(func() {
				s.mu.Lock()
				s.notify = func(method string, params any) { c.Notify(ctx, method, params) }    //nolint:errcheck // a client gone is seen by DisconnectNotify
				s.ask = func(method string, params any) { c.DispatchCall(ctx, method, params) } //nolint:errcheck // the answer is not needed; a client gone is seen by DisconnectNotify
				s.call = func(method string, params, result any) error { return c.Call(ctx, method, params, result) }
				s.mu.Unlock()
			})
			if req.Method != protocol.MethodInitialize && req.Method != protocol.MethodExit && !s.ready {
				// Nothing to answer from before the vault is open: the
				// protocol's error for a request before initialize.
				if req.Notif {
					return nil, nil
				}
				return nil, &jsonrpc2.Error{Code: codeServerNotInitialized, Message: "the server is not initialized: send initialize first"}
			}
			if req.Method != protocol.MethodExit && shutdown.Load() {
				// The protocol takes only exit after shutdown, and has
				// a request then answered InvalidRequest: glsp's handler
				// answered it as an internal error, "server not
				// initialized", as if zk had failed.
				if req.Notif {
					return nil, nil
				}
				return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: "the server is shut down: only exit is taken after shutdown"}
			}
			switch req.Method { // bounded.go
			case protocol.MethodShutdown:
				shutdown.Store(true)
			case protocol.MethodExit:
				exitEarly = !shutdown.Load()
			case tooLargeMethod:
				return s.tooLarge(req)
			case changeMethod:
				return nil, s.changeFromCodec(req, texts)
			}
			return dispatch(ctx, h, c, req)
		})})
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	s.mu.Lock()
	for _, t := range s.timers {
		t.Stop()
	}
	s.mu.Unlock()
	cancel()
	s.rescanMu.Lock()
	s.stopped = true
	s.rescanMu.Unlock()
	s.bg.Wait()
	if s.openErr != nil {
		return s.openErr
	}
	if exitEarly {
		return ErrExitWithoutShutdown
	}
	return nil
}

// codeServerNotInitialized is the protocol's error for a request before
// initialize; codeRequestCancelled its answer to a request cancelled;
// codeRequestFailed (LSP 3.17) a request understood, its params valid,
// that cannot be done (a rename onto a name taken): the message says why.
const (
	codeServerNotInitialized = -32002
	codeRequestCancelled     = -32800
	codeRequestFailed        = -32803
)

// waitsForTheVault are the requests whose answer waits for every note to
// be read (Server.wait): 8-35 s at the start on 100,000 notes.
var waitsForTheVault = map[string]bool{
	protocol.MethodTextDocumentCompletion: true, protocol.MethodTextDocumentReferences: true,
	protocol.MethodTextDocumentCodeLens: true, protocol.MethodTextDocumentCodeAction: true,
	protocol.MethodWorkspaceSymbol: true, protocol.MethodTextDocumentRename: true,
	protocol.MethodTextDocumentPrepareRename: true, protocol.MethodWorkspaceExecuteCommand: true,
}

// answerLater answers the requests that wait for the vault, while it is
// still being read, from goroutines of their own, and every other
// message in order on the connection's goroutine (next). The connection
// reads no message while one is handled: a code lens or a completion
// asked for at the start (VS Code asks the lenses of every note opened)
// held the changes typed after it, their diagnostics, a
// $/cancelRequest, shutdown and exit until the vault was read. A request
// answered later can be cancelled: it is answered at once with the
// protocol's RequestCancelled, and shutdown cancels those left.
type answerLater struct {
	s    *Server
	next jsonrpc2.Handler
	// pending are the requests being answered later, by id; read and
	// written under mu.
	mu      sync.Mutex
	pending map[jsonrpc2.ID]*later
}

// later is a request answered later: answered is set by whichever
// answers it first, the handler once the vault is read or a
// cancellation, which closes cancelled.
type later struct {
	answered  atomic.Bool
	cancelled chan struct{}
}

func (a *answerLater) Handle(ctx context.Context, c *jsonrpc2.Conn, req *jsonrpc2.Request) {
	s := a.s
	switch {
	case req.Method == "$/cancelRequest" || req.Method == protocol.MethodShutdown:
		a.cancel(ctx, c, req) // which hands it on: not again below
		return
	case !req.Notif && s.ready && waitsForTheVault[req.Method] && !isClosed(s.live.KnownDone()):
		l := &later{cancelled: make(chan struct{})}
		a.mu.Lock()
		a.pending[req.ID] = l
		a.mu.Unlock()
		s.background(func() {
			// next answers on the connection as it would have, once the
			// vault is read (or its read ended with the session).
			select {
			case <-s.live.KnownDone():
				if l.answered.CompareAndSwap(false, true) {
					a.next.Handle(ctx, c, req)
				}
			case <-l.cancelled:
			case <-ctx.Done(): // the client gone: Serve waits for this
			}
			a.mu.Lock()
			delete(a.pending, req.ID)
			a.mu.Unlock()
		})
		return
	}
	a.next.Handle(ctx, c, req)
}

// background runs f on a goroutine Serve waits for before it returns,
// or not at all once Serve has stopped waiting. The rescan and the save
// queue start theirs by hand: each sets its own state under rescanMu too.
func (s *Server) background(f func()) {
	s.rescanMu.Lock()
	defer s.rescanMu.Unlock()
	if s.stopped {
		return
	}
	s.bg.Add(1) // under rescanMu: never once Serve waits (stopped)
	go func() {
		defer s.bg.Done()
		f()
	}()
}

// isClosed reports whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// cancel answers, with RequestCancelled, the request a $/cancelRequest
// names if it is being answered later, or every one at shutdown.
func (a *answerLater) cancel(ctx context.Context, c *jsonrpc2.Conn, req *jsonrpc2.Request) {
	var id *jsonrpc2.ID
	if req.Method == "$/cancelRequest" && req.Params != nil {
		var p struct {
			ID jsonrpc2.ID `json:"id"`
		}
		if json.Unmarshal(*req.Params, &p) == nil {
			id = &p.ID
		}
	}
	a.mu.Lock()
	var ls []jsonrpc2.ID
	for k := range a.pending {
		if id == nil && req.Method == protocol.MethodShutdown || id != nil && k == *id {
			ls = append(ls, k)
		}
	}
	for _, k := range ls {
		l := a.pending[k]
		delete(a.pending, k)
		if l.answered.CompareAndSwap(false, true) {
			close(l.cancelled)
			c.ReplyWithError(ctx, k, &jsonrpc2.Error{Code: codeRequestCancelled, Message: "cancelled"}) //nolint:errcheck // a client gone is seen by DisconnectNotify
		}
	}
	a.mu.Unlock()
	a.next.Handle(ctx, c, req)
}

// dispatch hands a request to glsp's protocol handler and turns its
// answer into JSON-RPC's, as glsp's own server does.
func dispatch(ctx context.Context, h *protocol.Handler, c *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	gc := glsp.Context{Method: req.Method,
		Notify: func(method string, params any) { c.Notify(ctx, method, params) },               //nolint:errcheck
		Call:   func(method string, params, result any) { c.Call(ctx, method, params, result) }, //nolint:errcheck
	}
	if req.Params != nil {
		gc.Params = *req.Params
	}
	if req.Method == protocol.MethodExit {
		h.Handle(&gc) //nolint:errcheck
		return nil, c.Close()
	}
	r, validMethod, validParams, err := h.Handle(&gc)
	switch {
	case !validMethod:
		if req.Notif || strings.HasPrefix(req.Method, "$/") {
			return nil, nil
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not supported: " + req.Method}
	case !validParams:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: paramsErr(err)}
	case err != nil:
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) { // already in the protocol's terms
			return nil, rpcErr
		}
		// What was asked is refused (zk.new of an unknown type): the
		// client's to mend, not zk's failure.
		var ue *workspace.UsageError
		if errors.As(err, &ue) {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
		}
		// A note named that is not there (zk.tend of a URI with no
		// note): the client's to mend.
		var nf *workspace.NotFoundError
		if errors.As(err, &nf) {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
		}
		// A write refused (the name taken, the note changed): asked
		// rightly, but not doable as the vault stands.
		var re *workspace.RefusedError
		if errors.As(err, &re) {
			return nil, &jsonrpc2.Error{Code: codeRequestFailed, Message: err.Error()}
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
	}
	return r, nil
}

// paramsErr is why params did not decode, in the protocol's terms: a
// value of the wrong type is named by its JSON path ("position.character
// is number -5, want an integer 0 or more"), not by the Go struct field
// glsp decodes it into.
func paramsErr(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		if err == nil {
			return "invalid params"
		}
		return err.Error()
	}
	var field []string
	for _, f := range strings.Split(te.Field, ".") {
		// glsp's embedded structs (TextDocumentPositionParams) are Go's,
		// not the protocol's: JSON names are lower camel case.
		if f != "" && !unicode.IsUpper(rune(f[0])) {
			field = append(field, f)
		}
	}
	want := "a value of another type"
	switch te.Type.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		want = "an integer 0 or more, in range"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		want = "an integer, in range"
	case reflect.Float32, reflect.Float64:
		want = "a number"
	case reflect.String:
		want = "a string"
	case reflect.Bool:
		want = "a boolean"
	case reflect.Slice, reflect.Array:
		want = "an array"
	case reflect.Struct, reflect.Map:
		want = "an object"
	}
	if len(field) == 0 {
		return fmt.Sprintf("invalid params: %s, want %s", te.Value, want)
	}
	return fmt.Sprintf("invalid params: %s is %s, want %s", strings.Join(field, "."), te.Value, want)
}

func (s *Server) handler() *protocol.Handler {
	h := &protocol.Handler{}
	h.Initialize = s.initialize
	h.Initialized = s.initialized
	h.Shutdown = func(*glsp.Context) error { return nil }
	h.SetTrace = func(*glsp.Context, *protocol.SetTraceParams) error { return nil }
	h.TextDocumentDidOpen = s.didOpen
	h.TextDocumentDidChange = s.didChange
	h.TextDocumentDidSave = s.didSave
	h.TextDocumentDidClose = s.didClose
	h.TextDocumentDefinition = s.definition
	h.TextDocumentHover = s.hover
	h.WorkspaceSymbol = s.workspaceSymbol
	h.TextDocumentReferences = s.references
	h.TextDocumentDocumentSymbol = s.documentSymbol
	h.TextDocumentCompletion = s.completion
	h.WorkspaceDidChangeWatchedFiles = s.didChangeWatchedFiles
	h.TextDocumentPrepareRename = s.prepareRename // rename.go
	h.TextDocumentRename = s.rename
	h.TextDocumentCodeAction = s.codeAction      // actions.go
	h.TextDocumentCodeLens = s.codeLens          // refs.go
	h.WorkspaceExecuteCommand = s.executeCommand // commands.go
	return h
}

// initialized asks a client that registers file watchers on request to
// watch every file of the vault: without it such a client (VS Code) never
// says that a note changed on disk, and closed notes' findings go stale.
// The request goes from its own goroutine: the connection reads the
// client's answer on the goroutine this handler runs on.
func (s *Server) initialized(ctx *glsp.Context, _ *protocol.InitializedParams) error {
	s.mu.Lock()
	watch := s.watch
	s.mu.Unlock()
	if watch {
		// Set now, before the answer, so that a save right after is
		// not walked for; a client that refuses has it unset.
		s.watching.Store(true)
		s.mu.Lock()
		call := s.call
		s.mu.Unlock()
		go func() {
			err := call(string(protocol.ServerClientRegisterCapability), protocol.RegistrationParams{Registrations: []protocol.Registration{{
				ID:     "zk-watch-vault",
				Method: string(protocol.MethodWorkspaceDidChangeWatchedFiles),
				RegisterOptions: protocol.DidChangeWatchedFilesRegistrationOptions{
					Watchers: []protocol.FileSystemWatcher{{GlobPattern: "**/*"}},
				},
			}}}, nil)
			if err != nil {
				s.watching.Store(false)
			}
		}()
	}
	return nil
}

// walkGap is how long after a walk the next one waits when the client
// watches the vault's files: a client that watches reports what changes
// on disk itself, but not every one all of it (eglot 1.9 no rename
// within a folder, no folder made after its start), so the walk still
// runs, at most once a walkGap, at most 2% of a core however large the
// vault. The caller holds rescanMu.
func (s *Server) walkGap() time.Duration { return max(30*time.Second, 50*s.walkCost) }

func (s *Server) initialize(_ *glsp.Context, params *protocol.InitializeParams) (any, error) {
	if s.ready {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: "initialize: already initialized"}
	}
	if s.live == nil {
		if s.opts.Open == nil {
			return nil, errors.New("initialize: no vault to serve")
		}
		opts, err := s.opts.Open(clientRoot(params))
		if err == nil && opts.Vault == nil {
			err = errors.New("no vault opened")
		}
		if err != nil {
			// Kept for Serve to return: zk lsp exits 2, as when --vault
			// names a vault it cannot open.
			s.openErr = fmt.Errorf("initialize: %w", err)
			return nil, s.openErr
		}
		s.use(opts)
		s.scan()
	}
	if ws := params.Capabilities.Workspace; ws != nil && ws.WorkspaceEdit != nil {
		s.mu.Lock()
		s.canCreate = slices.Contains(ws.WorkspaceEdit.ResourceOperations, protocol.ResourceOperationKindCreate)
		s.canRename = slices.Contains(ws.WorkspaceEdit.ResourceOperations, protocol.ResourceOperationKindRename)
		s.mu.Unlock()
	}
	if ws := params.Capabilities.Workspace; ws != nil && ws.DidChangeWatchedFiles != nil && ws.DidChangeWatchedFiles.DynamicRegistration != nil {
		s.mu.Lock()
		s.watch = *ws.DidChangeWatchedFiles.DynamicRegistration
		s.mu.Unlock()
	}
	if ws := params.Capabilities.Workspace; ws != nil && ws.CodeLens != nil && ws.CodeLens.RefreshSupport != nil {
		s.mu.Lock()
		s.lensRefresh = *ws.CodeLens.RefreshSupport
		s.mu.Unlock()
	}
	if w := params.Capabilities.Window; w != nil && w.ShowDocument != nil {
		s.mu.Lock()
		s.canShow = w.ShowDocument.Support
		s.mu.Unlock()
	}
	full := protocol.TextDocumentSyncKindFull
	yes := true
	var rename any = protocol.RenameOptions{PrepareProvider: &yes}
	if s.opts.ReadOnly {
		rename = nil // rename is zk mv's, which writes
	}
	s.ready = true
	return protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: protocol.TextDocumentSyncOptions{
				OpenClose: &yes, Change: &full, Save: true,
			},
			DefinitionProvider:      true,
			HoverProvider:           true,
			WorkspaceSymbolProvider: true,
			ReferencesProvider:      true,
			DocumentSymbolProvider:  true,
			CompletionProvider:      &protocol.CompletionOptions{TriggerCharacters: []string{"[", "#", "^", " "}},
			RenameProvider:          rename,
			CodeActionProvider:      protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix}},
			CodeLensProvider:        &protocol.CodeLensOptions{},
			ExecuteCommandProvider:  &protocol.ExecuteCommandOptions{Commands: s.commands()},
		},
		ServerInfo: &protocol.InitializeResultServerInfo{Name: "zk", Version: &s.opts.Version},
	}, nil
}

// clientRoot is the folder a client names as its workspace's root: its
// first workspace folder, else its rootUri, else its rootPath (the
// protocol's order: each later one deprecated for the one before); ""
// when it names none, or none a file: URI.
func clientRoot(params *protocol.InitializeParams) string {
	fromURI := func(uri string) string {
		u, err := url.Parse(uri)
		if err != nil || u.Scheme != "file" || u.Path == "" {
			return ""
		}
		return filepath.FromSlash(u.Path)
	}
	if len(params.WorkspaceFolders) > 0 {
		return fromURI(params.WorkspaceFolders[0].URI)
	}
	if params.RootURI != nil {
		return fromURI(*params.RootURI)
	}
	if params.RootPath != nil {
		return *params.RootPath
	}
	return ""
}

// vaultPath is the vault path of a file: URI, or false for a file outside
// the vault.
func (s *Server) vaultPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	p := filepath.FromSlash(u.Path)
	for _, dir := range []string{s.v.Dir, evalSymlinks(s.v.Dir)} {
		if rel, ok := vault.Within(dir, p); ok && rel != "." {
			return rel, true
		}
	}
	return "", false
}

func evalSymlinks(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// uriOf is the file: URI of a vault path.
func (s *Server) uriOf(p string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(s.v.Dir, filepath.FromSlash(p)))}
	return u.String()
}

func (s *Server) parse(p, text string) *vault.Note {
	ps := s.parsers.Get().(*vault.Parser)
	defer s.parsers.Put(ps)
	return ps.Parse(p, []byte(text))
}

func (s *Server) didOpen(_ *glsp.Context, params *protocol.DidOpenTextDocumentParams) error {
	p, ok := s.vaultPath(params.TextDocument.URI)
	if !ok {
		s.tellOutside(params.TextDocument.URI)
		return nil
	}
	if !vault.IsNotePath(p) {
		return nil
	}
	if err := s.waitEarly(); err != nil {
		return err
	}
	d := &document{uri: params.TextDocument.URI, path: p}
	s.mu.Lock()
	s.setText(d, params.TextDocument.Version, params.TextDocument.Text)
	s.docs[p] = d
	s.mu.Unlock()
	s.publish(p)
	s.rescan()
	return nil
}

// tellOutside says once a session that a Markdown file the editor
// opened is outside the vault the server serves, where it would get no
// diagnostics and no answers and the user could not tell why (a note
// of another vault, or the editor started from the wrong folder).
func (s *Server) tellOutside(uri string) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || !strings.EqualFold(path.Ext(u.Path), ".md") {
		return
	}
	s.mu.Lock()
	told := s.toldOutside
	s.toldOutside = true
	s.mu.Unlock()
	if told {
		return
	}
	s.notify(protocol.ServerWindowShowMessage, protocol.ShowMessageParams{Type: protocol.MessageTypeInfo,
		Message: fmt.Sprintf("zk: %s is outside the vault %s, so zk checks nothing in it; open the editor in its vault to have it checked",
			printable.Of(path.Base(u.Path)), printable.Of(s.v.Dir))})
}

// openTooLarge keeps the note at p, opened or changed to a text of size
// bytes that zk did not read (bounded.go), as too large, and says so.
func (s *Server) openTooLarge(p, uri string, version int32, size int64) {
	if s.waitEarly() != nil {
		return
	}
	s.mu.Lock()
	d := s.docs[p]
	if d == nil {
		d = &document{uri: uri, path: p}
		s.docs[p] = d
	}
	d.version, d.parsed, d.text, d.tooLarge = version, nil, "", int(size)
	s.mu.Unlock()
	s.publish(p)
}

// setText takes an editor's text as d's, unparsed, or only its size when
// it is over the cap. Called with s.mu held.
func (s *Server) setText(d *document, version int32, text string) {
	d.version, d.parsed, d.text, d.tooLarge = version, nil, text, 0
	if max := s.v.MaxNoteSize; max > 0 && int64(len(text)) > max {
		d.text, d.tooLarge = "", len(text)
	}
}

// docNote is d's note, parsed from its text the first time it is asked
// for since the text changed. Called with s.mu held.
func (s *Server) docNote(d *document) *vault.Note {
	if d.parsed == nil {
		d.parsed, d.text = s.parse(d.path, d.text), ""
	}
	return d.parsed
}

func (s *Server) didChange(_ *glsp.Context, params *protocol.DidChangeTextDocumentParams) error {
	p, ok := s.vaultPath(params.TextDocument.URI)
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[p]
	if d == nil || len(params.ContentChanges) == 0 {
		return nil
	}
	// Full sync: each change is the whole text; the last one is current.
	var text string
	switch c := params.ContentChanges[len(params.ContentChanges)-1].(type) {
	case protocol.TextDocumentContentChangeEventWhole:
		text = c.Text
	case protocol.TextDocumentContentChangeEvent:
		return fmt.Errorf("%s: a ranged change, but zk asked for full text sync", p)
	}
	version := params.TextDocument.Version
	s.setText(d, version, text)
	if t := s.timers[p]; t != nil {
		t.Stop()
	}
	wait := max(s.opts.Debounce, 2*time.Duration(s.checkCost.Load()))
	s.timers[p] = time.AfterFunc(wait, func() { s.publishVersion(p, version) })
	return nil
}

// didSave takes the saved text as the note's: its links into the graph
// for references, and a new check of every open note, whose links to
// this one may have broken or mended. The text is the one saved, taken
// now, even when the vault is still being read and the rest waits.
func (s *Server) didSave(_ *glsp.Context, params *protocol.DidSaveTextDocumentParams) error {
	p, ok := s.vaultPath(params.TextDocument.URI)
	if !ok {
		return nil
	}
	s.mu.Lock()
	d := s.docs[p]
	var n *vault.Note
	if d != nil {
		n = s.docNote(d)
	}
	s.mu.Unlock()
	s.whenKnown(func() {
		if s.wait() != nil {
			return
		}
		if n != nil {
			s.live.Update(n)
		}
		s.mu.Lock()
		open := s.openPaths()
		s.mu.Unlock()
		for _, q := range open {
			s.publish(q)
		}
		go s.recheckDependents(p)
		s.refreshLenses()
		s.rescan()
		if s.opts.onSaveTaken != nil {
			s.opts.onSaveTaken()
		}
	})
	return nil
}

// whenKnown runs f once every note is read: at once when it is, else
// from a goroutine of the session's once the vault is read, after the
// ones queued before it, so that a save and a change on disk are taken
// in the order they were told. A save or a change on disk told at the
// start waited for the read on the connection's one goroutine, holding
// every message after it (tens of seconds on 100,000 notes), as the
// requests that need the whole vault did before answerLater.
func (s *Server) whenKnown(f func()) {
	s.rescanMu.Lock()
	if s.stopped {
		s.rescanMu.Unlock()
		return
	}
	if !s.draining && isClosed(s.live.KnownDone()) {
		s.rescanMu.Unlock()
		f()
		return
	}
	s.queued = append(s.queued, f)
	if s.draining {
		s.rescanMu.Unlock()
		return
	}
	s.draining = true
	s.bg.Add(1) // under rescanMu: never once Serve waits (stopped)
	s.rescanMu.Unlock()
	go func() {
		defer s.bg.Done()
		select {
		case <-s.live.KnownDone():
		case <-s.ctx.Done():
		}
		for {
			s.rescanMu.Lock()
			if len(s.queued) == 0 || s.ctx.Err() != nil {
				s.queued, s.draining = nil, false
				s.rescanMu.Unlock()
				return
			}
			f := s.queued[0]
			s.queued = s.queued[1:]
			s.rescanMu.Unlock()
			f()
		}
	}()
}

func (s *Server) didClose(_ *glsp.Context, params *protocol.DidCloseTextDocumentParams) error {
	p, ok := s.vaultPath(params.TextDocument.URI)
	if !ok {
		return nil
	}
	s.mu.Lock()
	delete(s.docs, p)
	delete(s.sent, p)
	if t := s.timers[p]; t != nil {
		t.Stop()
		delete(s.timers, p)
	}
	notify := s.notify
	s.mu.Unlock()
	// The file on disk is the note again.
	if n, err := s.v.ReadNote(p); err == nil {
		s.live.UpdateSession(n)
	}
	notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: params.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}})
	return nil
}

// didChangeWatchedFiles takes notes changed outside the editor: a new
// walk when files came or went, and each changed note read again. Then,
// as after a save, the notes not open that link to or rest on a note
// changed or deleted are checked again (recheck.go), and the open ones;
// so are the notes changed themselves when not open, and a note deleted
// has the diagnostics published for it cleared.
func (s *Server) didChangeWatchedFiles(_ *glsp.Context, params *protocol.DidChangeWatchedFilesParams) error {
	var c workspace.FileChanges
	for _, ch := range params.Changes {
		p, ok := s.vaultPath(ch.URI)
		if !ok {
			continue
		}
		switch ch.Type {
		case uint32(protocol.FileChangeTypeDeleted):
			c.Deleted = append(c.Deleted, p)
		case uint32(protocol.FileChangeTypeCreated):
			c.Created = append(c.Created, p)
			c.Changed = append(c.Changed, p)
		default:
			c.Changed = append(c.Changed, p)
		}
	}
	s.whenKnown(func() {
		if s.wait() != nil {
			return
		}
		s.walking.Lock()
		again, changed, err := s.live.FilesChanged(context.Background(), c, s.isOpen)
		s.walking.Unlock()
		if err != nil {
			return
		}
		s.filesTaken(again, changed, c.Deleted, func(f func()) { go f() })
	})
	return nil
}

// filesTaken publishes what files changed on disk changed, once Live
// took them (FilesChanged, Rescan): the open notes checked again, and
// in the background (run runs it), the notes not open that again and
// changed name, the dependents of those changed and the notes deleted
// that had diagnostics published, which are cleared.
func (s *Server) filesTaken(again, changed, deleted []string, run func(func())) {
	s.mu.Lock()
	open := s.openPaths()
	s.mu.Unlock()
	for _, q := range open {
		s.publish(q)
	}
	run(func() {
		s.recheck.Lock()
		defer s.recheck.Unlock()
		// The notes changed are checked again themselves, not only
		// their dependents (which Affected gives without them), and
		// the notes deleted that had diagnostics published, which are
		// cleared (recheckNotes).
		qs := append(again, changed...)
		if len(changed) > 0 {
			qs = append(qs, s.affected(changed...)...)
		}
		qs = append(qs, s.sentUnder(deleted)...)
		slices.Sort(qs)
		s.recheckNotes(slices.Compact(qs))
	})
	s.refreshLenses()
}

// rescan walks the vault again in the background and takes the files
// that came, went or changed since the last walk (workspace.Live.Rescan),
// after a note is saved or opened: what a client that reports no change
// on disk (Neovim on Linux; eglot 1.9 a rename or a new folder) would
// never tell, a note made by zk new in a terminal or deleted by git. A
// rescan asked for while one runs runs once after it: a session's
// dozen notes opened at once cost two walks.
func (s *Server) rescan() {
	s.rescanMu.Lock()
	if s.watching.Load() && (s.rescanning || time.Since(s.walked) < s.walkGap()) {
		s.rescanMu.Unlock()
		return
	}
	if s.rescanning || s.stopped {
		if !s.rescanAgain && !s.stopped && s.opts.onRescan != nil {
			s.opts.onRescan()
		}
		s.rescanAgain = true
		s.rescanMu.Unlock()
		return
	}
	if s.opts.onRescan != nil {
		s.opts.onRescan()
	}
	s.rescanning = true
	s.bg.Add(1) // under rescanMu: never once Serve waits (stopped)
	s.rescanMu.Unlock()
	go func() {
		defer s.bg.Done()
		for {
			// Not s.wait(): Serve waits for this goroutine once the
			// client is gone, and the read of the vault may take
			// seconds more to stop.
			select {
			case <-s.live.KnownDone():
			case <-s.ctx.Done():
			}
			if s.ctx.Err() == nil && s.wait() == nil {
				// The walk takes no lock: a change reported meanwhile
				// waits only for the walk's changes to be taken.
				start := time.Now()
				w, err := s.live.Rescan(s.ctx)
				s.rescanMu.Lock()
				s.walked, s.walkCost = time.Now(), time.Since(start)
				s.rescanMu.Unlock()
				var again, changed []string
				var c workspace.FileChanges
				if err == nil {
					s.walking.Lock()
					again, changed, c, err = s.live.TakeWalk(w, s.isOpen)
					s.walking.Unlock()
				}
				if err == nil && len(c.Created)+len(c.Changed)+len(c.Deleted) > 0 {
					s.filesTaken(again, changed, c.Deleted, func(f func()) { f() })
				}
			}
			s.rescanMu.Lock()
			if !s.rescanAgain || s.ctx.Err() != nil {
				s.rescanning, s.rescanAgain = false, false
				s.rescanMu.Unlock()
				return
			}
			s.rescanAgain = false
			s.rescanMu.Unlock()
		}
	}()
}

// publish checks an open note's text and sends its diagnostics.
func (s *Server) publish(p string) { s.publishNote(p, false) }

// publishNote checks an open note's text and sends its diagnostics; when
// changed is set, only if they differ from those last sent for the same
// version (the check once the whole vault is read, which mostly finds
// what the first one did).
func (s *Server) publishNote(p string, changed bool) {
	// One at a time, so that what was sent last is what the client holds.
	s.publishing.Lock()
	defer s.publishing.Unlock()
	s.publishLocked(p, changed)
}

// publishVersion is publish for a change to version, unless a later
// change came while it waited: changes that come slower than the
// debounce but faster than a check (large ones) queue their timers here,
// and only the last is checked.
func (s *Server) publishVersion(p string, version int32) {
	s.publishing.Lock()
	defer s.publishing.Unlock()
	s.mu.Lock()
	d := s.docs[p]
	stale := d == nil || d.version != version
	s.mu.Unlock()
	if !stale {
		s.publishLocked(p, false)
	}
}

// publishLocked is publishNote with s.publishing held.
func (s *Server) publishLocked(p string, changed bool) {
	start := time.Now()
	defer func() { s.checkCost.Store(int64(time.Since(start))) }()
	s.mu.Lock()
	d := s.docs[p]
	notify := s.notify
	var n *vault.Note
	var version int32
	tooLarge := 0
	if d != nil {
		n, version, tooLarge = s.docNote(d), d.version, d.tooLarge // didChange replaces them under mu
	}
	s.mu.Unlock()
	if d == nil || !s.live.CanCheck() {
		return
	}
	if tooLarge > 0 {
		s.publishTooLarge(d, version, tooLarge, notify)
		return
	}
	fs, _ := s.live.Check(n) // before the walk, Scan checks it again after
	text := string(n.Src)
	diags := s.diagnostics(text, fs)
	key := fmt.Sprintf("v%d\n%s", version, findingsKey(fs))
	s.mu.Lock()
	same := d.sent == key
	d.sent = key
	s.mu.Unlock()
	if changed && same {
		return
	}
	v := protocol.UInteger(version)
	notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: d.uri, Version: &v, Diagnostics: diags})
	s.live.Answered() // the first diagnostics are out: the start may walk the vault
}

// publishTooLarge says, as the note's one diagnostic, that its text is
// over the cap and not checked: zk check skips such a file (file/skipped),
// at the severity the config gives the rule in that note, none when off
// or when zk check checks no such note (Options.Only).
func (s *Server) publishTooLarge(d *document, version int32, size int, notify func(string, any)) {
	key := fmt.Sprintf("v%d\ntoo large %d", version, size)
	s.mu.Lock()
	same := d.sent == key
	d.sent = key
	s.mu.Unlock()
	if same {
		return
	}
	diags := []protocol.Diagnostic{}
	f := lint.Finding{Path: d.path, Line: 1, Column: 1, Rule: lint.RuleFileSkipped,
		Message: fmt.Sprintf("not checked: the note is %d bytes, over the %d bytes zk reads of a note (zk check skips it too)", size, s.v.MaxNoteSize)}
	checked := s.opts.Lint.Only == nil || s.opts.Lint.Only(d.path) // zk check skips a template
	// No type: a note too large to read has none, as in zk check.
	if f.Severity = s.opts.Lint.SeverityAt(f.Rule, f.Path, ""); checked && f.Severity != lint.Off {
		diags = s.diagnostics("", []lint.Finding{f})
	}
	v := protocol.UInteger(version)
	notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: d.uri, Version: &v, Diagnostics: diags})
}

// findingsKey is what tells a note's diagnostics from others: a hash of
// each finding's span, rule and message ("" for none). A hash, not the
// text: a note of 70,000 findings made a key of megabytes at each check,
// kept for every note (issue 23).
func findingsKey(fs []lint.Finding) string {
	if len(fs) == 0 {
		return ""
	}
	h := fnv.New128a()
	var b []byte
	for _, f := range fs {
		b = strconv.AppendInt(b[:0], int64(f.Line), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(f.Column), 10)
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(f.EndLine), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(f.EndColumn), 10)
		b = append(b, ' ')
		b = append(b, f.Rule...)
		b = append(b, ' ')
		b = append(b, f.Message...)
		b = append(b, ' ', '0'+byte(f.Next.Step), ' ')
		b = strconv.AppendInt(b, int64(f.Next.Falsifier), 10)
		b = append(b, '\n')
		h.Write(b)
	}
	return string(h.Sum(nil))
}

// maxDiagnostics bounds the diagnostics published for one note: a note
// of 70,000 broken links would send megabytes at each change, which no
// editor shows usefully; the last says how many more zk check lists.
const maxDiagnostics = 1000

// diagnostics are the findings of a note as LSP diagnostics, at most
// maxDiagnostics of them, their positions found in one pass over the
// text (findings come in order).
func (s *Server) diagnostics(text string, fs []lint.Finding) []protocol.Diagnostic {
	starts, ends := &positioner{text: text}, &positioner{text: text}
	out := make([]protocol.Diagnostic, 0, min(len(fs), maxDiagnostics+1))
	for i, f := range fs {
		if i == maxDiagnostics {
			sev := protocol.DiagnosticSeverityInformation
			source := "zk"
			out = append(out, protocol.Diagnostic{Range: protocol.Range{Start: out[i-1].Range.Start, End: out[i-1].Range.End},
				Severity: &sev, Source: &source, Message: fmt.Sprintf("and %d more findings, not shown here: zk check lists them all", len(fs)-maxDiagnostics)})
			break
		}
		out = append(out, s.diagnosticAt(starts, ends, f))
	}
	return out
}

func (s *Server) diagnosticAt(starts, ends *positioner, f lint.Finding) protocol.Diagnostic {
	start := starts.at(f.Line, f.Column)
	end := start
	if f.EndLine > 0 {
		end = ends.at(f.EndLine, f.EndColumn)
	} else {
		// No span: the rest of the line, so that the client shows it.
		end = starts.lineEnd()
	}
	sev := protocol.DiagnosticSeverityWarning
	if f.Severity == lint.Error {
		sev = protocol.DiagnosticSeverityError
	}
	source := "zk"
	d := protocol.Diagnostic{Range: protocol.Range{Start: start, End: end}, Severity: &sev,
		Code: &protocol.IntegerOrString{Value: f.Rule}, Source: &source, Message: f.Text(lint.CommandLine)}
	if s.opts.HelpURL != nil {
		d.CodeDescription = &protocol.CodeDescription{HRef: s.opts.HelpURL(f.Rule)}
	}
	return d
}

// note is the note at p as the editor has it, else as saved.
func (s *Server) note(p string) (*vault.Note, error) {
	s.mu.Lock()
	var n *vault.Note
	if d := s.docs[p]; d != nil {
		n = s.docNote(d)
	}
	s.mu.Unlock()
	if n != nil {
		return n, nil
	}
	return s.v.ReadNote(p)
}

// hover on a link shows its target note: the title (its H1, else its
// name), its vault path, and its Claim, the one thing a claim note says.
func (s *Server) hover(_ *glsp.Context, params *protocol.HoverParams) (*protocol.Hover, error) {
	if err := s.waitNamed(); err != nil {
		return nil, err
	}
	n, err := s.noteOf(params.TextDocument.URI)
	if n == nil || err != nil {
		return nil, err
	}
	text := string(n.Src)
	l, ok := linkAt(n, offset(text, params.Position))
	if !ok {
		return nil, nil
	}
	to := n.Path
	if l.Path != "" {
		t, ok := s.live.Resolver().Resolve(l.Path, n.Path)
		if !ok || !vault.IsNotePath(t) {
			return nil, nil
		}
		to = t
	}
	target, err := s.note(to)
	if err != nil {
		return nil, nil // gone since the scan: nothing to show
	}
	rng := protocol.Range{Start: position(text, l.Span.Start.Offset), End: position(text, l.Span.End.Offset)}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: hoverText(target)}, Range: &rng}, nil
}

// workspaceSymbol lists the vault's notes whose name holds the query (case
// ignored), at most maxCompletions of them: in a vault, a note is the
// symbol one looks for.
func (s *Server) workspaceSymbol(_ *glsp.Context, params *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	if err := s.wait(); err != nil {
		return nil, err
	}
	q := strings.ToLower(params.Query)
	notes := s.live.Notes()
	out := []protocol.SymbolInformation{}
	for _, p := range notes {
		name := strings.TrimSuffix(path.Base(p), path.Ext(p))
		if !strings.Contains(strings.ToLower(name), q) {
			continue
		}
		out = append(out, protocol.SymbolInformation{Name: name, Kind: protocol.SymbolKindFile, Location: protocol.Location{URI: s.uriOf(p)}})
		if len(out) == maxCompletions {
			break
		}
	}
	return out, nil
}

// hoverText is a note as a hover shows it: title, path, Claim.
func hoverText(n *vault.Note) string {
	title := n.Name
	for _, h := range n.Headings {
		if h.Level == 1 {
			title = strings.TrimSpace(linksAsText(n, h))
			break
		}
	}
	out := "**" + title + "**  \n`" + n.Path + "`"
	if sec, ok := n.Section("Claim", 0); ok {
		if claim := strings.TrimSpace(string(n.Src[sec.Body:sec.End])); claim != "" {
			out += "\n\n" + claim
		}
	}
	return out
}

// linksAsText is heading h of n with each link in it written as its
// display text, as Obsidian shows a title ("About [[Rates|rates]]" is
// "About rates").
func linksAsText(n *vault.Note, h vault.Heading) string {
	hs, he := h.Span.Start.Offset, h.Span.End.Offset
	at := strings.Index(string(n.Src[hs:he]), h.Text)
	if at < 0 {
		return h.Text
	}
	from, to := hs+at, hs+at+len(h.Text)
	var b strings.Builder
	last := from
	for _, l := range n.Links { // in the order of the text
		if l.Span.Start.Offset < last || l.Span.End.Offset > to {
			continue
		}
		b.Write(n.Src[last:l.Span.Start.Offset])
		b.WriteString(l.DisplayText)
		last = l.Span.End.Offset
	}
	b.Write(n.Src[last:to])
	return b.String()
}

// noteOf is the note a document URI names, open or on disk; nil (and no
// error) for a document outside the vault or that is no note (a folder,
// a note deleted): a request there finds nothing, as LSP answers it. A
// URI no file can have is the client's error, said as such, never as
// the OS's ("statat ...: invalid argument").
func (s *Server) noteOf(uri protocol.DocumentUri) (*vault.Note, error) {
	if err := badURI(uri); err != nil {
		return nil, err
	}
	p, ok := s.vaultPath(uri)
	if !ok || !vault.IsNotePath(p) {
		return nil, nil
	}
	n, err := s.note(p)
	switch {
	case errors.Is(err, vault.ErrNotFound):
		return nil, nil
	case err != nil:
		if st, serr := s.v.Root().Stat(filepath.FromSlash(p)); serr == nil && !st.Mode().IsRegular() {
			return nil, nil // a folder named like a note
		}
		return nil, requestFailed("%s", printable.Of(err.Error()))
	}
	return n, nil
}

// badURI is why a document URI can name no file (it does not parse, or
// its path holds a NUL byte), or nil.
func badURI(uri string) error {
	u, err := url.Parse(uri)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) { // its text quotes the URI again
			err = ue.Err
		}
		return invalidParams("the document URI %s is malformed: %s", strconv.Quote(uri), printable.Of(err.Error()))
	}
	if strings.ContainsRune(u.Path, 0) {
		return invalidParams("the document URI %s names no file: its path holds a NUL byte (%%00)", strconv.Quote(uri))
	}
	return nil
}

// linkAt is the link of n at byte offset off: a link or embed of its
// body, or a frontmatter link (up: "[[Note]]"), every link zk's graph
// holds (vault.Note.GraphLinks) as references count them. A frontmatter
// link whose text is not in the frontmatter as parsed has an empty span,
// and is never under the cursor.
func linkAt(n *vault.Note, off int) (vault.Link, bool) {
	for l := range n.GraphLinks() {
		if l.Span.Start.Offset <= off && off < l.Span.End.Offset {
			return l, true
		}
	}
	return vault.Link{}, false
}

func (s *Server) definition(_ *glsp.Context, params *protocol.DefinitionParams) (any, error) {
	if err := s.waitNamed(); err != nil {
		return nil, err
	}
	n, err := s.noteOf(params.TextDocument.URI)
	if n == nil || err != nil {
		return nil, err
	}
	l, ok := linkAt(n, offset(string(n.Src), params.Position))
	if !ok {
		return nil, nil
	}
	loc, ok := s.target(n, l)
	if !ok {
		return nil, nil
	}
	return loc, nil
}

// target is where a link leads, resolved as zk check resolves it: the
// file, and in a note the heading or block its subpath names (else the
// note's start).
func (s *Server) target(from *vault.Note, l vault.Link) (protocol.Location, bool) {
	to := from.Path
	if l.Path != "" {
		t, ok := s.live.Resolver().Resolve(l.Path, from.Path)
		if !ok {
			return protocol.Location{}, false
		}
		to = t
	}
	loc := protocol.Location{URI: s.uriOf(to)}
	if !vault.IsNotePath(to) || l.Subpath == "" {
		return loc, true
	}
	n, err := s.note(to)
	if err != nil {
		return loc, true
	}
	text := string(n.Src)
	if l.IsBlockRef() {
		if b, ok := vault.BlockOf(n, l.Subpath[2:]); ok {
			loc.Range = protocol.Range{Start: position(text, b.Span.Start.Offset), End: position(text, b.Span.End.Offset)}
		}
		return loc, true
	}
	if h, ok := vault.HeadingOf(n, l.Subpath); ok {
		loc.Range = protocol.Range{Start: position(text, h.Span.Start.Offset), End: position(text, h.Span.End.Offset)}
	}
	return loc, true
}

// ref is a link or embed of a note, resolved, with its place in the
// note (workspace.LinksOf).
type ref = workspace.LinkRef

// rangeOf is the range of a link in the protocol's terms.
func rangeOf(r ref) protocol.Range {
	return protocol.Range{Start: protocol.Position{Line: r.Start.Line, Character: r.Start.Char},
		End: protocol.Position{Line: r.End.Line, Character: r.End.Char}}
}

func (s *Server) documentSymbol(_ *glsp.Context, params *protocol.DocumentSymbolParams) (any, error) {
	n, err := s.noteOf(params.TextDocument.URI)
	if n == nil || err != nil {
		return nil, err
	}
	return headingSymbols(n), nil
}

// headingKind is the symbol kind of a heading of level: a kind that
// outlines show as a section and tell apart by level, the title's
// (Module) from a section's (Namespace) from a subsection's (Key). The
// kind String that markdown servers give every heading is one that
// outlines hide or show as a bare string.
func headingKind(level int) protocol.SymbolKind {
	switch level {
	case 1:
		return protocol.SymbolKindModule
	case 2:
		return protocol.SymbolKindNamespace
	}
	return protocol.SymbolKindKey
}

// headingSymbols are a note's headings as a tree: each heading's children
// are the headings of its section.
func headingSymbols(n *vault.Note) []protocol.DocumentSymbol {
	type open struct {
		level int
		sym   *protocol.DocumentSymbol
	}
	var roots []*protocol.DocumentSymbol
	var stack []open
	children := map[*protocol.DocumentSymbol][]*protocol.DocumentSymbol{}
	spans := make([][2]int, 0, 2*len(n.Sections))
	for _, sec := range n.Sections {
		h := n.Headings[sec.Heading]
		spans = append(spans, [2]int{sec.Start, sec.End}, [2]int{h.Span.Start.Offset, h.Span.End.Offset})
	}
	ranges := spanRanges(n.Src, spans)
	for k, sec := range n.Sections {
		h := n.Headings[sec.Heading]
		sym := &protocol.DocumentSymbol{Name: strings.TrimSpace(h.Text), Kind: headingKind(h.Level),
			Range: ranges[2*k], SelectionRange: ranges[2*k+1]}
		if sym.Name == "" {
			sym.Name = "(empty heading)"
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= sec.Level {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			roots = append(roots, sym)
		} else {
			parent := stack[len(stack)-1].sym
			children[parent] = append(children[parent], sym)
		}
		stack = append(stack, open{sec.Level, sym})
	}
	var build func(*protocol.DocumentSymbol) protocol.DocumentSymbol
	build = func(sym *protocol.DocumentSymbol) protocol.DocumentSymbol {
		out := *sym
		for _, c := range children[sym] {
			out.Children = append(out.Children, build(c))
		}
		return out
	}
	out := []protocol.DocumentSymbol{}
	for _, r := range roots {
		out = append(out, build(r))
	}
	return out
}

// maxCompletions bounds a completion list; the client asks again as the
// user types more (isIncomplete).
const maxCompletions = 100

func (s *Server) completion(_ *glsp.Context, params *protocol.CompletionParams) (any, error) {
	if err := s.wait(); err != nil {
		return nil, err
	}
	n, err := s.noteOf(params.TextDocument.URI)
	if n == nil || err != nil {
		return nil, err
	}
	text := string(n.Src)
	off := offset(text, params.Position)
	ls := lineStart(text, int(params.Position.Line))
	line := text[ls:off]
	open := strings.LastIndex(line, "[[")
	if open < 0 || strings.Contains(line[open:], "]]") || strings.Contains(line[open:], "|") {
		if list := s.relationCompletion(n, text, off, ls); list != nil {
			return list, nil
		}
		if list := s.tagCompletion(n, text, off, line); list != nil {
			return list, nil
		}
		return nil, nil
	}
	typed := line[open+2:]
	at := off - len(typed) // where the typed text starts
	list := &protocol.CompletionList{Items: []protocol.CompletionItem{}}
	if name, sub, ok := strings.Cut(typed, "#"); ok {
		target := n
		if name != "" {
			t, ok := s.live.Resolver().Resolve(name, n.Path)
			if !ok || !vault.IsNotePath(t) {
				return list, nil
			}
			if target, err = s.note(t); err != nil {
				return list, nil
			}
		}
		at += len(name) + 1
		rng := protocol.Range{Start: position(text, at), End: params.Position}
		if id, ok := strings.CutPrefix(sub, "^"); ok {
			rng.Start = position(text, at+1)
			for _, b := range target.BlockIDs {
				if strings.HasPrefix(strings.ToLower(b.ID), strings.ToLower(id)) {
					list.Items = append(list.Items, item(b.ID, protocol.CompletionItemKindReference, rng))
				}
			}
			return list, nil
		}
		for _, h := range target.Headings {
			t := strings.TrimSpace(h.Text)
			link := vault.LinkHeading(t) // a heading holding [[x]] or | would end or split the link
			if strings.Contains(strings.ToLower(t), strings.ToLower(sub)) || strings.Contains(strings.ToLower(link), strings.ToLower(sub)) {
				it := item(t, protocol.CompletionItemKindReference, rng)
				if link != t {
					it.TextEdit, it.FilterText = protocol.TextEdit{Range: rng, NewText: link}, &link
				}
				list.Items = append(list.Items, it)
			}
		}
		return list, nil
	}
	rng := protocol.Range{Start: position(text, at), End: params.Position}
	want := strings.ToLower(typed)
	s.mu.Lock()
	var prefix, inside []protocol.CompletionItem
	links, lower, notes := s.live.CompletionLinks()
	// A folder typed ([[06 - Inbox/Se) is matched against each note's
	// path too, which its shortest link ("Seedbox") may not hold: nothing
	// was offered. The client filters by the path then.
	byPath := strings.Contains(want, "/")
	for i, link := range links {
		low := lower[i]
		it := item(link, protocol.CompletionItemKindFile, rng)
		if byPath && !strings.Contains(low, want) {
			p := strings.TrimSuffix(notes[i], path.Ext(notes[i]))
			if lp := strings.ToLower(p); strings.Contains(lp, want) {
				low, it.FilterText = lp, &p
			}
		}
		switch {
		case strings.HasPrefix(low, want) || strings.HasPrefix(path.Base(low), want):
			prefix = append(prefix, it)
		case strings.Contains(low, want):
			inside = append(inside, it)
		default:
			continue
		}
		if len(prefix) >= maxCompletions {
			list.IsIncomplete = true
			break
		}
	}
	s.mu.Unlock()
	items := append(prefix, inside...)
	if len(items) > maxCompletions {
		items, list.IsIncomplete = items[:maxCompletions], true
	}
	for i := range items {
		sortText := fmt.Sprintf("%04d", i)
		items[i].SortText = &sortText
	}
	list.Items = items
	return list, nil
}

func item(label string, kind protocol.CompletionItemKind, rng protocol.Range) protocol.CompletionItem {
	return protocol.CompletionItem{Label: label, Kind: &kind, TextEdit: protocol.TextEdit{Range: rng, NewText: label}}
}
