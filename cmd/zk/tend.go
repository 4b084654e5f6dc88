package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/tending"
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
		Args:              cobra.ExactArgs(1),
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
	date := opts.date
	if _, err := time.Parse(time.DateOnly, date); date != "" && err != nil {
		return usageError{fmt.Errorf("tend: --date %q is not a date of the form YYYY-MM-DD", date)}
	}
	w, err := opts.root.open(s, writing, opts.note)
	if err != nil {
		return err
	}
	defer w.Close()
	v, cfg := w.vault, w.cfg
	if date == "" {
		date = w.today.Format(time.DateOnly)
	}
	p, _, err := locateNote(ctx, v, opts.note)
	if err != nil {
		return err
	}
	n, err := v.ReadNote(p)
	if err != nil {
		return err
	}
	// The section of the type's template, decided once from the note as
	// read: an edit made meanwhile that changes the note's type is rare,
	// and SetLastTended reads the date back in that section either way.
	section := vault.TendedSection(w.types, n)
	was := "no date"
	if t, ok := tending.LastTended(n, section, cfg.TendedKeys); ok {
		was = fmt.Sprintf("%q", t.Raw)
	}
	res, err := v.EditNote(p, func(src []byte) ([]byte, error) {
		return tending.SetLastTended(p, src, date, section, cfg.TendedKeys)
	}, vault.WriteOptions{Base: n.Src})
	if err != nil {
		return err
	}
	if res.Unchanged {
		fmt.Fprintf(s.out, "%s: Last tended is already %s\n", printable(p), date)
		return nil
	}
	fmt.Fprintf(s.out, "%s: Last tended %s (was %s)\n", printable(res.Path), date, printable(was))
	return nil
}
