package main

import (
	"bytes"
	"github.com/zk-claims/zk/view"
	"testing"
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
		if err := writeGraphJSON(&got, tc.nodes, tc.edges); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", name, got.String(), want.String())
		}
	}
}
