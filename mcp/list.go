package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zk-claims/zk/view"
	"github.com/zk-claims/zk/workspace"
)

// listInput is zk list's flags as an MCP tool's arguments.
type listInput struct {
	Types      []string `json:"type,omitempty" jsonschema:"notes of any of these note types (none: of no type)"`
	Folders    []string `json:"folder,omitempty" jsonschema:"notes under any of these vault folders"`
	Tags       []string `json:"tag,omitempty" jsonschema:"notes carrying each of these tags, or a tag nested under it (project matches project/zk)"`
	Where      []string `json:"where,omitempty" jsonschema:"property conditions, all must hold: KEY OP VALUE with OP one of = != < <= > >= (status = draft, rating > 3, created >= 2026-01-01, tags = idea for a list containing idea), KEY (has it), !KEY (has not); KEY may be a file.* attribute (file.due < 2027-01-01, file.folder = inbox)"`
	LinksTo    string   `json:"links_to,omitempty" jsonschema:"notes linking to this note (vault path or name)"`
	LinkedFrom string   `json:"linked_from,omitempty" jsonschema:"notes this note (vault path or name) links to"`
	Transitive bool     `json:"transitive,omitempty" jsonschema:"links_to and linked_from follow chains of links"`
	Orphans    bool     `json:"orphans,omitempty" jsonschema:"notes no other note links to"`
	DeadEnds   bool     `json:"dead_ends,omitempty" jsonschema:"notes that link to no other file"`
	Stale      bool     `json:"stale,omitempty" jsonschema:"notes past their maintenance date"`
	DueWithin  string   `json:"due_within,omitempty" jsonschema:"notes past due or due within this interval (14d, 2w, 1m)"`
	Verdicts   []string `json:"verdict,omitempty" jsonschema:"notes with a falsifier whose latest run has any of these verdicts: supports, refutes, inconclusive, error, attached, none, never-run"`
	Fields     []string `json:"fields,omitempty" jsonschema:"columns besides path and type: property names, or file.name, file.folder, file.mtime, file.tags, file.links, file.tended, file.due, file.verdicts"`
	Sort       string   `json:"sort,omitempty" jsonschema:"sort key: path (default), name, mtime, tended, due, or a property name"`
	Reverse    bool     `json:"reverse,omitempty" jsonschema:"reverse the order (notes without the sort key stay last)"`
	Limit      int32    `json:"limit,omitempty" jsonschema:"at most this many notes (default 100, at most 1000)"`
	Offset     int32    `json:"offset,omitempty" jsonschema:"skip this many notes: the next_offset of the page before"`
}

func addListTool(srv *sdk.Server, z *zkServer) {
	sdk.AddTool(srv, &sdk.Tool{Name: "list", Annotations: readOnlyTool,
		Description: "The notes matching filters on type, folder, tags, properties, links, orphans, dead ends, tending and falsifier verdicts, " +
			"sorted and limited (zk list --format json): each note's path, type and the fields asked for."}, z.list)
}

// verdictsPage is zk runs --format json without a note: a page of the
// vault's falsifiers, each with its latest verdict.
type verdictsPage struct {
	view.Verdicts
	pageOutput
	told
}

func addVerdictsTool(srv *sdk.Server, z *zkServer) {
	sdk.AddTool(srv, &sdk.Tool{Name: "verdicts", Annotations: readOnlyTool,
		Description: "Every falsifier of the vault with its latest verdict (supports, refutes, inconclusive, error, attached or never-run), " +
			"the run it comes from and the samples it stands on (zk runs --format json without a note)."}, z.verdicts)
}

func (z *zkServer) verdicts(ctx context.Context, call *sdk.CallToolRequest, in pageInput) (*sdk.CallToolResult, verdictsPage, error) {
	ctx = readingProgress(ctx, call)
	if _, _, err := in.bounds(); err != nil {
		return nil, verdictsPage{}, fmt.Errorf("verdicts: %w", err)
	}
	return answer(ctx, z, workspace.Reading, func(w *workspace.Workspace, out *verdictsPage) error {
		vs, err := w.Verdicts(ctx)
		if err != nil {
			return err
		}
		out.Verdicts = view.NewVerdicts(vs)
		out.Falsifiers, out.pageOutput, err = pageOf(out.Falsifiers, in)
		return err
	})
}

// listPage is zk list --format json, a page of its notes, and what zk
// list warns of on stderr, of all the notes matched: a result has no
// stderr, and base carries its warnings so.
type listPage struct {
	view.List
	pageOutput
	Warnings []string `json:"warnings"`
}

func (l *listPage) tell(lines []string) { l.Warnings = append(l.Warnings, lines...) }

func (z *zkServer) list(ctx context.Context, call *sdk.CallToolRequest, in listInput) (*sdk.CallToolResult, listPage, error) {
	ctx = readingProgress(ctx, call)
	page := pageInput{Limit: in.Limit, Offset: in.Offset}
	if _, _, err := page.bounds(); err != nil {
		return nil, listPage{}, fmt.Errorf("list: %w", err)
	}
	req := workspace.ListRequest{Types: in.Types, Folders: in.Folders, Tags: in.Tags, Where: in.Where, Verdicts: in.Verdicts, Fields: in.Fields,
		LinksTo: in.LinksTo, LinkedFrom: in.LinkedFrom, DueWithin: in.DueWithin, Sort: in.Sort,
		Transitive: in.Transitive, Orphans: in.Orphans, DeadEnds: in.DeadEnds, Stale: in.Stale, Reverse: in.Reverse}
	return answer(ctx, z, workspace.Reading, func(w *workspace.Workspace, out *listPage) error {
		res, err := w.List(ctx, req)
		if err != nil {
			return err
		}
		out.List = view.NewList(res, in.Fields)
		out.Warnings = w.ListWarnings(res, in.Fields)
		out.Notes, out.pageOutput, err = pageOf(out.Notes, page)
		return err
	})
}
