package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/vault"
)

var refsVault = map[string]string{
	"Target.md": "---\ntags:\n  - measure\n  - \"#measure/rate\"\n---\n# Target\n\n## Why: it holds\n\nA paragraph. ^para\n\nSee [[#Why it holds]] and #measure here.\n\n## Other\n",
	"A.md":      "# A\n\n[[Target#Why it holds]] and [[Target#^para]] and [[Target]] #measure/rate\n",
	"B.md":      "---\ntags: [measure, other]\n---\n# B\n\n[[Target#why: IT holds]] and [[Target#Other]] and #measurement\n",
	"C.md":      "# C\n\n[[Target]] twice: [[Target|again]]\n",
}

// refAt is the position of the first occurrence of what in the note at p of
// refsVault, plus skip bytes.
func refAt(t *testing.T, p, what string, skip int) protocol.Position {
	t.Helper()
	text := refsVault[p]
	i := strings.Index(text, what)
	if i < 0 {
		t.Fatalf("%q not in %s", what, p)
	}
	return position(text, i+skip)
}

// refsAt asks for the references at pos of the note at p, as places
// "path:line:character".
func (c *client) refsAt(p string, pos protocol.Position, decl bool) []string {
	c.t.Helper()
	var locs []protocol.Location
	c.call(protocol.MethodTextDocumentReferences, protocol.ReferenceParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: c.uri(p)}, Position: pos},
		Context:                    protocol.ReferenceContext{IncludeDeclaration: decl}}, &locs)
	return c.places(locs)
}

func (c *client) places(locs []protocol.Location) []string {
	out := []string{}
	for _, l := range locs {
		rel, _ := filepath.Rel(c.dir, strings.TrimPrefix(l.URI, "file://"))
		out = append(out, fmt.Sprintf("%s:%d:%d", filepath.ToSlash(rel), l.Range.Start.Line, l.Range.Start.Character))
	}
	return out
}

// References ask about what is under the cursor: a heading, a block, a
// tag, a link's target, else the note.
func TestReferencesByPlace(t *testing.T) {
	c := startServerWith(t, refsVault, nil, map[string]any{})
	for _, tc := range []struct {
		name string
		p    string
		pos  protocol.Position
		decl bool
		want []string
	}{
		// The heading "Why: it holds", reached by [[Target#Why it holds]]
		// and [[Target#why: IT holds]] as zk check reaches it, and by the
		// note's own [[#Why it holds]].
		{"heading", "Target.md", refAt(t, "Target.md", "## Why", 4), false, []string{"A.md:2:0", "B.md:5:0", "Target.md:11:4"}},
		{"heading with its declaration", "Target.md", refAt(t, "Target.md", "## Why", 0), true, []string{"Target.md:7:0", "A.md:2:0", "B.md:5:0", "Target.md:11:4"}},
		{"heading, at the line's end", "Target.md", refAt(t, "Target.md", "holds\n\nA", 5), false, []string{"A.md:2:0", "B.md:5:0", "Target.md:11:4"}},
		{"another heading", "Target.md", refAt(t, "Target.md", "## Other", 3), false, []string{"B.md:5:29"}},
		{"block", "Target.md", refAt(t, "Target.md", "^para", 1), false, []string{"A.md:2:28"}},
		{"block, in its paragraph", "Target.md", refAt(t, "Target.md", "A paragraph", 2), false, []string{"A.md:2:28"}},
		// On a link: what it reaches.
		{"a link's heading", "A.md", refAt(t, "A.md", "[[Target#Why", 3), false, []string{"A.md:2:0", "B.md:5:0", "Target.md:11:4"}},
		{"a link's block", "A.md", refAt(t, "A.md", "[[Target#^para", 3), false, []string{"A.md:2:28"}},
		{"a link to the note", "A.md", refAt(t, "A.md", "[[Target]]", 3), false, []string{"A.md:2:0", "A.md:2:28", "A.md:2:49", "B.md:5:0", "B.md:5:29", "C.md:2:0", "C.md:2:18"}},
		// Tags: inline and frontmatter, nested ones under the tag asked
		// about; #measurement is another tag.
		{"inline tag", "Target.md", refAt(t, "Target.md", "#measure here", 2), false, []string{"A.md:2:60", "B.md:1:7", "Target.md:2:4", "Target.md:3:5", "Target.md:11:26"}},
		{"frontmatter tag", "B.md", refAt(t, "B.md", "measure", 1), false, []string{"A.md:2:60", "B.md:1:7", "Target.md:2:4", "Target.md:3:5", "Target.md:11:26"}},
		{"nested tag", "A.md", refAt(t, "A.md", "#measure/rate", 10), false, []string{"A.md:2:60", "Target.md:3:5"}},
		// The title, or anywhere else: the note's backlinks from other notes.
		{"the title", "Target.md", refAt(t, "Target.md", "# Target", 3), false, []string{"A.md:2:0", "A.md:2:28", "A.md:2:49", "B.md:5:0", "B.md:5:29", "C.md:2:0", "C.md:2:18"}},
		{"elsewhere", "Target.md", refAt(t, "Target.md", "See [[#", 1), false, []string{"A.md:2:0", "A.md:2:28", "A.md:2:49", "B.md:5:0", "B.md:5:29", "C.md:2:0", "C.md:2:18"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.refsAt(tc.p, tc.pos, tc.decl); !slices.Equal(got, tc.want) {
				t.Errorf("references at %s %+v:\n got %v\nwant %v", tc.p, tc.pos, got, tc.want)
			}
		})
	}
}

// A note open in the editor counts with its unsaved text.
func TestReferencesSeeUnsavedText(t *testing.T) {
	c := startServerWith(t, refsVault, nil, map[string]any{})
	c.openText("C.md", "# C\n\nnow [[Target#Other]]\n")
	want := []string{"B.md:5:29", "C.md:2:4"}
	if got := c.refsAt("Target.md", refAt(t, "Target.md", "## Other", 3), false); !slices.Equal(got, want) {
		t.Errorf("references to Other: %v, want %v", got, want)
	}
}

func TestFrontmatterTagSpans(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"---\ntags:\n  - a\n  - \"#b/c\"\n# a comment\ntitle: a\n---\n", []string{"a", "#b/c"}},
		{"---\ntags: [a, b] # b\n---\n", []string{"a", "b"}},
		{"---\ntags: single\naliases: [tags]\n---\n", []string{"single"}},
		{"---\ntitle: x\n---\n#inline", nil},
		{"---\ntags: a, b\n---\n", nil}, // several in one string: no tag, as in Obsidian
	} {
		n := vault.NewParser().Parse("n.md", []byte(tc.src))
		var got []string
		for _, s := range frontmatterTagSpans(n) {
			if tc.src[s.start:s.end] != s.tag {
				t.Errorf("%q: span %d-%d is %q, not %q", tc.src, s.start, s.end, tc.src[s.start:s.end], s.tag)
			}
			got = append(got, s.tag)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: tags %v, want %v", tc.src, got, tc.want)
		}
	}
}

// lenses are the code lenses of the note at p, as "line: title", each
// with the command and arguments that list the references it counts.
func (c *client) lenses(p string) []string {
	c.t.Helper()
	var ls []protocol.CodeLens
	c.call(protocol.MethodTextDocumentCodeLens, protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: c.uri(p)}}, &ls)
	out := []string{}
	for _, l := range ls {
		if l.Command == nil || l.Command.Command != CommandReferences || len(l.Command.Arguments) != 2 {
			c.t.Fatalf("lens %+v: no %s command", l, CommandReferences)
		}
		// Run it: it lists as many references as the lens counts.
		var locs []protocol.Location
		c.call(protocol.MethodWorkspaceExecuteCommand, protocol.ExecuteCommandParams{Command: l.Command.Command, Arguments: l.Command.Arguments}, &locs)
		if n, _, _ := strings.Cut(l.Command.Title, " "); n != fmt.Sprint(len(locs)) {
			c.t.Errorf("lens %q lists %d references: %v", l.Command.Title, len(locs), c.places(locs))
		}
		out = append(out, fmt.Sprintf("%d: %s", l.Range.Start.Line, l.Command.Title))
	}
	return out
}

func TestCodeLensCountsBacklinks(t *testing.T) {
	c := startServerWith(t, refsVault, nil, map[string]any{})
	for _, tc := range []struct {
		p    string
		want []string
	}{
		{"Target.md", []string{"5: 7 backlinks", "7: 3 links to this heading", "13: 1 link to this heading", "9: 1 link to this block"}},
		{"A.md", []string{"0: 0 backlinks"}},
	} {
		if got := c.lenses(tc.p); !slices.Equal(got, tc.want) {
			t.Errorf("lenses of %s: %v, want %v", tc.p, got, tc.want)
		}
	}
	// A link added and saved changes the count; a client that can is
	// asked to refresh its lenses.
	c2 := startServerWith(t, refsVault, nil, map[string]any{"workspace": map[string]any{"codeLens": map[string]any{"refreshSupport": true}}})
	text := refsVault["A.md"] + "[[C]]\n"
	c2.openText("A.md", text)
	if err := os.WriteFile(filepath.Join(c2.dir, "A.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c2.conn.Notify(context.Background(), protocol.MethodTextDocumentDidSave, map[string]any{"textDocument": map[string]any{"uri": c2.uri("A.md")}})
	if req := c2.nextCall(); req.Method != string(protocol.ServerWorkspaceCodeLensRefresh) {
		t.Errorf("after a save the server asked %s, want %s", req.Method, protocol.ServerWorkspaceCodeLensRefresh)
	}
	if got := c2.lenses("C.md"); !slices.Equal(got, []string{"0: 1 backlink"}) {
		t.Errorf("lenses of C.md after A.md links it: %v", got)
	}
}

// nextCall waits for the server's next request to the client.
func (c *client) nextCall() *jsonrpc2.Request {
	c.t.Helper()
	select {
	case req := <-c.calls:
		return req
	case <-time.After(30 * time.Second):
		c.t.Fatal("the server asked the client nothing")
	}
	return nil
}

// execute runs a command, returning its result or its error.
func (c *client) execute(command string, args ...any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out json.RawMessage
	err := c.conn.Call(ctx, protocol.MethodWorkspaceExecuteCommand, protocol.ExecuteCommandParams{Command: command, Arguments: args}, &out)
	return out, err
}

func TestExecuteCommandNew(t *testing.T) {
	var asked []string
	c := startServerWith(t, refsVault, func(o *Options) {
		o.Create = func(_ context.Context, typ, title string) (string, error) {
			asked = append(asked, typ+"/"+title)
			p := "Notes/" + title + ".md"
			if err := os.MkdirAll(filepath.Join(o.Vault.Dir, "Notes"), 0o755); err != nil {
				return "", err
			}
			return p, os.WriteFile(filepath.Join(o.Vault.Dir, p), []byte("# "+title+"\n"), 0o644)
		}
	}, map[string]any{"window": map[string]any{"showDocument": map[string]any{"support": true}}})
	c.openText("C.md", "# C\n\n[[Fresh]]\n")
	if d := c.nextDiags("C.md"); len(d.Diagnostics) != 1 {
		t.Fatalf("before: %v", codes(d))
	}
	out, err := c.execute(CommandNew, map[string]any{"title": "Fresh", "type": "permanent"})
	if err != nil {
		t.Fatal(err)
	}
	var res commandResult
	if err := json.Unmarshal(out, &res); err != nil || res.Path != "Notes/Fresh.md" || res.URI != c.uri("Notes/Fresh.md") {
		t.Fatalf("zk.new: %s (%v)", out, err)
	}
	if !slices.Equal(asked, []string{"permanent/Fresh"}) {
		t.Errorf("Create asked %v", asked)
	}
	// The editor is asked to show it, and the open note's link to it mends.
	if req := c.nextCall(); req.Method != string(protocol.ServerWindowShowDocument) || !strings.Contains(string(*req.Params), "Fresh.md") {
		t.Errorf("after zk.new the server asked %s %s", req.Method, *req.Params)
	}
	if d := c.nextDiags("C.md"); len(d.Diagnostics) != 0 {
		t.Errorf("after zk.new: %v", codes(d))
	}
	// A title alone is an argument too.
	if _, err := c.execute(CommandNew, "Second"); err != nil {
		t.Error(err)
	}
	if _, err := c.execute(CommandNew); err == nil || !strings.Contains(err.Error(), "takes a title") {
		t.Errorf("zk.new without a title: %v", err)
	}
}

func TestExecuteCommandTend(t *testing.T) {
	files := map[string]string{
		"Old.md":    "# Old\n\n## Maintenance\n\n- Last tended: 2020-01-01\n",
		"Closed.md": "# Closed\n\n## Maintenance\n\n- Last tended: 2020-01-01\n",
	}
	var tended []string
	c := startServerWith(t, files, func(o *Options) {
		o.Tend = func(_ context.Context, p, date string) (bool, error) {
			tended = append(tended, p+" "+date)
			return false, nil
		}
		o.Clock = func() time.Time { return time.Date(2026, 3, 4, 15, 0, 0, 0, time.Local) }
	}, map[string]any{})
	// Open: the edit goes to the editor, which holds the text.
	c.openText("Old.md", files["Old.md"])
	out, err := c.execute(CommandTend, c.uri("Old.md"))
	if err != nil {
		t.Fatal(err)
	}
	var res commandResult
	if err := json.Unmarshal(out, &res); err != nil || !res.InEditor || res.Date != "2026-03-04" {
		t.Fatalf("zk.tend on an open note: %s", out)
	}
	// The edit was asked for before the answer: jsonrpc.el (eglot) reads
	// no further than the answer it waits for in a chunk of messages.
	c.askedMu.Lock()
	asked := slices.Clone(c.asked)
	c.askedMu.Unlock()
	if !slices.Contains(asked, string(protocol.ServerWorkspaceApplyEdit)) {
		t.Errorf("when zk.tend answered, the server had asked %v, not %s", asked, protocol.ServerWorkspaceApplyEdit)
	}
	req := c.nextCall()
	var apply struct {
		Edit struct {
			DocumentChanges []struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
				} `json:"textDocument"`
				Edits []protocol.TextEdit `json:"edits"`
			} `json:"documentChanges"`
		} `json:"edit"`
	}
	if req.Method != string(protocol.ServerWorkspaceApplyEdit) || json.Unmarshal(*req.Params, &apply) != nil ||
		len(apply.Edit.DocumentChanges) != 1 || apply.Edit.DocumentChanges[0].TextDocument.Version != 1 ||
		len(apply.Edit.DocumentChanges[0].Edits) != 1 {
		t.Fatalf("zk.tend asked %s %s", req.Method, *req.Params)
	}
	e := apply.Edit.DocumentChanges[0].Edits[0]
	text := files["Old.md"]
	if got := text[:offset(text, e.Range.Start)] + e.NewText + text[offset(text, e.Range.End):]; !strings.Contains(got, "- Last tended: 2026-03-04\n") {
		t.Errorf("zk.tend's edit makes %q", got)
	}
	if len(tended) != 0 {
		t.Errorf("an open note was written on disk: %v", tended)
	}
	// Closed: written through Options.Tend, with the date asked for.
	out, err = c.execute(CommandTend, map[string]any{"uri": c.uri("Closed.md"), "date": "2026-01-02"})
	if err != nil || !slices.Equal(tended, []string{"Closed.md 2026-01-02"}) {
		t.Errorf("zk.tend on a closed note: %s %v, Tend got %v", out, err, tended)
	}
	// Nor a file out of the vault, nor a .md in a dot folder (git runs
	// what .git/hooks holds), as zk tend refuses them.
	for _, bad := range []any{map[string]any{"uri": c.uri("Closed.md"), "date": "soon"}, "file:///elsewhere/x.md", c.uri(".git/hooks/pre-commit.md"), c.uri(".zk/templates/permanent.md")} {
		if _, err := c.execute(CommandTend, bad); err == nil {
			t.Errorf("zk.tend %v: no error", bad)
		} else if e, ok := err.(*jsonrpc2.Error); !ok || e.Code != jsonrpc2.CodeInvalidParams {
			t.Errorf("zk.tend %v: %v, want invalid params", bad, err)
		}
	}
}

func TestExecuteCommandUnknown(t *testing.T) {
	c := startServer(t)
	init := c.init
	// Without Options.Create there is no zk.new; no command runs a shell.
	if !strings.Contains(string(init), `"commands":["zk.references","zk.tend"]`) {
		t.Errorf("initialize: %s", init)
	}
	for _, cmd := range []string{"zk.new", "zk.run", "sh"} {
		_, err := c.execute(cmd, "x")
		if e, ok := err.(*jsonrpc2.Error); !ok || e.Code != jsonrpc2.CodeInvalidParams || !strings.Contains(e.Message, "unknown command") {
			t.Errorf("%s: %v, want invalid params, unknown command", cmd, err)
		}
	}
}

func TestHeadingKinds(t *testing.T) {
	n := vault.NewParser().Parse("n.md", []byte("# T\n## S\n### U\n###### V\n"))
	syms := headingSymbols(n)
	got := []protocol.SymbolKind{syms[0].Kind, syms[0].Children[0].Kind, syms[0].Children[0].Children[0].Kind, syms[0].Children[0].Children[0].Children[0].Kind}
	want := []protocol.SymbolKind{protocol.SymbolKindModule, protocol.SymbolKindNamespace, protocol.SymbolKindKey, protocol.SymbolKindKey}
	if !slices.Equal(got, want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
}

func TestExecuteCommandRejudge(t *testing.T) {
	files := map[string]string{"N.md": "# N\n\n## Evidence\n", "M.md": "# M\n\n## Evidence\n"}
	var asked []string
	c := startServerWith(t, files, func(o *Options) {
		o.Rejudge = func(_ context.Context, p, falsifier string) ([]string, error) {
			asked = append(asked, p+" "+falsifier)
			full := filepath.Join(o.Vault.Dir, p)
			b, err := os.ReadFile(full)
			if err != nil {
				return nil, err
			}
			return []string{"falsifier 1: refutes, judged supports"}, os.WriteFile(full, append(b, "\n- Judged again\n"...), 0o644)
		}
	}, map[string]any{})
	if !strings.Contains(string(c.init), `"zk.rejudge"`) {
		t.Errorf("initialize lists no zk.rejudge: %s", c.init)
	}
	// Not open: written on disk, nothing asked of the editor.
	out, err := c.execute(CommandRejudge, map[string]any{"uri": c.uri("M.md"), "falsifier": 1})
	if err != nil || !strings.Contains(string(out), "judged supports") || !slices.Equal(asked, []string{"M.md 1"}) {
		t.Fatalf("zk.rejudge on a closed note: %s %v, asked %v", out, err, asked)
	}
	// Open and saved: the buffer is brought to the text written.
	c.openText("N.md", files["N.md"])
	if _, err := c.execute(CommandRejudge, c.uri("N.md")); err != nil {
		t.Fatal(err)
	}
	if req := c.nextCall(); req.Method != string(protocol.ServerWorkspaceApplyEdit) || !strings.Contains(string(*req.Params), "Judged again") {
		t.Errorf("after zk.rejudge of an open note the server asked %s %s", req.Method, *req.Params)
	}
	// Open with unsaved changes: refused, nothing judged.
	c.conn.Notify(context.Background(), protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": c.uri("N.md"), "version": 2},
		"contentChanges": []map[string]any{{"text": "# N\n\nunsaved\n"}}})
	if _, err := c.execute(CommandRejudge, c.uri("N.md")); err == nil || !strings.Contains(err.Error(), "unsaved changes") {
		t.Errorf("zk.rejudge with unsaved changes: %v", err)
	}
	if len(asked) != 2 {
		t.Errorf("Rejudge asked %v", asked)
	}
}
