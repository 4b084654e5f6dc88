package main

import (
	"bytes"
	"testing"
)

// TestWriteGraphJSONIsWriteJSON: the streamed graph is byte for byte what
// the one JSON encoder prints for the same value, empty lists included.
func TestWriteGraphJSONIsWriteJSON(t *testing.T) {
	for name, tc := range map[string]struct {
		nodes []graphNode
		edges []edgeView
	}{
		"empty":      {[]graphNode{}, []edgeView{}},
		"nodes only": {[]graphNode{{ID: "a.md", Kind: "note"}, {ID: "<b>&c", Kind: "unresolved"}}, []edgeView{}},
		"both": {[]graphNode{{ID: "a.md", Kind: "note"}},
			[]edgeView{{From: "a.md", To: "b", Link: "b", Kind: "link"}, {From: "a.md", To: "a.md", Relation: "supports", Resolved: true}}},
	} {
		var want, got bytes.Buffer
		if err := writeJSON(&want, struct {
			Nodes []graphNode `json:"nodes"`
			Edges []edgeView  `json:"edges"`
		}{tc.nodes, tc.edges}); err != nil {
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
