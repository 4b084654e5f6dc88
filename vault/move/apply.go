package move

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/atomicfile"
	"github.com/zk-claims/zk/vault"
)

// journalDir holds the journal of a move under way: written and synced
// before the first file changes, removed after the last.
const journalDir = ".zk/journal"

// ErrChanged: a file changed between the plan and its write; the move is
// undone (see Apply).
var ErrChanged = errors.New("changed since the move was planned")

// journal is what a move will do, complete enough for the next zk command
// to finish it: each file's content before (its hash) and after (whole),
// and the renames. Contents are bytes (base64 in JSON): a note need not be
// valid UTF-8 throughout.
type journal struct {
	Version int           `json:"version"`
	Files   []journalFile `json:"files"`
	Renames []Rename      `json:"renames"`
}

type journalFile struct {
	Path    string `json:"path"`
	OldHash string `json:"old_sha256"`
	NewHash string `json:"new_sha256"`
	New     []byte `json:"new"`
}

// ApplyOptions tune Apply.
type ApplyOptions struct {
	// Write is passed to each file's write (vault.EditNote).
	Write vault.WriteOptions
	// Workers is how many files are written at once (vault.EditNotes); 0
	// means vault.DefaultBatchWorkers, 1 writes them in the plan's order.
	Workers int
	// AfterFile, when set, runs after the i-th file (1-based) is written
	// and after each rename (i past the files): a test stops the process
	// there to leave a move half done. No file starts while it runs; with
	// Workers 1 exactly i files are written then, in the plan's order,
	// and it runs in Apply's goroutine.
	AfterFile func(i int)
}

// Apply carries out a plan, all or nothing. The journal is written and
// synced under .zk/journal/ before any file changes; then each file is
// written through vault.EditNote (atomic, concurrent edits detected,
// previous version kept under .zk/backups/), then the renames are done,
// then the journal is removed. A file that changed since the plan, or any
// other failure, undoes what was done and removes the journal: the vault
// is as it was. A crash (a kill, a power cut) leaves the journal, and the
// next zk command finishes the move (Recover).
func Apply(v *vault.Vault, p *Plan, o ApplyOptions) error {
	root := v.Root()
	if err := root.MkdirAll(filepath.FromSlash(journalDir), 0o700); err != nil {
		return fmt.Errorf("move: %w", err)
	}
	unlock, err := lockJournal(root, 5*time.Second)
	if err != nil {
		return fmt.Errorf("move: %w", err)
	}
	defer unlock()
	if err := preflight(v, p); err != nil {
		return err
	}
	j := journal{Version: 1, Renames: p.Renames}
	for _, fe := range p.Files {
		j.Files = append(j.Files, journalFile{Path: fe.Path, OldHash: Hash(fe.Old), NewHash: Hash(fe.New), New: fe.New})
	}
	data, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("move: %w", err)
	}
	name := path.Join(journalDir, fmt.Sprintf("mv-%d-%d.json", time.Now().UnixNano(), os.Getpid()))
	if err := atomicfile.WriteIn(root, filepath.FromSlash(name), data, atomicfile.Options{Perm: 0o600}); err != nil {
		return fmt.Errorf("move: write the journal: %w", err)
	}
	// written are the files this move wrote, exactly: with several
	// written at once, a failure need not come after a prefix of the plan.
	var written []FileEdit
	undo := func(cause error) error {
		if err := undoFiles(v, written, o); err != nil {
			return fmt.Errorf("%w; undoing it failed too, the journal %s is kept for the next zk command to finish the move: %w", cause, name, err)
		}
		root.Remove(filepath.FromSlash(name))
		return fmt.Errorf("%w; nothing was changed", cause)
	}
	results, err := writeFiles(v, p.Files, false, o, o.AfterFile)
	for i, r := range results {
		if r.Err == nil {
			written = append(written, p.Files[i])
		}
	}
	if err != nil {
		return undo(fmt.Errorf("move: %w", err))
	}
	done := len(p.Files)
	for k, r := range p.Renames {
		if err := rename(root, r); err != nil {
			for _, back := range slicesReverse(p.Renames[:k]) {
				rename(root, Rename{From: back.To, To: back.From, Folder: back.Folder})
			}
			return undo(fmt.Errorf("move: %w", err))
		}
		if o.AfterFile != nil {
			o.AfterFile(done + k + 1)
		}
	}
	if err := root.Remove(filepath.FromSlash(name)); err != nil {
		return fmt.Errorf("move: done, but the journal %s was not removed: %w", name, err)
	}
	atomicfile.SyncDir(root, filepath.FromSlash(journalDir))
	return nil
}

func slicesReverse(rs []Rename) []Rename {
	out := make([]Rename, len(rs))
	for i, r := range rs {
		out[len(rs)-1-i] = r
	}
	return out
}

// preflight checks, before the journal, that the plan still fits the
// vault: every file as planned, every rename's source there and its
// destination free.
func preflight(v *vault.Vault, p *Plan) error {
	for _, fe := range p.Files {
		cur, err := v.ReadFile(fe.Path, 0)
		if err != nil {
			return fmt.Errorf("move: %w", err)
		}
		if !bytes.Equal(cur, fe.Old) {
			return fmt.Errorf("move: %s: %w", fe.Path, ErrChanged)
		}
	}
	root := v.Root()
	for _, r := range p.Renames {
		from, err := root.Lstat(filepath.FromSlash(r.From))
		if err != nil {
			return fmt.Errorf("move: %w", err)
		}
		if to, err := root.Lstat(filepath.FromSlash(r.To)); err == nil && !sameFile(from, to) {
			return fmt.Errorf("move: %s: %w", r.To, ErrExists)
		}
	}
	return nil
}

// replaceWith is the edit that turns old into want, leaves want as it is,
// and refuses anything else.
func replaceWith(p string, old, want []byte) func(src []byte) ([]byte, error) {
	return func(src []byte) ([]byte, error) {
		switch {
		case bytes.Equal(src, want):
			return src, nil
		case bytes.Equal(src, old):
			return want, nil
		}
		return nil, fmt.Errorf("%s: %w", p, ErrChanged)
	}
}

// writeFiles writes each file's New over its Old (back, its Old over its
// New) as one batch of the vault's safe write path (vault.EditNotes).
func writeFiles(v *vault.Vault, files []FileEdit, back bool, o ApplyOptions, after func(int)) ([]vault.EditResult, error) {
	edits := make([]vault.NoteEdit, len(files))
	for i, fe := range files {
		old, want := fe.Old, fe.New
		if back {
			old, want = want, old
		}
		edits[i] = vault.NoteEdit{Path: fe.Path, Edit: replaceWith(fe.Path, old, want), Base: old}
	}
	return v.EditNotes(edits, vault.BatchOptions{WriteOptions: o.Write, Workers: o.Workers, After: after})
}

// undoFiles writes the planned-against content back over files written.
// A failure does not stop it: every file it can put back, it does.
func undoFiles(v *vault.Vault, files []FileEdit, o ApplyOptions) error {
	return errors.Join(writeEach(v, files, true, o)...)
}

// writeEach writes files as writeFiles does, but past failures: the files
// a failure kept from being tried are tried again, until each is written
// or has failed. It returns each file's error, nil where it was written.
func writeEach(v *vault.Vault, files []FileEdit, back bool, o ApplyOptions) []error {
	errs := make([]error, len(files))
	todo := make([]int, len(files))
	for i := range todo {
		todo[i] = i
	}
	for len(todo) > 0 {
		batch := make([]FileEdit, len(todo))
		for k, i := range todo {
			batch[k] = files[i]
		}
		results, _ := writeFiles(v, batch, back, o, nil)
		var rest []int
		for k, r := range results {
			if errors.Is(r.Err, vault.ErrNotTried) {
				rest = append(rest, todo[k])
				continue
			}
			errs[todo[k]] = r.Err
		}
		if len(rest) == len(todo) {
			for _, i := range rest {
				errs[i] = vault.ErrNotTried // cannot happen: a failure is some file's
			}
			break
		}
		todo = rest
	}
	return errs
}

// rename moves a file or folder within the vault, making the destination's
// folder when needed; it never replaces a file (the same file under
// another case, on a case-insensitive file system, is no other file).
func rename(root *os.Root, r Rename) error {
	from, to := filepath.FromSlash(r.From), filepath.FromSlash(r.To)
	src, err := root.Lstat(from)
	if err != nil {
		return err
	}
	if st, err := root.Lstat(to); err == nil && !sameFile(src, st) {
		return fmt.Errorf("%s: %w", r.To, ErrExists)
	}
	if dir := filepath.Dir(to); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if err := root.Rename(from, to); err != nil {
		return err
	}
	atomicfile.SyncDir(root, filepath.Dir(to))
	if filepath.Dir(from) != filepath.Dir(to) {
		atomicfile.SyncDir(root, filepath.Dir(from))
	}
	return nil
}

// Recovered is what Recover did with a journal a move left behind.
type Recovered struct {
	Journal string
	// Files and Renames count the writes and renames Recover made.
	Files, Renames int
	// Conflicts are files that hold neither the content before the move
	// nor the content after (edited since the crash), and renames whose
	// source and destination are both there or both gone: left as they
	// are. The journal is then kept, renamed *.failed.json.
	Conflicts []string
}

// Recover finishes every move a crash left half done: it rolls forward.
// The journal holds the whole new content of each file and every rename,
// and each step can tell whether it was done (the file's hash, which of a
// rename's two paths exists), so finishing is always possible and
// repeatable, where rolling back would need every old content kept too;
// and the user asked for the move. A file edited since the crash is left
// alone and reported. It costs one stat when no journal is there, and
// does nothing while another zk process holds the journal's lock (a move
// under way).
func Recover(v *vault.Vault, w vault.WriteOptions) ([]Recovered, error) {
	root := v.Root()
	if _, err := root.Stat(filepath.FromSlash(journalDir)); err != nil {
		return nil, nil
	}
	ents, err := fs.ReadDir(root.FS(), journalDir)
	if err != nil {
		return nil, fmt.Errorf("recover a move: %w", err)
	}
	var names []string
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, "mv-") && strings.HasSuffix(n, ".json") && !strings.HasSuffix(n, ".failed.json") {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	unlock, err := lockJournal(root, 0)
	if err != nil {
		return nil, nil // a move under way holds it
	}
	defer unlock()
	sort.Strings(names)
	var out []Recovered
	for _, n := range names {
		rec, err := recoverOne(v, path.Join(journalDir, n), w)
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
	return out, nil
}

func recoverOne(v *vault.Vault, name string, w vault.WriteOptions) (Recovered, error) {
	root := v.Root()
	rec := Recovered{Journal: name}
	data, err := v.ReadFile(name, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil // finished by another process meanwhile
	}
	if err != nil {
		return rec, fmt.Errorf("recover a move: %w", err)
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil || j.Version != 1 {
		// A journal is written whole (atomically) or not at all: one that
		// does not parse is not zk's, or from a later zk. Keep it aside.
		root.Rename(filepath.FromSlash(name), filepath.FromSlash(strings.TrimSuffix(name, ".json")+".failed.json"))
		return rec, fmt.Errorf("recover a move: %s is not a journal this zk reads; moved aside", name)
	}
	var todo []FileEdit // the files still as they were before the move
	for _, f := range j.Files {
		cur, err := v.ReadFile(f.Path, 0)
		if err != nil {
			// A file whose rename already happened is read at its new path.
			cur, err = readMoved(v, f.Path, j.Renames)
		}
		switch {
		case err != nil:
			rec.Conflicts = append(rec.Conflicts, fmt.Sprintf("%s: %v", f.Path, err))
		case Hash(cur) == f.NewHash:
		case Hash(cur) == f.OldHash:
			todo = append(todo, FileEdit{Path: f.Path, Old: cur, New: f.New})
		default:
			rec.Conflicts = append(rec.Conflicts, f.Path+": edited since the move was interrupted; left as it is")
		}
	}
	for _, err := range writeEach(v, todo, false, ApplyOptions{Write: w}) {
		if err != nil {
			rec.Conflicts = append(rec.Conflicts, err.Error())
			continue
		}
		rec.Files++
	}
	for _, r := range j.Renames {
		from, errFrom := root.Lstat(filepath.FromSlash(r.From))
		to, errTo := root.Lstat(filepath.FromSlash(r.To))
		switch {
		case errFrom == nil && (errTo != nil || sameFile(from, to)):
			if err := rename(root, r); err != nil {
				rec.Conflicts = append(rec.Conflicts, fmt.Sprintf("rename %s to %s: %v", r.From, r.To, err))
				continue
			}
			rec.Renames++
		case errFrom != nil && errTo == nil:
		default:
			rec.Conflicts = append(rec.Conflicts, fmt.Sprintf("rename %s to %s: both or neither there; left as they are", r.From, r.To))
		}
	}
	if len(rec.Conflicts) > 0 {
		root.Rename(filepath.FromSlash(name), filepath.FromSlash(strings.TrimSuffix(name, ".json")+".failed.json"))
		return rec, nil
	}
	if err := root.Remove(filepath.FromSlash(name)); err != nil {
		return rec, fmt.Errorf("recover a move: %w", err)
	}
	atomicfile.SyncDir(root, filepath.FromSlash(journalDir))
	return rec, nil
}

// readMoved reads the file p of a journal at the path its rename gave it.
func readMoved(v *vault.Vault, p string, renames []Rename) ([]byte, error) {
	for _, r := range renames {
		if p == r.From || strings.HasPrefix(p, r.From+"/") {
			return v.ReadFile(r.To+p[len(r.From):], 0)
		}
	}
	return nil, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
}
