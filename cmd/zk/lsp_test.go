package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/zk-claims/zk/lsp"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/vaulttest"
	"github.com/zk-claims/zk/workspace"
)

// zk lsp's "create the note" action renders the note zk new creates: the
// vault's own template of the type, in the type's folder, dated by
// --today.
func TestLSPNewNoteIsZkNewsNote(t *testing.T) {
	dir := vaulttest.Dir(t, map[string]string{
		".zk/config.toml":            "[claims.types.permanent]\nfolder = \"Notes\"\n",
		".zk/templates/permanent.md": "# {{title}}\n\nMade {{date}}.\n\n## Claim\n\n## Maintenance\n\n- Last tended: {{date}}\n",
	})
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, ".config-home"))
	root := &rootOptions{vaultDir: dir, today: "2026-12-02", getenv: func(string) string { return "" }}
	var errb bytes.Buffer
	w, err := root.open(context.Background(), &streams{out: &bytes.Buffer{}, err: &errb}, workspace.Reading, "")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	p, text, err := lspNewNote(w)("", "Brand New")
	if err != nil {
		t.Fatal(err)
	}
	if p != "Notes/Brand New.md" {
		t.Errorf("path %q, want Notes/Brand New.md", p)
	}
	if want := "# Brand New\n\nMade 2026-12-02.\n\n## Claim\n\n## Maintenance\n\n- Last tended: 2026-12-02\n"; string(text) != want {
		t.Errorf("text:\n%s\nwant:\n%s", text, want)
	}
	if _, _, err := lspNewNote(w)("nope", "X"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("an unknown type: %v", err)
	}
}

// zk lsp's today is pinned by --today or $ZK_TODAY, else left to the
// server's clock, asked at each check.
func TestLSPTodayPinnedOnlyWhenAsked(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, ".config-home"))
	for _, tc := range []struct {
		name, flag, env string
		want            string // "" for not pinned
	}{
		{"neither", "", "", ""},
		{"--today", "2026-12-02", "", "2026-12-02"},
		{"$ZK_TODAY", "", "2026-11-30", "2026-11-30"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := &rootOptions{vaultDir: dir, today: tc.flag, getenv: func(k string) string {
				if k == "ZK_TODAY" {
					return tc.env
				}
				return ""
			}}
			w, err := root.open(context.Background(), &streams{out: &bytes.Buffer{}, err: &bytes.Buffer{}}, workspace.Reading, "")
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			got := lspOptions(root, w).Lint.Today
			if tc.want == "" {
				if !got.IsZero() {
					t.Errorf("today pinned to %v, want the clock's", got)
				}
			} else if got.Format("2006-01-02") != tc.want {
				t.Errorf("today %v, want %s", got, tc.want)
			}
		})
	}
}

// zk lsp's zk.new and zk.tend write as zk new and zk tend do, and only in
// a vault: in a folder with no .obsidian/ or .zk/ (and no --vault) the
// server offers neither write.
func TestLSPCommandsWriteAsTheCommands(t *testing.T) {
	dir := vaulttest.Dir(t, map[string]string{
		".zk/config.toml":            "[claims.types.permanent]\nfolder = \"Notes\"\n",
		".zk/templates/permanent.md": "# {{title}}\n\n## Maintenance\n\n- Last tended: {{date}}\n",
		"Notes/Old.md":               "# Old\n\n## Maintenance\n\n- Last tended: 2020-01-01\n",
	})
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, ".config-home"))
	root := &rootOptions{today: "2026-12-02", getenv: func(string) string { return "" }}
	t.Chdir(dir)
	w, err := root.open(context.Background(), &streams{out: &bytes.Buffer{}, err: &bytes.Buffer{}}, workspace.Reading, "")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	opts := lspOptions(root, w)
	if opts.Create == nil || opts.Tend == nil {
		t.Fatal("a vault's server offers no zk.new or zk.tend")
	}
	p, err := opts.Create(t.Context(), "", "Brand New")
	if err != nil || p != "Notes/Brand New.md" {
		t.Fatalf("zk.new: %q, %v", p, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "Notes", "Brand New.md")); string(b) != "# Brand New\n\n## Maintenance\n\n- Last tended: 2026-12-02\n" {
		t.Errorf("zk.new wrote %q", b)
	}
	if _, err := opts.Create(t.Context(), "", "brand new"); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("zk.new over a note: %v", err)
	}
	if unchanged, err := opts.Tend(t.Context(), "Notes/Old.md", "2026-12-01"); err != nil || unchanged {
		t.Fatalf("zk.tend: %v, %v", unchanged, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "Notes", "Old.md")); !strings.Contains(string(b), "- Last tended: 2026-12-01\n") {
		t.Errorf("zk.tend wrote %q", b)
	}

	plain := t.TempDir()
	t.Chdir(plain)
	w2, err := root.open(context.Background(), &streams{out: &bytes.Buffer{}, err: &bytes.Buffer{}}, workspace.Reading, "")
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if o := lspOptions(root, w2); o.Create != nil || o.Tend != nil {
		t.Error("a folder that is no vault is offered zk.new or zk.tend")
	}
}

// zk lsp's start reads the notes' entries from zk's per-note cache: a
// second start on the unchanged vault parses no note, and a note edited
// since is parsed again (its cached entry, stale, is not used).
func TestLSPStartParsesOnlyChangedNotes(t *testing.T) {
	dir := vaulttest.Dir(t, map[string]string{
		"A.md": "# A\n\nSee [[B#Why]].\n",
		"B.md": "# B\n\n## Why\n\nBecause.\n",
		"C.md": "# C\n\nAbout [[A]].\n",
	})
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, ".config-home"))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := &rootOptions{vaultDir: dir, today: "2026-12-02", getenv: func(string) string { return "" }}
	start := func() []string {
		t.Helper()
		w, err := root.open(context.Background(), &streams{out: &bytes.Buffer{}, err: &bytes.Buffer{}}, workspace.Reading, "")
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		opts := lspOptions(root, w)
		var parsed []string
		open := opts.Cache
		opts.Cache = func() workspace.EntryCache { return countingCache{open(), &parsed} }
		if err := lsp.New(opts).Scan(context.Background()); err != nil {
			t.Fatal(err)
		}
		slices.Sort(parsed)
		return parsed
	}
	if got := start(); strings.Join(got, " ") != "A.md B.md C.md" {
		t.Errorf("first start parsed %v, want every note", got)
	}
	// The next start names the files at once, from the model file's stamps.
	w, err := root.open(context.Background(), &streams{out: &bytes.Buffer{}, err: &bytes.Buffer{}}, workspace.Reading, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := lspOptions(root, w).Cache().Paths(); strings.Join(got, " ") != "A.md B.md C.md" {
		t.Errorf("the cache names %q, want every file", got)
	}
	w.Close()
	if got := start(); len(got) != 0 {
		t.Errorf("start on the unchanged vault parsed %v, want none", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "B.md"), []byte("# B\n\n## Why not\n\nBecause.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := start(); strings.Join(got, " ") != "B.md" {
		t.Errorf("start after B's edit parsed %v, want B.md", got)
	}
}

// countingCache is a cache that notes the path of every note read.
type countingCache struct {
	workspace.EntryCache
	parsed *[]string
}

func (c countingCache) Entries(ctx context.Context, files []vault.File, read func(func(string) (workspace.NoteEntry, bool), func(*vault.Note)) ([]workspace.NoteEntry, error)) ([]workspace.NoteEntry, error) {
	return c.EntryCache.Entries(ctx, files, func(reuse func(string) (workspace.NoteEntry, bool), hashed func(*vault.Note)) ([]workspace.NoteEntry, error) {
		var mu sync.Mutex
		return read(reuse, func(n *vault.Note) {
			mu.Lock()
			*c.parsed = append(*c.parsed, n.Path)
			mu.Unlock()
			hashed(n)
		})
	})
}

// lspSession is a client of runLSP in this process, over pipes.
type lspSession struct {
	conn  *jsonrpc2.Conn
	diags chan string // the URI and codes of each publishDiagnostics
	done  chan error  // runLSP's error
	init  string
}

func startLSP(t *testing.T, root *rootOptions, errb *bytes.Buffer, initParams map[string]any) *lspSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	l := &lspSession{diags: make(chan string, 100), done: make(chan error, 1)}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		l.done <- runLSP(ctx, root, &streams{in: inR, out: outW, err: errb})
		outW.Close()
	}()
	l.conn = jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(struct {
		io.Reader
		io.WriteCloser
	}{outR, inW}, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		// Answered off the reading goroutine, as an editor reads while it
		// answers: over a pipe, an answer written from the reader waits
		// for the server, which may be writing its own answer meanwhile.
		if req.Method == "textDocument/publishDiagnostics" {
			l.diags <- string(*req.Params)
		}
		return nil, nil
	})))
	// The server is waited for: it may still be saving its cache into a
	// folder of the test's, which t.TempDir removes after this cleanup
	// (it failed "directory not empty" under load).
	t.Cleanup(func() {
		l.conn.Close()
		cancel()
		inW.Close()
		<-stopped
	})
	var init json.RawMessage
	if err := l.conn.Call(ctx, "initialize", initParams, &init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	l.init = string(init)
	return l
}

// open opens the note at full and waits for its diagnostics.
func (l *lspSession) open(t *testing.T, full string) string {
	t.Helper()
	b, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	uri := lspURI(full)
	if err := l.conn.Notify(context.Background(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "markdown", "version": 1, "text": string(b)}}); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case d := <-l.diags:
			if strings.Contains(d, `"uri":"`+uri+`"`) {
				return d
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no diagnostics for %s", full)
		}
	}
}

func lspURI(full string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(full)}).String()
}

// Without --vault, zk lsp serves the vault the editor names as its root:
// the nearest folder up from it holding .obsidian/ or .zk/, whatever
// folder the editor started it in (Neovim starts it in its own working
// directory: from a home folder zk once walked all of it, read-only, and
// published nothing of the vault). A root that is in no vault is served
// only to read: zk.tend refuses even a note open in the editor.
func TestLSPVaultFromTheEditorsRoot(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config-home"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	vaultDir := vaulttest.Dir(t, map[string]string{
		".obsidian/app.json": "{}",
		"Notes/A.md":         "# A\n\nSee [[Missing]].\n",
	})
	plain := vaulttest.Dir(t, map[string]string{"B.md": "# B\n\n## Maintenance\n\n- Last tended: 2020-01-01\n"})
	t.Chdir(home) // the editor's folder, no vault
	root := &rootOptions{today: "2026-12-02", getenv: func(string) string { return "" }}

	var errb bytes.Buffer
	l := startLSP(t, root, &errb, map[string]any{"processId": nil, "rootUri": lspURI(filepath.Join(vaultDir, "Notes")), "capabilities": map[string]any{}})
	if d := l.open(t, filepath.Join(vaultDir, "Notes", "A.md")); !strings.Contains(d, "links/broken") {
		t.Errorf("diagnostics of the root's note: %s, want links/broken", d)
	}
	if !strings.Contains(l.init, "zk.tend") {
		t.Errorf("in the vault, initialize offers no zk.tend: %s", l.init)
	}
	if strings.Contains(errb.String(), "no .obsidian/") {
		t.Errorf("stderr: %s", errb.String())
	}

	var errb2 bytes.Buffer
	l = startLSP(t, root, &errb2, map[string]any{"processId": nil, "rootUri": lspURI(plain), "capabilities": map[string]any{}})
	if !strings.Contains(l.init, `"commands":["zk.references"]`) {
		t.Errorf("in a folder that is no vault, initialize offers %s, want zk.references alone", l.init)
	}
	l.open(t, filepath.Join(plain, "B.md"))
	var out json.RawMessage
	if err := l.conn.Call(context.Background(), "workspace/executeCommand", map[string]any{"command": "zk.tend",
		"arguments": []any{lspURI(filepath.Join(plain, "B.md"))}}, &out); err == nil || !strings.Contains(err.Error(), "no vault") {
		t.Errorf("zk.tend in a folder that is no vault: %s %v, want it refused", out, err)
	}
	if !strings.Contains(errb2.String(), "using "+plain+" as the vault, only to read") {
		t.Errorf("stderr: %q, want the read-only notice", errb2.String())
	}

	// An editor that names no root: the working directory's vault, here
	// none, so read-only again.
	t.Chdir(plain)
	var errb3 bytes.Buffer
	l = startLSP(t, root, &errb3, map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}})
	l.open(t, filepath.Join(plain, "B.md"))
	if err := l.conn.Call(context.Background(), "workspace/executeCommand", map[string]any{"command": "zk.tend",
		"arguments": []any{lspURI(filepath.Join(plain, "B.md"))}}, &out); err == nil || !strings.Contains(err.Error(), "no vault") {
		t.Errorf("zk.tend with no root, from a folder that is no vault: %s %v, want it refused", out, err)
	}
	if !strings.Contains(errb3.String(), "no .obsidian/ or .zk/ found; using "+plain) {
		t.Errorf("stderr: %q, want the working directory's notice", errb3.String())
	}

	// exit without shutdown: exit 1, as the protocol asks.
	if err := l.conn.Notify(context.Background(), "exit", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-l.done:
		if !errors.Is(err, errFindings) {
			t.Errorf("exit without shutdown: %v, want exit 1", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("zk lsp did not stop at exit")
	}
}

// The editor sees a rule's severity as zk check does, per path: an
// override makes links/broken an error in Permanent Notes/ and turns it
// off in Inbox/.
func TestLSPOverridesPerPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config-home"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	dir := vaulttest.Dir(t, map[string]string{
		".zk/config.toml": "[claims.rules]\n\"links/broken\" = \"warning\"\n" +
			"[[claims.overrides]]\npaths = [\"Inbox/**\"]\nrules = { \"links/broken\" = \"off\" }\n",
		"Inbox/A.md":  "# A\n\nSee [[Missing]].\n",
		"Drafts/B.md": "# B\n\nSee [[Missing]].\n",
	})
	root := &rootOptions{vaultDir: dir, today: "2026-12-02", getenv: func(string) string { return "" }}
	var errb bytes.Buffer
	l := startLSP(t, root, &errb, map[string]any{"processId": nil, "rootUri": lspURI(dir), "capabilities": map[string]any{}})
	if d := l.open(t, filepath.Join(dir, "Inbox", "A.md")); strings.Contains(d, "links/broken") {
		t.Errorf("diagnostics in Inbox/: %s, want links/broken off", d)
	}
	if d := l.open(t, filepath.Join(dir, "Drafts", "B.md")); !strings.Contains(d, `"code":"links/broken"`) || !strings.Contains(d, `"severity":2`) {
		t.Errorf("diagnostics in Drafts/: %s, want links/broken a warning", d)
	}
}

// The editor sees a rule's severity by the note's type as zk check does,
// and as the buffer says it: an override makes links/broken a warning in
// notes of type literature, and an edit that makes the note permanent
// makes it an error again before the note is saved.
func TestLSPOverridesPerType(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config-home"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	const lit = "---\ntype: literature\n---\n# A\n\nSee [[Missing]].\n"
	dir := vaulttest.Dir(t, map[string]string{
		".zk/config.toml": "[claims.types.literature]\n" +
			"[[claims.overrides]]\ntypes = [\"literature\"]\nrules = { \"links/broken\" = \"warning\" }\n",
		".zk/templates/literature.md": "# {{title}}\n\n## Maintenance\n\n- Last tended: {{date}}\n",
		"Permanent Notes/A.md":        lit,
	})
	root := &rootOptions{vaultDir: dir, today: "2026-12-02", getenv: func(string) string { return "" }}
	var errb bytes.Buffer
	l := startLSP(t, root, &errb, map[string]any{"processId": nil, "rootUri": lspURI(dir), "capabilities": map[string]any{}})
	full := filepath.Join(dir, "Permanent Notes", "A.md")
	if d := l.open(t, full); !strings.Contains(d, `"code":"links/broken"`) || !strings.Contains(d, `"severity":2`) {
		t.Errorf("diagnostics of a literature note: %s, want links/broken a warning", d)
	}
	uri := lspURI(full)
	if err := l.conn.Notify(context.Background(), "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": strings.Replace(lit, "literature", "permanent", 1)}}}); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case d := <-l.diags:
			if !strings.Contains(d, `"uri":"`+uri+`"`) {
				continue
			}
			type diagnostic struct {
				Code     string
				Severity int
			}
			var got struct{ Diagnostics []diagnostic }
			if err := json.Unmarshal([]byte(d), &got); err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(got.Diagnostics, diagnostic{"links/broken", 1}) {
				t.Errorf("diagnostics once the note is permanent: %s, want links/broken an error", d)
			}
			return
		case <-time.After(30 * time.Second):
			t.Fatal("no diagnostics after the change")
		}
	}
}
