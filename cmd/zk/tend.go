package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/tending"
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
	if _, err := time.Parse(time.DateOnly, opts.date); opts.date != "" && err != nil {
		return usageError{fmt.Errorf("tend: --date %q is not a date of the form YYYY-MM-DD", opts.date)}
	}
	w, err := opts.root.open(s, workspace.Writing, opts.note)
	if err != nil {
		return err
	}
	defer w.Close()
	out, err := tendNote(ctx, w, opts.note, opts.date)
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

// tendOutput is what zk tend did, as zk mcp's tend tool returns it.
type tendOutput struct {
	Path      string `json:"path"`
	Date      string `json:"date"`
	Was       string `json:"was,omitempty"`
	Had       bool   `json:"-"`
	Unchanged bool   `json:"unchanged"`
}

// tendNote sets the Last tended date of the note arg names to date
// (YYYY-MM-DD; "" for today): zk tend and zk mcp's tend tool.
func tendNote(ctx context.Context, w *workspace.Workspace, arg, date string) (tendOutput, error) {
	v, cfg := w.Vault, w.Config
	if date == "" {
		date = w.Today.Format(time.DateOnly)
	}
	p, _, err := workspace.Locate(ctx, v, arg)
	if err != nil {
		return tendOutput{}, err
	}
	n, err := v.ReadNote(p)
	if err != nil {
		return tendOutput{}, err
	}
	// The section of the type's template, decided once from the note as
	// read: an edit made meanwhile that changes the note's type is rare,
	// and SetLastTended reads the date back in that section either way.
	section := vault.TendedSection(w.Types, n)
	out := tendOutput{Path: p, Date: date}
	if t, ok := tending.LastTended(n, section, cfg.TendedKeys); ok {
		out.Was, out.Had = t.Raw, true
	}
	res, err := v.EditNote(p, func(src []byte) ([]byte, error) {
		return tending.SetLastTended(p, src, date, section, cfg.TendedKeys)
	}, vault.WriteOptions{Base: n.Src})
	if err != nil {
		return tendOutput{}, err
	}
	out.Path, out.Unchanged = res.Path, res.Unchanged
	return out, nil
}
