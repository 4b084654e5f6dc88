package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/config"
	"github.com/zk-claims/zk/vault"
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

// checkResult is what a check found, ready for a writer.
type checkResult struct {
	Findings []lint.Finding
	// Notes is how many notes were checked.
	Notes int
	// Vault and WorkDir are the vault's folder and the working
	// directory: github and sarif name files from where zk runs (a CI
	// job's checkout), so that an annotation lands on a file that exists
	// there, wherever the vault is.
	Vault, WorkDir string
}

// path is a finding's file named from the working directory, or from the
// vault when there is no relative path (across Windows drives).
func (r checkResult) path(p string) string {
	if r.WorkDir == "" {
		return p
	}
	rel, err := filepath.Rel(r.WorkDir, filepath.Join(r.Vault, filepath.FromSlash(p)))
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

func (r checkResult) count(sev lint.Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == sev {
			n++
		}
	}
	return n
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
	w, err := opts.root.open(s, workspace.Reading, firstArg(opts.paths))
	if err != nil {
		return err
	}
	defer w.Close()
	v, cfg := w.Vault, w.Config
	copts := w.LintOptions()
	var res checkResult
	if len(opts.paths) == 0 && !opts.noCache {
		res, err = checkCached(ctx, v, cfg, copts, s)
	} else {
		res, err = scanAndCheck(ctx, v, cfg, copts, opts.paths)
	}
	if err != nil {
		return err
	}
	res.Vault = v.Dir
	res.WorkDir, _ = os.Getwd() // "": name files from the vault
	if err := write(s.out, res, opts.root.color(s.outTTY)); err != nil {
		return err
	}
	errs, warns := res.count(lint.Error), res.count(lint.Warning)
	fmt.Fprintf(s.err, "%s checked: %s, %s\n", quantity(res.Notes, "note"), quantity(errs, "error"), quantity(warns, "warning"))
	if (failAt == lint.Warning && errs+warns > 0) || (failAt == lint.Error && errs > 0) {
		return errFindings
	}
	return nil
}

// scanAndCheck walks and checks the vault (the notes paths select, or all).
func scanAndCheck(ctx context.Context, v *vault.Vault, cfg *config.Config, copts lint.Options, paths []string) (checkResult, error) {
	files, skips, err := v.Files(ctx)
	if err != nil {
		return checkResult{}, err
	}
	return checkVault(ctx, v, files, skips, cfg, copts, paths, nil)
}

// checkVault checks the notes of a walk (the notes paths select, or all);
// each sees every note read.
func checkVault(ctx context.Context, v *vault.Vault, files []vault.File, skips []vault.Skip, cfg *config.Config,
	copts lint.Options, paths []string, each func(*vault.Note)) (checkResult, error) {
	only, err := checkFilter(v, files, paths)
	if err != nil {
		return checkResult{}, err
	}
	copts.Only = skipTemplates(only, cfg.Templates)
	rep, err := lint.Check(ctx, v, files, skips, copts, each)
	if err != nil {
		return checkResult{}, err
	}
	return checkResult{Findings: rep.Findings, Notes: rep.Notes}, nil
}

// checkFilter turns PATH arguments into a filter of vault paths: a note
// (path or name) selects itself, a folder every note under it. No
// arguments select every note (a nil filter).
func checkFilter(v *vault.Vault, files []vault.File, args []string) (func(string) bool, error) {
	if len(args) == 0 {
		return nil, nil
	}
	notes := map[string]bool{}
	var dirs []string
	for _, arg := range args {
		if dir, ok := vaultDir(v, arg); ok {
			if dir == "" {
				return nil, nil // the vault itself
			}
			dirs = append(dirs, dir+"/")
			continue
		}
		p, err := workspace.FindNote(v, files, arg)
		if err != nil {
			return nil, err
		}
		notes[p] = true
	}
	return func(p string) bool {
		if notes[p] {
			return true
		}
		for _, d := range dirs {
			if strings.HasPrefix(p, d) {
				return true
			}
		}
		return false
	}, nil
}

// skipTemplates leaves the templates folder out of a check: a template is
// not a note of its type ({{title}} is no title), though links to it
// still resolve.
func skipTemplates(only func(string) bool, dir string) func(string) bool {
	prefix := strings.Trim(filepath.ToSlash(dir), "/") + "/"
	return func(p string) bool {
		if len(p) >= len(prefix) && strings.EqualFold(p[:len(prefix)], prefix) {
			return false
		}
		return only == nil || only(p)
	}
}

// vaultDir reports whether arg names a folder of the vault (relative to
// the working directory, or else to the vault root), as a vault path.
func vaultDir(v *vault.Vault, arg string) (string, bool) {
	for _, cand := range []string{arg, filepath.Join(v.Dir, arg)} {
		abs, err := filepath.Abs(cand)
		if err != nil {
			continue
		}
		st, err := os.Stat(abs)
		if err != nil || !st.IsDir() {
			continue
		}
		rel, err := filepath.Rel(v.Dir, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if rel == "." {
			return "", true
		}
		return filepath.ToSlash(rel), true
	}
	return "", false
}
