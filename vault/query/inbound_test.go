package query

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault"
)

// TestAppendEdgesInto: looking through encoded details a piece at a
// time gives the edges into a note that decoding them all and asking
// each note (AppendEdgesTo) gives, of the notes look keeps only, with a
// note longer than the buffer among them; a cut, a byte too many or a
// size that is not the bytes' is an error.
func TestAppendEdgesInto(t *testing.T) {
	long := strings.Repeat("j", inboundBuffer+100) // one string longer than the buffer
	details := []Detail{
		{Path: "A.md", edges: encodeEdges([]vault.Edge{
			{To: "B.md", Link: "B", Path: "B", Kind: vault.EdgeLink, Line: 3, Relation: "supports", Justification: "because"},
			{To: "B.md", Link: "B#H|b", Path: "B", Kind: vault.EdgeEmbed, Line: 4},
			{To: "C.png", Link: "C.png", Path: "C.png", Kind: vault.EdgeEmbed, Line: 5},
			{Link: "Nowhere", Path: "Nowhere", Kind: vault.EdgeLink, Line: 6},
		}), falsifiers: encodeFalsifiers([]Falsifier{{N: 1, Text: "t"}})},
		// Names B.md in a link's text, but the link resolves elsewhere.
		{Path: "D.md", edges: encodeEdges([]vault.Edge{{To: "E.md", Link: "B.md", Path: "B.md", Kind: vault.EdgeLink, Line: 1}})},
		{Path: "E.md"},
		{Path: "F.md", edges: encodeEdges([]vault.Edge{
			{To: "B.md", Link: "B", Path: "B", Kind: vault.EdgeFrontmatter, Line: -1},
			{To: "A.md", Link: "A", Path: "A", Kind: vault.EdgeLink, Line: 2, Justification: long},
		})},
		{Path: "G.md", edges: encodeEdges([]vault.Edge{{To: "B.md", Link: "B", Path: "B", Kind: vault.EdgeLink, Line: 7}}), falsifiers: long},
	}
	enc := EncodeDetails(details)
	all := func(string) bool { return true }
	for _, tc := range []struct {
		name string
		to   string
		look func(string) bool
	}{
		{"links, an embed and a frontmatter link", "B.md", all},
		{"one edge, past the buffer", "A.md", all},
		{"an attachment", "C.png", all},
		{"named in a link's text only", "E.md", all},
		{"nothing links to it", "G.md", all},
		{"notes left out", "B.md", func(p string) bool { return p != "A.md" && p != "G.md" }},
		{"every note left out", "B.md", func(string) bool { return false }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := []vault.Edge{{From: "Z.md"}}
			for _, d := range details {
				if tc.look(d.Path) {
					want = d.AppendEdgesTo(want, tc.to)
				}
			}
			var looked []string
			got, err := AppendEdgesInto([]vault.Edge{{From: "Z.md"}}, bytes.NewReader(enc), int64(len(enc)), tc.to, func(p string) bool {
				looked = append(looked, strings.Clone(p)) // p is valid during the call only
				return tc.look(p)
			})
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("AppendEdgesInto(%q) = %+v, %v; want %+v", tc.to, got, err, want)
			}
			if !reflect.DeepEqual(looked, []string{"A.md", "D.md", "E.md", "F.md", "G.md"}) {
				t.Errorf("looked at %q, want every note in order", looked)
			}
		})
	}
	for _, tc := range []struct {
		name string
		b    []byte
		size int64
	}{
		{"a byte after", append(bytes.Clone(enc), 0), int64(len(enc))},
		{"a byte after, within size", append(bytes.Clone(enc), 0), int64(len(enc)) + 1},
		{"size past the bytes", enc, int64(len(enc)) + 1},
		{"size short of the bytes", enc, int64(len(enc)) - 1},
		{"another format", append([]byte("zk-note-details\x02"), enc[len(detailMagic):]...), int64(len(enc))},
		{"a count past the bytes", []byte(detailMagic + "\xff\xff\x03"), int64(len(detailMagic) + 3)},
	} {
		if got, err := AppendEdgesInto(nil, bytes.NewReader(tc.b), tc.size, "B.md", all); err == nil {
			t.Errorf("%s: no error, %d edges", tc.name, len(got))
		}
	}
	small := EncodeDetails(details[:3]) // no string past the buffer: every cut
	for cut := range len(small) {
		if _, err := AppendEdgesInto(nil, bytes.NewReader(small[:cut]), int64(cut), "B.md", all); err == nil {
			t.Fatalf("details cut at %d of %d bytes: no error", cut, len(small))
		}
	}
}
