package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/workspace"
)

type tendOptions struct {
	root *rootOptions
	note string
	date string
}

func newTendCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &tendOptions{root: root}
	cmd := &cobra.Command{
		Use:   "tend <note>",
		Short: "Set a note's Last tended date",
		Long: `Set a note's Last tended date to today (or --date).

The date is changed where the note already states it (the Maintenance line,
a frontmatter property, a Dataview field or a garden footer) by overwriting
those ten bytes and nothing else; a note without a date gets the line
"- Last tended: DATE" in its Maintenance section, which is added at the end
when missing. Line endings, a byte-order mark, a missing final newline and
the file mode are kept, and the previous version is kept under
.zk/backups/.

A note that is empty or was modified within the last second (an editor or a
sync client may be writing it) is left alone: try again in a moment.

EXIT STATUS
  0  tended
  2  the note was not found, is mid-write, or could not be written`,
		Args:              nArgs(1, 1),
		ValidArgsFunction: completeNote(root, s),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.note = args[0]
			return runTend(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.date, "date", "", "the `YYYY-MM-DD` to set (default: today)")
	return cmd
}

func runTend(ctx context.Context, opts *tendOptions, s *streams) error {
	req := workspace.TendRequest{Note: opts.note, Date: opts.date}
	if err := workspace.CheckTend(req, flagTerm); err != nil {
		return err // before the vault is opened
	}
	w, err := opts.root.open(ctx, s, workspace.Writing, opts.note)
	if err != nil {
		return err
	}
	defer w.Close()
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
