package lsp

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// change is a WorkspaceEdit's documentChanges entry as the client reads
// it: a text document's edits, or a resource operation.
type change struct {
	Kind         string `json:"kind"`
	OldURI       string `json:"oldUri"`
	NewURI       string `json:"newUri"`
	TextDocument struct {
		URI     string `json:"uri"`
		Version *int   `json:"version"`
	} `json:"textDocument"`
	Edits []protocol.TextEdit `json:"edits"`
}

// applyEdits applies a file's text edits to text, as a client does.
func applyEdits(text string, edits []protocol.TextEdit) string {
	sort.Slice(edits, func(i, j int) bool { return offset(text, edits[i].Range.Start) > offset(text, edits[j].Range.Start) })
	for _, e := range edits {
		text = text[:offset(text, e.Range.Start)] + e.NewText + text[offset(text, e.Range.End):]
	}
	return text
}

// overlapping are two edits of one document whose ranges overlap, or
// false when none do.
func overlapping(text string, edits []protocol.TextEdit) (a, b protocol.TextEdit, ok bool) {
	for i, x := range edits {
		for _, y := range edits[i+1:] {
			xs, xe := offset(text, x.Range.Start), offset(text, x.Range.End)
			ys, ye := offset(text, y.Range.Start), offset(text, y.Range.End)
			if xs < ye && ys < xe || xs == ys {
				return x, y, true
			}
		}
	}
	return a, b, false
}

func (c *client) rename(p string, pos protocol.Position, name string) (map[string]string, []change) {
	c.t.Helper()
	var we struct {
		DocumentChanges []change `json:"documentChanges"`
	}
	c.call(protocol.MethodTextDocumentRename, protocol.RenameParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: c.uri(p)}, Position: pos}, NewName: name}, &we)
	after := map[string]string{}
	var renames []change
	for _, ch := range we.DocumentChanges {
		if ch.Kind == "rename" {
			renames = append(renames, ch)
			continue
		}
		rel := strings.TrimPrefix(ch.TextDocument.URI, c.uri("")+"/")
		if a, b, ok := overlapping(testVault[rel], ch.Edits); ok {
			// LSP forbids it, and VS Code refuses the whole edit.
			c.t.Errorf("%s: edits %+v and %+v overlap", rel, a, b)
		}
		after[rel] = applyEdits(testVault[rel], ch.Edits)
	}
	return after, renames
}

func (c *client) prepare(p string, pos protocol.Position) *protocol.RangeWithPlaceholder {
	c.t.Helper()
	var r *protocol.RangeWithPlaceholder
	c.call(protocol.MethodTextDocumentPrepareRename, protocol.PrepareRenameParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: c.uri(p)}, Position: pos}}, &r)
	return r
}

// startRenaming starts a server for a client that can rename files in a
// workspace edit.
func startRenaming(t *testing.T) *client {
	t.Helper()
	return startServerWith(t, testVault, nil, canCreate)
}

// at is the position of the first want in the note's text, plus k.
func at(p, want string, k int) protocol.Position {
	text := testVault[p]
	return position(text, strings.Index(text, want)+k)
}

// Rename on a link renames the note it reaches: the file (RenameFile) and
// every link to it, in zk mv's plan.
func TestRenameNoteFromLink(t *testing.T) {
	c := startRenaming(t)
	pos := at("Rates.md", "[[Speedups#Baseline]]", 4)
	r := c.prepare("Rates.md", pos)
	if r == nil || r.Placeholder != "Speedups" || r.Range.Start != at("Rates.md", "Speedups#Baseline", 0) {
		t.Fatalf("prepareRename: %+v", r)
	}
	after, renames := c.rename("Rates.md", pos, "Gains")
	want := strings.ReplaceAll(testVault["Rates.md"], "Speedups", "Gains")
	if after["Rates.md"] != want {
		t.Errorf("Rates.md:\n%s\nwant:\n%s", after["Rates.md"], want)
	}
	if len(renames) != 1 || renames[0].OldURI != c.uri("Speedups.md") || renames[0].NewURI != c.uri("Gains.md") {
		t.Errorf("renames %+v", renames)
	}
}

// On the note's title (its H1 that names it), the H1 follows the name.
func TestRenameNoteFromTitle(t *testing.T) {
	c := startRenaming(t)
	c.open("Speedups.md")
	c.nextDiags("Speedups.md")
	after, renames := c.rename("Speedups.md", protocol.Position{Line: 0, Character: 4}, "Gains")
	if !strings.HasPrefix(after["Speedups.md"], "# Gains\n") {
		t.Errorf("title not renamed: %q", after["Speedups.md"])
	}
	if len(renames) != 1 || renames[0].NewURI != c.uri("Gains.md") {
		t.Errorf("renames %+v", renames)
	}
	if !strings.Contains(after["Rates.md"], "[[Gains#Baseline]]") {
		t.Errorf("Rates.md: %q", after["Rates.md"])
	}
}

// On a link's #heading, or on the heading line, the heading is renamed
// and every link to it; no file moves.
func TestRenameHeading(t *testing.T) {
	c := startServer(t)
	pos := at("Rates.md", "#Baseline", 2)
	r := c.prepare("Rates.md", pos)
	if r == nil || r.Placeholder != "Baseline" {
		t.Fatalf("prepareRename: %+v", r)
	}
	for _, from := range []struct {
		p   string
		pos protocol.Position
	}{{"Rates.md", pos}, {"Speedups.md", at("Speedups.md", "## Baseline", 4)}} {
		after, renames := c.rename(from.p, from.pos, "Control")
		if len(renames) != 0 {
			t.Errorf("renames %+v", renames)
		}
		if !strings.Contains(after["Rates.md"], "[[Speedups#Control]]") || !strings.Contains(after["Speedups.md"], "## Control\n") {
			t.Errorf("from %s: %q, %q", from.p, after["Rates.md"], after["Speedups.md"])
		}
	}
}

// Nothing to rename off links and headings; an unsaved note is refused.
func TestRenameRefuses(t *testing.T) {
	c := startRenaming(t)
	if r := c.prepare("Rates.md", at("Rates.md", "See", 1)); r != nil {
		t.Errorf("prepareRename off a link: %+v", r)
	}
	if r := c.prepare("Rates.md", at("Rates.md", "[[Missing]]", 3)); r != nil {
		t.Errorf("prepareRename on a broken link: %+v", r)
	}
	c.openText("Rates.md", testVault["Rates.md"]+"unsaved\n")
	c.nextDiags("Rates.md")
	var we json.RawMessage
	err := c.conn.Call(t.Context(), protocol.MethodTextDocumentRename, protocol.RenameParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("Speedups.md")}, Position: at("Speedups.md", "# Speedups", 3)}, NewName: "Gains"}, &we)
	if err == nil || !strings.Contains(err.Error(), "unsaved changes") {
		t.Errorf("rename with Rates.md unsaved: %v, %s", err, we)
	}
}

// A client that does not declare it can rename files (Emacs eglot, Sublime
// LSP) would apply every link edit of a note's rename and drop the file's
// rename, breaking every link: the note's rename is refused, naming zk mv;
// a heading's rename, which moves no file, still works. A client that
// declares create (and delete) but not rename is such a client: the
// capability that counts is rename's.
func TestRenameNeedsTheClientToRenameFiles(t *testing.T) {
	edits := func(ops ...string) map[string]any {
		return map[string]any{"workspace": map[string]any{"workspaceEdit": map[string]any{
			"documentChanges": true, "resourceOperations": ops}}}
	}
	for _, tc := range []struct {
		name string
		caps map[string]any
	}{
		{"nothing declared", map[string]any{}},
		{"no resource operations", edits()},
		{"create only", edits("create")},
		{"create and delete", edits("create", "delete")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startServerWith(t, testVault, nil, tc.caps)
			var we json.RawMessage
			err := c.conn.Call(t.Context(), protocol.MethodTextDocumentRename, protocol.RenameParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("Rates.md")}, Position: at("Rates.md", "[[Speedups#Baseline]]", 4)}, NewName: "Gains"}, &we)
			if err == nil || !strings.Contains(err.Error(), "zk mv") || !strings.Contains(err.Error(), "cannot rename files") {
				t.Errorf("note rename without the rename capability: %v, %s", err, we)
			}
			after, renames := c.rename("Rates.md", at("Rates.md", "#Baseline", 2), "Control")
			if len(renames) != 0 || !strings.Contains(after["Rates.md"], "[[Speedups#Control]]") {
				t.Errorf("heading rename: %+v, %q", renames, after["Rates.md"])
			}
		})
	}
}

// A rename into a folder that is a symlink leading outside the vault is
// refused, as zk mv refuses it.
func TestRenameRefusesALinkOutside(t *testing.T) {
	c := startRenaming(t)
	if err := os.Symlink(t.TempDir(), filepath.Join(c.dir, "out")); err != nil {
		t.Skip(err)
	}
	var we json.RawMessage
	err := c.conn.Call(t.Context(), protocol.MethodTextDocumentRename, protocol.RenameParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("Rates.md")}, Position: at("Rates.md", "[[Speedups#Baseline]]", 4)}, NewName: "out/Gains"}, &we)
	if err == nil || !strings.Contains(err.Error(), "outside the vault") {
		t.Errorf("rename through a link outside: %v, %s", err, we)
	}
}

// A rename into a dot folder (.git/hooks, .obsidian, .zk), out of the
// vault, or onto a case twin of another note is refused, as zk mv refuses
// it.
func TestRenameRefusesDotFoldersAndOutside(t *testing.T) {
	c := startRenaming(t)
	for name, want := range map[string]string{
		".git/hooks/pre-commit": "dot folder",
		".obsidian/Gains":       "dot folder",
		"Notes/.Gains":          "dot folder",
		"../Gains":              "outside the vault",
		"RATES":                 "only by case or Unicode form", // a twin of Rates.md
	} {
		var we json.RawMessage
		err := c.conn.Call(t.Context(), protocol.MethodTextDocumentRename, protocol.RenameParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("Rates.md")}, Position: at("Rates.md", "[[Speedups#Baseline]]", 4)}, NewName: name}, &we)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("rename to %s: %v, %s; want %q", name, err, we, want)
		}
	}
}

// A rename refused is the client's to mend, not zk's failure: a new name
// no link can write, or in a dot folder or outside, is InvalidParams; a
// rename understood but not doable (the name taken, nothing to rename
// there, a note with unsaved changes) is RequestFailed (LSP 3.17). Each
// was InternalError, which clients show as a server bug.
func TestRenameRefusalCodes(t *testing.T) {
	c := startRenaming(t)
	onLink := at("Rates.md", "[[Speedups#Baseline]]", 4)
	for _, tc := range []struct {
		name    string
		pos     protocol.Position
		newName string
		code    int64
		want    string
	}{
		{"a name no link can write", onLink, "A#1", jsonrpc2.CodeInvalidParams, "no link can name it"},
		{"a control character", onLink, "A\x01B", jsonrpc2.CodeInvalidParams, "no link can name it"},
		{"a dot folder", onLink, ".obsidian/Gains", jsonrpc2.CodeInvalidParams, "dot folder"},
		{"outside the vault", onLink, "../Gains", jsonrpc2.CodeInvalidParams, "outside the vault"},
		{"a case twin", onLink, "RATES", codeRequestFailed, "only by case"},
		{"a name taken", onLink, "Rates", codeRequestFailed, "already exists"},
		{"nothing there", at("Rates.md", "See", 1), "Gains", codeRequestFailed, "nothing to rename"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var we json.RawMessage
			err := c.conn.Call(t.Context(), protocol.MethodTextDocumentRename, protocol.RenameParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("Rates.md")}, Position: tc.pos}, NewName: tc.newName}, &we)
			var e *jsonrpc2.Error
			if !errors.As(err, &e) || e.Code != tc.code || !strings.Contains(e.Message, tc.want) {
				t.Errorf("rename to %q: %v (%T), %s; want code %d and %q", tc.newName, err, err, we, tc.code, tc.want)
			}
		})
	}
}

// A client that cannot rename files is told to run zk mv only for a
// rename zk mv would make: a new name no link can write, or a name taken,
// is refused as such, not with a zk mv command that would fail too.
func TestRenameWithoutTheCapabilityChecksTheNameFirst(t *testing.T) {
	c := startServerWith(t, testVault, nil, map[string]any{})
	onLink := at("Rates.md", "[[Speedups#Baseline]]", 4)
	for name, want := range map[string]string{"A#1": "no link can name it", "Rates": "already exists", "Gains": "zk mv"} {
		var we json.RawMessage
		err := c.conn.Call(t.Context(), protocol.MethodTextDocumentRename, protocol.RenameParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("Rates.md")}, Position: onLink}, NewName: name}, &we)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("rename to %s: %v, %s; want %q", name, err, we, want)
		}
	}
}
