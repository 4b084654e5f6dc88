package move

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/zk-claims/zk/internal/atomicfile"
	"github.com/zk-claims/zk/internal/ownfile"
	"github.com/zk-claims/zk/vault"
)

// journalDir holds the journal of a move under way: written and synced
// before the first file changes, removed after the last.
const journalDir = ".zk/journal"

// ErrChanged: a file changed between the plan and its write; the move is
// undone (see Apply).
var ErrChanged = errors.New("changed since the move was planned")

// ErrInterrupted: the move's context ended (a signal, a cancelled
// request) before the move was made; it is undone, now or by the next zk
// command, and the error says which. It is not context.Canceled: a front
// end that prints only "interrupted" for that would hide which.
var ErrInterrupted = errors.New("interrupted")

// DefaultUndoWithin is how long an interrupted move puts back what it
// wrote before it returns, leaving the rest to the next zk command: zk
// stops within a second of a signal, and the files under way when it
// came, the undo mark and the exit take the rest of that second.
const DefaultUndoWithin = 200 * time.Millisecond

// ApplyOptions tune Apply.
type ApplyOptions struct {
	// Key seals the journal (LoadKey): the next zk command acts only on
	// a journal sealed with the key of the machine it runs on.
	Key []byte
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
	// BeforeVerify, when set, runs after the last rename, before the
	// files are read back: a test saves a file there as an editor would.
	BeforeVerify func()
	// UndoWithin is how long the undo may run once the move's context
	// has ended, before Apply returns and leaves the rest to the next zk
	// command (Recover); 0 means DefaultUndoWithin, a negative value
	// leaves the whole undo to the next command.
	UndoWithin time.Duration
}

// Apply carries out a plan, all or nothing. The journal is sealed and
// synced under .zk/journal/ before any file changes; then each file is
// written through vault.EditNote (atomic, concurrent edits detected,
// previous version kept under .zk/backups/), then the renames are done,
// then every file is read back, then the journal is removed. A file that
// changed since the plan, one that cannot be written, or one found
// changed on the read back (an editor saved it during the move) undoes
// the move: the journal says so first, then every file zk wrote is put
// back, however many, and every rename reversed; a file another program
// changed keeps that program's version. A crash mid-move leaves the
// journal, and the next zk command finishes the move (Recover); a crash
// mid-undo, and it finishes the undo.
//
// ctx ending before the move is made (the journal removed) interrupts it:
// no file starts after, the files under way finish whole, and the move is
// undone as a failed one is, the journal marked first (markUndo). The
// undo has o.UndoWithin from the interruption; what it has not put back
// by then, the next zk command does, and the ErrInterrupted error says
// which. The user who stopped a move is never left with it half made, nor
// finished behind their back.
func Apply(ctx context.Context, v *vault.Vault, p *Plan, o ApplyOptions) error {
	root := v.Root()
	if err := ownfile.MkdirAll(root, journalDir, 0o700); err != nil {
		return fmt.Errorf("move: %w", err)
	}
	unlock, err := lockJournal(root, 5*time.Second)
	if err != nil {
		return fmt.Errorf("move: %w", err)
	}
	defer unlock()
	if err := preflight(ctx, v, p); err != nil {
		return err
	}
	j := journal{Version: journalVersion, State: stateApply, Renames: p.Renames}
	for _, fe := range p.Files {
		j.Files = append(j.Files, journalFile{Path: fe.Path, Old: fe.Old, New: fe.New})
	}
	if err := checkJournal(j); err != nil {
		return fmt.Errorf("move: %w", err)
	}
	name := journalName(time.Now().UnixNano())
	if err := writeJournal(ctx, v, o.Key, name, j); err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return fmt.Errorf("move: %w before any file was written; nothing was changed", ErrInterrupted)
		}
		return fmt.Errorf("move: write the journal: %w", err)
	}
	// settle undoes the move once its journal says it is to be undone,
	// for as long as ctx allows (undoCtx), and says what it did.
	settle := func(cause error) error {
		uctx, cancel := undoCtx(ctx, o.UndoWithin)
		defer cancel()
		rec := rollBack(uctx, v, j, o.Write)
		switch {
		case rec.Stopped:
			// The journal, marked, is the next command's to finish.
			return fmt.Errorf("%w; the next zk command finishes undoing it", cause)
		case rec.Retry != "":
			return fmt.Errorf("%w; not all undone (%s): the next zk command finishes undoing it", cause, rec.Retry)
		case len(rec.Conflicts) > 0:
			root.Rename(filepath.FromSlash(name), filepath.FromSlash(asideName(name, "failed")))
			root.Remove(filepath.FromSlash(undoName(name)))
			return fmt.Errorf("%w; undone but for %s (journal kept as %s)", cause, listSome(rec.Conflicts), asideName(name, "failed"))
		}
		removeJournal(root, name)
		if len(rec.Kept) > 0 {
			return fmt.Errorf("%w; undone (another program's save of %s is kept)", cause, listSome(rec.Kept))
		}
		return fmt.Errorf("%w; undone: nothing was changed", cause)
	}
	undo := func(cause error) error {
		j.State = stateUndo
		// Marked whatever the context: a failed move's undo must be the
		// journal's state before anything is put back.
		if err := writeJournal(context.WithoutCancel(ctx), v, o.Key, name, j); err != nil {
			// Left in state apply, the journal would have the next
			// command finish the move the user was told failed.
			return fmt.Errorf("%w; and the journal could not be marked for undoing (%w): it was not undone, and the next zk command will finish the move", cause, err)
		}
		return settle(cause)
	}
	// interrupted undoes the move the user stopped after written of its
	// files, the journal marked first: if the undo cannot finish now,
	// the next command finishes it, not the move.
	interrupted := func(written int) error {
		cause := fmt.Errorf("move: %w after %d of %d files", ErrInterrupted, written, len(p.Files))
		if err := markUndo(v, o.Key, name); err != nil {
			return fmt.Errorf("%w; and the journal could not be marked for undoing (%w): the next zk command finishes the move", cause, err)
		}
		return settle(cause)
	}
	results, err := writeFiles(ctx, v, p.Files, false, o, o.AfterFile)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			if countDone(results) == 0 {
				// Nothing to undo: gone is the journal, and the move.
				removeJournal(root, name)
				return fmt.Errorf("move: %w before any file was written; nothing was changed", ErrInterrupted)
			}
			return interrupted(countDone(results))
		}
		return undo(fmt.Errorf("move: %w", err))
	}
	done := len(p.Files)
	for k, r := range p.Renames {
		if ctx.Err() != nil {
			return interrupted(done)
		}
		if err := rename(root, r); err != nil {
			return undo(fmt.Errorf("move: %w", err))
		}
		if o.AfterFile != nil {
			o.AfterFile(done + k + 1)
		}
	}
	if o.BeforeVerify != nil {
		o.BeforeVerify()
	}
	if err := verify(ctx, v, j); err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return interrupted(done)
		}
		return undo(fmt.Errorf("move: %w", err))
	}
	// Past here the move is made: a signal no longer undoes it.
	if err := removeJournal(root, name); err != nil {
		return fmt.Errorf("move: done, but the journal %s was not removed: %w", name, err)
	}
	return nil
}

// countDone counts the files of a batch that hold what it was to write.
func countDone(results []vault.EditResult) int {
	n := 0
	for _, r := range results {
		if r.Err == nil {
			n++
		}
	}
	return n
}

// undoCtx is the context an undo runs under: it ends within d of ctx's
// end (at once for a negative d, DefaultUndoWithin for 0), and never while
// ctx runs. A move undone on a failure finishes its undo; one the user
// interrupted, or whose undo the user interrupts, stops in time for zk to
// exit within a second, its journal left to the next command.
func undoCtx(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d == 0 {
		d = DefaultUndoWithin
	}
	uctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if d < 0 && ctx.Err() != nil {
		cancel() // now, not from AfterFunc's goroutine: nothing is undone
	}
	stop := context.AfterFunc(ctx, func() {
		if d < 0 {
			cancel()
			return
		}
		time.AfterFunc(d, cancel)
	})
	return uctx, func() {
		stop()
		cancel()
	}
}

// listSome joins the first few of a list, and says how many more: a move
// of thousands of files must not make a message of thousands of lines.
func listSome(items []string) string {
	const some = 3
	if len(items) <= some {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:some], "; "), len(items)-some)
}

// verify reads every file of a finished move back at its new path: an
// editor that saved one during the move (its buffer, with the old links)
// undid zk's edit of it, which would leave a link broken.
func verify(ctx context.Context, v *vault.Vault, j journal) error {
	for _, f := range j.Files {
		if err := ctx.Err(); err != nil {
			return err
		}
		cur, err := readMoved(v, f.Path, j.Renames)
		if err != nil {
			return err
		}
		if !bytes.Equal(cur, f.New) {
			return fmt.Errorf("%s: %w (saved by another program during the move)", f.Path, ErrChanged)
		}
	}
	return nil
}

// preflight checks, before the journal, that the plan still fits the
// vault: every file as planned, every rename's source there (and, a file,
// writable) and its destination free; and that ctx has not ended, which
// stops the move before anything is written.
func preflight(ctx context.Context, v *vault.Vault, p *Plan) (err error) {
	defer func() {
		if err == nil && ctx.Err() != nil {
			err = fmt.Errorf("move: %w before any file was written; nothing was changed", ErrInterrupted)
		}
	}()
	for _, fe := range p.Files {
		if ctx.Err() != nil {
			return nil // said by the deferred check
		}
		cur, err := v.ReadFile(fe.Path, v.MaxNoteSize)
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
		// A read-only note is one zk does not write; renaming it, even
		// with no link to change, is changing it as much.
		if from.Mode().IsRegular() && from.Mode().Perm()&0o200 == 0 {
			return fmt.Errorf("move: %s: %w (mode %04o); nothing was changed", r.From, vault.ErrReadOnly, from.Mode().Perm())
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
// Going back, the file's New is what zk wrote there itself: a file holding
// it is zk's, however recently written and however many files the move
// wrote (the own-writes record keeps only the last few hundred).
func writeFiles(ctx context.Context, v *vault.Vault, files []FileEdit, back bool, o ApplyOptions, after func(int)) ([]vault.EditResult, error) {
	edits := make([]vault.NoteEdit, len(files))
	for i, fe := range files {
		old, want := fe.Old, fe.New
		var ours []byte
		if back {
			old, want, ours = want, old, want
		}
		edits[i] = vault.NoteEdit{Path: fe.Path, Edit: replaceWith(fe.Path, old, want), Base: old, Ours: ours}
	}
	return v.EditNotes(ctx, edits, vault.BatchOptions{WriteOptions: o.Write, Workers: o.Workers, After: after})
}

// writeEach writes files as writeFiles does, but past failures: the files
// a failure kept from being tried are tried again, until each is written
// or has failed, or ctx ends (those not tried then keep ErrNotTried). It
// returns each file's error, nil where it was written.
func writeEach(ctx context.Context, v *vault.Vault, files []FileEdit, back bool, o ApplyOptions) []error {
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
		results, _ := writeFiles(ctx, v, batch, back, o, nil)
		var rest []int
		for k, r := range results {
			if errors.Is(r.Err, vault.ErrNotTried) {
				rest = append(rest, todo[k])
				continue
			}
			errs[todo[k]] = r.Err
		}
		if len(rest) == len(todo) || ctx.Err() != nil {
			for _, i := range rest {
				errs[i] = vault.ErrNotTried // ctx ended; else cannot happen: a failure is some file's
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
		// Through no symlinked folder, as Plan checked: a journal read
		// back may hold a plan made before one appeared.
		if err := ownfile.MkdirAll(root, filepath.ToSlash(dir), 0o755); err != nil {
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
	// Undone says the journal was of a move being undone, which Recover
	// finished undoing; else it finished the move.
	Undone bool
	// Interrupted says the move being undone was one the user stopped
	// (a signal), not one that failed.
	Interrupted bool
	// Stopped says ctx ended before Recover was done with the journal:
	// what it did is kept, each file whole, and the journal is left for
	// the next zk command to go on with.
	Stopped bool
	// Retry is the first write the file system refused for now (disk
	// full, quota, read-only): no conflict, the journal is kept as it is
	// and the next zk command goes on with it, as after Stopped.
	Retry string
	// Files and Renames count the writes and renames Recover made.
	Files, Renames int
	// Conflicts are files that hold neither the content before the move
	// nor the content after (edited since the crash), and renames whose
	// source and destination are both there or both gone: left as they
	// are. The journal is then kept, renamed *.failed.json.
	Conflicts []string
	// Kept are the files of a move being undone that another program
	// saved during the move: they keep that program's version (which is
	// why an undo, not a conflict).
	Kept []string
	// Foreign says why the journal was not acted on at all (ErrForeign:
	// not sealed by this machine for this vault, not a regular file, too
	// large, or naming what no move does); it is set aside as
	// *.foreign.json, for zk check to report.
	Foreign string
}

// Recover acts on every journal a move left behind, once it has proved
// the journal is zk's own (sealed with key, for this vault) and names only
// what a move does. A move cut short is finished (rolled forward): the
// journal holds the whole new content of each file and every rename, and
// each step can tell whether it was done (the file's content, which of a
// rename's two paths exists), so finishing is always possible and
// repeatable; and the user asked for the move. A move cut short while it
// was being undone is undone. A file edited since the crash is left alone
// and reported. Any other journal is set aside, never acted on. It costs
// one stat when no journal is there, and does nothing while another zk
// process holds the journal's lock (a move under way). The folders of the
// journal's files, their backups' and the journal's own are swept of the
// temporary files a killed writer left there. ctx ending stops it between
// files, the journal kept (Recovered.Stopped).
func Recover(ctx context.Context, v *vault.Vault, w vault.WriteOptions, key []byte) ([]Recovered, error) {
	root := v.Root()
	info, err := root.Lstat(filepath.FromSlash(journalDir))
	if err != nil {
		return nil, nil
	}
	if err := ownfile.CheckDirs(root, journalDir+"/x"); err != nil || !info.IsDir() {
		// .zk/journal as a link or a file: nothing zk wrote.
		return []Recovered{{Journal: journalDir, Foreign: fmt.Sprintf("%v: not zk's journal folder; not read", ownErr(err, info))}}, nil
	}
	d, err := root.Open(filepath.FromSlash(journalDir))
	if err != nil {
		return nil, fmt.Errorf("recover a move: %w", err)
	}
	ents, err := d.ReadDir(4096)
	d.Close()
	if err != nil && len(ents) == 0 {
		return nil, nil
	}
	var names, marks []string
	for _, e := range ents {
		n := e.Name()
		switch {
		case strings.HasPrefix(n, "mv-") && strings.HasSuffix(n, ".json") && !isSetAside(n):
			names = append(names, n)
		case strings.HasPrefix(n, "mv-") && strings.HasSuffix(n, ".undo"):
			marks = append(marks, n)
		}
	}
	if len(names) == 0 && len(marks) == 0 {
		return nil, nil
	}
	unlock, err := lockJournal(root, 0)
	if err != nil {
		return nil, nil // a move under way holds it
	}
	defer unlock()
	for _, m := range marks {
		// A mark whose journal is gone: a crash between the removal of
		// the two (removeJournal).
		if !slices.Contains(names, strings.TrimSuffix(m, ".undo")+".json") {
			root.Remove(filepath.FromSlash(path.Join(journalDir, m)))
		}
	}
	sort.Strings(names)
	var out []Recovered
	for _, n := range names {
		name := path.Join(journalDir, n)
		j, err := readJournal(v, key, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // finished by another process meanwhile
		}
		if err != nil {
			root.Rename(filepath.FromSlash(name), filepath.FromSlash(asideName(name, "foreign")))
			out = append(out, Recovered{Journal: name, Foreign: err.Error()})
			continue
		}
		sweepJournal(v, j)
		var rec Recovered
		if j.State == stateUndo {
			rec = rollBack(ctx, v, j, w)
		} else {
			rec = rollForward(ctx, v, j, w)
		}
		rec.Journal, rec.Interrupted = name, j.interrupted
		switch {
		case rec.Stopped || rec.Retry != "":
			// Kept as it is, for the next command to go on with.
		case len(rec.Conflicts) > 0:
			root.Rename(filepath.FromSlash(name), filepath.FromSlash(asideName(name, "failed")))
			root.Remove(filepath.FromSlash(undoName(name)))
			atomicfile.SyncDir(root, filepath.FromSlash(journalDir))
		default:
			if err := removeJournal(root, name); err != nil {
				return out, fmt.Errorf("recover a move: %w", err)
			}
		}
		out = append(out, rec)
		if rec.Stopped || rec.Retry != "" {
			break
		}
	}
	return out, nil
}

// sweepJournal removes the temporary files a killed zk left where a
// move's writes go: the folders of its files before and after the move,
// their backups' folders, and the journal's own (a journal cut short mid
// write). A write sweeps its folder too, but a recovery writes only the
// files not yet done, and a kill mid-batch leaves temporary files beside
// those that were.
func sweepJournal(v *vault.Vault, j journal) {
	dirs := []string{journalDir}
	for _, f := range j.Files {
		dirs = append(dirs, path.Dir(f.Path), path.Join(vault.BackupDir, f.Path))
	}
	for _, r := range j.Renames {
		dirs = append(dirs, path.Dir(r.From), path.Dir(r.To))
	}
	slices.Sort(dirs)
	v.SweepTemporary(slices.Compact(dirs))
}

// ownErr says why .zk/journal is not read.
func ownErr(err error, info fs.FileInfo) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%s is not a folder", journalDir)
}

// rollForward finishes the move j records, or as much of it as it can
// before ctx ends.
func rollForward(ctx context.Context, v *vault.Vault, j journal, w vault.WriteOptions) Recovered {
	root := v.Root()
	var rec Recovered
	var todo []FileEdit // the files still as they were before the move
	for _, f := range j.Files {
		if ctx.Err() != nil {
			rec.Stopped = true
			return rec
		}
		cur, err := v.ReadFile(f.Path, v.MaxNoteSize)
		if err != nil {
			// A file whose rename already happened is read at its new path.
			cur, err = readMoved(v, f.Path, j.Renames)
		}
		switch {
		case err != nil:
			rec.Conflicts = append(rec.Conflicts, fmt.Sprintf("%s: %v", f.Path, err))
		case bytes.Equal(cur, f.New):
		case bytes.Equal(cur, f.Old):
			todo = append(todo, FileEdit{Path: f.Path, Old: cur, New: f.New})
		default:
			rec.Conflicts = append(rec.Conflicts, f.Path+": edited since the move was interrupted; left as it is")
		}
	}
	for _, err := range writeEach(ctx, v, todo, false, ApplyOptions{Write: w}) {
		switch {
		case errors.Is(err, vault.ErrNotTried) && ctx.Err() != nil:
			rec.Stopped = true
		case forNow(err):
			if rec.Retry == "" {
				rec.Retry = err.Error()
			}
		case err != nil:
			rec.Conflicts = append(rec.Conflicts, err.Error())
		default:
			rec.Files++
		}
	}
	// No rename ahead of files still to write: the journal, kept, finishes
	// both once the disk takes them.
	if rec.Stopped || rec.Retry != "" {
		return rec
	}
	for _, r := range j.Renames {
		from, errFrom := root.Lstat(filepath.FromSlash(r.From))
		to, errTo := root.Lstat(filepath.FromSlash(r.To))
		switch {
		case errFrom == nil && (errTo != nil || sameFile(from, to)):
			if err := rename(root, r); forNow(err) {
				rec.Retry = fmt.Sprintf("rename %s to %s: %v", r.From, r.To, err)
				return rec
			} else if err != nil {
				rec.Conflicts = append(rec.Conflicts, fmt.Sprintf("rename %s to %s: %v", r.From, r.To, err))
				continue
			}
			rec.Renames++
		case errFrom != nil && errTo == nil:
		default:
			rec.Conflicts = append(rec.Conflicts, fmt.Sprintf("rename %s to %s: both or neither there; left as they are", r.From, r.To))
		}
	}
	return rec
}

// rollBack undoes the move j records, whatever part of it was done:
// renames reversed, last first, then every file that holds what the move
// wrote given its content before. A file holding neither (another
// program saved it) keeps that program's version and is reported. ctx
// ending stops it between files (Recovered.Stopped), each file whole.
func rollBack(ctx context.Context, v *vault.Vault, j journal, w vault.WriteOptions) Recovered {
	root := v.Root()
	rec := Recovered{Undone: true}
	for _, r := range slices.Backward(j.Renames) {
		_, errFrom := root.Lstat(filepath.FromSlash(r.From))
		_, errTo := root.Lstat(filepath.FromSlash(r.To))
		if errFrom == nil || errTo != nil {
			continue // not done, or nothing to put back
		}
		if err := rename(root, Rename{From: r.To, To: r.From, Folder: r.Folder}); forNow(err) {
			if rec.Retry == "" {
				rec.Retry = fmt.Sprintf("rename %s back to %s: %v", r.To, r.From, err)
			}
			continue
		} else if err != nil {
			rec.Conflicts = append(rec.Conflicts, fmt.Sprintf("rename %s back to %s: %v", r.To, r.From, err))
			continue
		}
		rec.Renames++
	}
	var todo []FileEdit // the files holding what the move wrote
	for _, f := range j.Files {
		if ctx.Err() != nil {
			rec.Stopped = true
			return rec
		}
		cur, err := v.ReadFile(f.Path, v.MaxNoteSize)
		switch {
		case err != nil:
			rec.Conflicts = append(rec.Conflicts, fmt.Sprintf("%s: %v", f.Path, err))
		case bytes.Equal(cur, f.Old):
		case bytes.Equal(cur, f.New):
			todo = append(todo, FileEdit{Path: f.Path, Old: f.Old, New: f.New})
		default:
			rec.Kept = append(rec.Kept, f.Path)
		}
	}
	for i, err := range writeEach(ctx, v, todo, true, ApplyOptions{Write: w}) {
		if errors.Is(err, vault.ErrNotTried) && ctx.Err() != nil {
			rec.Stopped = true // still holds what the move wrote: the next command puts it back
			continue
		}
		if err != nil {
			// Another program saved the file between the read above and
			// the write (an editor's save refused as mid-write, or seen
			// as a change): it holds that program's version now, which
			// is kept, as it is when seen before.
			cur, rerr := v.ReadFile(todo[i].Path, v.MaxNoteSize)
			switch {
			case rerr == nil && bytes.Equal(cur, todo[i].Old):
				rec.Files++
			case rerr == nil && !bytes.Equal(cur, todo[i].New):
				rec.Kept = append(rec.Kept, todo[i].Path)
			case forNow(err):
				if rec.Retry == "" {
					rec.Retry = err.Error()
				}
			default:
				rec.Conflicts = append(rec.Conflicts, err.Error())
			}
			continue
		}
		rec.Files++
	}
	return rec
}

// forNow says a write failed for want of room or of a writable file
// system, not for anything in the file: the same write can be made once
// the user frees space or remounts, so it is no conflict.
func forNow(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EROFS)
}

// readMoved reads the file p of a journal at the path its rename gave it
// (or at p, when no rename moved it).
func readMoved(v *vault.Vault, p string, renames []Rename) ([]byte, error) {
	for _, r := range renames {
		if p == r.From || strings.HasPrefix(p, r.From+"/") {
			return v.ReadFile(r.To+p[len(r.From):], v.MaxNoteSize)
		}
	}
	return v.ReadFile(p, v.MaxNoteSize)
}
