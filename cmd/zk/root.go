package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// version is set by the linker (-ldflags "-X main.version=...").
var version = "dev"

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

// Exit codes, the contract of DESIGN.md §4.
const (
	exitOK       = 0
	exitFindings = 1
	exitError    = 2
)

// errFindings makes zk exit 1 without printing anything more: the command
// already wrote its findings to stdout.
var errFindings = errors.New("findings")

// usageError is a mistake in how zk was called; it exits 2 like any error
// but is worth telling apart in tests.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func run(ctx context.Context, args []string, s *streams) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCmd(s)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFindings):
		return exitFindings
	case errors.Is(err, errInconclusive):
		return exitError
	default:
		fmt.Fprintf(s.err, "zk: %v\n", err)
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
  1  zk check found problems at or above --fail-on
  2  a usage or runtime error`,
		Version:       version,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	cmd.SetErr(s.err)
	cmd.SetOut(s.out) // help, usage, --version and completion scripts: stdout, where pagers and shells read them
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w\nrun '%s --help' for usage", err, c.CommandPath())}
	})
	pf := cmd.PersistentFlags()
	pf.StringVar(&opts.vaultDir, "vault", "", "the vault's root `folder` (default: the nearest folder up holding .obsidian/ or .zk/)")
	pf.StringVar(&opts.today, "today", "", "take `YYYY-MM-DD` as today (default: $ZK_TODAY, else the clock)")
	pf.BoolVar(&opts.noColor, "no-color", false, "no colour in output (also $NO_COLOR)")

	cmd.AddCommand(
		newCheckCmd(opts, s),
		newStaleCmd(opts, s),
		newTendCmd(opts, s),
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
	)
	return cmd
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
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, usageError{fmt.Errorf("today: %q is not a date of the form YYYY-MM-DD", s)}
	}
	return t, nil
}
