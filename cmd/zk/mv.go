package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault/move"
	"github.com/zk-claims/zk/view"
	"github.com/zk-claims/zk/workspace"
)

type mvOptions struct {
	root   *rootOptions
	old    string
	new    string
	dryRun bool
	format string
	// killAfter, from $ZK_TEST_MV_KILL_AFTER, kills the process with
	// SIGKILL after that many steps of the move: how the tests leave a
	// move half done for the next zk command to finish.
	killAfter int
	// signalAfter, from $ZK_TEST_MV_SIGNAL_AFTER, sends the process
	// SIGINT after that many steps of the move ("moved": once the move is
	// made), and waits until the command's context has seen it: how the
	// tests land a signal at a known step, not at a time.
	signalAfter string
	// undoWithin, from $ZK_TEST_MV_UNDO_WITHIN, is the move's
	// ApplyOptions.UndoWithin: -1ns leaves the undo of an interrupted
	// move to the next zk command.
	undoWithin time.Duration
}

func newMvCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &mvOptions{root: root}
	cmd := &cobra.Command{
		Use:   "mv <old> <new>",
		Short: "Move or rename a note, file, folder or heading and its links",
		Long: `Move or rename a note, an attachment or a folder, and rewrite every link
the move would break, across the vault: wikilinks, embeds, markdown links
(percent-encoded or in angle brackets) and frontmatter links, each keeping
its heading or block suffix and its display text. A link that no longer
reaches its file is written as Obsidian writes a new link, in the vault's
"New link format" (.obsidian/app.json newLinkFormat: shortest, the default,
is the file's name where no other file has it, else its full path;
relative; absolute). A link that reached another file keeps reaching it,
lengthened where the move would make it reach the moved file; a link that
reached nothing is left as written.

OLD is a path (relative to the working directory or to the vault) or a
note's name. NEW is a path; a NEW without a folder renames in place (one
that is OLD's own name is a path from the working directory: zk mv
"3. Resources/MOCs" MOCs), a NEW that is a folder (or ends in /) moves into
it, and a note keeps its .md. A renamed note whose H1 was its old name
gets the new name as its H1, and links to that heading follow.

  zk mv "Old Title" "New Title"
  zk mv Inbox/Idea.md "Permanent Notes/"
  zk mv "Note#Old heading" "Note#New heading"

The last form renames a heading and rewrites every link to it. A note
moved into or out of a type's folder changes type (the second form makes
a permanent note); the move says so: "retyped NOTE: none → permanent",
and json's "retyped".

The move is all or nothing: a journal under .zk/journal/ is written before
any file changes, each file is written atomically (the previous version
kept under .zk/backups/), and a move cut short by a crash is finished by
the next zk command. A file changed by another program meanwhile undoes
the move. So does Ctrl-C (SIGINT, SIGTERM, SIGHUP): zk stops between two
files and puts back what it wrote; what it cannot put back within the
second it has, the next zk command does, and zk says which. zk refuses
when NEW exists, and a path outside the vault.

EXIT STATUS
  0  moved (or, with --dry-run, planned)
  2  refused, not found, interrupted (the move undone), or a usage error`,
		Args: nArgs(2, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.old, opts.new = args[0], args[1]
			if k := root.getenv("ZK_TEST_MV_KILL_AFTER"); k != "" {
				n, err := strconv.Atoi(k)
				if err != nil {
					return usageError{fmt.Errorf("ZK_TEST_MV_KILL_AFTER: %w", err)}
				}
				opts.killAfter = n
			}
			opts.signalAfter = root.getenv("ZK_TEST_MV_SIGNAL_AFTER")
			if d := root.getenv("ZK_TEST_MV_UNDO_WITHIN"); d != "" {
				within, err := time.ParseDuration(d)
				if err != nil {
					return usageError{fmt.Errorf("ZK_TEST_MV_UNDO_WITHIN: %w", err)}
				}
				opts.undoWithin = within
			}
			return runMv(cmd.Context(), opts, s)
		},
		ValidArgsFunction: completeNote(root, s),
	}
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "print the plan (the renames and each link, old → new), write nothing")
	addFormatFlag(cmd, &opts.format, "output `format`", "text", "json")
	return cmd
}

func runMv(ctx context.Context, opts *mvOptions, s *streams) error {
	w, err := opts.root.open(ctx, s, workspace.Writing, strings.SplitN(opts.old, "#", 2)[0])
	if err != nil {
		return err
	}
	defer w.Close()
	plan, err := w.PlanMove(ctx, opts.old, opts.new)
	if err != nil {
		return err
	}
	out := view.NewMove(plan)
	out.DryRun = opts.dryRun
	if len(plan.Unwritable) > 0 && !opts.dryRun {
		return fmt.Errorf("mv: %s the move would break that zk cannot rewrite (reference-style or unusual frontmatter links); nothing was moved:\n  %s",
			quantity(len(plan.Unwritable), "link"), printable.Of(strings.Join(plan.Unwritable, "\n  ")))
	}
	if !opts.dryRun {
		ao := move.ApplyOptions{UndoWithin: opts.undoWithin, AfterFile: func(step int) {
			opts.kill(step)
			if opts.signalAfter == strconv.Itoa(step) {
				signalSelf(ctx)
			}
		}}
		if opts.killAfter > 0 || opts.signalAfter != "" {
			ao.Workers = 1 // killed or signalled after exactly that many files
		}
		if err := w.ApplyMove(ctx, plan, ao); err != nil {
			return err
		}
		if opts.signalAfter == "moved" {
			signalSelf(ctx)
		}
	}
	if opts.format == "json" {
		return writeJSON(s.out, out)
	}
	printMv(s, out, opts.root.outWidth(s))
	return nil
}

// kill ends the process after step opts.killAfter, as a crash would.
func (opts *mvOptions) kill(step int) {
	if opts.killAfter > 0 && step == opts.killAfter {
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Kill()
		}
		select {} // until the signal lands
	}
}

// signalSelf sends the process SIGINT, as a user's Ctrl-C would, and
// waits until ctx has seen it (the signal is delivered on another
// thread): the step after it runs with the signal landed.
func signalSelf(ctx context.Context) {
	if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(os.Interrupt) == nil {
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second): // a signal not caught: go on, and let the test fail
		}
	}
}

func typeOrNone(t string) string {
	if t == "" {
		return "none"
	}
	return t
}

func printMv(s *streams, out view.Move, width int) {
	verb, rewrote := "moved", "rewrote"
	if out.DryRun {
		verb, rewrote = "would move", "would rewrite"
	}
	// change prints "what old → new" on one line, or where that is wider
	// than the output, what, old and "→ new" on lines of their own, old
	// and new indented: each a path or a link, whole.
	change := func(what, old, new string) {
		line := what + " " + old + " → " + new
		if what == "" {
			line = old + " → " + new
		}
		if width <= 0 || cellWidth(line) <= width {
			fmt.Fprintln(s.out, line)
			return
		}
		if what != "" {
			fmt.Fprintln(s.out, what)
		}
		fmt.Fprintf(s.out, "    %s\n    → %s\n", old, new)
	}
	if h := out.Heading; h != nil {
		change(strings.Replace(verb, "move", "rename", 1)+" heading", printable.Of(h.Note)+"#"+printable.Of(h.From), "#"+printable.Of(h.To))
	}
	for _, r := range out.Moved {
		change(verb, printable.Of(r.From), printable.Of(r.To))
	}
	if t := out.Retitled; t != nil {
		change(strings.Replace(verb, "move", "retitle", 1)+" its H1:", "# "+printable.Of(t.From), "# "+printable.Of(t.To))
	}
	if out.DryRun {
		for _, e := range out.Edits {
			change(fmt.Sprintf("%s:%d:", printable.Of(e.Path), e.Line), printable.Of(e.Old), printable.Of(e.New))
		}
	}
	for _, r := range out.Retyped {
		// A type's folder makes a note of that type: said here, not
		// learned from zk check's new findings.
		change(strings.Replace(verb, "move", "retype", 1)+" "+printable.Of(r.Note)+":", printable.Of(typeOrNone(r.From)), printable.Of(typeOrNone(r.To)))
	}
	fmt.Fprintf(s.out, "%s %s in %s\n", rewrote, quantity(out.Links, "link"), quantity(out.Files, "file"))
	for _, c := range out.Captured {
		fmt.Fprintf(s.err, "zk: warning: a link that reached nothing now reaches the moved file: %s\n", printable.Of(c))
	}
	for _, u := range out.Unwritable {
		fmt.Fprintf(s.err, "zk: warning: cannot rewrite %s\n", printable.Of(u))
	}
}
