// Package view holds the shapes of zk's results as a program reads them:
// what the MCP tools return and the commands of their names (and zk
// graph) print with --format json, each built from a use case's result
// (package workspace) by one function, so that a script and an agent
// read the same shapes. A view is data only: it prints nothing, and a
// front end adds what is its own (an MCP tool's page, the CLI's text).
package view

import (
	"iter"
	"slices"
	"time"

	"github.com/zk-claims/zk/index"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/tending"
	"github.com/zk-claims/zk/workspace"
)

// Finding is one finding of the JSON shape the README gives.
type Finding struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// Check is zk check --format json, and the MCP check tool's result.
type Check struct {
	Findings []Finding `json:"findings"`
	Summary  struct {
		Notes    int `json:"notes"`
		Errors   int `json:"errors"`
		Warnings int `json:"warnings"`
	} `json:"summary"`
}

// NewFinding is the view of one finding, its next step worded by word:
// the CLI's as a command line, the MCP server's as a tool call.
func NewFinding(f lint.Finding, word lint.Wording) Finding {
	return Finding{f.Path, f.Line, f.Column, f.Rule, f.Severity.String(), f.Text(word)}
}

// NewCheck is the view of a check's result, with NewFinding's wording.
func NewCheck(r workspace.CheckResult, word lint.Wording) Check {
	out := NewCheckSummary(r)
	out.Findings = make([]Finding, len(r.Findings))
	for i, f := range r.Findings {
		out.Findings[i] = NewFinding(f, word)
	}
	return out
}

// NewCheckSummary is NewCheck without its findings (an empty list), for
// a writer that prints them one at a time.
func NewCheckSummary(r workspace.CheckResult) Check {
	out := Check{Findings: []Finding{}}
	out.Summary.Notes, out.Summary.Errors, out.Summary.Warnings = r.Notes, r.Count(lint.Error), r.Count(lint.Warning)
	return out
}

// Stale is the README's contract of zk stale --format json, with
// backlinks, the interval and the undated notes added; the MCP stale
// tool's result.
type Stale struct {
	Today    string         `json:"today"`
	Notes    []StaleNote    `json:"notes"`
	Undated  []Undated      `json:"undated"`
	Problems []StaleProblem `json:"problems"`
}

// StaleNote is a note past its date, or due within the interval asked.
type StaleNote struct {
	Path        string `json:"path"`
	LastTended  string `json:"last_tended"`
	Due         string `json:"due"`
	DaysOverdue int    `json:"days_overdue"`
	Interval    string `json:"interval"`
	Backlinks   int    `json:"backlinks"`
}

// Undated is a note without a Last tended date, or with one zk cannot
// read (Problem).
type Undated struct {
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	Problem string `json:"problem,omitempty"`
	// UnreadKey is the frontmatter property that looks like a date and
	// is not one of the config's tended-keys.
	UnreadKey string `json:"unread_key,omitempty"`
}

// StaleProblem is what else kept a note out of the report.
type StaleProblem struct {
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// NewStale is the view of a stale report as of today.
func NewStale(today time.Time, r tending.StaleReport) Stale {
	out := Stale{Today: today.Format(time.DateOnly), Notes: []StaleNote{}, Undated: []Undated{}, Problems: []StaleProblem{}}
	for _, d := range r.Notes {
		out.Notes = append(out.Notes, StaleNote{
			Path:        d.Path,
			LastTended:  d.Tended.Date.Format(time.DateOnly),
			Due:         d.Due.Format(time.DateOnly),
			DaysOverdue: d.DaysOverdue,
			Interval:    d.Interval.String(),
			Backlinks:   d.Backlinks,
		})
	}
	for _, u := range r.Undated {
		out.Undated = append(out.Undated, Undated{Path: u.Path, Line: u.Line + 1, Problem: u.Problem, UnreadKey: u.UnreadKey})
	}
	for _, p := range r.Problems {
		out.Problems = append(out.Problems, StaleProblem{Path: p.Path, Line: p.Line + 1, Message: p.Message})
	}
	return out
}

// Search is zk search --format json, and the MCP search tool's result.
type Search struct {
	Query string `json:"query"`
	Total uint64 `json:"total"`
	Hits  []Hit  `json:"hits"`
	// Stale is how many notes changed since the index was updated that
	// this search did not index; null when the search did not compare
	// every note (Unchecked says what it did not compare).
	Stale *int `json:"stale"`
	// Checked is false when the search did not compare every note of the
	// vault with the index (--no-update; zk search of a vault over 5,000
	// notes, whose folders alone are compared; a compare over a second).
	Checked   bool   `json:"checked"`
	Unchecked string `json:"unchecked,omitempty"`
}

// Hit is one note that matched, its best fragment's matches between
// <mark> and </mark>.
type Hit struct {
	Path     string  `json:"path"`
	Title    string  `json:"title"`
	Section  string  `json:"section"`
	Score    float64 `json:"score"`
	Fragment string  `json:"fragment"`
}

// NewSearch is the view of a search's result.
func NewSearch(res *index.Result) Search {
	out := Search{Query: res.Query, Total: res.Total, Hits: []Hit{}, Checked: res.Checked, Unchecked: res.Unchecked}
	if res.Checked {
		out.Stale = &res.Stale
	}
	for _, h := range res.Hits {
		out.Hits = append(out.Hits, Hit{Path: h.Path, Title: h.Title, Section: h.Section, Score: h.Score,
			Fragment: h.Fragment.Marked("<mark>", "</mark>", nil)})
	}
	return out
}

// Edge is an edge as the links, backlinks and graph commands print it.
type Edge struct {
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	Line int    `json:"line,omitempty"`
	// Key is a frontmatter link's property ("related.1": a list's
	// second item), which has no line.
	Key           string `json:"key,omitempty"`
	Kind          string `json:"kind"`
	Link          string `json:"link"`
	Resolved      bool   `json:"resolved"`
	Relation      string `json:"relation,omitempty"`
	Qualifier     string `json:"qualifier,omitempty"`
	Justification string `json:"justification,omitempty"`
}

// NewEdge is the view of one edge: its line counted from 1, an
// unresolved link's target the path it names.
func NewEdge(e vault.Edge) Edge {
	v := Edge{From: e.From, To: e.To, Kind: string(e.Kind), Link: e.Link, Resolved: e.Resolved(),
		Relation: e.Relation, Qualifier: e.Qualifier, Justification: e.Justification, Key: e.Key}
	if e.Line >= 0 {
		v.Line = e.Line + 1
	}
	if !e.Resolved() {
		v.To = e.Path
	}
	return v
}

// NewEdges are edges as zk links and zk backlinks --format json print
// them, and the MCP tools of their names return them.
func NewEdges(edges []vault.Edge) []Edge {
	views := make([]Edge, 0, len(edges))
	for _, e := range edges {
		views = append(views, NewEdge(e))
	}
	return views
}

// Links is zk links --format json: a note's outgoing links.
type Links struct {
	Note  string `json:"note"`
	Edges []Edge `json:"links"`
}

// Backlinks is zk backlinks --format json: the links into a note.
type Backlinks struct {
	Note string `json:"note"`
	// Unresolved says no file has the name Note: a note not written
	// yet, and Edges the unresolved links that would reach it.
	Unresolved bool   `json:"unresolved,omitempty"`
	Edges      []Edge `json:"backlinks"`
}

// Graph is zk graph --format json: every node (a note, another file a
// link resolves to, or an unresolved link's target), by id, and every
// edge.
type Graph struct {
	Nodes []GraphNode `json:"nodes"`
	Edges []Edge      `json:"edges"`
}

// GraphNode is a node of the graph: its id (a vault path, or the path an
// unresolved link names) and its kind: note, file or unresolved.
type GraphNode struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
}

// NewGraph is the view of the vault's graph, its nodes sorted by id.
func NewGraph(g workspace.Graph) Graph {
	out := Graph{Nodes: GraphNodes(g.Files, g.Notes, slices.Values(g.Edges)), Edges: make([]Edge, len(g.Edges))}
	for i, e := range g.Edges {
		out.Edges[i] = NewEdge(e)
	}
	return out
}

// GraphNodes are the nodes of the graph of notes (the notes read of
// files) and edges, sorted by id: each note, then each other id an edge
// reaches (its view's To) the first time one does, a file when that edge
// resolves, else unresolved.
func GraphNodes(files []vault.File, notes []string, edges iter.Seq[vault.Edge]) []GraphNode {
	// When every note of files was read, an edge resolved to a note's
	// path reaches a note, known without a search: 40,000 edges at
	// 10,000 notes, most of them between notes.
	noteFiles := 0
	for _, f := range files {
		if f.IsNote() {
			noteFiles++
		}
	}
	allRead := noteFiles == len(notes)
	var others []workspace.GraphTarget
	for e := range edges {
		t := workspace.GraphTarget{ID: e.To, Resolved: e.Resolved()}
		if !t.Resolved {
			t.ID = e.Path
		} else if allRead && (vault.File{Path: t.ID}).IsNote() {
			continue
		}
		others = append(others, t)
	}
	return GraphNodesOf(notes, others)
}

// GraphNodesOf are the nodes of a graph of notes whose edges reach
// others besides notes' paths (workspace.GraphText), sorted by id: each
// note, then each other id the first time an edge reaches it, a file
// when that edge resolves, else unresolved.
func GraphNodesOf(notes []string, others []workspace.GraphTarget) []GraphNode {
	if !slices.IsSorted(notes) {
		notes = slices.Sorted(slices.Values(notes))
	}
	isNote := func(id string) bool {
		_, found := slices.BinarySearch(notes, id)
		return found
	}
	kinds := map[string]uint8{} // the other ids, by kind (its index in graphKinds)
	for _, t := range others {
		if _, known := kinds[t.ID]; known || isNote(t.ID) {
			continue
		}
		kinds[t.ID] = kindUnresolved
		if t.Resolved {
			kinds[t.ID] = kindFile
		}
	}
	ids := make([]string, 0, len(kinds))
	for id := range kinds {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]GraphNode, 0, len(notes)+len(ids))
	i, j := 0, 0
	for i < len(notes) || j < len(ids) {
		if j == len(ids) || i < len(notes) && notes[i] < ids[j] {
			out = append(out, GraphNode{ID: notes[i], Kind: graphKinds[kindNote]})
			i++
			continue
		}
		out = append(out, GraphNode{ID: ids[j], Kind: graphKinds[kinds[ids[j]]]})
		j++
	}
	return out
}

// EdgeViews are the views of edges (NewEdge), made as they are walked.
func EdgeViews(edges iter.Seq[vault.Edge]) iter.Seq[Edge] {
	return func(yield func(Edge) bool) {
		for e := range edges {
			if !yield(NewEdge(e)) {
				return
			}
		}
	}
}

// A graph node's kinds.
const (
	kindNote = iota
	kindFile
	kindUnresolved
)

var graphKinds = [...]string{kindNote: "note", kindFile: "file", kindUnresolved: "unresolved"}
