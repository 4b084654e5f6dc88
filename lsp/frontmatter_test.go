package lsp

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/workspace"
)

// fmVault links Load.md from frontmatter properties: a plain link, one
// to a heading after an astral character (two UTF-16 units), and one
// written with a YAML escape, whose text is not in the note as parsed.
var fmVault = map[string]string{
	"Load.md": "# Load\n\n## Claim\n\nLoad generators skew the load.\n\n## Method\n\nText.\n",
	"Fm.md":   "---\nup: \"[[Load]]\"\nsee:\n  - \"😀 [[Load#Method]]\"\n---\n# Fm\n\nNo link in the body.\n",
	"Esc.md":  "---\nup: \"[[Lo\\x61d]]\"\n---\n# Esc\n",
	"Body.md": "# Body\n\nSee [[Load]].\n",
}

// fmAt is the position in the note at p of fmVault of the first what,
// plus skip bytes.
func fmAt(t *testing.T, p, what string, skip int) protocol.Position {
	t.Helper()
	i := strings.Index(fmVault[p], what)
	if i < 0 {
		t.Fatalf("%q not in %s", what, p)
	}
	return position(fmVault[p], i+skip)
}

// TestFrontmatterLinksAreReferences: references and code lens counts of a
// note count the links to it in other notes' frontmatter, as zk
// backlinks does, at their places in UTF-16 units; one whose text is not
// in the note as parsed is counted at the start of its property's line,
// where zk check reports it. A note open in the editor counts the same.
func TestFrontmatterLinksAreReferences(t *testing.T) {
	for _, open := range []bool{false, true} {
		c := startServerWith(t, fmVault, nil, map[string]any{})
		if open {
			c.openText("Fm.md", fmVault["Fm.md"])
			c.nextDiags("Fm.md")
		}
		want := []string{"Body.md:2:4", "Esc.md:1:0", "Fm.md:1:5", "Fm.md:3:8"}
		if got := c.refsAt("Load.md", protocol.Position{}, false); !slices.Equal(got, want) {
			t.Errorf("open %v: references to Load.md: %v, want %v", open, got, want)
		}
		// From the frontmatter link itself: what it reaches, the heading.
		if got := c.refsAt("Fm.md", fmAt(t, "Fm.md", "[[Load#Method]]", 3), false); !slices.Equal(got, []string{"Fm.md:3:8"}) {
			t.Errorf("open %v: references at [[Load#Method]]: %v, want its own", open, got)
		}
		wantLens := []string{"0: 4 backlinks", "6: 1 link to this heading"}
		if got := c.lenses("Load.md"); !slices.Equal(got, wantLens) {
			t.Errorf("open %v: lenses of Load.md: %v, want %v", open, got, wantLens)
		}
	}
}

// TestDefinitionAndHoverOnFrontmatterLinks: go to definition and hover
// work on a link in a frontmatter property as on one in the body, with
// the link's range in UTF-16 units.
func TestDefinitionAndHoverOnFrontmatterLinks(t *testing.T) {
	c := startServerWith(t, fmVault, nil, map[string]any{})
	for _, tc := range []struct {
		at       string
		wantLine uint32
	}{
		{"[[Load]]", 0},
		{"[[Load#Method]]", 6},
	} {
		var loc *protocol.Location
		c.call(protocol.MethodTextDocumentDefinition, protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("Fm.md")}, Position: fmAt(t, "Fm.md", tc.at, 3)}}, &loc)
		if loc == nil || loc.URI != c.uri("Load.md") || loc.Range.Start.Line != tc.wantLine {
			t.Errorf("definition in %s: %+v, want Load.md line %d", tc.at, loc, tc.wantLine)
		}
	}
	var h *protocol.Hover
	c.call(protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("Fm.md")}, Position: fmAt(t, "Fm.md", "[[Load#Method]]", 2)}}, &h)
	if h == nil {
		t.Fatal("no hover on the frontmatter link [[Load#Method]]")
	}
	b, _ := json.Marshal(h.Contents)
	for _, want := range []string{"**Load**", "`Load.md`", "Load generators skew the load."} {
		if !strings.Contains(string(b), want) {
			t.Errorf("hover %s lacks %q", b, want)
		}
	}
	line := "  - \"😀 [[Load#Method]]\""
	wantRange := protocol.Range{Start: protocol.Position{Line: 3, Character: 8}, End: protocol.Position{Line: 3, Character: uint32(workspace.UTF16Len(line) - 1)}}
	if h.Range == nil || *h.Range != wantRange {
		t.Errorf("hover range %+v, want the link's in UTF-16 units, %+v", h.Range, wantRange)
	}
}

// TestDeletedTargetBreaksFrontmatterLinks: the note a closed note's
// frontmatter links to deleted on disk, the closed note is checked again
// and its broken link published, as zk check reports it.
func TestDeletedTargetBreaksFrontmatterLinks(t *testing.T) {
	c := startServerWith(t, fmVault, nil, map[string]any{})
	c.openText("Body.md", fmVault["Body.md"])
	c.nextDiags("Body.md")
	c.remove("Load.md")
	c.watched(map[string]protocol.UInteger{"Load.md": protocol.FileChangeTypeDeleted})
	c.diagsUntil("Fm.md", hasCode(lint.RuleBrokenLink))
}

// TestFrontmatterLinkBeforeTheWalk: a note opened before the vault is
// walked is checked against the files the cache names, its frontmatter
// links resolved among them as its body's are: a link up: "[[B]]" to a
// note there is not reported broken, then mended once the walk is done.
func TestFrontmatterLinkBeforeTheWalk(t *testing.T) {
	files := map[string]string{
		"A.md": "---\nup: \"[[B]]\"\n---\n# A\n\nSee [[C]].\n",
		"B.md": "# B\n",
		"C.md": "# C\n",
	}
	c, release := startHeldAtTheWalk(t, files, namesCache{"A.md", "B.md", "C.md"})
	c.openText("A.md", files["A.md"])
	first := c.nextDiags("A.md")
	close(release)
	if got := codes(first); len(got) != 0 {
		t.Errorf("before the walk: %v %+v, want no findings", got, first.Diagnostics)
	}
}

// TestRenameFromAFrontmatterLink: rename on a frontmatter link is zk
// mv's, as on a body link: on its name the note is renamed, on its
// #heading the heading, every link to it rewritten, frontmatter links
// too.
func TestRenameFromAFrontmatterLink(t *testing.T) {
	files := maps.Clone(fmVault)
	delete(files, "Esc.md") // a link written with an escape, which zk mv cannot rewrite
	c := startServerWith(t, files, nil, canCreate)
	edits := func(pos protocol.Position, name string) map[string]string {
		t.Helper()
		var we struct {
			DocumentChanges []change `json:"documentChanges"`
		}
		c.call(protocol.MethodTextDocumentRename, protocol.RenameParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("Fm.md")}, Position: pos}, NewName: name}, &we)
		after := map[string]string{}
		for _, ch := range we.DocumentChanges {
			if ch.Kind == "" {
				rel := strings.TrimPrefix(ch.TextDocument.URI, c.uri("")+"/")
				after[rel] = applyEdits(files[rel], ch.Edits)
			}
		}
		return after
	}
	pos := fmAt(t, "Fm.md", "[[Load]]", 3)
	if r := c.prepare("Fm.md", pos); r == nil || r.Placeholder != "Load" || r.Range.Start != fmAt(t, "Fm.md", "Load]]", 0) {
		t.Errorf("prepareRename on up's link: %+v, want Load", r)
	}
	after := edits(pos, "Gen")
	if want := strings.ReplaceAll(files["Fm.md"], "[[Load", "[[Gen"); after["Fm.md"] != want {
		t.Errorf("Fm.md after the rename:\n%s\nwant\n%s", after["Fm.md"], want)
	}
	if want := strings.ReplaceAll(files["Body.md"], "[[Load", "[[Gen"); after["Body.md"] != want {
		t.Errorf("Body.md after the rename:\n%s\nwant\n%s", after["Body.md"], want)
	}
	pos = fmAt(t, "Fm.md", "Method]]", 2)
	if r := c.prepare("Fm.md", pos); r == nil || r.Placeholder != "Method" || r.Range.Start != fmAt(t, "Fm.md", "Method]]", 0) {
		t.Errorf("prepareRename on see's #Method: %+v, want Method at its UTF-16 place", r)
	}
	if after := edits(pos, "Approach"); after["Fm.md"] != strings.Replace(files["Fm.md"], "#Method", "#Approach", 1) ||
		after["Load.md"] != strings.Replace(files["Load.md"], "## Method", "## Approach", 1) {
		t.Errorf("heading rename from a frontmatter link: %q", after)
	}
}
