package main

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/config"
	"github.com/zk-claims/zk/lsp"
	"github.com/zk-claims/zk/workspace"
)

func newLSPCmd(root *rootOptions, s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "lsp",
		Short: "Serve the vault to an editor (language server over stdio)",
		Long: `Serve the vault to an editor over the Language Server Protocol on stdin and
stdout: zk check's findings as diagnostics on the text being edited (the
rule as the code, its help as the link), go to definition on a wikilink,
embed, markdown link, #heading or #^block, references (the note's
backlinks), headings as document symbols, completion of note names after
[[, headings after # and block ids after #^, tags after # and relations
after "— " in the Links section, and code actions: set Last tended to
today, fix a broken link to the note it almost names, type an untyped
Links entry, create a missing note from its type's template.

Start it in the vault's folder, or give --vault. The vault is read once at
start; a note opened is checked as soon as the vault's files are listed,
and again, if that changes its findings, once every note is read. A save,
or a file changed outside the editor, updates it, and checks again the
notes that link to or rest on the note changed. Maintenance is measured
against the day of each check (--today or $ZK_TODAY pins it).

EXIT STATUS
  0  the editor closed the connection
  2  the vault could not be opened`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLSP(cmd.Context(), root, s)
		},
	}
}

func runLSP(ctx context.Context, root *rootOptions, s *streams) error {
	w, err := root.open(s, workspace.Reading, "")
	if err != nil {
		return err
	}
	defer w.Close()
	srv := lsp.New(lspOptions(root, w))
	return srv.Serve(ctx, stdio{s.in, s.out})
}

// lspOptions are zk lsp's server options: zk check's, but for today,
// which the server asks its clock for at each check unless --today or
// $ZK_TODAY pins it (a server runs past midnight).
func lspOptions(root *rootOptions, w *workspace.Workspace) lsp.Options {
	lopts := w.LintOptions()
	lopts.Only = skipTemplates(nil, w.Config.Templates)
	if !root.pinned() {
		lopts.Today = time.Time{}
	}
	return lsp.Options{
		Vault: w.Vault,
		Lint:  lopts,

		HelpURL: func(rule string) string { return rulesURL + "#" + ruleAnchor(rule) },
		Version: version,
		NewNote: lspNewNote(root, w),
	}
}

// lspNewNote is the note zk lsp's "create the note" action writes: zk
// new's, of the type given or the default one, created now (or on the day
// --today or $ZK_TODAY gives, as zk new does).
func lspNewNote(root *rootOptions, w *workspace.Workspace) func(typ, title string) (string, []byte, error) {
	return func(typ, title string) (string, []byte, error) {
		if typ == "" {
			typ = config.DefaultType
		}
		now := time.Now()
		if root.pinned() {
			now = w.Today
		}
		return renderNew(w, typ, title, now)
	}
}

// stdio is the process's stdin and stdout as the one stream a language
// server speaks on.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }
