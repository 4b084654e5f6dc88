package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/config"
	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/property"
)

// workspace is a vault as every command opens it: the vault with its
// config's ignore globs applied, the config (loaded once, its warnings
// printed once), the note types read from their templates, and today.
// It is the one way a command opens a vault, so that every command sees
// the same notes.
type workspace struct {
	vault *vault.Vault
	cfg   *config.Config
	types []*vault.NoteType
	today time.Time
	// propTypes are the property types .obsidian/types.json declares
	// (nil when it declares none, or cannot be read: a warning says so).
	propTypes map[string]property.Type
}

func (w *workspace) Close() error { return w.vault.Close() }

// access says whether a command may write into the vault: a command that
// would write (tend, run, attach, new, index state) refuses a folder that
// is not a vault, where a reading command may take the working directory.
type access int

const (
	reading access = iota
	writing
)

// errNoVault is a writing command's refusal to treat an unmarked folder as
// a vault: it would create .zk/ there and so make it one.
var errNoVault = errors.New("no vault: no .obsidian/ or .zk/ in this folder or above")

// open finds and opens the vault: --vault, else the nearest folder holding
// .obsidian/ or .zk/ up from hint (a command's first NOTE or PATH
// argument; "" for none), else up from the working directory. With no
// marker anywhere, a reading command uses the working directory and says
// so on stderr; a writing command refuses.
func (o *rootOptions) open(s *streams, how access, hint string) (*workspace, error) {
	dir, err := o.findVault(s, how, hint)
	if err != nil {
		return nil, err
	}
	today, err := o.now()
	if err != nil {
		return nil, err
	}
	v, err := vault.Open(dir)
	if err != nil {
		return nil, err
	}
	recoverMoves(v, s) // a zk mv a crash cut short: finished before anything reads the vault
	if p := o.getenv("ZK_TEST_STALL_READ"); p != "" {
		// A read that never returns (a network mount gone away) is what a
		// signal must still stop; zk itself opens nothing that can block,
		// so the signal tests stall here, on a FIFO nothing writes.
		os.ReadFile(p)
	}
	cfg, warnings, err := config.Load(v.Dir)
	if err != nil {
		v.Close()
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintf(s.err, "zk: warning: %s\n", w)
	}
	v.Ignore = ignoreFunc(cfg.Ignore)
	types, err := cfg.NoteTypes(func(p string) ([]byte, error) { return v.ReadFile(p, v.MaxNoteSize) })
	if err != nil {
		v.Close()
		return nil, err
	}
	propTypes, err := declaredTypes(v)
	if err != nil {
		fmt.Fprintf(s.err, "zk: warning: %v (property types not checked)\n", err)
	}
	return &workspace{vault: v, cfg: cfg, types: types, today: today, propTypes: propTypes}, nil
}

// findVault is the vault folder open uses.
func (o *rootOptions) findVault(s *streams, how access, hint string) (string, error) {
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
	if hint != "" {
		if dir, ok := markedAncestor(hint); ok {
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
	if how == writing {
		return "", fmt.Errorf("%w (from %s); name the vault with --vault DIR, or make this folder one with zk init", errNoVault, printable.Of(wd))
	}
	fmt.Fprintf(s.err, "zk: no .obsidian/ or .zk/ found; using %s as the vault\n", printable.Of(wd))
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

// ignoreFunc matches vault paths against the config's ignore globs,
// ignoring case as Obsidian's excluded files do; nil when there are none.
func ignoreFunc(globs []string) func(string) bool {
	if len(globs) == 0 {
		return nil
	}
	lower := make([]string, len(globs))
	for i, g := range globs {
		lower[i] = strings.ToLower(g)
	}
	return func(p string) bool {
		p = strings.ToLower(p)
		for _, g := range lower {
			if ok, _ := doublestar.Match(g, p); ok {
				return true
			}
		}
		return false
	}
}

// firstArg is a command's first argument, the hint open finds the vault
// from, or "".
func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// completeNote completes a command's NOTE argument (its first) with the
// vault's notes: each by its name where that name is the vault's only note
// of the name, else by its vault path, as a NOTE argument takes them.
func completeNote(root *rootOptions, s *streams) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveDefault
		}
		quiet := *s
		quiet.err = io.Discard // a completion speaks only through stdout
		w, err := root.open(&quiet, reading, "")
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		defer w.Close()
		files, _, err := w.vault.Files(cmd.Context())
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		_, notes := vault.SplitFiles(files)
		byName := map[string]int{}
		for _, f := range notes {
			byName[vault.FoldName(noteName(f.Path))]++
		}
		var out []cobra.Completion
		for _, f := range notes {
			c := f.Path
			if name := noteName(f.Path); byName[vault.FoldName(name)] == 1 {
				c = name
			}
			if strings.HasPrefix(strings.ToLower(c), strings.ToLower(toComplete)) {
				out = append(out, c)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// noteName is a note's name: its file name without the extension.
func noteName(p string) string { return strings.TrimSuffix(path.Base(p), path.Ext(p)) }
