package index

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/zk-claims/zk/vault"
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
	// Built is set when the index was built from scratch; Rebuilt then
	// says why an index that was there was not used ("" for a first build).
	Built   bool
	Rebuilt string
}

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
	s, err := openStore(dir, v.Dir)
	if err != nil {
		return Stats{}, err
	}
	fl, err := s.lock(ctx, opts.Wait)
	if err != nil {
		return Stats{Dir: s.dir}, err
	}
	defer fl.Unlock()
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

// readMeta checks an open generation's schema stamp and reads its
// manifest.
func readMeta(dir string, idx bleve.Index) (*manifest, error) {
	var schema, raw []byte
	err := guard(dir, func() error {
		var err error
		if schema, err = idx.GetInternal(schemaKey); err != nil {
			return err
		}
		raw, err = idx.GetInternal(manifestKey)
		return err
	})
	if err != nil {
		return nil, &DamagedError{Dir: dir, Err: err}
	}
	if string(schema) != fmt.Sprint(Schema) {
		return nil, &DamagedError{Dir: dir, Err: fmt.Errorf("schema stamp %q, want %d", schema, Schema)}
	}
	m, err := decodeManifest(raw)
	if err != nil {
		return nil, &DamagedError{Dir: dir, Err: err}
	}
	return m, nil
}

func (s *store) incremental(ctx context.Context, v *vault.Vault, opts Options, gen string) (Stats, error) {
	dir := s.path(gen)
	st := Stats{Dir: s.dir}
	if err := verifySegments(dir, true); err != nil {
		return st, err
	}
	idx, err := openGen(dir, false, opts.Wait)
	if err != nil {
		return st, err
	}
	st, err = s.apply(ctx, v, opts, dir, idx)
	if cerr := guard(dir, idx.Close); err == nil && cerr != nil {
		err = &DamagedError{Dir: dir, Err: cerr}
	}
	if err == nil {
		err = verifySegments(dir, true)
	}
	return st, err
}

// apply brings an open generation up to date with the vault.
func (s *store) apply(ctx context.Context, v *vault.Vault, opts Options, dir string, idx bleve.Index) (Stats, error) {
	st := Stats{Dir: s.dir}
	m, err := readMeta(dir, idx)
	if err != nil {
		return st, err
	}
	files, _, err := v.Files(ctx)
	if err != nil {
		return st, err
	}
	noteFiles := notes(files)
	d := m.compare(noteFiles)
	if d.empty() {
		st.Notes, st.Skipped = countEntries(m)
		return st, nil
	}
	jobs := make([]job, 0, d.count())
	for _, files := range [][]vault.File{d.added, d.suspect, d.racy} {
		for _, f := range files {
			jobs = append(jobs, job{file: f})
		}
	}
	// A note added or removed can change what other notes' links resolve
	// to; the notes linking to that name are indexed again.
	relink, err := linkingTo(dir, idx, append(pathsOf(d.added), d.deleted...))
	if err != nil {
		return st, err
	}
	queued := map[string]bool{}
	for _, j := range jobs {
		queued[j.file.Path] = true
	}
	for _, f := range noteFiles {
		if relink[f.Path] && !queued[f.Path] {
			jobs = append(jobs, job{file: f, force: true})
		}
	}
	return s.index(ctx, v, opts, dir, idx, m, jobs, d.deleted, resolverOf(files))
}

// build indexes every note into a new generation and publishes it.
func (s *store) build(ctx context.Context, v *vault.Vault, opts Options) (Stats, error) {
	st := Stats{Dir: s.dir}
	gen := s.newGen()
	dir := s.path(gen)
	im, err := newMapping()
	if err != nil {
		return st, err
	}
	var idx bleve.Index
	err = guard(dir, func() error {
		var err error
		idx, err = bleve.NewUsing(dir, im, bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, nil)
		return err
	})
	if err != nil {
		return st, fmt.Errorf("create index: %w", err)
	}
	files, _, err := v.Files(ctx)
	if err == nil {
		err = guard(dir, func() error { return idx.SetInternal(schemaKey, fmt.Append(nil, Schema)) })
	}
	if err == nil {
		noteFiles := notes(files)
		jobs := make([]job, len(noteFiles))
		for i, f := range noteFiles {
			jobs[i] = job{file: f}
		}
		st, err = s.index(ctx, v, opts, dir, idx, &manifest{}, jobs, nil, resolverOf(files))
	}
	if cerr := guard(dir, idx.Close); err == nil {
		err = cerr
	}
	if err == nil {
		err = verifySegments(dir, true)
	}
	if err == nil {
		err = s.publish(gen)
	}
	if err != nil {
		s.removeGen(gen)
		return st, err
	}
	s.sweep(gen)
	return st, nil
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

// index reads and parses the jobs on every core, feeds bleve in batches
// cut by bytes, and writes the new manifest with the last batch.
func (s *store) index(ctx context.Context, v *vault.Vault, opts Options, dir string, idx bleve.Index,
	prev *manifest, jobs []job, deleted []string, r *vault.Resolver) (Stats, error) {
	st := Stats{Dir: s.dir}
	limit := opts.BatchBytes
	if limit <= 0 {
		limit = DefaultBatchBytes
	}
	entries := map[string]entry{}
	for _, e := range prev.Entries {
		entries[e.Path] = e
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make(chan parsed)
	var wg sync.WaitGroup
	next := make(chan job)
	for range min(runtime.GOMAXPROCS(0), max(1, len(jobs))) {
		wg.Go(func() {
			p := vault.NewParser()
			for j := range next {
				n, why := v.LoadNote(p, j.file)
				res := parsed{job: j, note: n, why: why}
				if n != nil {
					res.hash = contentHash(n.Src)
				}
				select {
				case results <- res:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() {
		defer close(next)
		for _, j := range jobs {
			select {
			case next <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()

	total := len(jobs) + len(deleted)
	done := 0
	progress := func() {
		done++
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}
	b := idx.NewBatch()
	size := 0
	flush := func() error {
		if b.Size() == 0 {
			return nil
		}
		err := guard(dir, func() error { return idx.Batch(b) })
		b.Reset()
		size = 0
		return err
	}
	for _, p := range deleted {
		b.Delete(p)
		delete(entries, p)
		st.Deleted++
		progress()
	}
	for res := range results {
		path := res.file.Path
		old, had := entries[path]
		e := entry{Path: path, Size: res.file.Size, ModTime: res.file.ModTime.UnixNano(), Hash: res.hash}
		switch {
		case res.note == nil:
			e.Skipped = true
			st.Skipped = append(st.Skipped, vault.Skip{Path: path, Reason: res.why})
			if had && !old.Skipped {
				b.Delete(path)
				st.Deleted++
			}
		case had && !old.Skipped && old.Hash == res.hash && !res.force:
			// touched, not changed: only the manifest learns the new mtime
		default:
			d := newDoc(res.note, r)
			if err := b.Index(path, d); err != nil {
				return st, fmt.Errorf("index %s: %w", path, err)
			}
			size += len(res.note.Src)
			if had && !old.Skipped {
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
		return st, err
	}
	m := &manifest{Written: time.Now().UnixNano(), Entries: make([]entry, 0, len(entries))}
	for _, e := range entries {
		m.Entries = append(m.Entries, e)
	}
	slices.SortFunc(m.Entries, func(a, b entry) int { return strings.Compare(a.Path, b.Path) })
	b.SetInternal(manifestKey, m.encode())
	if err := flush(); err != nil {
		return st, err
	}
	st.Notes, _ = countEntries(m)
	slices.SortFunc(st.Skipped, func(a, b vault.Skip) int { return strings.Compare(a.Path, b.Path) })
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

// linkingTo finds the indexed notes whose links name any of paths.
func linkingTo(dir string, idx bleve.Index, paths []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(paths) == 0 {
		return out, nil
	}
	var qs []query.Query
	for _, p := range paths {
		tq := query.NewTermQuery(strings.ToLower(strings.TrimSuffix(path.Base(p), ".md")))
		tq.SetField(FieldLinks)
		qs = append(qs, tq)
	}
	req := bleve.NewSearchRequestOptions(query.NewDisjunctionQuery(qs), 1<<20, 0, false)
	var res *bleve.SearchResult
	err := guard(dir, func() error {
		var err error
		res, err = idx.Search(req)
		return err
	})
	if err != nil {
		return nil, &DamagedError{Dir: dir, Err: err}
	}
	for _, h := range res.Hits {
		out[h.ID] = true
	}
	return out, nil
}

func pathsOf(files []vault.File) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

// resolverOf builds a resolver over a vault's file list.
func resolverOf(files []vault.File) *vault.Resolver {
	return vault.NewResolver(pathsOf(files))
}
