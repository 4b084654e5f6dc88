package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/zk-claims/zk/vault"
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
	// pathHint, when --vault is not given, is where the search for the
	// vault starts: the first PATH argument of a command that takes paths,
	// so that "zk check ~/notes" finds that vault from any folder.
	pathHint string
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
		Version:       buildVersion(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	// Asked-for output (--help, --version, completion scripts, man pages)
	// goes to stdout, so that "zk completion bash > zk.bash" works;
	// errors and the usage hint that follows a mistake go to stderr.
	cmd.SetErr(s.err)
	cmd.SetOut(s.out)
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
		newManCmd(opts, s),
	)
	return cmd
}

// vaultRoot finds the vault: --vault, else the nearest folder holding
// .obsidian/ or .zk/ from the first PATH argument up (for commands that take
// paths), else from the working directory up, else the working directory.
func (o *rootOptions) vaultRoot() (string, error) {
	if o.vaultDir != "" {
		st, err := os.Stat(o.vaultDir)
		if err != nil {
			return "", fmt.Errorf("vault: %w", err)
		}
		if !st.IsDir() {
			return "", fmt.Errorf("vault: %s is not a folder", o.vaultDir)
		}
		return filepath.Abs(o.vaultDir)
	}
	if o.pathHint != "" {
		if dir, ok := markedAncestor(o.pathHint); ok {
			return dir, nil
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("vault: %w", err)
	}
	if dir, ok := markedAncestor(wd); ok {
		return dir, nil
	}
	return wd, nil
}

// markedAncestor returns the nearest folder from p up (p itself, if it is
// a folder) that holds .obsidian/ or .zk/.
func markedAncestor(p string) (string, bool) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", false
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		abs = filepath.Dir(abs)
	}
	for dir := abs; ; {
		for _, marker := range []string{".obsidian", ".zk"} {
			if st, err := os.Stat(filepath.Join(dir, marker)); err == nil && st.IsDir() {
				return dir, true
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// openVault opens the vault the flags and working directory name.
func (o *rootOptions) openVault() (*vault.Vault, error) {
	dir, err := o.vaultRoot()
	if err != nil {
		return nil, err
	}
	return vault.Open(dir)
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

// color reports whether output to w may be coloured.
func (o *rootOptions) color(tty bool) bool {
	return tty && !o.noColor && o.getenv("NO_COLOR") == "" && o.getenv("TERM") != "dumb"
}
