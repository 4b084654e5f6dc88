package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/workspace"
)

type checkOptions struct {
	root    *rootOptions
	format  string
	failOn  string
	noCache bool
	paths   []string
}

func newCheckCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &checkOptions{root: root}
	cmd := &cobra.Command{
		Use:   "check [PATH...]",
		Short: "Lint notes against their type's template",
		Long: `Check notes against the template of their type (required sections, their
order, the title, one claim, typed links, falsifiers, the Last tended date)
and every link against the vault. With PATH arguments (notes, folders or
note names) only those notes are checked; links still resolve vault-wide.

Findings go to stdout, sorted by path and line:
  path:line:col: severity rule message
and a one-line summary to stderr. --format json prints {"findings":[{path,
line,column,rule,severity,message}],"summary":{notes,errors,warnings}},
sarif SARIF 2.1.0, github workflow annotations (both name files from the
working directory, a CI job's checkout). Rules, their severities and how to
silence one: see the README (Rules) and .zk/config.toml (zk init).

EXIT STATUS
  0  no finding at or above --fail-on
  1  findings at or above --fail-on
  2  a usage, config or runtime error`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.paths = args
			return runCheck(cmd.Context(), opts, s)
		},
	}
	f := cmd.Flags()
	addFormatFlag(cmd, &opts.format, "output `format`", "text", "json", "sarif", "github")
	addChoiceFlag(cmd, &opts.failOn, "fail-on", "severity", "exit 1 on findings of this `severity` or worse", "error", "warning", "never")
	f.BoolVar(&opts.noCache, "no-cache", false, "parse every note, ignoring and not writing the metadata cache")
	return cmd
}

// checkReport is a check's result, ready for a writer.
type checkReport struct {
	workspace.CheckResult
	// Vault and WorkDir are the vault's folder and the working
	// directory: github and sarif name files from where zk runs (a CI
	// job's checkout), so that an annotation lands on a file that exists
	// there, wherever the vault is.
	Vault, WorkDir string
}

// path is a finding's file named from the working directory, or from the
// vault when there is no relative path (across Windows drives).
func (r checkReport) path(p string) string {
	if r.WorkDir == "" {
		return p
	}
	rel, err := filepath.Rel(r.WorkDir, filepath.Join(r.Vault, filepath.FromSlash(p)))
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

func runCheck(ctx context.Context, opts *checkOptions, s *streams) error {
	tuneGC(streamHeapLimit)
	write := findingWriters[opts.format] // every --format value has a writer
	var failAt lint.Severity
	switch opts.failOn {
	case "error":
		failAt = lint.Error
	case "warning":
		failAt = lint.Warning
	case "never":
		failAt = lint.Off
	}
	w, err := opts.root.open(ctx, s, workspace.Reading, markedArg(opts.paths))
	if err != nil {
		return err
	}
	defer w.Close()
	found, err := w.Check(ctx, workspace.CheckRequest{Paths: opts.paths, NoCache: opts.noCache})
	if err != nil {
		return err
	}
	for _, p := range found.PassedOver {
		fmt.Fprintf(s.err, "zk: %s: not checked: %s\n", printable.Of(p.Arg), p.Why)
	}
	res := checkReport{CheckResult: found, Vault: w.Vault.Dir}
	res.WorkDir, _ = os.Getwd() // "": name files from the vault
	if err := write(s.out, res, opts.root.color(s.outTTY)); err != nil {
		return err
	}
	errs, warns := res.Count(lint.Error), res.Count(lint.Warning)
	fmt.Fprintf(s.err, "%s checked: %s, %s\n", quantity(res.Notes, "note"), quantity(errs, "error"), quantity(warns, "warning"))
	if (failAt == lint.Warning && errs+warns > 0) || (failAt == lint.Error && errs > 0) {
		return errFindings
	}
	return nil
}
