package mcp

// zk mcp's tools beyond the commands' own: the vault's properties, a move
// (a dry run, then the same plan applied), and note edits (append to a
// section, set a property), each through the write path zk's commands
// use.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zk-claims/zk/internal/english"
	"github.com/zk-claims/zk/vault/move"
	"github.com/zk-claims/zk/view"
	"github.com/zk-claims/zk/workspace"
)

// Tool annotations: what a client may assume of a tool before calling
// it. Every tool works on the vault alone (closed world) but
// run_falsifier, which runs a command.
var (
	no, yes = false, true
	// readOnlyTool reads the vault and changes nothing.
	readOnlyTool = &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}
	// addingTool writes, and a second call writes again (new, append).
	addingTool = &sdk.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no}
	// settingTool writes what was asked, and a second call changes
	// nothing more (tend, set_property); it may replace a value.
	settingTool = &sdk.ToolAnnotations{IdempotentHint: true, DestructiveHint: &yes, OpenWorldHint: &no}
	// movingTool renames files and rewrites the links to them.
	movingTool = &sdk.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &no}
	// runningTool runs a command the user approved, which may reach
	// anything the user's account does, and records its result.
	runningTool = &sdk.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &yes}
)

func addEditTools(srv *sdk.Server, z *zkServer) {
	sdk.AddTool(srv, &sdk.Tool{Name: "base", Annotations: readOnlyTool,
		Description: "Evaluate an Obsidian base headless, as Obsidian's Bases plugin does (zk base --format json): a .base file, or a note embedding " +
			"a base (the first, or the one embed names), one view of it: its rows (a page of them, in the view's order and groups), columns, summaries " +
			"and what zk could not compute as Obsidian would (warnings)."}, z.base)
	sdk.AddTool(srv, &sdk.Tool{Name: "properties", Annotations: readOnlyTool,
		Description: "Every frontmatter property of the vault's notes: its type (declared in .obsidian/types.json, else inferred as Obsidian does), " +
			"how many notes have it, and the other types its values have (zk properties --format json)."}, z.properties)
	sdk.AddTool(srv, &sdk.Tool{Name: "move", Annotations: movingTool,
		Description: "Move or rename a note, attachment or folder and rewrite every link to it, or rename a heading (from NOTE#Old to NOTE#New) " +
			"and every link to it (zk mv). Without confirm it is a dry run: it returns the plan (files moved, each link rewritten) and a confirm token; " +
			"called again with that token it applies that same plan, and refuses if the vault changed since."}, z.move)
	sdk.AddTool(srv, &sdk.Tool{Name: "append_section", Annotations: addingTool,
		Description: "Append text (markdown) to the end of one section of a note, the section named by its heading (any level, case ignored), " +
			"through the same safe write path as zk tend; the previous version is kept in .zk/backups/."}, z.appendSection)
	sdk.AddTool(srv, &sdk.Tool{Name: "set_property", Annotations: settingTool,
		Description: "Set one frontmatter property of a note (added when missing; the frontmatter too) to a string, number, boolean or list, " +
			"null to empty it; the other properties keep their text. Through the same safe write path as zk tend."}, z.setProperty)
}

// propertiesPage is zk properties --format json, a page of it, the
// properties by name.
type propertiesPage struct {
	view.Properties
	pageOutput
	told
}

func (z *zkServer) properties(ctx context.Context, req *sdk.CallToolRequest, in pageInput) (*sdk.CallToolResult, propertiesPage, error) {
	ctx = readingProgress(ctx, req)
	return answer(ctx, z, workspace.Reading, func(w *workspace.Workspace, out *propertiesPage) error {
		sums, err := w.Properties(ctx)
		if err != nil {
			return err
		}
		out.Properties = view.NewProperties(sums)
		out.List, out.pageOutput, err = pageOf(out.List, in)
		return err
	})
}

type moveInput struct {
	From    string `json:"from" jsonschema:"what moves: a note or attachment (vault path, or name as a wikilink writes it), a folder, or NOTE#Heading to rename a heading"`
	To      string `json:"to" jsonschema:"where: a vault path (a folder ending in / keeps the name), a new name beside it, or NOTE#New (or #New) for a heading"`
	Confirm string `json:"confirm,omitempty" jsonschema:"the confirm token of a dry run of the same move: apply that plan. Leave out for a dry run"`
}

// moveOutput is zk mv --format json, with the token that applies it.
type moveOutput struct {
	view.Move
	// Confirm is the plan's token: the same move called with it applies
	// this plan; empty once applied.
	Confirm string `json:"confirm,omitempty"`
	told
}

// move plans the move each call; a dry run returns the plan's token, and
// a call carrying the token applies the plan only if it is still the one
// the token names, so that what is applied is what was shown.
func (z *zkServer) move(ctx context.Context, req *sdk.CallToolRequest, in moveInput) (*sdk.CallToolResult, moveOutput, error) {
	if in.Confirm != "" {
		// Even a move that failed part way may have moved some files.
		defer z.notesChanged(ctx)
	}
	ctx = readingProgress(ctx, req)
	return answer(ctx, z, workspace.Writing, func(w *workspace.Workspace, out *moveOutput) error {
		plan, err := w.PlanMove(ctx, in.From, in.To)
		if err != nil {
			return err
		}
		mo := view.NewMove(plan)
		out.Move = mo
		token, err := planToken(mo)
		if err != nil {
			return err
		}
		if in.Confirm == "" {
			out.DryRun, out.Confirm = true, token
			return nil
		}
		if in.Confirm != token {
			return fmt.Errorf("move: the plan is no longer the one confirm names (the vault changed, or from or to differ): nothing was moved; call move again without confirm to see the plan as it is now")
		}
		if len(plan.Unwritable) > 0 {
			return fmt.Errorf("move: the move would break %s zk cannot rewrite; nothing was moved", english.Plural(len(plan.Unwritable), "link"))
		}
		return w.ApplyMove(ctx, plan, move.ApplyOptions{})
	})
}

// planToken names a plan: the hash of everything it would do.
func planToken(mo view.Move) (string, error) {
	b, err := json.Marshal(mo)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12]), nil
}

type appendInput struct {
	Note    string `json:"note" jsonschema:"the note: its vault path or its name"`
	Section string `json:"section" jsonschema:"the heading of the section, without its #s (e.g. Evidence); any level, case ignored"`
	Text    string `json:"text" jsonschema:"the markdown to append, as one or more lines"`
}

// editOutput is what an edit did.
type editOutput struct {
	Path      string `json:"path"`
	Unchanged bool   `json:"unchanged"`
	told
}

func (z *zkServer) appendSection(ctx context.Context, _ *sdk.CallToolRequest, in appendInput) (*sdk.CallToolResult, editOutput, error) {
	return answer(ctx, z, workspace.Writing, func(w *workspace.Workspace, out *editOutput) error {
		e, err := w.AppendSection(ctx, workspace.AppendRequest{Note: in.Note, Section: in.Section, Text: in.Text})
		*out = editOutput{Path: e.Path, Unchanged: e.Unchanged}
		return err
	})
}

type setPropertyInput struct {
	Note  string `json:"note" jsonschema:"the note: its vault path or its name"`
	Key   string `json:"key" jsonschema:"the property's name (a top-level frontmatter key)"`
	Value any    `json:"value" jsonschema:"the value: a string, number, boolean, list of those, or null to empty it"`
}

func (z *zkServer) setProperty(ctx context.Context, _ *sdk.CallToolRequest, in setPropertyInput) (*sdk.CallToolResult, editOutput, error) {
	value, err := yamlValue(in.Value)
	if err != nil {
		return nil, editOutput{}, fmt.Errorf("set_property: value: %w", err)
	}
	return answer(ctx, z, workspace.Writing, func(w *workspace.Workspace, out *editOutput) error {
		e, err := w.SetProperty(ctx, workspace.PropertyRequest{Note: in.Note, Key: in.Key, Value: value})
		*out = editOutput{Path: e.Path, Unchanged: e.Unchanged}
		return err
	})
}

// yamlValue is a JSON value as a property holds it: a whole number an
// int64 (3, not 3.0), a list each of its items, an object refused.
func yamlValue(v any) (any, error) {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), nil
		}
		return x, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			switch e.(type) {
			case []any:
				return nil, errors.New("a list of lists is not a property Obsidian reads")
			case nil:
				// The write path would say "not <nil>", a Go type's name.
				return nil, fmt.Errorf("item %d of the list is null: a list holds strings, numbers or booleans (null empties the whole property)", i+1)
			}
			y, err := yamlValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = y
		}
		return out, nil
	case map[string]any:
		return nil, errors.New("an object is not a property Obsidian reads; give a string, number, boolean or list")
	}
	return v, nil
}

type baseInput struct {
	Base  string `json:"base" jsonschema:"the base: a .base file (vault path, or name as a wikilink writes it) or a note that embeds a base"`
	View  string `json:"view,omitempty" jsonschema:"the view's name (default: the first, or the one an embed names)"`
	Embed string `json:"embed,omitempty" jsonschema:"in a note embedding several bases: which, by number (1 is the first) or view name"`
	This  string `json:"this,omitempty" jsonschema:"the note the base's this refers to (default: the note embedding it, or the base file)"`
	pageInput
}

// basePage is zk base --format json with a page of its rows, and its
// warnings then those zk base says only on stderr. A group is a key and
// summaries over rows: one without a row on the page is on another page,
// and is left out of this one (a group across pages is on each); total
// counts every row.
type basePage struct {
	view.Base
	pageOutput
}

func (b *basePage) tell(lines []string) { b.Warnings = append(b.Warnings, lines...) }

func (z *zkServer) base(ctx context.Context, req *sdk.CallToolRequest, in baseInput) (*sdk.CallToolResult, basePage, error) {
	ctx = readingProgress(ctx, req)
	return answer(ctx, z, workspace.Reading, func(w *workspace.Workspace, out *basePage) error {
		r, err := w.Base(ctx, workspace.BaseRequest{Base: in.Base, View: in.View, Embed: in.Embed, This: in.This})
		if err != nil {
			if len(r.Warnings) > 0 {
				err = fmt.Errorf("%w\n%s", err, strings.Join(r.Warnings, "\n"))
			}
			return err
		}
		// Its warnings as zk base --format json has them (the base names
		// the file), then what zk base says only on stderr.
		out.Base = view.NewBase(r.Where, r.Result)
		out.Warnings = append(out.Warnings, r.Others...)
		// The page: rows in the view's order, across its groups.
		limit, offset, err := in.bounds()
		if err != nil {
			return err
		}
		n := 0
		for _, grp := range out.Groups {
			n += len(grp.Rows)
		}
		out.pageOutput = pageOutput{Items: n}
		if offset+limit < n {
			out.NextOffset = offset + limit
		}
		groups := []view.BaseGroup{}
		at := 0
		for _, grp := range out.Groups {
			if len(grp.Rows) == 0 {
				// A group of no rows (a view of none is one, its
				// summaries over nothing) is on the page holding its
				// place.
				if at >= offset && at < offset+limit {
					groups = append(groups, grp)
				}
				continue
			}
			from, to := max(offset-at, 0), min(offset+limit-at, len(grp.Rows))
			at += len(grp.Rows)
			if from >= to {
				continue
			}
			grp.Rows = grp.Rows[from:to]
			groups = append(groups, grp)
		}
		out.Groups = groups
		return nil
	})
}
