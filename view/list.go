package view

import (
	"github.com/zk-claims/zk/vault/move"
	"github.com/zk-claims/zk/vault/property"
	"github.com/zk-claims/zk/vault/query"
	"github.com/zk-claims/zk/workspace"
)

// List is zk list --format json, and the MCP list tool's result: each
// note's path, type and the fields asked for.
type List struct {
	Notes []ListNote `json:"notes"`
	// Matched is how many notes matched before --limit; Read how many
	// notes were read.
	Matched int `json:"matched"`
	Read    int `json:"read"`
	// LinksToUnresolved is the name --links-to gave when no file has it
	// (a note not written yet, whose linking notes are listed).
	LinksToUnresolved string `json:"links_to_unresolved,omitempty"`
}

// ListNote is one note of a list.
type ListNote struct {
	Path string `json:"path"`
	// Type is the note's type, or "" for a note of none.
	Type   string         `json:"type"`
	Fields map[string]any `json:"fields,omitempty"`
}

// NewList is the view of a list's result, with the fields asked for.
func NewList(res query.Result, fields []string) List {
	out := List{Notes: make([]ListNote, 0, len(res.Notes)), Matched: res.Matched, Read: res.Read, LinksToUnresolved: res.Unwritten}
	for _, n := range res.Notes {
		ln := ListNote{Path: n.Path, Type: n.Type}
		if len(fields) > 0 {
			ln.Fields = make(map[string]any, len(fields))
			for _, f := range fields {
				v, _ := n.Field(f)
				ln.Fields[f] = v
			}
		}
		out.Notes = append(out.Notes, ln)
	}
	return out
}

// Properties is zk properties --format json, and the MCP properties
// tool's result: the vault's properties, by name.
type Properties struct {
	List []Property `json:"properties"`
}

// Property is one property of the vault's notes: its type, declared or
// inferred, how many notes have it, and how many values are of each type.
type Property struct {
	Name     string         `json:"name"`
	Type     property.Type  `json:"type"`
	Declared bool           `json:"declared"`
	Notes    int            `json:"notes"`
	Types    map[string]int `json:"types"`
}

// NewProperties is the view of the vault's property summaries.
func NewProperties(sums []property.Summary) Properties {
	out := Properties{List: []Property{}}
	for _, sum := range sums {
		pv := Property{Name: sum.Name, Type: sum.Type, Declared: sum.Declared, Notes: sum.Notes, Types: map[string]int{}}
		for t, n := range sum.Types {
			pv.Types[string(t)] = n
		}
		out.List = append(out.List, pv)
	}
	return out
}

// Move is what zk mv did or, with --dry-run, would do; the MCP move
// tool's plan.
type Move struct {
	DryRun  bool          `json:"dry_run"`
	Moved   []move.Rename `json:"moved"`
	Heading *HeadingMove  `json:"heading,omitempty"`
	// Retitled is the renamed note's H1, renamed with it when it was the
	// note's old name.
	Retitled   *HeadingMove `json:"retitled,omitempty"`
	Files      int          `json:"files"`
	Links      int          `json:"links"`
	Edits      []MoveEdit   `json:"edits"`
	Captured   []string     `json:"captured"`
	Unwritable []string     `json:"unwritable"`
	// Retyped are the moved notes whose type the move changes.
	Retyped []Retype `json:"retyped"`
}

// Retype is a note whose type a move changes: From and To are type
// names, "" for no type.
type Retype struct {
	Note string `json:"note"`
	From string `json:"from"`
	To   string `json:"to"`
}

// HeadingMove is a heading renamed in a note.
type HeadingMove struct {
	Note string `json:"note"`
	From string `json:"from"`
	To   string `json:"to"`
}

// MoveEdit is one link rewritten.
type MoveEdit struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// NewMove is the view of a move's plan.
func NewMove(p workspace.MovePlan) Move {
	out := Move{Moved: p.Moved, Files: p.Files, Links: p.Links, Edits: []MoveEdit{},
		Captured: nonNil(p.Captured), Unwritable: nonNil(p.Unwritable)}
	if out.Moved == nil {
		out.Moved = []move.Rename{}
	}
	if h := p.Heading; h != nil {
		out.Heading = &HeadingMove{Note: h.Note, From: h.From, To: h.To}
	}
	if h := p.Retitled; h != nil {
		out.Retitled = &HeadingMove{Note: h.Note, From: h.From, To: h.To}
	}
	for _, e := range p.Edits {
		out.Edits = append(out.Edits, MoveEdit{Path: e.Path, Line: e.Line, Old: e.Old, New: e.New})
	}
	out.Retyped = []Retype{}
	for _, r := range p.Retyped {
		out.Retyped = append(out.Retyped, Retype{Note: r.Note, From: r.From, To: r.To})
	}
	return out
}

// nonNil is s, or an empty list for JSON's [] rather than null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
