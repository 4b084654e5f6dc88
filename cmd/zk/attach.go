package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/workspace"
)

// maxAttach bounds the result file zk attach reads.
const maxAttach = 64 << 20

type attachOptions struct {
	root      *rootOptions
	falsifier string
	tend      bool
	note      string
	file      string
}

func newAttachCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &attachOptions{root: root}
	cmd := &cobra.Command{
		Use:   "attach <note> <file> [--falsifier N|TEXT]",
		Short: "Record an existing result as evidence",
		Long: `Record a result produced elsewhere (a benchmark run on another machine,
a CI artifact) in the note's Evidence section, as zk run records a run.

The file is copied to .zk/runs/ID.log; the note names it by its path in
the vault, or by its name alone if it lies outside (never the absolute
path on this machine). hyperfine --export-json output and
Go benchmark output (go test -bench) are shown as a table: mean ± standard
deviation, min and max per command; each unit per benchmark, with the
number of runs. zk probe --format json output is shown as its table and
chart. Anything else is shown as text, its last lines in the note.

With --falsifier N, the falsifier's criterion ("- refuted if: ` + "`EXPR`" + `")
is evaluated on the file as on a command's output, and the record carries
its verdict; without a criterion the record has none.

EXIT STATUS
  0  recorded; the criterion did not hold (supports), or there is none
  1  recorded; the criterion held: the result refutes the claim
  2  recorded as inconclusive; or not recorded in the note (the result is
     kept under .zk/runs/)`,
		Args:              nArgs(2, 2),
		ValidArgsFunction: completeNote(root, s),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.note, opts.file = args[0], args[1]
			return runAttach(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.falsifier, "falsifier", "", "the falsifier the result tests: its `number` or a piece of its text")
	cmd.Flags().BoolVar(&opts.tend, "tend", false, "also set the note's Last tended date to today")
	return cmd
}

func runAttach(ctx context.Context, opts *attachOptions, s *streams) error {
	data, modified, err := readResult(opts.file)
	if err != nil {
		return err
	}
	w, err := opts.root.open(ctx, s, workspace.Writing, opts.note)
	if err != nil {
		return err
	}
	defer w.Close()
	res, err := w.Attach(ctx, workspace.AttachRequest{Note: opts.note, Falsifier: opts.falsifier, Name: opts.file, Data: data, Modified: modified, Tend: opts.tend})
	if err != nil {
		return err
	}
	r := res.Run
	what := r.Format
	if what == "" {
		what = "text"
	}
	fmt.Fprintf(s.err, "recorded %s (%s) in %s as %s\n", printable.Of(opts.file), what, printable.Of(res.Note), r.ID)
	if r.Criterion != "" {
		fmt.Fprintf(s.err, "%s: %s\n", r.Verdict, printable.Of(r.Criterion))
	}
	return verdictErr(r.Verdict)
}

// readResult reads the file to attach, refusing anything but a regular
// file (a FIFO or a device would block, or never end) and one too large to
// be a result. The name is looked at before it is opened, and opened
// without blocking, so that a FIFO swapped in between cannot hang zk
// either; what is read is the file that was checked. Its modification
// time is returned with it: the latest the result can have been measured.
func readResult(name string) ([]byte, time.Time, error) {
	if st, err := os.Stat(name); err != nil {
		return nil, time.Time{}, fmt.Errorf("attach: %w", err)
	} else if !st.Mode().IsRegular() {
		return nil, time.Time{}, fmt.Errorf("attach: %s is not a regular file (%s); attach a file holding the result", name, vault.FileKind(st.Mode()))
	}
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("attach: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("attach: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, time.Time{}, fmt.Errorf("attach: %s is not a regular file (%s); attach a file holding the result", name, vault.FileKind(st.Mode()))
	}
	if st.Size() > maxAttach {
		return nil, time.Time{}, fmt.Errorf("attach: %s is %d bytes, over the %d-byte cap", name, st.Size(), maxAttach)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxAttach+1))
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("attach: %w", err)
	}
	if len(data) > maxAttach {
		return nil, time.Time{}, fmt.Errorf("attach: %s grew past the %d-byte cap while read", name, maxAttach)
	}
	return data, st.ModTime(), nil
}
