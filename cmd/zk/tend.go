package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/workspace"
)

type tendOptions struct {
	root  *rootOptions
	notes []string
	date  string
}

func newTendCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &tendOptions{root: root}
	cmd := &cobra.Command{
		Use:   "tend <note>...",
		Short: "Set the Last tended date of each note named",
		Long: `Set the Last tended date of each note named to today (or --date).

The date is changed where the note already states it (the Maintenance line,
a frontmatter property, a Dataview field or a garden footer) by overwriting
those ten bytes and nothing else; a note without a date gets the line
"- Last tended: DATE" in its Maintenance section, which is added at the end
when missing. Line endings, a byte-order mark, a missing final newline and
the file mode are kept, and the previous version is kept under
.zk/backups/.

A note that is empty or was modified within the last second (an editor or a
sync client may be writing it) is left alone: try again in a moment.
Of several notes, each is tended or not on its own: one that cannot be
is named on stderr and the others are tended still.

EXIT STATUS
  0  tended
  2  a note was not found, is mid-write, or could not be written`,
		Args:              nArgs(1, -1),
		ValidArgsFunction: completeNotes(root, s),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.notes = args
			return runTend(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.date, "date", "", "the `YYYY-MM-DD` to set (default: today)")
	return cmd
}

func runTend(ctx context.Context, opts *tendOptions, s *streams) error {
	for _, note := range opts.notes {
		if err := workspace.CheckTend(workspace.TendRequest{Note: note, Date: opts.date}, flagTerm); err != nil {
			return err // before the vault is opened
		}
	}
	w, err := opts.root.open(ctx, s, workspace.Writing, opts.notes[0])
	if err != nil {
		return err
	}
	defer w.Close()
	failed := false
	for _, note := range opts.notes {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := tendOne(ctx, w, workspace.TendRequest{Note: note, Date: opts.date}, s)
		if err != nil && len(opts.notes) == 1 {
			return err
		}
		if err != nil {
			// Told now, beside the notes tended around it; the exit
			// status says some note was not.
			fmt.Fprintf(s.err, "zk: %s\n", printable.Lines(err.Error()))
			failed = true
		}
	}
	if failed {
		return errReported
	}
	return nil
}

// tendOne tends one note and says what changed.
func tendOne(ctx context.Context, w *workspace.Workspace, req workspace.TendRequest, s *streams) error {
	out, err := w.Tend(ctx, req)
	if err != nil {
		return err
	}
	if out.Unchanged {
		fmt.Fprintf(s.out, "%s: Last tended is already %s\n", printable.Of(out.Path), out.Date)
		return nil
	}
	was := "no date"
	if out.Had {
		was = fmt.Sprintf("%q", out.Was)
	}
	fmt.Fprintf(s.out, "%s: Last tended %s (was %s)\n", printable.Of(out.Path), out.Date, printable.Of(was))
	return nil
}
