package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/internal/shutdown"
	"github.com/zk-claims/zk/workspace"
)

// streams are the process's standard streams, and whether each is a
// terminal: decoration (colour, progress, headers) only goes to a TTY.
type streams struct {
	in     io.Reader
	out    io.Writer
	err    io.Writer
	outTTY bool
	errTTY bool
}

func stdStreams() *streams {
	return &streams{
		in:     os.Stdin,
		out:    os.Stdout,
		err:    os.Stderr,
		outTTY: term.IsTerminal(int(os.Stdout.Fd())),
		errTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}

// rootOptions hold the global flags, shared by every command.
type rootOptions struct {
	vaultDir string
	today    string
	noColor  bool
	getenv   func(string) string
}

// Exit codes, the README's contract.
const (
	exitOK       = 0
	exitFindings = 1
	exitError    = 2
)

// errFindings makes zk exit 1 without printing anything more: the command
// already wrote its findings to stdout.
var errFindings = errors.New("findings")

// errReported makes zk exit 2 without printing anything more: the command
// already told each error on stderr as it went on past it.
var errReported = errors.New("errors reported")

// usageError is a mistake in how zk was called; it exits 2 like any error
// but is worth telling apart in tests.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// stopGrace is how long a command has to wind down after SIGINT, SIGTERM
// or SIGHUP before run returns anyway (and main exits): the loops over
// notes look at the context between notes, but one note may be inside its
// parse budget, and an open of a FIFO or a slow disk does not look at all.
// zk's writes are atomic (a temporary file renamed), so ending the process
// between them leaves every note whole; a write that must finish, such as
// the record of an interrupted run, holds the stop (shutdown.Hold) for up to
// maxStopHold.
//
// stopBound is what docs/reliability.md promises (TestSignalBoundDocumented
// holds the two together): zk is gone within it of the signal. stopGrace
// leaves the rest of it to the exit itself (a process of a few hundred MB
// takes tens of milliseconds to unmap, and more on a loaded machine: 991
// ms were measured from signal to exit with a 750 ms grace, and 0.80-0.98
// s for check, list and graph signalled mid-parse on a 53 MB vault of
// hostile notes, a gigabyte in memory; 0.57-0.68 s with 500 ms).
const (
	stopBound   = time.Second
	stopGrace   = 500 * time.Millisecond
	maxStopHold = 5 * time.Second
)

// stopSignals are the signals that stop a command: SIGHUP only where it
// was not ignored when zk started. Under nohup a handler of zk's own
// would undo nohup's ignore, and the falsifier a user left running when
// they logged out would be killed and recorded as interrupted; left
// alone, the ignore is inherited by the command zk runs too.
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

func run(ctx context.Context, args []string, s *streams) int {
	ctx, stop := signal.NotifyContext(ctx, stopSignals()...)
	defer stop()
	ctx, holds := shutdown.WithHolds(ctx)
	root := newRootCmd(s)
	root.SetArgs(args)
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		select {
		case err = <-done:
		case <-time.After(stopGrace):
			holds.Wait(maxStopHold)
			select {
			case err = <-done:
			default:
				err = ctx.Err()
			}
		}
	}
	if ctx.Err() != nil && holds.Done() {
		// A signal after the command's change was made (a move moved):
		// its result stands, whatever part of it the command had not
		// printed yet.
		if errors.Is(err, context.Canceled) {
			err = nil
		}
	} else if ctx.Err() != nil && (err == nil || errors.Is(err, errFindings) || errors.Is(err, errReported) || errors.Is(err, context.Canceled)) {
		// A signal: whatever the command printed or recorded, it did not
		// finish. "context canceled" tells a user nothing.
		fmt.Fprintln(s.err, "zk: interrupted")
		return exitError
	}
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFindings):
		return exitFindings
	case errors.Is(err, errInconclusive), errors.Is(err, errReported):
		return exitError
	default:
		// Errors quote notes, file names and commands: whatever part of
		// one was not made printable where it was written is made so here.
		fmt.Fprintf(s.err, "zk: %s\n", printable.Lines(err.Error()))
		return exitError
	}
}

func newRootCmd(s *streams) *cobra.Command {
	opts := &rootOptions{getenv: os.Getenv}
	cmd := &cobra.Command{
		Use:   "zk <command>",
		Short: "Keep a vault of permanent notes honest",
		Long: `zk reads an Obsidian vault of permanent notes (one falsifiable claim per
note) exactly as Obsidian does, checks each note against its template, lists
the notes due for tending, runs a note's falsifiers and records the results
as dated evidence, and searches the vault.

EXIT STATUS
  0  success
  1  zk check found problems at or above --fail-on; zk run, zk attach or
     zk run --due recorded a result that refutes its claim
  2  a usage or runtime error, an inconclusive run, or an interrupt`,
		Version:       buildVersion(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	// Asked-for output (--help, --version, completion scripts, man pages)
	// goes to stdout, so that "zk completion bash > zk.bash" works;
	// errors and the usage hint that follows a mistake go to stderr.
	cmd.SetErr(s.err)
	cmd.SetOut(s.out) // help, usage, --version and completion scripts: stdout, where pagers and shells read them
	cmd.SetFlagErrorFunc(flagError)
	cmd.SetUsageTemplate(usageTemplate)
	pf := cmd.PersistentFlags()
	pf.StringVar(&opts.vaultDir, "vault", "", "the vault's root `folder` (default: the nearest folder up holding .obsidian/ or .zk/)")
	pf.StringVar(&opts.today, "today", "", "take `YYYY-MM-DD` as today (default: $ZK_TODAY, else the clock)")
	pf.BoolVar(&opts.noColor, "no-color", false, "no colour in output (also $NO_COLOR)")

	cmd.AddCommand(
		newCheckCmd(opts, s),
		newStaleCmd(opts, s),
		newListCmd(opts, s),
		newPropertiesCmd(opts, s),
		newTendCmd(opts, s),
		newMvCmd(opts, s),
		newRunCmd(opts, s),
		newAttachCmd(opts, s),
		newRunsCmd(opts, s),
		newTrustCmd(opts, s),
		newIndexCmd(opts, s),
		newSearchCmd(opts, s),
		newLinksCmd(opts, s),
		newBacklinksCmd(opts, s),
		newGraphCmd(opts, s),
		newNewCmd(opts, s),
		newParseCmd(opts, s),
		newInitCmd(opts, s),
		newProbeCmd(opts, s),
		newManCmd(opts, s),
		newMCPCmd(opts, s),
		newLSPCmd(opts, s),
		newBaseCmd(opts, s),
	)
	adjustCompletion(cmd)
	// Only the shell's request for completions reads the flags'
	// completions: registered for every flag of every command at every
	// start, they cost each command more than building the commands.
	cmd.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if completing(c) {
			completeFlags(cmd, opts, s)
		}
		return nil
	}
	return cmd
}

// completing reports whether c is cobra's command that answers the
// shell's request for completions.
func completing(c *cobra.Command) bool {
	n := c.Name()
	return n == cobra.ShellCompRequestCmd || n == cobra.ShellCompNoDescRequestCmd
}

// flagTerm names a use case's request field as the flag that sets it:
// due_within is --due-within.
func flagTerm(field string) string { return "--" + strings.ReplaceAll(field, "_", "-") }

// pinned reports a day given by --today or $ZK_TODAY: commands that would
// otherwise read the clock (a note's creation time, a base's now(), a
// server's day) take that day instead, so that tests and reproducible runs
// give the same output.
func (o *rootOptions) pinned() bool {
	return o.today != "" || o.getenv("ZK_TODAY") != ""
}

// now returns "today": --today, else $ZK_TODAY, else the clock. The date
// is taken in local time, as a user reads a calendar.
func (o *rootOptions) now() (time.Time, error) {
	s := o.today
	if s == "" {
		s = o.getenv("ZK_TODAY")
	}
	if s == "" {
		t := time.Now()
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), nil
	}
	t, err := workspace.ParseDay(s)
	if err != nil {
		return time.Time{}, usageError{fmt.Errorf("today: %w", err)}
	}
	return t, nil
}
