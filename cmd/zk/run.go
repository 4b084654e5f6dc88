package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/runner"
	"github.com/zk-claims/zk/workspace"
)

type runOptions struct {
	root      *rootOptions
	falsifier string
	timeout   time.Duration
	maxOutput string
	tend      bool
	dryRun    bool
	due, all  bool
	rejudge   bool
	note      string
	argv      []string
}

func newRunCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &runOptions{root: root}
	cmd := &cobra.Command{
		Use:   "run (<note> [-- <command> [<arg>...]] | --due | --all)",
		Short: "Run a note's falsifier (or --due, --all) and record the result",
		Long: `Run a command that tests one of a note's falsifiers and append the dated
result to the note's Evidence section, as a block zk can read back (zk runs)
and check (zk check: evidence/run-edited).

The command after -- is run directly, without a shell (write sh -c '...'
for one), with no input, in the vault's root folder, with ZK_VAULT and
ZK_NOTE set and PATH's entries that are not absolute dropped (an empty
one, or ".", would find commands in the vault). Its output streams to
the terminal as it comes. Its stdout is the measurement the criterion
reads, kept as .zk/runs/ID.log, its last lines in the note; its stderr
is kept apart, as .zk/runs/ID.stderr.log, and a run that failed or
decided nothing quotes its last line. A timeout kills the command's
whole process group.

Without --, zk runs the command written under the falsifier in the note
(a nested "- run: ` + "`CMD`" + `" item or a zk-run fenced block), and only
after zk trust approved that exact text.

--falsifier picks the falsifier by number (1 is the first item of
"Tests / falsifiers") or by a piece of its text; it may be left out when the
note lists one falsifier or none.

The verdict comes from the falsifier's criterion, a nested item under it
in the note ("- refuted if: ` + "`EXPR`" + `", see the README): refutes when the
criterion holds on the command's output, supports when it was evaluated and
does not hold, inconclusive when the command failed (a non-zero exit,
unless the criterion reads exit), timed out, or the criterion could not be
evaluated (the record says which value was missing). The record states the
values read and the criterion. A falsifier without a criterion gets no
verdict: the run is recorded under a neutral callout. A command that could
not start is an error.

If the note changed while the command ran, the block goes into the new
text. If it cannot be written safely (mid-write, or the Evidence section is
gone), the note is left alone and the block is saved as .zk/runs/ID.block.md.

--rejudge runs nothing: it judges the output of the falsifier's latest run
again (its log, .zk/runs/ID.log) under the criterion as written now, and
records that as a block of its own, "Judged again", naming the run it
judged and what the record said before. Without --falsifier it does so for
every falsifier whose criterion changed since its latest run (zk check:
falsifiers/criterion-changed). A judgement again can refute the claim; it
answers no refutation: only a later run does.

--due runs, one at a time (measurements taken together would disturb each
other), every falsifier command written in a note due for tending (--all:
in every note) that zk trust approved, records each as above, and prints a
summary table: note, falsifier, verdict, the values read. Commands not
approved are listed, never run. It needs no terminal, and holds
.zk/runs/due.lock so two schedules never overlap. It exits 1 when any run
refutes its claim.

EXIT STATUS
  0  recorded; the criterion did not hold (supports), or there is none
  1  recorded; the criterion held: the run refutes the claim (--due: a
     run refuted its claim)
  2  recorded as inconclusive or error; or not recorded: usage, a criterion
     that does not compile, an untrusted command, a write refused (--due:
     a run inconclusive or not recorded, and none refuted)`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: completeNote(root, s),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.due || opts.all {
				if opts.rejudge {
					return usageError{errors.New("run: --rejudge judges one note's runs again: name the note, without --due or --all")}
				}
				if len(args) > 0 {
					return usageError{errors.New("run: --due and --all take no note and no command")}
				}
				return runDue(cmd.Context(), opts, s)
			}
			if len(args) == 0 {
				return usageError{errors.New("run: name a note, or give --due or --all")}
			}
			if err := opts.setArgs(args, cmd.ArgsLenAtDash()); err != nil {
				return err
			}
			if opts.rejudge {
				return runRejudge(cmd.Context(), opts, s)
			}
			return runRun(cmd.Context(), opts, s)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.falsifier, "falsifier", "", "the falsifier tested: its `number` or a piece of its text")
	f.DurationVar(&opts.timeout, "timeout", runner.DefaultTimeout, "kill the command after this `duration`")
	f.StringVar(&opts.maxOutput, "max-output", "1MiB", "keep at most this `size` of output in the log")
	f.BoolVar(&opts.tend, "tend", false, "also set the note's Last tended date to today")
	f.BoolVar(&opts.dryRun, "dry-run", false, "print what would run, run nothing, write nothing")
	f.BoolVar(&opts.due, "due", false, "run every approved falsifier command of the notes due for tending, one at a time")
	f.BoolVar(&opts.all, "all", false, "like --due, for every note")
	f.BoolVar(&opts.rejudge, "rejudge", false, "run nothing: judge the falsifier's latest run again under its criterion as written now, and record that")
	return cmd
}

// setArgs splits the arguments at --: the note before, the command after.
func (o *runOptions) setArgs(args []string, dash int) error {
	switch {
	case dash < 0 && len(args) > 1:
		return usageError{fmt.Errorf("run: put -- before the command: zk run %s -- %s", args[0], strings.Join(args[1:], " "))}
	case dash == 0:
		return usageError{errors.New("run: the note comes before --")}
	case dash > 1:
		return usageError{fmt.Errorf("run: one note before --, got %d", dash)}
	}
	o.note = args[0]
	if dash > 0 {
		o.argv = args[dash:]
		if len(o.argv) == 0 {
			return usageError{errors.New("run: no command after --")}
		}
	}
	return nil
}

// request is the use case's request the flags make; --max-output is
// parsed here, as a flag's text.
func (o *runOptions) request() (workspace.RunRequest, error) {
	maxLog, err := humanize.ParseBytes(o.maxOutput)
	if err != nil || maxLog == 0 {
		return workspace.RunRequest{}, usageError{fmt.Errorf("run: --max-output %q is not a size like 1MiB", o.maxOutput)}
	}
	if o.timeout <= 0 {
		return workspace.RunRequest{}, usageError{errors.New("run: --timeout must be positive")}
	}
	return workspace.RunRequest{Note: o.note, Falsifier: o.falsifier, Argv: o.argv, Timeout: o.timeout,
		MaxLog: int64(maxLog), Tend: o.tend, DryRun: o.dryRun}, nil
}

func runRun(ctx context.Context, opts *runOptions, s *streams) error {
	req, err := opts.request()
	if err != nil {
		return err
	}
	req.Live = s.out
	var term *printable.Terminal
	if s.outTTY { // the command often prints the vault's files: escape their controls
		term = printable.NewTerminal(s.out)
		req.Live = term
	}
	w, err := opts.root.open(ctx, s, workspace.Writing, opts.note)
	if err != nil {
		return err
	}
	defer w.Close()
	res, err := w.Run(ctx, req)
	if term != nil {
		term.Flush()
	}
	if err != nil {
		return runError(err)
	}
	if opts.dryRun {
		fmt.Fprintf(s.out, "would run in %s (timeout %s): %s\n", printable.Of(res.Dir), res.Timeout, printable.Of(runner.Quote(res.Argv)))
		if res.Falsifier.Text != "" {
			fmt.Fprintf(s.out, "testing falsifier %d: %s\n", res.Falsifier.N, printable.Of(res.Falsifier.Text))
		}
		return nil
	}
	reportRun(s, res)
	return verdictErr(res.Run.Verdict)
}

// reportRun says on stderr what a run recorded, and its criterion's
// statement.
func reportRun(s *streams, res workspace.RunResult) {
	r := res.Run
	fmt.Fprintf(s.err, "recorded run %s in %s: %s, %s\n", r.ID, printable.Of(res.Note), res.Status(), verdictWord(r.Verdict))
	if r.Criterion != "" {
		fmt.Fprintf(s.err, "%s\n", printable.Of(r.Criterion))
	}
	// The value a bare capture read is the output's first number,
	// whatever it counts: said beside the verdict it made.
	caps, _ := res.Falsifier.BareCaptures()
	for _, c := range caps {
		fmt.Fprintf(s.err, "warning: capture %s read the first number of the output: its pattern %s has no text around the number (falsifiers/bare-capture)\n",
			c.Name, printable.Of(c.Re.String()))
	}
}

// runError words a run's refusal for the command line: how to give a
// command (after --), how to approve one (zk trust).
func runError(err error) error {
	var nc *workspace.NoCommandError
	var na *workspace.NotApprovedError
	switch {
	case errors.As(err, &nc) && nc.Falsifier == 0:
		return usageError{errors.New("run: no command: give one after --, or write one under a falsifier and pick it with --falsifier N")}
	case errors.As(err, &nc):
		return usageError{fmt.Errorf("%w; give one after --", err)}
	case errors.As(err, &na):
		flag := ""
		if na.Opaque {
			flag = " --opaque"
		}
		return fmt.Errorf("%w\nread it, then approve it with: zk trust %s --falsifier %d%s", err, printable.Of(shellArg(na.Note)), na.Falsifier, flag)
	}
	return err
}

func shellArg(s string) string { return runner.Quote([]string{s}) }
