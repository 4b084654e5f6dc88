package main

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/config"
	"github.com/zk-claims/zk/templates"
	"github.com/zk-claims/zk/vault"
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
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.title = args[0]
			return runNew(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.typ, "type", config.DefaultType, "the note `type`, as named in .zk/config.toml")
	return cmd
}

func runNew(ctx context.Context, opts *newOptions, s *streams) error {
	w, err := opts.root.open(s, workspace.Writing, "")
	if err != nil {
		return err
	}
	defer w.Close()
	now, err := opts.createdAt()
	if err != nil {
		return err
	}
	p, err := createNote(ctx, w, opts.typ, opts.title, now)
	if err != nil {
		return err
	}
	fmt.Fprintln(s.out, filepath.Join(w.Vault.Dir, filepath.FromSlash(p)))
	return nil
}

// createNote writes the note zk new creates (renderNew), never over a
// file of that path in any case, and returns its vault path: zk new and
// zk lsp's zk.new.
func createNote(ctx context.Context, w *workspace.Workspace, typ, title string, now time.Time) (string, error) {
	v := w.Vault
	p, text, err := renderNew(w, typ, title, now)
	if err != nil {
		return "", err
	}
	files, _, err := v.Files(ctx)
	if err != nil {
		return "", err
	}
	if got, ok := vault.ResolverOf(files).Has(p); ok {
		return "", fmt.Errorf("new: %s: %w", got, vault.ErrExists)
	}
	if err := v.CreateFile(p, text); err != nil {
		return "", fmt.Errorf("new: %w", err)
	}
	return p, nil
}

// renderNew is the note zk new creates for a title: its vault path (in
// the folder of its type) and its text (the type's template rendered).
// zk lsp's "create the note" action renders the same note.
func renderNew(w *workspace.Workspace, typ, title string, now time.Time) (string, []byte, error) {
	v, cfg := w.Vault, w.Config
	tmpl, _, err := cfg.Template(typ, func(p string) ([]byte, error) { return v.ReadFile(p, v.MaxNoteSize) })
	if err != nil {
		return "", nil, usageError{err}
	}
	name := vault.FileName(title)
	if name == "" {
		return "", nil, usageError{fmt.Errorf("new: %q leaves no file name once the characters a file name cannot hold are gone", title)}
	}
	return path.Join(filepath.ToSlash(cfg.Types[typ].Folder), name+".md"), templates.Render(tmpl, title, now), nil
}

// createdAt is the note's creation time: the clock, or midnight of the
// day --today or $ZK_TODAY gives, so that tests and reproducible runs
// render the same note.
func (o *newOptions) createdAt() (time.Time, error) {
	if o.root.pinned() {
		return o.root.now()
	}
	return o.now(), nil
}
