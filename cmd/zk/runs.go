package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/workspace"
)

type runsOptions struct {
	root   *rootOptions
	format string
	note   string
}

func newRunsCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &runsOptions{root: root}
	cmd := &cobra.Command{
		Use:   "runs [<note>]",
		Short: "List a note's recorded runs, or every falsifier's latest verdict",
		Long: `List the falsifier runs and attached results recorded in a note's
Evidence section, oldest first: id, start time (UTC), exit code, duration,
verdict and command. A block edited since it was recorded is marked
"edited" (zk check reports it as evidence/run-edited).

--format json prints {"runs":[{"id","started","exit","duration_s",
"falsifier","command","verdict"}]}; exit is null for a command that did not
exit by itself (timed out, could not start) and for an attached result.

Without a note, zk runs lists every falsifier of every note in the vault
with its latest run: note, falsifier number, verdict (never-run when there
is none), when, and the criterion's statement. --format json prints
{"falsifiers":[{"note","falsifier","text","criterion","run","started",
"verdict","statement"}]}.

EXIT STATUS
  0  listed (also when there are none)
  2  the note was not found or could not be read`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeNote(root, s),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return runVerdicts(cmd.Context(), opts, s)
			}
			opts.note = args[0]
			return runRuns(cmd.Context(), opts, s)
		},
	}
	addFormatFlag(cmd, &opts.format, "output `format`", "text", "json")
	return cmd
}

// runView is one run in zk runs --format json (the README's shape).
type runView struct {
	ID        string           `json:"id"`
	Started   string           `json:"started"`
	Exit      *int             `json:"exit"`
	Duration  float64          `json:"duration_s"`
	Falsifier string           `json:"falsifier"`
	Command   string           `json:"command"`
	Verdict   evidence.Verdict `json:"verdict"`
	Edited    string           `json:"edited,omitempty"`
}

func newRunView(r evidence.Run) runView {
	v := runView{ID: r.ID, Started: r.Started.UTC().Format(time.RFC3339), Duration: r.Duration.Seconds(),
		Falsifier: r.Falsifier, Command: r.Command, Verdict: r.Verdict, Edited: r.Problem}
	if r.Exit >= 0 && !r.Attached {
		exit := r.Exit
		v.Exit = &exit
	}
	return v
}

// newRunViews are runs as zk runs --format json prints them, and the MCP
// runs tool returns them.
func newRunViews(runs []evidence.Run) []runView {
	views := make([]runView, len(runs))
	for i, r := range runs {
		views[i] = newRunView(r)
	}
	return views
}

func runRuns(ctx context.Context, opts *runsOptions, s *streams) error {
	w, err := opts.root.open(s, workspace.Reading, opts.note)
	if err != nil {
		return err
	}
	defer w.Close()
	p, runs, err := w.Runs(ctx, opts.note)
	if err != nil {
		return err
	}
	views := newRunViews(runs)
	if opts.format == "json" {
		return writeJSON(s.out, struct {
			Runs []runView `json:"runs"`
		}{views})
	}
	if len(runs) == 0 {
		fmt.Fprintf(s.err, "%s: no recorded runs\n", printable.Of(p))
		return nil
	}
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	if s.outTTY {
		fmt.Fprintln(tw, "ID\tSTARTED\tEXIT\tDURATION\tVERDICT\tCOMMAND")
	}
	for _, r := range views {
		exit := "-"
		if r.Exit != nil {
			exit = fmt.Sprint(*r.Exit)
		}
		verdict := string(r.Verdict)
		if r.Edited != "" {
			verdict += " (edited)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3gs\t%s\t%s\n", printable.Of(r.ID), r.Started, exit, r.Duration, printable.Of(verdict), printable.Of(r.Command))
	}
	return tw.Flush()
}
