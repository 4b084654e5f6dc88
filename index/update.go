package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/tending"
)

// Options say where a vault's index is and how long to wait for it.
type Options struct {
	// Dir is the index folder; "" means DefaultDir of the vault.
	Dir string
	// Wait bounds how long to wait for another zk that holds the index.
	Wait time.Duration
	// Progress, if set, is called as notes are indexed: done of total.
	Progress func(done, total int)
	// BatchBytes is how much note text goes into one bleve batch (0 means
	// DefaultBatchBytes). bleve's memory follows the text per batch, not
	// the number of documents, so batches are cut by bytes.
	BatchBytes int
	// Tended reads a note's Last tended date for the tended field; nil
	// means tending.LastTended with the default keys.
	Tended func(*vault.Note) (tending.Tended, bool)
	// TendedKey names how Tended reads dates (the config's date keys and
	// the types' sections), "" for the defaults. An index built under
	// another key is rebuilt: any note's tended field may differ.
	TendedKey string
	// Languages maps doublestar globs of vault paths to the language of
	// the notes there ("fr/**" = "fr"), for notes whose frontmatter names
	// none; a note no glob matches has its language detected. An index
	// built under another map is rebuilt.
	Languages map[string]string
}

// DefaultBatchBytes keeps a batch's in-memory segment near 100 MB
// (bleve needs 50–90× the batch's text).
const DefaultBatchBytes = 1 << 20

// DefaultWait is how long zk waits for another zk holding the index.
const DefaultWait = 10 * time.Second

// Stats say what an update did.
type Stats struct {
	// Dir is the index folder.
	Dir string
	// Notes is how many notes the index holds afterwards.
	Notes int
	// Added, Changed and Deleted count notes (re)indexed or removed; a
	// rename is one deleted and one added.
	Added, Changed, Deleted int
	// Skipped are notes left out: not text, too large, unreadable.
	Skipped []vault.Skip
	// Cut are the notes indexed this time that hold words longer than
	// the index keeps whole (MaxWordBytes), sorted by path.
	Cut []Cut
	// Long are the notes indexed this time with a field of more than
	// MaxFieldWords words, sorted: past those, each word is indexed only
	// the first time it comes, and past MaxFieldTerms not at all.
	Long []string
	// Built is set when the index was built from scratch; Rebuilt then
	// says why an index that was there was not used ("" for a first build).
	Built   bool
	Rebuilt string
}

// Cut is a note with words longer than MaxWordBytes: each is indexed by
// its first MaxWordBytes bytes, and a query for the whole word finds it.
type Cut struct {
	Path  string
	Words int
}

// MaxWordBytes is the longest word the index keeps whole.
const MaxWordBytes = maxTokenBytes

// MaxFieldWords is how many words of a note's field are indexed where
// they stand, and MaxFieldTerms how many are indexed in all.
const (
	MaxFieldWords = maxFieldWords
	MaxFieldTerms = maxFieldTerms
)

func (o Options) dir(v *vault.Vault) (string, error) {
	if o.Dir != "" {
		return o.Dir, nil
	}
	return DefaultDir(v.Dir)
}

// Update brings the vault's index up to date: only notes whose size,
// mtime or content changed are read again. With rebuild, or when the index
// is missing, foreign, of another schema or damaged, it is built from
// scratch into a new folder that replaces the old one atomically, so a
// search never sees half an index.
func Update(ctx context.Context, v *vault.Vault, opts Options, rebuild bool) (Stats, error) {
	dir, err := opts.dir(v)
	if err != nil {
		return Stats{}, err
	}
	s, err := openStore(dir, v.Dir, rebuild)
	if err != nil {
		return Stats{}, err
	}
	s.tended, s.langs = opts.TendedKey, newLangFolders(opts.Languages).key()
	unlock, err := s.lock(ctx, opts.Wait)
	if err != nil {
		return Stats{Dir: s.dir}, err
	}
	defer unlock()
	why := ""
	if rebuild {
		why = "--rebuild"
	}
	return s.update(ctx, v, opts, why)
}

// update runs with the writer lock held.
func (s *store) update(ctx context.Context, v *vault.Vault, opts Options, why string) (Stats, error) {
	gen, stale := s.current()
	if why == "" {
		why = stale
	}
	if why == "" && gen != "" {
		st, err := s.incremental(ctx, v, opts, gen)
		var de *DamagedError
		if !errors.As(err, &de) {
			if err == nil {
				// A build that was killed or interrupted left its
				// generation: builds hold this lock, so no generation
				// but the live one is being written, and until the next
				// build nothing else would remove it (12 interrupted
				// rebuilds of the help vault left four, 29 MB).
				s.sweep(gen)
			}
			return st, err
		}
		return s.rebuild(ctx, v, opts, de)
	}
	st, err := s.build(ctx, v, opts)
	st.Built, st.Rebuilt = true, why
	return st, err
}

// rebuild moves a damaged generation aside and builds a new one.
func (s *store) rebuild(ctx context.Context, v *vault.Vault, opts Options, de *DamagedError) (Stats, error) {
	if err := s.moveAside(filepath.Base(de.Dir)); err != nil {
		return Stats{Dir: s.dir}, err
	}
	st, err := s.build(ctx, v, opts)
	st.Built, st.Rebuilt = true, de.Error()
	return st, err
}

func (s *store) incremental(ctx context.Context, v *vault.Vault, opts Options, gen string) (Stats, error) {
	g, err := openGeneration(s.path(gen), false, opts.Wait)
	if errors.Is(err, fs.ErrNotExist) { // with the lock held: CURRENT names nothing
		err = &DamagedError{Dir: s.path(gen), Err: err}
	}
	if err != nil {
		return Stats{Dir: s.dir}, err
	}
	st, err := s.apply(ctx, v, opts, g)
	if cerr := g.close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = verifySegments(g.dir, true, opts.Wait) // the segments this update wrote
	}
	return st, err
}

// apply brings an open generation up to date with the vault.
func (s *store) apply(ctx context.Context, v *vault.Vault, opts Options, g *generation) (Stats, error) {
	st := Stats{Dir: s.dir}
	m, err := g.meta()
	if err != nil {
		return st, err
	}
	walked := time.Now()
	files, folders, skips, err := v.FilesAndFolders(ctx)
	if err != nil {
		return st, err
	}
	noteFiles := notes(files)
	d := m.compare(noteFiles)
	if d.empty() {
		st.Notes, st.Skipped = countEntries(m)
		st.Skipped = withWalkSkips(st.Skipped, skips)
		// No note changed, but a folder may have (an attachment added)
		// or be too recent to trust: the record is written again, or
		// every search would read those folders again.
		rec := newFolderRecord(walked, st.Notes, folders)
		if old, err := g.folderRecord(); err != nil || !old.sameFolders(rec) || old.hasRacy() {
			b := g.idx.NewBatch()
			b.SetInternal(foldersKey, rec.encode())
			if err := g.batch(b); err != nil {
				return st, err
			}
		}
		return st, nil
	}
	p := plan{prev: m, deleted: d.deleted, resolver: vault.ResolverOf(files), folders: newFolderRecord(walked, 0, folders)}
	queued := map[string]bool{}
	for _, fs := range [][]vault.File{d.added, d.suspect, d.racy} {
		for _, f := range fs {
			p.jobs = append(p.jobs, job{file: f})
			queued[f.Path] = true
		}
	}
	// A note added or removed can change what other notes' links resolve
	// to; the notes linking to that name are indexed again.
	relink, err := g.linkingTo(append(pathsOf(d.added), d.deleted...))
	if err != nil {
		return st, err
	}
	for _, f := range noteFiles {
		if relink[f.Path] && !queued[f.Path] {
			p.jobs = append(p.jobs, job{file: f, force: true})
		}
	}
	st, err = s.index(ctx, v, opts, g, p)
	st.Skipped = withWalkSkips(st.Skipped, skips)
	return st, err
}

// withWalkSkips adds to an update's skipped notes the ones the walk of
// the vault left out: a note's name on a pipe or device, a folder zk may
// not read. They are not in the manifest: the next walk finds them again.
func withWalkSkips(skipped, walk []vault.Skip) []vault.Skip {
	for _, sk := range walk {
		if sk.Folder || isNotePath(sk.Path) {
			skipped = append(skipped, sk)
		}
	}
	slices.SortFunc(skipped, func(a, b vault.Skip) int { return strings.Compare(a.Path, b.Path) })
	return skipped
}

func isNotePath(p string) bool { return vault.File{Path: p}.IsNote() }

// build indexes every note into a new generation and publishes it.
func (s *store) build(ctx context.Context, v *vault.Vault, opts Options) (Stats, error) {
	st := Stats{Dir: s.dir}
	name := s.newGen()
	g, err := createGeneration(s.path(name))
	if err != nil {
		return st, err
	}
	walked := time.Now()
	files, folders, skips, err := v.FilesAndFolders(ctx)
	if err == nil {
		p := plan{prev: &manifest{}, resolver: vault.ResolverOf(files), folders: newFolderRecord(walked, 0, folders)}
		for _, f := range notes(files) {
			p.jobs = append(p.jobs, job{file: f})
		}
		st, err = s.index(ctx, v, opts, g, p)
		st.Skipped = withWalkSkips(st.Skipped, skips)
	}
	if cerr := g.close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = verifySegments(g.dir, true, opts.Wait)
	}
	if err == nil {
		err = s.publish(name)
	}
	if err != nil {
		s.removeGen(name)
		return st, err
	}
	s.sweep(name)
	return st, nil
}

// plan is the work of one update: the notes to read and (re)index, the
// notes to delete, and the manifest it starts from.
type plan struct {
	prev     *manifest
	jobs     []job
	deleted  []string
	resolver *vault.Resolver
	// folders is the record of the walk, written with the manifest.
	folders *folderRecord
}

// job is one note to read and index; force indexes it even when its
// bytes did not change (its links may resolve elsewhere now).
type job struct {
	file  vault.File
	force bool
}

// parsed is a job's outcome.
type parsed struct {
	job
	note *vault.Note
	why  string
	hash [16]byte
}

// parse reads, parses and hashes the jobs' notes on every core, one
// parser per worker, until the jobs run out or ctx is done.
func parse(ctx context.Context, v *vault.Vault, jobs []job) <-chan parsed {
	results := make(chan parsed)
	files := make([]vault.File, len(jobs))
	for i, j := range jobs {
		files[i] = j.file
	}
	send := func(res parsed) bool {
		select {
		case results <- res:
			return true
		case <-ctx.Done():
			return false
		}
	}
	go func() {
		defer close(results)
		// The vault's one streaming reader and its workers, as zk check
		// reads the vault; the unbuffered channel keeps one parsed note
		// per worker in memory at most.
		reasons := v.Each(ctx, files, func(i int, n *vault.Note) {
			send(parsed{job: jobs[i], note: n, hash: contentHash(n.Src)})
		})
		for i, why := range reasons {
			if why != "" && !send(parsed{job: jobs[i], why: why}) {
				return
			}
		}
	}()
	return results
}

// index carries out a plan: it feeds bleve the parsed notes in batches
// cut by bytes, and writes the new manifest with the last batch, so the
// manifest never describes documents that are not there.
func (s *store) index(ctx context.Context, v *vault.Vault, opts Options, g *generation, p plan) (Stats, error) {
	st := Stats{Dir: s.dir}
	limit := opts.BatchBytes
	if limit <= 0 {
		limit = DefaultBatchBytes
	}
	entries := map[string]entry{}
	for _, e := range p.prev.Entries {
		entries[e.Path] = e
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the parsers if a batch fails
	results := parse(ctx, v, p.jobs)
	folders := newLangFolders(opts.Languages)

	total, done := len(p.jobs)+len(p.deleted), 0
	progress := func() {
		done++
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}
	// Batches are applied by a goroutine of their own, in order, while
	// this one reads and maps the notes of the next: bleve's Batch
	// analyses on every core but builds the segment on one, and waits for
	// it to be written; in turn, the two cores were busy about half of a
	// build. The hand-over is unbuffered, so at most two batches are in
	// memory: the one applied and the one waiting.
	batches := make(chan *bleve.Batch)
	applied := make(chan error, 1)
	go func() {
		var err error
		for b := range batches {
			if err == nil {
				if err = g.batch(b); err != nil {
					cancel() // stops the parsers and the loop below
				}
			}
		}
		applied <- err
	}()
	// wait ends the hand-over and gives the applier's error, the same
	// one for any number of calls.
	var (
		stopped  bool
		applyErr error
	)
	wait := func() error {
		if !stopped {
			stopped = true
			close(batches)
			applyErr = <-applied
		}
		return applyErr
	}
	defer func() {
		if !stopped {
			wait()
		}
	}()
	b := g.idx.NewBatch()
	size := 0
	flush := func() error {
		if b.Size() == 0 {
			return nil
		}
		// Stopped, flush is an error even when no batch failed: the loop
		// went on after a signal, and its next flush sent on the closed
		// hand-over (a panic), or the last batch's wait took the
		// applier's answer a second time (forever).
		select {
		case batches <- b:
		case <-ctx.Done():
			if err := wait(); err != nil {
				return err
			}
			return ctx.Err()
		}
		// A new batch, not b.Reset(): scorch's Batch returns while a
		// goroutine of its own may still range over the batch's IndexOps,
		// and Reset writes that field (go test -race caught it).
		b = g.idx.NewBatch()
		size = 0
		return nil
	}
	for _, path := range p.deleted {
		b.Delete(path)
		delete(entries, path)
		st.Deleted++
		progress()
	}
	for res := range results {
		path := res.file.Path
		old, had := entries[path]
		had = had && !old.Skipped
		e := entryOf(res.file, res.hash)
		switch {
		case res.note == nil:
			e.Skipped = true
			st.Skipped = append(st.Skipped, vault.Skip{Path: path, Reason: res.why})
			if had {
				b.Delete(path)
				st.Deleted++
			}
		case had && old.Hash == res.hash && !res.force:
			// touched, not changed: only the manifest learns the new mtime
		default:
			d := newDoc(res.note, p.resolver, opts.Tended, folders)
			d.Hash = hashText(res.hash)
			if err := guard(g.dir, func() error { return b.Index(path, d.fields()) }); err != nil {
				return st, fmt.Errorf("index %s: %w", path, err)
			}
			size += len(res.note.Src)
			if n := d.longWords(); n > 0 {
				st.Cut = append(st.Cut, Cut{Path: path, Words: n})
			}
			if d.overWords() {
				st.Long = append(st.Long, path)
			}
			if had {
				st.Changed++
			} else {
				st.Added++
			}
		}
		entries[path] = e
		progress()
		if size >= limit {
			if err := flush(); err != nil {
				return st, err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		if aerr := wait(); aerr != nil {
			return st, aerr // the batch that failed, not the cancel it caused
		}
		return st, err
	}
	m := &manifest{Written: time.Now().UnixNano(), Entries: make([]entry, 0, len(entries))}
	for _, e := range entries {
		m.Entries = append(m.Entries, e)
	}
	slices.SortFunc(m.Entries, func(a, b entry) int { return strings.Compare(a.Path, b.Path) })
	b.SetInternal(manifestKey, m.encode())
	p.folders.Notes, _ = countEntries(m)
	b.SetInternal(foldersKey, p.folders.encode())
	if err := flush(); err != nil {
		return st, err
	}
	if err := wait(); err != nil {
		return st, err
	}
	st.Notes, _ = countEntries(m)
	slices.SortFunc(st.Skipped, func(a, b vault.Skip) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(st.Cut, func(a, b Cut) int { return strings.Compare(a.Path, b.Path) })
	slices.Sort(st.Long)
	return st, nil
}

// countEntries counts indexed notes and lists skipped ones.
func countEntries(m *manifest) (int, []vault.Skip) {
	n := 0
	var skipped []vault.Skip
	for _, e := range m.Entries {
		if e.Skipped {
			skipped = append(skipped, vault.Skip{Path: e.Path, Reason: "not indexed (not text or too large)"})
		} else {
			n++
		}
	}
	return n, skipped
}

func pathsOf(files []vault.File) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}
