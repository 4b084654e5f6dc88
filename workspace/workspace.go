// Package workspace is zk's application layer: a vault opened as every
// front end opens it (the workspace), and the use cases over it, each a
// method that takes a typed request and returns a typed result, typed
// errors (UsageError, NotFoundError, NotApprovedError, RefusedError) and
// notices. It prints nothing and parses no flags: cmd/zk's commands and
// its MCP server are adapters that turn their own arguments into a
// request and a result into their own output, and a use case is written
// once here. See docs/design.md, "The application layer".
package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/zk-claims/zk/config"
	"github.com/zk-claims/zk/internal/english"
	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/move"
	"github.com/zk-claims/zk/vault/property"
)

// Workspace is a vault as every command opens it: the vault with its
// config's ignore globs applied, the config (loaded once, its warnings
// told once), the note types read from their templates, and today. It is
// the one way a front end opens a vault, so that every front end sees the
// same notes.
type Workspace struct {
	Vault  *vault.Vault
	Config *config.Config
	Types  []*vault.NoteType
	// Today is the day notes are measured against; Pinned says it was
	// given (--today, $ZK_TODAY) rather than read from the clock.
	Today  time.Time
	Pinned bool
	// PropTypes are the property types .obsidian/types.json declares
	// (nil when it declares none, or cannot be read: a notice says so).
	PropTypes map[string]property.Type
	// Zone is the time zone a base reads dates in (nil: the local one).
	Zone *time.Location
	// ObsidianTemplates are the folders Obsidian's Templates plugin and
	// the Templater plugin take templates from (.obsidian/templates.json,
	// Templater's data.json), as vault paths. Their notes are templates,
	// as the config's templates folder's are: "- Last tended: {{date}}"
	// in one is no bad date.
	ObsidianTemplates []string

	version string
	notify  func(Notice)
	term    func(string) string
	// mapCache: Options.MapCache.
	mapCache bool
	// graph: Options.Graph.
	graph *GraphFormat
	// parsed, when a test sets it, is told the path of each note a
	// reader of the model file parses (perNoteCache.notes) rather than
	// takes from the file: what an unchanged vault answers from the
	// cache, it is told nothing of.
	parsed func(path string)
	// homed is the last homedLedger, and what it was made of.
	homed struct {
		sync.Mutex
		ledger []byte
		h      *evidence.Homed
	}
}

// Close closes the vault.
func (w *Workspace) Close() error { return w.Vault.Close() }

// Access says whether a use case may write into the vault: one that would
// write (tend, run, attach, new, index state) refuses a folder that is not
// a vault, where a reading one may take the working directory.
type Access int

const (
	Reading Access = iota
	Writing
)

// Notice is something a front end tells the user besides the result: a
// warning (zk went on, but something is missing or was refused), or what
// zk did by itself (finished an interrupted move). Text is not made
// printable: the front end does that, as it does for every text not its
// own.
type Notice struct {
	Warning bool
	Text    string
}

// Options say which vault to open and how.
type Options struct {
	// Dir is the vault's folder as given (--vault); "" finds it.
	Dir string
	// Hint is a path argument (a NOTE or PATH) to find the vault from
	// before the working directory; "" for none.
	Hint   string
	Access Access
	// Today is the day (midnight UTC) a note's dates are measured
	// against; Pinned says it was given rather than read from the clock.
	Today  time.Time
	Pinned bool
	// Version names zk's build, in run records and cache keys.
	Version string
	// Notify receives the notices, in order, as they arise; nil drops
	// them.
	Notify func(Notice)
	// Term names a request's field as the front end's user writes it,
	// for the errors that name one: "--due-within" for the CLI's flag,
	// "due_within" for an MCP tool's argument. nil leaves the field's own
	// name (snake_case, as a request's doc comment gives it).
	Term func(field string) string
	// MapCache reads the model file in place, mapped until the process
	// ends (checkcache.MapModel), rather than copied into memory: for a
	// process that opens it a few times (a command; the language server,
	// once), not a server that opens it for each request.
	MapCache bool
	// Graph is the format the front end prints zk graph's edges in
	// (Workspace.GraphText): a read of every note fills its section too
	// (fill.go). Nil fills none.
	Graph *GraphFormat
}

// Open finds and opens the vault: o.Dir, else the nearest folder holding
// .obsidian/ or .zk/ up from o.Hint, else up from the working directory.
// With no marker anywhere, reading uses the working directory and says
// so; writing refuses (ErrNoVault). A move a crash cut short is finished
// before anything reads the vault.
func Open(ctx context.Context, o Options) (*Workspace, error) {
	notify := o.Notify
	if notify == nil {
		notify = func(Notice) {}
	}
	dir, err := Find(o.Dir, o.Hint, o.Access, notify)
	if err != nil {
		return nil, err
	}
	v, err := vault.Open(dir)
	if err != nil {
		return nil, err
	}
	recoverMoves(ctx, v, notify)
	cfg, warnings, err := config.Load(v.Dir)
	if err != nil {
		v.Close()
		return nil, err
	}
	for _, w := range warnings {
		notify(Notice{Warning: true, Text: w})
	}
	v.Ignore = ignoreFunc(cfg.Ignore)
	types, err := cfg.NoteTypes(readTemplate(v))
	if err != nil {
		v.Close()
		return nil, err
	}
	propTypes, err := declaredTypes(v)
	if err != nil {
		notify(Notice{Warning: true, Text: fmt.Sprintf("%v (property types not checked)", err)})
	}
	return &Workspace{Vault: v, Config: cfg, Types: types, Today: o.Today, Pinned: o.Pinned,
		PropTypes: propTypes, ObsidianTemplates: obsidianTemplates(v), version: o.Version, notify: notify, term: o.Term, mapCache: o.MapCache, graph: o.Graph}, nil
}

// ErrNoVault is a writing use case's refusal to treat an unmarked folder
// as a vault: it would create .zk/ there and so make it one.
var ErrNoVault = errors.New("no vault: no .obsidian/ or .zk/ in this folder or above")

// Find is the vault folder Open opens (see Open).
func Find(dir, hint string, how Access, notify func(Notice)) (string, error) {
	if dir != "" {
		st, err := os.Stat(dir)
		if err != nil {
			return "", fmt.Errorf("vault: %w", err)
		}
		if !st.IsDir() {
			return "", fmt.Errorf("vault: %s is not a folder", dir)
		}
		return filepath.Abs(dir)
	}
	if hint != "" {
		if dir, ok := Marked(hint); ok {
			return dir, nil
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("vault: %w", err)
	}
	if dir, ok := Marked(wd); ok {
		return dir, nil
	}
	if how == Writing {
		return "", &RefusedError{Err: fmt.Errorf("%w (from %s)", ErrNoVault, printable.Of(wd))}
	}
	if notify != nil {
		notify(Notice{Text: "no .obsidian/ or .zk/ found; using " + wd + " as the vault, only to read (a command that writes in a vault refuses)"})
	}
	return wd, nil
}

// Marked returns the nearest folder from p up (p itself, if it is a
// folder) that holds .obsidian/ or .zk/.
func Marked(p string) (string, bool) {
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

// declaredTypes reads the vault's .obsidian/types.json: nil when there is
// none.
func declaredTypes(v *vault.Vault) (map[string]property.Type, error) {
	data, err := v.ReadFile(property.TypesFile, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return property.Declared(data)
}

// readTemplate reads a type's template by its vault path. Where no file
// has the name the config gives, the one file of the folder whose name
// differs from it only in case is read in its place: an Obsidian user's
// Templates/Permanent.md is the permanent type's permanent.md, as it is on
// the file systems of macOS and Windows, rather than left unread while the
// template zk ships stands in for it unsaid.
func readTemplate(v *vault.Vault) config.ReadFunc {
	return func(p string) ([]byte, error) {
		b, err := v.ReadFile(p, v.MaxNoteSize)
		if !errors.Is(err, fs.ErrNotExist) {
			return b, err
		}
		dir, name := path.Split(p)
		entries, derr := fs.ReadDir(v.Root().FS(), path.Clean("./"+dir))
		if derr != nil {
			return nil, err
		}
		match := ""
		for _, e := range entries {
			if !e.Type().IsRegular() || !strings.EqualFold(e.Name(), name) {
				continue
			}
			if match != "" {
				return nil, err // two alike but for case: neither is the one named
			}
			match = e.Name()
		}
		if match == "" {
			return nil, err
		}
		return v.ReadFile(dir+match, v.MaxNoteSize)
	}
}

// templateSettings are where Obsidian's Templates plugin and the
// Templater community plugin keep their settings, and the key naming the
// folder of templates in each: {"folder": "Templates", ...}.
var templateSettings = []struct{ file, key string }{
	{".obsidian/templates.json", "folder"},
	{".obsidian/plugins/templater-obsidian/data.json", "templates_folder"},
}

// obsidianTemplates are the folders the plugins' settings name, as vault
// paths without slashes at either end, each once. A folder is left out
// when its file is absent or cannot be read, or when it names the vault's
// root (where every note would be a template); a .. cannot climb out of
// the root.
func obsidianTemplates(v *vault.Vault) []string {
	var out []string
	for _, ts := range templateSettings {
		data, err := v.ReadFile(ts.file, 1<<20)
		if err != nil {
			continue
		}
		var doc map[string]any
		if json.Unmarshal(data, &doc) != nil {
			continue
		}
		folder, _ := doc[ts.key].(string)
		dir := path.Clean("/" + folder)[1:]
		if dir != "" && !slices.Contains(out, dir) {
			out = append(out, dir)
		}
	}
	return out
}

// JournalKey is this machine's move-journal key (move.LoadKey), made when
// create is set and there is none.
func JournalKey(create bool) ([]byte, error) {
	p, err := move.DefaultKeyPath()
	if err != nil {
		return nil, err
	}
	return move.LoadKey(p, create)
}

// recoverMoves finishes a move a crash cut short (move.Recover), saying
// so; every Open runs it. A journal zk cannot prove its own is set aside,
// never acted on: zk check reports it.
func recoverMoves(ctx context.Context, v *vault.Vault, notify func(Notice)) {
	key, _ := JournalKey(false) // none: no move was ever made here, every journal is foreign
	recs, err := move.Recover(ctx, v, vault.WriteOptions{}, key)
	if err != nil {
		notify(Notice{Warning: true, Text: err.Error()})
	}
	for _, r := range recs {
		if r.Foreign != "" {
			notify(Notice{Warning: true, Text: fmt.Sprintf("%s: %s; set aside (zk check reports it)", r.Journal, r.Foreign)})
			continue
		}
		verb := "finished an interrupted zk mv"
		switch {
		case r.Undone && r.Interrupted:
			verb = "finished undoing an interrupted zk mv"
		case r.Undone:
			verb = "finished undoing a failed zk mv"
		}
		if r.Retry != "" {
			// Disk full or read-only: nothing in the files stops it, and
			// the journal is kept for the next command.
			notify(Notice{Warning: true, Text: fmt.Sprintf("could not %s yet: %s (%s written, %s renamed); the next zk command goes on with it", strings.Replace(verb, "finished", "finish", 1), r.Retry, english.Plural(r.Files, "file"), english.Plural(r.Renames, "path"))})
			continue
		}
		notify(Notice{Text: fmt.Sprintf("%s: %s written, %s renamed", verb, english.Plural(r.Files, "file"), english.Plural(r.Renames, "path"))})
		for _, k := range r.Kept {
			notify(Notice{Warning: true, Text: k + " was saved by another program during the move; its version is kept"})
		}
		for _, c := range r.Conflicts {
			notify(Notice{Warning: true, Text: fmt.Sprintf("interrupted zk mv: %s (journal kept as %s)", c, strings.TrimSuffix(r.Journal, ".json")+".failed.json")})
		}
	}
}

// warn tells the user of something that went wrong without stopping the
// use case.
func (w *Workspace) warn(format string, args ...any) {
	w.notify(Notice{Warning: true, Text: fmt.Sprintf(format, args...)})
}

// field names a request's field in the front end's terms (Options.Term).
func (w *Workspace) field(name string) string {
	if w.term == nil {
		return name
	}
	return w.term(name)
}
