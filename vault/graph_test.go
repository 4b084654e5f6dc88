package vault

import (
	"context"
	"reflect"
	"testing"
)

// TestGraphVault: the graph built while streaming the notes holds every
// note's edges, edge for edge and in note order, and lists the notes read.
func TestGraphVault(t *testing.T) {
	v, _ := writeVault(t, map[string]string{
		"A.md":       "---\nup: \"[[B]]\"\n---\n# A\n[[B#H|b]] ![[pic.png]] [[Nowhere]]\n## Links\n- supports [[C]] — because\n",
		"sub/B.md":   "# B\n## H\n[[A]] [[sub/C]]\n",
		"sub/C.md":   "[[../A]] [[B]]\n",
		"pic.png":    "png",
		"Binary.md":  "\x00\x01\x02 not text",
		"Empty.md":   "",
		"sub/x/D.md": "[[A]] [[A]]\n",
	})
	scan := scanAll(t, v)
	var edges [][]Edge
	for _, n := range scan.notes {
		edges = append(edges, NoteEdges(n, scan.resolver))
	}
	want := NewGraph(edges)
	got, notes, err := GraphVault(context.Background(), v, scan.files)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Edges, want.Edges) {
		t.Errorf("edges:\n%+v\nwant:\n%+v", got.Edges, want.Edges)
	}
	var wantNotes []string
	for _, n := range scan.notes {
		wantNotes = append(wantNotes, n.Path)
	}
	if !reflect.DeepEqual(notes, wantNotes) {
		t.Errorf("notes %v, want %v", notes, wantNotes)
	}
	if got.Backlinks("A.md") != 3 || !reflect.DeepEqual(got.In("A.md"), want.In("A.md")) {
		t.Errorf("A.md: %d backlinks, in %+v", got.Backlinks("A.md"), got.In("A.md"))
	}
}
