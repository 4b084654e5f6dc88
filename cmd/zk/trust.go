package main

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/runner"
	"github.com/zk-claims/zk/trust"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/workspace"
)

type trustOptions struct {
	root      *rootOptions
	falsifier string
	note      string
	opaque    bool
}

func newTrustCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &trustOptions{root: root}
	cmd := &cobra.Command{
		Use:   "trust <note> [--falsifier N|TEXT]",
		Short: "Approve a note's falsifier commands",
		Long: `Show the commands written under a note's falsifiers (- run: ` + "`CMD`" + ` or
a zk-run fenced block) and, when you answer y, approve them, so that
zk run NOTE --falsifier N may run them.

An approval is for that exact command text, in that note, in that vault: edit
the command and it must be approved again. It also covers the content of
every file the command names (an argument, a word of one, or the value of
--flag=FILE, taken from the vault root: sh run.sh names run.sh, and from
the folder env -C, sudo -D, git -C, make -C or cd runs it in), through
symlinks wherever they lead, and of every file named by the commands of an
sh -c '...' string, read as the shell reads it (sh -c 'sh r""un.sh' names
run.sh): edit such a file and zk run asks for a new approval. A command
whose files zk cannot tell (a variable, a glob, cd, eval, a shell reading
its input, xargs in a pipe, python -c or -m, a string that does not parse)
is shown as opaque, with the reason, and approved only with --opaque. What a
script runs in turn (a script that runs another) is its content, not
followed. The tree of code a build or test tool runs is covered too:
go test's packages and those they import, cargo's crates, pytest's Python
modules and conftest.py files, npm test's package code (node_modules
aside); a changed file of it needs a new approval, and zk says which.
Control characters in what is shown are printed escaped (\x1b, \n), so
that a note cannot make one command look like another.

Approvals are kept in the user's config folder (zk/trust.json), never in
the vault, so a vault someone shares with you cannot approve its own
commands. The answer is read from stdin.

EXIT STATUS
  0  approved, or nothing to approve
  2  not approved (any answer but y or yes), or an error`,
		Args:              nArgs(1, 1),
		ValidArgsFunction: completeNote(root, s),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.note = args[0]
			return runTrust(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.falsifier, "falsifier", "", "approve only this falsifier's command: its `number` or a piece of its text")
	cmd.Flags().BoolVar(&opts.opaque, "opaque", false, "also approve a command whose files zk cannot tell, whatever they hold now or later")
	return cmd
}

func runTrust(ctx context.Context, opts *trustOptions, s *streams) error {
	w, err := opts.root.open(ctx, s, workspace.Writing, opts.note)
	if err != nil {
		return err
	}
	defer w.Close()
	v := w.Vault
	p, _, err := workspace.LocatePaths(ctx, v, opts.note)
	if err != nil {
		return err
	}
	n, err := v.ReadNote(p)
	if err != nil {
		return err
	}
	fs := evidence.Falsifiers(n)
	if opts.falsifier != "" {
		f, err := workspace.PickFalsifier(n, opts.falsifier, flagTerm)
		if err != nil {
			return err
		}
		fs = []evidence.Falsifier{f}
	}
	var (
		store   *trust.Store
		pending []trust.Approval
		refused []int             // opaque, without --opaque
		memo    = trust.NewMemo() // a file many commands name is hashed once
	)
	for _, f := range fs {
		if f.Command == "" {
			continue
		}
		argv, err := runner.Split(f.Command)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", printable.Of(p), f.CommandLine+1, err)
		}
		st, a, scope, err := workspace.ApprovalScope(v, memo, p, f.Command, argv)
		if err != nil {
			return err
		}
		store = st
		verdict, err := store.Check(a)
		if err != nil {
			return err
		}
		if verdict.Approved {
			fmt.Fprintf(s.err, "falsifier %d: already approved: %s\n", f.N, printable.Of(runner.Quote(argv)))
			continue
		}
		switch {
		case len(verdict.Changed) > 0:
			fmt.Fprintf(s.err, "falsifier %d: approved before, but %s since\n", f.N, workspace.ChangedFiles(verdict.Changed))
		case verdict.Opaque:
			fmt.Fprintf(s.err, "falsifier %d: approved before zk could say it cannot tell which files it runs\n", f.N)
		}
		fmt.Fprintf(s.err, "falsifier %d (%s:%d) runs, in %s, without a shell:\n  %s\n", f.N, printable.Of(p), f.CommandLine+1, printable.Of(v.Dir), printable.Of(runner.Quote(argv)))
		if len(scope.Files) > 0 {
			fmt.Fprintf(s.err, "  approving it approves these files as they are now; if one changes, zk asks again:\n")
			for _, file := range scope.Files {
				name := printable.Of(file.Name)
				if file.Target != "" {
					name += " -> " + printable.Of(file.Target)
				}
				fmt.Fprintf(s.err, "    %s (%s)\n", name, file.Sum[:len("sha256:")+12])
			}
		}
		for _, t := range scope.Trees {
			files := "files"
			if t.Files == 1 {
				files = "file"
			}
			fmt.Fprintf(s.err, "  approving it approves %s as it is now, %s %s of %s (%s); if one changes, zk asks again\n",
				printable.Of(t.Name), humanize.Comma(int64(t.Files)), files, humanize.IBytes(uint64(t.Bytes)), t.Sum[:len("sha256:")+12])
		}
		if a.Opaque {
			fmt.Fprintf(s.err, "  zk cannot tell which files it runs: %s\n", printable.Of(strings.Join(scope.Opaque, "; ")))
			if !opts.opaque {
				fmt.Fprintf(s.err, "  not approved: to approve it as it is, whatever those files hold now or later: zk trust %s --falsifier %d --opaque\n", printable.Of(shellArg(p)), f.N)
				refused = append(refused, f.N)
				continue
			}
		}
		pending = append(pending, a)
	}
	var errRefused error
	if len(refused) > 0 {
		ns := make([]string, len(refused))
		for i, n := range refused {
			ns[i] = strconv.Itoa(n)
		}
		which := "falsifier "
		if len(ns) > 1 {
			which = "falsifiers "
		}
		errRefused = fmt.Errorf("not approved: zk cannot tell which files %s%s runs; approve with --opaque", which, strings.Join(ns, ", "))
	}
	if len(pending) == 0 {
		if store == nil {
			fmt.Fprintf(s.err, "%s: no falsifier has a command written under it\n", printable.Of(p))
		}
		return errRefused
	}
	fmt.Fprintf(s.err, "Approve %s? [y/N] ", thisOrThese(len(pending), "command", "these commands"))
	answer, _ := bufio.NewReader(s.in).ReadString('\n')
	fmt.Fprintln(s.err)
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		return fmt.Errorf("not approved: %s unchanged", store.Path())
	}
	now := time.Now().UTC()
	for i := range pending {
		pending[i].Approved = now
	}
	if err := store.Approve(pending...); err != nil {
		return err
	}
	fmt.Fprintf(s.err, "approved %d in %s\n", len(pending), store.Path())
	return errRefused
}

// thisOrThese names one thing ("this command") or several.
func thisOrThese(n int, one, many string) string {
	if n == 1 {
		return "this " + one
	}
	return many
}
