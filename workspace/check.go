package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/ownfile"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/move"
)

// LintOptions are the checker's options from the vault's config, as zk
// check and zk lsp check notes.
func (w *Workspace) LintOptions() lint.Options { return w.lintOptions(true, nil) }

// lintOptions is LintOptions; cached and files, the walk, are
// homedLedgerBy's.
func (w *Workspace) lintOptions(cached bool, files []vault.File) lint.Options {
	cfg := w.Config
	untrusted := untrustedFiles(w.Vault)
	ledger := w.homedLedgerBy(cached, files)
	return lint.Options{
		Today:         w.Today,
		Types:         w.Types,
		Relations:     cfg.Relations,
		RestsOn:       cfg.RestsOn,
		Severity:      cfg.Severities(),
		Overrides:     cfg.RuleOverrides(ignoreFunc),
		Comments:      cfg.CheckComments,
		TendedKeys:    cfg.TendedKeys,
		Interval:      cfg.Interval(),
		Ledger:        ledger.Notes,
		LedgerOrphans: ledger.Orphans,
		Untrusted:     untrusted,
		Judging:       cfg.Judging(""),
		ReadLog:       w.readLog,
		HasLog:        w.hasLog,

		PropertyTypes: w.PropTypes,
	}
}

// readLog reads the log of run k of run id from the vault (through
// readLogFile, which a test counts).
func (w *Workspace) readLog(id string, k int) ([]byte, error) { return readLogFile(w.Vault, id, k) }

var readLogFile = evidence.ReadLog

// hasLog says run id's log is in the vault, a regular file.
func (w *Workspace) hasLog(id string) bool {
	p, ok := evidence.LogOf(id, 1)
	if !ok {
		return false
	}
	st, err := w.Vault.Root().Lstat(filepath.FromSlash(p))
	return err == nil && st.Mode().IsRegular()
}

// untrustedFiles is what file/untrusted reports: the ledger when it
// cannot be read as zk's own, the move journals set aside, and the lock
// files zk would refuse to take.
func untrustedFiles(v *vault.Vault) []vault.Skip {
	_, out := ReadLedger(v)
	out = append(out, move.SetAside(v)...)
	return append(out, untrustedLocks(v)...)
}

// locks are the lock files zk takes under .zk/, with the commands that
// take them.
var locks = []struct{ file, takers string }{
	{vault.WriteLock, "every command that writes a note"},
	{move.LockFile, "zk mv"},
	{dueLock, "zk run --due"},
}

// untrustedLocks reports each lock file that came with the vault in a
// shape zk refuses to lock (a symlink, a FIFO, a folder, on the way to it
// too): the commands that take it stop with an error, and zk check says
// why before they do.
func untrustedLocks(v *vault.Vault) []vault.Skip {
	var out []vault.Skip
	for _, l := range locks {
		if _, err := ownfile.Stat(v.Root(), l.file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			out = append(out, vault.Skip{Path: l.file, Reason: "not taken as a lock, so " + l.takers + " refuses to start: " + err.Error()})
		}
	}
	return out
}

// ReadLedger reads the run ledger: nil when there is none, or when it
// cannot be read as zk's own (then untrusted says why, for zk check).
func ReadLedger(v *vault.Vault) (b []byte, untrusted []vault.Skip) {
	b, err := evidence.ReadLedgerFile(v)
	if err != nil {
		return nil, []vault.Skip{{Path: evidence.LedgerFile, Reason: "not read: " + err.Error()}}
	}
	return b, nil
}

// CheckRequest is what zk check checks: Paths (notes by path or name,
// folders; none: the whole vault, through the cache unless NoCache).
type CheckRequest struct {
	Paths   []string
	NoCache bool
	// InVault refuses a path that leads out of the vault by its text, as
	// FindNote refuses one, never looked at: an agent's call must not
	// learn which files exist outside (zk check's commit hook passes
	// files of the repository around the vault, told "not checked").
	InVault bool
}

// CheckResult is what a check found.
type CheckResult struct {
	Findings []lint.Finding
	// Notes is how many notes were checked; Read how many of them were
	// read and parsed (the others' findings came from the cache).
	Notes, Read int
	// PassedOver are the PATH arguments that name no note of the vault
	// but a file it leaves out (passedOver): not checked.
	PassedOver []PassedOver
}

// Count is how many findings have severity sev.
func (r CheckResult) Count(sev lint.Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == sev {
			n++
		}
	}
	return n
}

// Check lints the notes req names (every note, by default) against their
// type's template and every link against the vault. Every note is
// checked through the cache, whether no path or the vault's own folder
// names them (zk check . from the vault).
//
// The vault is walked once, first: the checker, its cache's stamps and
// the ledger's refutations placed among the notes (homedLedgerBy) all
// read that walk.
func (w *Workspace) Check(ctx context.Context, req CheckRequest) (CheckResult, error) {
	started := time.Now() // before the walk: the stamps are the walk's
	files, skips, err := w.Vault.Files(ctx)
	if err != nil {
		return CheckResult{}, err
	}
	if req.InVault {
		for _, arg := range req.Paths {
			if _, _, err := filePath(w.Vault, files, arg); err != nil {
				return CheckResult{}, err
			}
		}
	}
	copts := w.lintOptions(!req.NoCache, files)
	if !req.NoCache && (len(req.Paths) == 0 || slices.ContainsFunc(req.Paths, w.isVaultDir)) {
		return w.checkCached(ctx, copts, checkWalk{files: files, skips: skips, started: started})
	}
	return w.checkVault(ctx, files, skips, copts, req.Paths, nil)
}

// checkVault checks the notes of a walk (the notes paths select, or all);
// each sees every note read.
func (w *Workspace) checkVault(ctx context.Context, files []vault.File, skips []vault.Skip,
	copts lint.Options, paths []string, each func(*vault.Note)) (CheckResult, error) {
	only, passed, err := checkFilter(w.Vault, files, paths)
	if err != nil {
		return CheckResult{}, err
	}
	copts.Only = w.SkipTemplates(only)
	rep, err := lint.Check(ctx, w.Vault, files, skips, copts, each)
	if err != nil {
		return CheckResult{}, err
	}
	return CheckResult{Findings: rep.Findings, Notes: rep.Notes, Read: rep.Read, PassedOver: passed}, nil
}

// PassedOver is a PATH argument naming a file of the vault's folder that
// is no note of the vault, and why.
type PassedOver struct{ Arg, Why string }

// passedOver says why arg, a path (from the working directory, else the
// vault's root) of a Markdown file, is no note of the vault: outside its
// folder, in a dot folder, or left out by the config's ignore. A commit
// hook passes every Markdown file a commit touches, the repository's
// README.md and a .github/pull_request_template.md among them: such a
// file is not checked, and no error. ok is false for any other argument.
func passedOver(v *vault.Vault, arg string) (why string, ok bool) {
	for _, cand := range []string{arg, filepath.Join(v.Dir, arg)} {
		abs, err := filepath.Abs(cand)
		if err != nil || !vault.IsNotePath(filepath.ToSlash(abs)) {
			continue
		}
		if st, err := os.Lstat(abs); err != nil || !st.Mode().IsRegular() {
			continue
		}
		rel, ok := vault.Within(v.Dir, abs)
		switch {
		case !ok:
			return "outside the vault (" + v.Dir + ")", true
		case vault.InDotFolder(rel):
			return "in a dot folder, which zk does not read", true
		case v.Ignore != nil && v.Ignore(rel):
			return "the config's ignore leaves it out", true
		}
	}
	return "", false
}

// checkFilter turns PATH arguments into a filter of vault paths: a note
// (path or name) selects itself, a folder every note under it. No
// arguments select every note (a nil filter).
func checkFilter(v *vault.Vault, files []vault.File, args []string) (func(string) bool, []PassedOver, error) {
	if len(args) == 0 {
		return nil, nil, nil
	}
	notes := map[string]bool{}
	var dirs []string
	var passed []PassedOver
	for _, arg := range args {
		if dir, ok := vaultDir(v, arg); ok {
			if dir == "" {
				return nil, passed, nil // the vault itself
			}
			dirs = append(dirs, dir+"/")
			continue
		}
		p, err := FindNote(v, files, arg)
		if err != nil {
			if why, ok := passedOver(v, arg); ok {
				passed = append(passed, PassedOver{Arg: arg, Why: why})
				continue
			}
			return nil, nil, err
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
	}, passed, nil
}

// SkipTemplates is only (nil: every note) without the templates folder
// and those of Obsidian's Templates and Templater plugins: a template is
// not a note of its type ({{title}} is no title, {{date}} no date), though
// links to it still resolve.
func (w *Workspace) SkipTemplates(only func(string) bool) func(string) bool {
	prefixes := []string{strings.Trim(filepath.ToSlash(w.Config.Templates), "/") + "/"}
	for _, dir := range w.ObsidianTemplates {
		prefixes = append(prefixes, dir+"/")
	}
	return func(p string) bool {
		for _, prefix := range prefixes {
			if len(p) >= len(prefix) && strings.EqualFold(p[:len(prefix)], prefix) {
				return false
			}
		}
		return only == nil || only(p)
	}
}

// isVaultDir reports whether a PATH argument names the vault's own
// folder: every note, as checkFilter reads it.
func (w *Workspace) isVaultDir(arg string) bool {
	dir, ok := vaultDir(w.Vault, arg)
	return ok && dir == ""
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
		rel, ok := vault.Within(v.Dir, abs)
		if !ok {
			continue
		}
		if rel == "." {
			return "", true
		}
		return rel, true
	}
	return "", false
}
