package mcp

import (
	"context"
	"encoding/json"
	"strconv"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/view"
	"github.com/zk-claims/zk/workspace"
)

// rejudgeTool is zk run --rejudge as a tool: nothing runs, so it needs no
// approval; it writes a "Judged again" block, as a call of run_falsifier
// writes a run's.
var rejudgeTool = &sdk.Tool{Name: "rejudge", Annotations: addingTool, InputSchema: rejudgeSchema,
	Description: "Judge a falsifier's latest run again, from its recorded output, under the criterion as the note writes it now, " +
		"and record that judgement in the note's Evidence section (zk run --rejudge). Nothing runs. " +
		"Without falsifier, every falsifier whose criterion changed since its latest run. " +
		"A judgement again answers no refutation: only a new run that supports the claim does."}

type rejudgeInput struct {
	Note string `json:"note"`
	// Falsifier is a number (1) or a string ("1", a piece of its text).
	Falsifier any `json:"falsifier,omitempty"`
}

var rejudgeSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"note": runFalsifierSchema["properties"].(map[string]any)["note"],
		"falsifier": map[string]any{"type": []string{"integer", "string"},
			"description": "the falsifier: its number (1 is the first), or a piece of its text; left out, every falsifier whose criterion changed"},
	},
	"required":             []string{"note"},
	"additionalProperties": false,
}

type rejudgeOutput struct {
	Note string `json:"note"`
	// Runs are the "Judged again" records written, one per falsifier
	// judged again; none when nothing's criterion changed.
	Runs []view.Run `json:"runs"`
	// Left are the falsifiers not judged again in this call, past the
	// 128 MiB of logs one call reads: a call naming each judges it.
	Left []int `json:"left,omitempty"`
	told
}

func (z *zkServer) rejudge(ctx context.Context, _ *sdk.CallToolRequest, in rejudgeInput) (*sdk.CallToolResult, rejudgeOutput, error) {
	falsifier, err := falsifierArg("rejudge", in.Falsifier)
	if err != nil {
		return nil, rejudgeOutput{}, err
	}
	return answer(ctx, z, workspace.Writing, func(w *workspace.Workspace, out *rejudgeOutput) error {
		res, err := w.RejudgeRuns(ctx, workspace.RejudgeRequest{Note: in.Note, Falsifier: falsifier})
		out.Note, out.Runs = res.Note, []view.Run{}
		for _, r := range res.Runs {
			out.Runs = append(out.Runs, view.NewRun(r))
		}
		for _, l := range res.Left {
			out.Left = append(out.Left, l.Falsifier.N)
		}
		return err
	})
}

// toolCall words a finding's next step as the call of this server's tool
// that takes it, its arguments as JSON: an agent has no `zk` command line
// to type.
func toolCall(path string, n lint.Next) string {
	note, _ := json.Marshal(path) // a string always marshals
	args := `{"note":` + string(note) + `,"falsifier":` + strconv.Itoa(n.Falsifier) + `}`
	switch n.Step {
	case lint.StepRun:
		return "run_falsifier " + args + " (it runs only a command the user approved with zk trust)"
	case lint.StepRejudge, lint.StepRejudgeUnjudged, lint.StepRevise:
		return "rejudge " + args
	}
	return ""
}
