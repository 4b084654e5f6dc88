package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault/vaulttest"
	"github.com/zk-claims/zk/view"
	"github.com/zk-claims/zk/workspace"
)

// hostile is every byte, invalid UTF-8 and the characters JSON escapes.
var hostile = func() string {
	var b []byte
	for c := range 256 {
		b = append(b, byte(c))
	}
	return string(b) + "\u2028\u2029 <&> \"quoted\" back\\slash 日本 \xe2\x82"
}()

// TestWriteGraphJSONIsWriteJSON: the streamed graph is byte for byte what
// the one JSON encoder prints for the same value, empty lists included.
func TestWriteGraphJSONIsWriteJSON(t *testing.T) {
	for name, tc := range map[string]struct {
		nodes []view.GraphNode
		edges []view.Edge
	}{
		"empty":      {[]view.GraphNode{}, []view.Edge{}},
		"nodes only": {[]view.GraphNode{{ID: "a.md", Kind: "note"}, {ID: "<b>&c", Kind: "unresolved"}}, []view.Edge{}},
		"both": {[]view.GraphNode{{ID: "a.md", Kind: "note"}},
			[]view.Edge{{From: "a.md", To: "b", Link: "b", Kind: "link"}, {From: "a.md", To: "a.md", Relation: "supports", Resolved: true}}},
		"every field": {[]view.GraphNode{{ID: hostile, Kind: "file"}}, []view.Edge{{From: hostile, To: hostile, Line: 12, Kind: "embed", Link: hostile,
			Resolved: true, Relation: hostile, Qualifier: "q", Justification: hostile}, {Kind: "frontmatter", Line: -1}, {}}},
	} {
		var want, got bytes.Buffer
		if err := writeJSON(&want, view.Graph{Nodes: tc.nodes, Edges: tc.edges}); err != nil {
			t.Fatal(err)
		}
		if err := writeGraphJSON(&got, tc.nodes, slices.Values(tc.edges)); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", name, got.String(), want.String())
		}
	}
}

// TestPlain8 holds the eight-bytes-at-a-time test to the table: every
// byte value at every place among plain bytes, and one or two of them
// among bytes on either side of each boundary (0x1f, 0x20, 0x7f, 0x80).
func TestPlain8(t *testing.T) {
	check := func(s string) {
		want := true
		for i := range len(s) {
			want = want && jsonPlain[s[i]]
		}
		if got := plain8(load8(s)); got != want {
			t.Errorf("plain8(%q) = %v, want %v", s, got, want)
		}
	}
	for _, fill := range []byte{'a', ' ', '~', '!', '#', '[', ']', 0x7f} {
		for at := range 8 {
			for c := range 256 {
				b := bytes.Repeat([]byte{fill}, 8)
				b[at] = byte(c)
				check(string(b))
				for at2 := range 8 {
					for _, c2 := range []byte{0, 0x1f, 0x20, 0x21, '"', '\\', 0x7f, 0x80, 0xff} {
						b2 := bytes.Clone(b)
						b2[at2] = c2
						check(string(b2))
					}
				}
			}
		}
	}
}

// TestAppendJSONStringIsEncodingJSON: a string is quoted as writeJSON
// quotes it (encoding/json, then printable.JSON), whatever its length and
// wherever its bytes to escape.
func TestAppendJSONStringIsEncodingJSON(t *testing.T) {
	pieces := []string{"plain text", "日本", "\u2028", "\xe2\x82", "\x00", "\x1f", "\"", "\\", "<&>", "\x7f", "\xff", "abcdefgh", "\t\n", "\u009b", "\u202e", "\u2066"}
	for i := range 4000 {
		var s strings.Builder
		for k := i; k > 0; k /= len(pieces) {
			s.WriteString(pieces[k%len(pieces)])
		}
		var want bytes.Buffer
		if err := writeJSON(&want, s.String()); err != nil {
			t.Fatal(err)
		}
		if got := string(appendJSONString(nil, s.String())) + "\n"; got != want.String() {
			t.Errorf("appendJSONString(%q) = %s, want %s", s.String(), got, want.String())
		}
	}
}

// zk graph printed from its section of the model file is byte for byte
// zk graph printed from the notes' details: cold, cached and after an
// edit, names to escape and unresolved links and attachments included.
func TestGraphTextIsGraphJSON(t *testing.T) {
	dir := vaulttest.Dir(t, map[string]string{
		".obsidian/app.json": "{}",
		"A \"quoted\".md":    "# A\n[[B\u2028x]] ![[pic.png]] [[Nowhere\\here]] [[B]]\n## Links\n- [[C]] — supports: \"because\"\n",
		"B.md":               "---\nup: \"[[A \\\"quoted\\\"]]\"\n---\n# B\n[[A \"quoted\"]] [[pic.png]] [[日本]]\n",
		"C.md":               "[[Gone]]\n",
		"pic.png":            "png",
		"sub/Empty.md":       "no links\n",
		"sub/Tab\there.md":   "[[C]]\n",
	})
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := &rootOptions{vaultDir: dir, today: "2026-12-02", getenv: func(string) string { return "" }}
	for _, when := range []string{"cold", "cached", "edited"} {
		if when == "edited" {
			p := filepath.Join(dir, "C.md")
			if err := os.WriteFile(p, []byte("[[Gone]] [[Later]] [[B]]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-time.Hour)
			os.Chtimes(p, old, old)
		}
		var got, want bytes.Buffer
		s := &streams{in: strings.NewReader(""), out: &got, err: io.Discard}
		if err := runGraph(context.Background(), &graphOptions{root: root, format: "json"}, s); err != nil {
			t.Fatal(err)
		}
		w, err := root.open(context.Background(), s, workspace.Reading, "")
		if err != nil {
			t.Fatal(err)
		}
		g, err := w.GraphEdges(context.Background())
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := writeGraphJSON(&want, view.GraphNodes(g.Files, g.Notes, g.Edges), view.EdgeViews(g.Edges)); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() || !strings.Contains(got.String(), `"kind": "file"`) {
			t.Errorf("%s: from the section\n%s\nfrom the details\n%s", when, got.String(), want.String())
		}
	}
}
