package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/spf13/cobra"

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
embed, markdown link, #heading or #^block, references (to the note, the
heading, the block or the tag under the cursor), a code lens counting
backlinks, headings as document symbols, completion of note names after
[[, headings after # and block ids after #^, tags after # and relations
after "— " in the Links section, and code actions: set Last tended to
today, fix a broken link to the note it almost names, type an untyped
Links entry, create a missing note from its type's template. Commands
(workspace/executeCommand): zk.new creates a note as zk new does, zk.tend
sets a note's Last tended date as zk tend does, zk.rejudge judges a
note's falsifiers again as zk run --rejudge does, zk.references lists
references; none runs a command written in a note.

The vault is the one --vault names, else the nearest folder up from the
editor's root (its first workspace folder, else rootUri) holding
.obsidian/ or .zk/, else up from the working directory when the editor
names no root; a folder with neither is served only to read (no command
or action that writes, no rename). The vault is read once at start,
from zk's cache for every note unchanged since zk last read it; a
note opened is checked at once against the files zk's cache names (else
once the vault's files are listed), and again, if that changes its
findings, once the files are listed and once every note is known. A save,
or a file changed outside the editor, updates it, and checks again the
notes that link to or rest on the note changed. Maintenance is measured
against the day of each check (--today or $ZK_TODAY pins it).

EXIT STATUS
  0  the editor closed the connection
  1  the editor said exit without asking for shutdown first
  2  the vault could not be opened`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLSP(cmd.Context(), root, s)
		},
	}
}

func runLSP(ctx context.Context, root *rootOptions, s *streams) error {
	// A --today or $ZK_TODAY that does not parse is said at start, not
	// to the editor's initialize.
	if _, err := root.now(); err != nil {
		return err
	}
	var mu sync.Mutex // w is set on the connection's goroutine, closed on this one
	var w *workspace.Workspace
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		if w != nil {
			w.Close()
		}
	}()
	var opts lsp.Options
	if root.vaultDir != "" {
		// --vault names the vault whatever root the editor names: opened
		// at once, so that its scan overlaps the editor's start.
		var err error
		if w, err = root.open(ctx, s, workspace.Reading, ""); err != nil {
			return err
		}
		opts = lspOptions(root, w)
	} else {
		opts.Open = func(clientRoot string) (lsp.Options, error) {
			opened, err := openLSPVault(ctx, root, s, clientRoot)
			if err != nil {
				return lsp.Options{}, err
			}
			mu.Lock()
			w = opened
			mu.Unlock()
			return lspOptions(root, opened), nil
		}
	}
	err := lsp.New(opts).Serve(ctx, stdio{s.in, s.out})
	if errors.Is(err, lsp.ErrExitWithoutShutdown) {
		return errFindings // exit 1, as the protocol asks, and nothing to print
	}
	return err
}

// openLSPVault opens the vault zk lsp serves when --vault names none,
// from the root the editor names at initialize: the nearest folder up
// from it holding .obsidian/ or .zk/, as every command finds the vault
// from a path, else the root itself, only to read. An editor starts the
// server in a folder of its own (Neovim in its working directory), so
// the working directory is the rule only when the editor names no root
// (clientRoot "").
func openLSPVault(ctx context.Context, root *rootOptions, s *streams, clientRoot string) (*workspace.Workspace, error) {
	if clientRoot == "" {
		return root.open(ctx, s, workspace.Reading, "")
	}
	dir, marked := workspace.Marked(clientRoot)
	if !marked {
		dir = clientRoot
		s.notify(workspace.Notice{Text: "no .obsidian/ or .zk/ found up from the editor's root; using " + clientRoot +
			" as the vault, only to read (the commands that write are not offered)"})
	}
	at := *root
	at.vaultDir = dir // lspOptions reads root's own, unset: a folder found unmarked stays read-only
	return at.open(ctx, s, workspace.Reading, "")
}

// lspOptions are zk lsp's server options: zk check's, but for today,
// which the server asks its clock for at each check unless --today or
// $ZK_TODAY pins it (a server runs past midnight).
func lspOptions(root *rootOptions, w *workspace.Workspace) lsp.Options {
	lopts := w.LintOptions()
	lopts.Only = w.SkipTemplates(nil)
	if !root.pinned() {
		lopts.Today = time.Time{}
	}
	opts := lsp.Options{
		Vault: w.Vault,
		Lint:  lopts,

		HelpURL: func(rule string) string { return rulesURL + "#" + ruleAnchor(rule) },
		Version: version,
		NewNote: lspNewNote(w),
		Cache:   w.LiveCache,
	}
	// The commands that write (zk.new, zk.tend, zk.rejudge) write only in a vault, as
	// zk new and zk tend do: a folder with no .obsidian/ or .zk/ is not
	// made one by an editor's command. ReadOnly also withholds zk.tend's
	// edit of a note open in the editor, the action that creates a note
	// and rename (zk mv's).
	_, marked := workspace.Marked(w.Vault.Dir)
	opts.ReadOnly = !marked && root.vaultDir == ""
	if !opts.ReadOnly {
		opts.Create = func(ctx context.Context, typ, title string) (string, error) {
			return w.New(ctx, workspace.NewRequest{Type: typ, Title: title, Now: time.Now()})
		}
		opts.Tend = func(ctx context.Context, p, date string) (bool, error) {
			out, err := w.Tend(ctx, workspace.TendRequest{Note: p, Date: date})
			return out.Unchanged, err
		}
		opts.Rejudge = func(ctx context.Context, p, falsifier string) ([]string, error) {
			res, err := w.RejudgeRuns(ctx, workspace.RejudgeRequest{Note: p, Falsifier: falsifier})
			var out []string
			for _, j := range res.Judged {
				line := fmt.Sprintf("falsifier %d: %s, judged %s under the criterion as written", j.Falsifier.N, j.Was.Verdict, j.Now.Verdict)
				if j.Err != nil {
					line = fmt.Sprintf("falsifier %d: not judged again: %v", j.Falsifier.N, j.Err)
				}
				out = append(out, line)
			}
			for _, j := range res.Left {
				out = append(out, fmt.Sprintf("falsifier %d: not judged again here (%v): judge it alone", j.Falsifier.N, j.Err))
			}
			return out, err
		}
	}
	return opts
}

// lspNewNote is the note zk lsp's "create the note" action writes: zk
// new's, of the type given or the default one, created now (or on the day
// --today or $ZK_TODAY gives, as zk new does).
func lspNewNote(w *workspace.Workspace) func(typ, title string) (string, []byte, error) {
	return func(typ, title string) (string, []byte, error) {
		// The action's title names the path: no request's context here,
		// and the vault's walk is bounded.
		return w.RenderNew(context.Background(), typ, title, time.Now())
	}
}

// stdio is the process's stdin and stdout as the one stream a language
// server speaks on.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }
