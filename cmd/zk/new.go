package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/config"
	"github.com/zk-claims/zk/workspace"
)

type newOptions struct {
	root  *rootOptions
	typ   string
	title string
	now   func() time.Time
}

func newNewCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &newOptions{root: root, now: time.Now}
	cmd := &cobra.Command{
		Use:   "new TITLE",
		Short: "Create a note from its type's template",
		Long: `Create a note titled TITLE from the template of its type (--type, default
permanent), in the folder the config names for the type, and print its path.

The template's {{title}}, {{date}}, {{time}} and {{date:FORMAT}} are
filled in as Obsidian's Templates plugin does. The file name is the title
without the characters Obsidian or an OS refuses (* " \ / < > : | ? # ^ [ ]).
zk new never overwrites a note.

EXIT STATUS
  0  created; the path is on stdout
  2  the note exists, the title leaves no file name, or the type is unknown`,
		Args: nArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.title = args[0]
			return runNew(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.typ, "type", config.DefaultType, "the note `type`, as named in .zk/config.toml")
	return cmd
}

func runNew(ctx context.Context, opts *newOptions, s *streams) error {
	w, err := opts.root.open(ctx, s, workspace.Writing, "")
	if err != nil {
		return err
	}
	defer w.Close()
	p, err := w.New(ctx, workspace.NewRequest{Type: opts.typ, Title: opts.title, Now: opts.now()})
	if err != nil {
		return err
	}
	fmt.Fprintln(s.out, filepath.Join(w.Vault.Dir, filepath.FromSlash(p)))
	return nil
}
