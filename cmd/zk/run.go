package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/runner"
	"github.com/zk-claims/zk/trust"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
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
	note      string
	argv      []string
}

func newRunCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &runOptions{root: root}
	cmd := &cobra.Command{
		Use:   "run (<note> [--falsifier N|TEXT] [-- <command> [<arg>...]] | --due | --all)",
		Short: "Run a falsifier and record the result",
		Long: `Run a command that tests one of a note's falsifiers and append the dated
result to the note's Evidence section, as a block zk can read back (zk runs)
and check (zk check: evidence/run-edited).

The command after -- is run directly, without a shell (write sh -c '...'
for one), with no input, in the vault's root folder, with ZK_VAULT and
ZK_NOTE set. Its output streams to the terminal as it comes. Its stdout is
the measurement the criterion reads, kept as .zk/runs/ID.log, its last
lines in the note; its stderr is kept apart, as .zk/runs/ID.stderr.log,
and a run that failed or decided nothing quotes its last line. A timeout
kills the command's whole process group.

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

func runRun(ctx context.Context, opts *runOptions, s *streams) error {
	maxLog, err := humanize.ParseBytes(opts.maxOutput)
	if err != nil || maxLog == 0 {
		return usageError{fmt.Errorf("run: --max-output %q is not a size like 1MiB", opts.maxOutput)}
	}
	if opts.timeout <= 0 {
		return usageError{errors.New("run: --timeout must be positive")}
	}
	e, err := openEvidenceNote(ctx, opts.root, s, opts.note, "runs", opts.falsifier, opts.tend)
	if err != nil {
		return err
	}
	defer e.v.Close()
	v, p, base, fals := e.v, e.path, e.base, e.falsifier
	if err := checkCriterion(p, fals); err != nil {
		return err
	}
	argv := opts.argv
	if argv == nil {
		if argv, err = noteCommand(v, p, fals); err != nil {
			return err
		}
	}
	if opts.dryRun {
		fmt.Fprintf(s.out, "would run in %s (timeout %s): %s\n", v.Dir, opts.timeout, runner.Quote(argv))
		if fals.Text != "" {
			fmt.Fprintf(s.out, "testing falsifier %d: %s\n", fals.N, fals.Text)
		}
		return nil
	}

	// From here a signal stops the command, and the run is still recorded,
	// as interrupted, before zk exits.
	release := holdStop(ctx)
	defer release()
	if err := ctx.Err(); err != nil {
		return err // interrupted before anything ran: nothing to record
	}
	r, logFile, err := evidence.NewRun(v, environment())
	if err != nil {
		return err
	}
	r.Falsifier, r.FalsifierID, r.Command = fals.Text, fals.ID, runner.Quote(argv)
	// The log is zk's copy; the result is what matters. A log that cannot
	// be written (a full disk) costs the log, never the result: the output
	// still streams to the terminal, its tail still goes into the note.
	var file io.Writer = logFile
	if testOnlyLogWriter != nil {
		file = testOnlyLogWriter(file)
	}
	lw := &logWriter{w: file}
	// stderr is kept apart: stdout is the measurement a criterion reads.
	errFile, err := evidence.NewErrLog(v, &r)
	if err != nil {
		logFile.Finish()
		return err
	}
	ew := &logWriter{w: errFile}
	res, err := runner.Run(ctx, runner.Command{
		Argv:    argv,
		Dir:     v.Dir,
		Env:     append(envWithout("ZK_VAULT", "ZK_NOTE"), "ZK_VAULT="+v.Dir, "ZK_NOTE="+p),
		Timeout: opts.timeout,
		Live:    s.out,
		Log:     lw,
		ErrLog:  ew,
		MaxLog:  int64(maxLog),
	})
	logErr := lw.err
	if err != nil && (logErr != nil && errors.Is(err, logErr) || ew.err != nil && errors.Is(err, ew.err)) {
		err = nil // the runner's "write log" error: the result stands
	}
	if ferr := logFile.Finish(); logErr == nil && ferr != nil {
		logErr = ferr
	}
	if ferr := errFile.Finish(); ew.err == nil && ferr != nil {
		ew.err = ferr
	}
	if err != nil {
		return err
	}
	if res.ErrBytes == 0 && ew.err == nil {
		// Nothing on stderr: no empty file beside the log.
		if v.Root().Remove(filepath.FromSlash(r.ErrLog)) == nil {
			r.ErrLog = ""
		}
	}
	describe(&r, res, opts.timeout)
	if ew.err != nil {
		fmt.Fprintf(s.err, "zk: warning: the stderr log %s is incomplete (%v)\n", r.ErrLog, ew.err)
	}
	if logErr != nil {
		fmt.Fprintf(s.err, "zk: warning: the log %s is incomplete (%v); the result is recorded all the same\n", r.Log, logErr)
		r.Output.Error = fmt.Sprintf("the full log could not be written (%v); it holds the first %d of %d bytes", logErr, lw.n, res.Bytes)
	}
	if err := judgeRun(v, &r, fals, res, logErr, e.judging(r.ID)); err != nil {
		return err
	}
	if failed(r) && len(res.ErrTail) > 0 {
		// The reason a run decided nothing is in the note, not only in a
		// log.
		r.Output.ErrLast = res.ErrTail[len(res.ErrTail)-1]
	}
	if err := probeTable(v, p, &r, res); err != nil {
		return err
	}
	if res.StartErr != nil {
		fmt.Fprintf(s.err, "zk: %s: could not start: %v\n", argv[0], res.StartErr)
	}
	if r, err = record(v, p, base, r, e.record); err != nil {
		return err
	}
	ledgerAppend(v, p, r, fals, s)
	fmt.Fprintf(s.err, "recorded run %s in %s: %s, %s\n", r.ID, p, runStatus(r), verdictWord(r.Verdict))
	if r.Criterion != "" {
		fmt.Fprintf(s.err, "%s\n", printable.Of(r.Criterion))
	}
	return verdictErr(r.Verdict)
}

// testOnlyLogWriter, when a test sets it, stands between the runner and
// the run's log: a writer that fails stands for a full disk.
var testOnlyLogWriter func(io.Writer) io.Writer

// logWriter is the run's log file, counting what reached it and keeping
// the first error.
type logWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (l *logWriter) Write(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.w.Write(p)
	l.n += int64(n)
	l.err = err
	return n, err
}

// probeTable shows the output of a zk probe --format json run as its
// table (and chart), as zk attach would, instead of the JSON's last lines.
func probeTable(v *vault.Vault, notePath string, r *evidence.Run, res runner.Result) error {
	if res.Truncated || res.Bytes == 0 || res.StartErr != nil || r.Output.Error != "" {
		return nil
	}
	data, err := v.ReadFile(r.Log, res.Bytes)
	if err != nil {
		return err
	}
	md, ok, err := probeEvidence(v, notePath, r.ID, data)
	if err != nil || !ok {
		return err
	}
	r.Format, r.Table, r.Output.Tail = "zk probe", strings.Split(strings.TrimRight(md, "\n"), "\n"), nil
	return nil
}

// describe fills in the record from what the runner saw; judgeRun then
// decides the verdict.
func describe(r *evidence.Run, res runner.Result, timeout time.Duration) {
	r.Duration, r.Exit = res.Duration, res.Exit
	r.Output = &evidence.Output{Lines: res.Lines, Bytes: res.Bytes, Tail: res.Tail, Truncated: res.Truncated, ErrLines: res.ErrLines}
	switch {
	case res.StartErr != nil:
		r.Status = "could not start"
		r.Output.Error = res.StartErr.Error()
	case res.TimedOut:
		r.Status = "timed out after " + timeout.String()
	case res.Interrupted:
		r.Status = "interrupted"
	case res.Signal != "":
		r.Status = "killed by " + res.Signal
	}
}

// failed says the run decided nothing, or its command failed: its block
// quotes the last line of stderr.
func failed(r evidence.Run) bool {
	switch r.Verdict {
	case evidence.VerdictInconclusive, evidence.VerdictError:
		return true
	}
	return r.Status != "" || r.Exit != 0
}

func runStatus(r evidence.Run) string {
	if r.Status != "" {
		return r.Status
	}
	return "exit " + strconv.Itoa(r.Exit)
}

// noteCommand is the command written under a falsifier, split into argv,
// if the user approved it for this note of this vault.
func noteCommand(v *vault.Vault, notePath string, f evidence.Falsifier) ([]string, error) {
	if f.N == 0 {
		return nil, usageError{errors.New("run: no command: give one after --, or write one under a falsifier and pick it with --falsifier N")}
	}
	if f.Command == "" {
		return nil, usageError{fmt.Errorf("falsifier %d of %s has no command written under it (- run: `CMD`); give one after --", f.N, notePath)}
	}
	argv, err := runner.Split(f.Command)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: %w", notePath, f.CommandLine+1, err)
	}
	store, a, err := approvalOf(v, notePath, f.Command, argv)
	if err != nil {
		return nil, err
	}
	verdict, err := store.Check(a)
	if err != nil {
		return nil, err
	}
	if !verdict.Approved {
		what, flag := "not approved on this machine", ""
		switch {
		case len(verdict.Changed) > 0:
			what = "approved, but " + workspace.ChangedFiles(verdict.Changed) + " since"
		case verdict.Opaque:
			what = "approved before zk could say it cannot tell which files it runs"
		}
		if a.Opaque {
			flag = " --opaque"
		}
		return nil, fmt.Errorf("falsifier %d of %s runs a command written in the note, %s:\n  %s\nread it, then approve it with: zk trust %s --falsifier %d%s",
			f.N, printable.Of(notePath), what, printable.Of(runner.Quote(argv)), printable.Of(shellArg(notePath)), f.N, flag)
	}
	return argv, nil
}

// approvalOf is the approval that would let command, split into argv, run
// from the note: it names the files the command names, with their
// content's hashes as they are now, and says whether zk can tell them all.
func approvalOf(v *vault.Vault, notePath, command string, argv []string) (*trust.Store, trust.Approval, error) {
	store, a, _, err := approvalScope(v, notePath, command, argv)
	return store, a, err
}

// approvalScope is approvalOf with what the approval covers, to show.
func approvalScope(v *vault.Vault, notePath, command string, argv []string) (*trust.Store, trust.Approval, trust.Scope, error) {
	path, err := trust.DefaultPath()
	if err != nil {
		return nil, trust.Approval{}, trust.Scope{}, err
	}
	dir, err := filepath.EvalSymlinks(v.Dir)
	if err != nil {
		return nil, trust.Approval{}, trust.Scope{}, fmt.Errorf("vault: %w", err)
	}
	scope, err := trust.Inspect(v.Dir, argv)
	if err != nil {
		return nil, trust.Approval{}, trust.Scope{}, err
	}
	a := trust.Approval{Vault: dir, Note: notePath, Command: command, Files: scope.Sums(), Opaque: len(scope.Opaque) > 0}
	return trust.Open(path), a, scope, nil
}

func shellArg(s string) string { return runner.Quote([]string{s}) }

// envWithout is this process's environment without the named variables.
func envWithout(names ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, n := range names {
			keep = keep && name != n
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}
