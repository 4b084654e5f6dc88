package view

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/index"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/base"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/query"
	"github.com/zk-claims/zk/vault/tending"
	"github.com/zk-claims/zk/workspace"
)

// An empty result is [] in every list a script iterates, never null: a
// script's `.notes[]` or a length must not fail on an empty vault.
func TestEmptyListsAreArrays(t *testing.T) {
	for name, v := range map[string]any{
		"check":      NewCheck(workspace.CheckResult{}, lint.CommandLine),
		"stale":      NewStale(time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), tending.StaleReport{}),
		"search":     NewSearch(&index.Result{}),
		"links":      Links{Edges: NewEdges(nil)},
		"runs":       NewRuns(workspace.NoteRuns{}, lint.CommandLine),
		"verdicts":   NewVerdicts(nil),
		"list":       NewList(query.Result{}, nil),
		"properties": NewProperties(nil),
		"move":       NewMove(workspace.MovePlan{}),
		"base":       NewBase("B.base", &base.Result{}),
	} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "null") && name != "search" && name != "base" {
			t.Errorf("%s: %s has a null", name, b)
		}
		if name == "base" && !strings.Contains(string(b), `"groups":[{"key":null,"rows":[]}]`) {
			t.Errorf("base: %s, want one group of no rows", b)
		}
	}
}

// An edge's line counts from 1 (none for frontmatter), and an unresolved
// link's target is the path it names.
func TestNewEdge(t *testing.T) {
	for _, tc := range []struct {
		in   vault.Edge
		want Edge
	}{
		{vault.Edge{From: "a.md", To: "b.md", Path: "b", Link: "[[b]]", Kind: "link", Line: 0},
			Edge{From: "a.md", To: "b.md", Link: "[[b]]", Kind: "link", Line: 1, Resolved: true}},
		{vault.Edge{From: "a.md", Path: "gone", Link: "[[gone]]", Kind: "link", Line: 4},
			Edge{From: "a.md", To: "gone", Link: "[[gone]]", Kind: "link", Line: 5}},
		{vault.Edge{From: "a.md", To: "b.md", Link: "b", Kind: "frontmatter", Line: -1},
			Edge{From: "a.md", To: "b.md", Link: "b", Kind: "frontmatter", Resolved: true}},
	} {
		if got := NewEdge(tc.in); got != tc.want {
			t.Errorf("NewEdge(%+v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// A run's exit status is its command's: none for a result attached from
// a file or a judgement again, which ran nothing.
func TestNewRunExit(t *testing.T) {
	for _, tc := range []struct {
		in   evidence.Run
		want string
	}{
		{evidence.Run{ID: "r1", Exit: 0}, "0"},
		{evidence.Run{ID: "r2", Exit: 3}, "3"},
		{evidence.Run{ID: "r3", Exit: -1}, "null"},
		{evidence.Run{ID: "r4", Exit: 0, Attached: true}, "null"},
		{evidence.Run{ID: "r5", Exit: 0, Rejudges: "r1"}, "null"},
	} {
		b, err := json.Marshal(NewRun(tc.in).Exit)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("%s: exit %s, want %s", tc.in.ID, b, tc.want)
		}
	}
}

// A graph's nodes are its notes, the other files its links resolve to and
// the targets of its unresolved links, each once, by id.
func TestNewGraph(t *testing.T) {
	g := workspace.Graph{Notes: []string{"b.md", "a.md"}, Graph: &vault.Graph{Edges: []vault.Edge{
		{From: "a.md", To: "b.md", Path: "b", Kind: "link"},
		{From: "a.md", To: "img.png", Path: "img.png", Kind: "embed"},
		{From: "b.md", Path: "gone", Kind: "link"},
		{From: "b.md", Path: "gone", Kind: "link"},
	}}}
	got := NewGraph(g)
	want := []GraphNode{{"a.md", "note"}, {"b.md", "note"}, {"gone", "unresolved"}, {"img.png", "file"}}
	if !slices.Equal(got.Nodes, want) || len(got.Edges) != 4 {
		t.Errorf("nodes %v, %d edges; want %v, 4 edges", got.Nodes, len(got.Edges), want)
	}
}

// GraphNodes knows a note without a search when every note of the files
// was read, and gives what a search gives: an id's kind is its first
// edge's, a note's path is a note's, and a note the walk listed but that
// was not read is a file.
func TestGraphNodesEveryNoteRead(t *testing.T) {
	files := []vault.File{{Path: "a.md"}, {Path: "b.md"}, {Path: "img.png"}}
	edges := []vault.Edge{
		{From: "a.md", Path: "img.png", Kind: "embed"}, // unresolved first: unresolved
		{From: "a.md", To: "img.png", Path: "img.png", Kind: "embed"},
		{From: "b.md", To: "b.md", Path: "b", Kind: "link"},
		{From: "b.md", Path: "a.md", Kind: "link"}, // a note's path: a note
		{From: "b.md", Path: "zz", Kind: "link"},
	}
	notRead := append(slices.Clone(edges), vault.Edge{From: "b.md", To: "c.md", Path: "c", Kind: "link"})
	want := []GraphNode{{"a.md", "note"}, {"b.md", "note"}, {"img.png", "unresolved"}, {"zz", "unresolved"}}
	for name, tc := range map[string]struct {
		files []vault.File
		notes []string
		edges []vault.Edge
		want  []GraphNode
	}{
		"every note read":    {files, []string{"a.md", "b.md"}, edges, want},
		"unsorted, no files": {nil, []string{"b.md", "a.md"}, edges, want},
		"one not read": {append(slices.Clone(files), vault.File{Path: "c.md"}), []string{"a.md", "b.md"}, notRead,
			[]GraphNode{{"a.md", "note"}, {"b.md", "note"}, {"c.md", "file"}, {"img.png", "unresolved"}, {"zz", "unresolved"}}},
	} {
		if got := GraphNodes(tc.files, tc.notes, slices.Values(tc.edges)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}
