package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/zk-claims/zk/internal/atomicfile"
)

// session is what the writes made under one hold of the writer lock
// share: the own-writes record, read once and saved once at the end (under
// the lock still), the folders already swept of dead writers' temporary
// files, and, for a batch, the note folders whose fsync waits for the end.
// It is safe for concurrent use.
type session struct {
	w       writer // root and options, for the own-writes record
	mu      sync.Mutex
	own     ownWrites
	changed bool
	swept   map[string]*sync.Once
	// unsynced collects the folders a batch renamed notes into; nil syncs
	// each folder right after its rename.
	unsynced map[string]bool
}

func (v *Vault) newSession(opts WriteOptions, batch bool) *session {
	s := &session{w: writer{root: v.root, opts: opts}, swept: map[string]*sync.Once{}}
	s.own = s.w.ownWrites()
	if batch {
		s.unsynced = map[string]bool{}
	}
	return s
}

func (s *session) isOwn(p string, cur []byte, info fs.FileInfo) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.own.is(p, cur, info)
}

func (s *session) remember(p string, data []byte, info fs.FileInfo, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.own.remember(p, data, info, now)
	s.changed = true
}

// sweep removes the temporary files killed writers left in dir, once per
// session, and returns only when that is done: no write into dir starts
// before. A sweep running beside a write would take that write's
// temporary file, which after the exchange holds the note replaced, with
// its old mtime, for a dead writer's and remove it.
func (s *session) sweep(dir string, sweep func()) {
	s.mu.Lock()
	once := s.swept[dir]
	if once == nil {
		once = new(sync.Once)
		s.swept[dir] = once
	}
	s.mu.Unlock()
	once.Do(sweep)
}

// syncDir makes a rename in dir durable: now, or for a batch at its end,
// once per folder however many notes it wrote there.
func (s *session) syncDir(dir string) {
	s.mu.Lock()
	if s.unsynced != nil {
		s.unsynced[dir] = true
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	atomicfile.SyncDir(s.w.root, dir)
}

// finish syncs the folders a batch wrote into and saves the own-writes
// record; it runs under the writer lock, after every write of the session.
func (s *session) finish() {
	dirs := slices.Sorted(maps.Keys(s.unsynced))
	for _, d := range dirs {
		atomicfile.SyncDir(s.w.root, d)
	}
	if s.changed {
		s.w.saveOwnWrites(s.own)
	}
}

// NoteEdit is one note's edit in EditNotes: EditNote's arguments, with the
// note's own Base (WriteOptions.Base).
type NoteEdit struct {
	Path string
	Edit func(src []byte) ([]byte, error)
	Base []byte
	// Ours is WriteOptions.Ours, for this note.
	Ours []byte
}

// EditResult is what EditNotes did with one note: what EditNote would have
// returned for it.
type EditResult struct {
	WriteResult
	Err error
}

// Written reports whether the note was written: it holds the edit's
// output, put there by zk.
func (r EditResult) Written() bool { return r.Err == nil && !r.Unchanged }

// ErrNotTried is the error of a note of EditNotes not tried because
// another note's write failed first.
var ErrNotTried = errors.New("not written: another note's write failed first")

// DefaultBatchWorkers is how many notes EditNotes writes at once by
// default. The writes wait on fsyncs far more than on the CPU, and a file
// system commits concurrent fsyncs together; docs/performance.md ("zk mv")
// has the measurements.
const DefaultBatchWorkers = 8

// BatchOptions tune EditNotes.
type BatchOptions struct {
	// WriteOptions apply to every note, but for Base: each NoteEdit has
	// its own.
	WriteOptions
	// Workers is how many notes are written at once; 0 means
	// DefaultBatchWorkers, and 1 writes them one after the other, in
	// order, in the caller's goroutine.
	Workers int
	// After, when set, runs after each note written or left unchanged,
	// with how many have been so far. No note of the batch starts while
	// it runs, and at most Workers-1 others finish: a test stops the
	// process there to leave a batch half done. With Workers 1 it runs
	// in the caller's goroutine.
	After func(n int)
}

// EditNotes applies each edit as EditNote would, with every guarantee of
// EditNote for each note (an atomic write, the previous version kept, a
// concurrent edit detected, the note read back), but under one hold of
// the writer lock, with the own-writes record read and saved once, each
// folder swept once, opts.Workers notes written at once, and each folder a
// note was renamed into fsynced once, before EditNotes returns: a crash
// before then leaves every note whole, old or new, and may lose the most
// recent of them; a caller that needs all or nothing keeps a journal (as
// zk mv does).
//
// The first failure stops the batch: no note starts after it, the notes
// under way finish, and those never started get ErrNotTried. The returned
// error is the failure of the first such note in edits' order, or nil; the
// results, one per edit, say which notes were written. Edits of notes that
// are one file (a symlink and its target) are applied one after the other,
// in edits' order.
//
// ctx ending stops the batch as a failure does, between notes: no note
// starts after it, the notes under way finish (each is whole, old or new,
// and leaves no temporary file), and the error is ctx's when no note
// failed. A note is never abandoned halfway: its write is a few system
// calls, and one cut short would leave its temporary file behind.
func (v *Vault) EditNotes(ctx context.Context, edits []NoteEdit, opts BatchOptions) ([]EditResult, error) {
	wo := opts.WriteOptions.withDefaults()
	wo.Base, wo.Ours = nil, nil
	workers := opts.Workers
	if workers <= 0 {
		workers = DefaultBatchWorkers
	}
	results := make([]EditResult, len(edits))
	for i := range results {
		results[i].Err = ErrNotTried
	}
	// Resolve every note first: one that cannot be written stops the
	// batch before anything is.
	targets := make([]string, len(edits))
	groups := map[string]int{}
	var tasks [][]int
	for i, e := range edits {
		t, err := v.resolveNote(e.Path)
		if err != nil {
			results[i].Err = fmt.Errorf("write %s: %w", e.Path, err)
			return results, results[i].Err
		}
		targets[i] = t
		if g, ok := groups[t]; ok {
			tasks[g] = append(tasks[g], i)
			continue
		}
		groups[t] = len(tasks)
		tasks = append(tasks, []int{i})
	}
	if len(edits) == 0 {
		return results, nil
	}
	unlock, err := lockWrites(v.root, wo.LockTimeout)
	if err != nil {
		for i, e := range edits {
			results[i].Err = fmt.Errorf("write %s: %w", e.Path, err)
		}
		return results, results[0].Err
	}
	defer unlock()
	s := v.newSession(wo, true)
	defer s.finish()

	var (
		mu     sync.Mutex
		next   int // the next task to start
		done   int
		failed bool
	)
	// take hands out the next task, or none once one failed or ctx ended.
	take := func() []int {
		mu.Lock()
		defer mu.Unlock()
		if failed || next == len(tasks) || ctx.Err() != nil {
			return nil
		}
		next++
		return tasks[next-1]
	}
	run := func() {
		for task := take(); task != nil; task = take() {
			for _, i := range task {
				o := wo
				o.Base, o.Ours = edits[i].Base, edits[i].Ours
				res, err := v.editLocked(s, edits[i].Path, targets[i], edits[i].Edit, o)
				mu.Lock()
				results[i] = EditResult{WriteResult: res, Err: err}
				if err != nil {
					failed = true
					mu.Unlock()
					break
				}
				done++
				if opts.After != nil {
					// Under mu: no task starts while it runs.
					opts.After(done)
				}
				stop := failed || ctx.Err() != nil
				mu.Unlock()
				if stop {
					break
				}
			}
		}
	}
	if workers == 1 || len(tasks) == 1 {
		run()
	} else {
		var wg sync.WaitGroup
		for range min(workers, len(tasks)) {
			wg.Go(run)
		}
		wg.Wait()
	}
	for _, r := range results {
		if r.Err != nil && !errors.Is(r.Err, ErrNotTried) {
			return results, r.Err
		}
	}
	for _, r := range results {
		if errors.Is(r.Err, ErrNotTried) {
			return results, ctx.Err() // only ctx leaves a note untried without a failure
		}
	}
	return results, nil
}
