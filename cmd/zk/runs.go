package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/view"
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
exit by itself (timed out, killed) and for an attached result.

Without a note, zk runs lists every falsifier of every note in the vault
with its latest run: note, falsifier number, verdict (never-run when there
is none), when, and the criterion's statement; a verdict that flipped
between refutes and supports twice or more under the criterion is marked
(flaky), as zk check's falsifiers/flaky says. --format json prints
{"falsifiers":[{"note","falsifier","text","criterion","run","started",
"verdict","statement","n","flaky"}]}, n the fewest samples a value read
stands on (1: one reading, its noise unknown).

EXIT STATUS
  0  listed (also when there are none)
  2  the note was not found or could not be read`,
		Args:              nArgs(0, 1),
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

func runRuns(ctx context.Context, opts *runsOptions, s *streams) error {
	w, err := opts.root.open(ctx, s, workspace.Reading, opts.note)
	if err != nil {
		return err
	}
	defer w.Close()
	nr, err := w.Runs(ctx, opts.note)
	if err != nil {
		return err
	}
	rv := view.NewRuns(nr, lint.CommandLine)
	if opts.format == "json" {
		return writeJSON(s.out, rv)
	}
	if len(nr.Runs) == 0 {
		fmt.Fprintf(s.err, "%s: no recorded runs\n", printable.Of(nr.Path))
		return nil
	}
	t := table{header: []string{"RUN", "STARTED (UTC)", "EXIT", "TOOK", "VERDICT", "COMMAND"}, right: map[int]bool{2: true, 3: true}}
	for _, r := range rv.Runs {
		exit := "-"
		if r.Exit != nil {
			exit = fmt.Sprint(*r.Exit)
		}
		verdict := string(r.Verdict)
		if r.Edited != "" {
			verdict += " (edited)"
		}
		command := r.Command
		if r.Rejudges != "" {
			command = "(judged again: run " + r.Rejudges + ")"
		}
		started := strings.TrimSuffix(strings.Replace(r.Started, "T", " ", 1), "Z")
		t.add(printable.Of(r.ID), started, exit, fmt.Sprintf("%.3gs", r.Duration), printable.Of(verdict), printable.Of(command))
	}
	if err := t.write(s.out, opts.root.outWidth(s)); err != nil {
		return err
	}
	return writeHistories(s, nr, rv.Falsifiers, opts.root.outWidth(s))
}

// writeHistories prints, under the runs, each falsifier's history: its
// records oldest first with the values each read (and the criterion it
// was judged by, when that is not the one written now), how the latest
// measurement differs from the one before, and a changed criterion
// judged again.
func writeHistories(s *streams, nr workspace.NoteRuns, views []view.History, width int) error {
	// say prints a sentence indented by indent, wrapped to the width.
	say := func(indent, text string) {
		if width <= 0 {
			fmt.Fprintln(s.out, indent+text)
			return
		}
		for _, l := range wrapText(text, max(width-len(indent), minWrap)) {
			fmt.Fprintln(s.out, indent+l)
		}
	}
	byN := map[int]evidence.Latest{}
	for _, l := range nr.Standing.Falsifiers {
		byN[l.Falsifier.N] = l
	}
	for _, hv := range views {
		var l evidence.Latest
		name := fmt.Sprintf("falsifier %d", hv.Falsifier)
		if hv.Deleted {
			name = "deleted falsifier"
			for _, d := range nr.Standing.Deleted {
				if d.Refuting.ID == hv.Run {
					l = d
				}
			}
		} else {
			l = byN[hv.Falsifier]
		}
		if !hv.Deleted && hv.CriterionChanged == nil && hv.Unanswered == "" && hv.Flaky == nil && !slices.ContainsFunc(hv.Series, func(p view.Point) bool { return len(p.Values) > 0 }) {
			continue // no values to follow: the runs above say it all
		}
		if hv.ID != "" {
			name += " ^" + hv.ID
		}
		fmt.Fprintln(s.out)
		if width > 0 {
			for k, line := range wrapText(printable.Of(name)+": "+printable.Of(hv.Text), width) {
				if k > 0 {
					// Continued under the text, as a hanging indent.
					line = "  " + line
				}
				fmt.Fprintln(s.out, line)
			}
		} else {
			fmt.Fprintf(s.out, "%s: %s\n", printable.Of(name), printable.Of(hv.Text))
		}
		var rows [][3]string
		for _, r := range l.Runs {
			var parts []string
			for _, v := range evidence.StatedValues(r.Criterion) {
				parts = append(parts, v.String())
			}
			what := strings.Join(parts, "; ")
			if r.Rejudges != "" {
				what = strings.TrimSpace("judged again (run " + r.Rejudges + ") " + what)
			}
			if c, ok := evidence.StatedCriterion(r.Criterion); ok && !evidence.SameCriterion(l.Falsifier.Criterion, c) {
				what += " (by `" + c + "`)"
			}
			rows = append(rows, [3]string{printable.Of(r.ID), printable.Of(string(r.Verdict)), printable.Of(what)})
		}
		if err := writeRunValues(s.out, rows, width); err != nil {
			return err
		}
		switch hv.Change {
		case evidence.ChangeBeyondNoise:
			say("  ", "the latest measurement differs from the one before beyond noise: their intervals do not overlap")
		case evidence.ChangeWithinNoise:
			say("  ", "the latest measurement is within noise of the one before: their intervals overlap")
		case evidence.ChangeUnknown:
			say("  ", "the latest measurement and the one before: noise unknown, a value has no interval")
		}
		if c := hv.CriterionChanged; c != nil {
			say("  ", printable.Of(changeSentence(c, hv.Note, hv.Falsifier)))
		}
		if hv.Unanswered != "" {
			say("  ", printable.Of(hv.Unanswered))
		}
		if hv.Flaky != nil {
			say("  ", printable.Of(lint.FlakyMessage(l.Falsifier, l.Flips())))
		}
	}
	return nil
}

// writeRunValues prints a falsifier's runs under it, indented: id, verdict
// and the values it read, the values wrapped beside the others to the
// width when there is one.
func writeRunValues(w io.Writer, rows [][3]string, width int) error {
	if width <= 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, r := range rows {
			switch {
			case cellWidth(r[0]) > maxPad || cellWidth(r[1]) > maxPad:
				// Not a cell every other row is padded to (a run id of
				// a megabyte in a note): a line of no column ends the
				// columns above it, and begins those below.
				line := "  " + r[0] + "  " + r[1]
				if r[2] != "" {
					line += "  " + r[2]
				}
				fmt.Fprintln(tw, line)
			case r[2] == "":
				fmt.Fprintf(tw, "  %s\t%s\n", r[0], r[1])
			default:
				fmt.Fprintf(tw, "  %s\t%s\t%s\n", r[0], r[1], r[2])
			}
		}
		return tw.Flush()
	}
	idW, vW := 0, 0 // as a table's columns, padded to maxPad at most
	for _, r := range rows {
		idW, vW = max(idW, padWidth(cellWidth(r[0]))), max(vW, padWidth(cellWidth(r[1])))
	}
	prefix := 2 + idW + tableGap + vW + tableGap
	var b strings.Builder
	for _, r := range rows {
		head := "  " + r[0] + strings.Repeat(" ", max(idW-cellWidth(r[0]), 0)+tableGap) + r[1]
		if r[2] == "" {
			b.WriteString(head + "\n")
			continue
		}
		head += strings.Repeat(" ", max(vW-cellWidth(r[1]), 0)+tableGap)
		for k, part := range wrapText(r[2], max(width-prefix, minWrap)) {
			if k == 0 {
				b.WriteString(head + part + "\n")
			} else {
				b.WriteString(strings.Repeat(" ", prefix) + part + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
