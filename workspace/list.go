package workspace

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zk-claims/zk/checkcache"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/query"
)

// ListRequest is zk list's filters, as the user writes them. Errors name
// a filter by its field in the front end's terms (Options.Term): type,
// folder, where, fields, verdict, due_within, limit, transitive, links_to,
// linked_from.
type ListRequest struct {
	Types, Folders, Tags, Where, Verdicts, Fields []string
	// LinksTo and LinkedFrom are note arguments (path or name).
	LinksTo, LinkedFrom, DueWithin, Sort          string
	Transitive, Orphans, DeadEnds, Stale, Reverse bool
	Limit                                         int
	// NoCache reads every note, ignoring and not writing the cache.
	NoCache bool
}

// Verdicts are the verdicts a list's verdict filter takes.
var Verdicts = []string{string(evidence.VerdictSupports), string(evidence.VerdictRefutes), string(evidence.VerdictInconclusive),
	string(evidence.VerdictError), string(evidence.VerdictAttached), string(evidence.VerdictNone), query.NeverRun}

// ParseList checks a list request and makes its query, with its note
// arguments still to find (List finds them). It needs no vault: a front
// end calls it before opening one, to refuse a bad request first. Its
// errors are UsageErrors naming the field in term's words (nil: the
// field's own name).
func ParseList(req ListRequest, term func(string) string) (query.Query, error) {
	if term == nil {
		term = func(s string) string { return s }
	}
	q := query.Query{Types: req.Types, Folders: req.Folders, Tags: req.Tags, Transitive: req.Transitive,
		Orphans: req.Orphans, DeadEnds: req.DeadEnds, Stale: req.Stale, Sort: req.Sort, Reverse: req.Reverse, Limit: req.Limit}
	if q.Sort == "" {
		q.Sort = "path"
	}
	for _, w := range req.Where {
		c, err := query.ParseCond(w)
		if err != nil {
			return q, usage(fmt.Errorf("list: %s: %w", term("where"), err))
		}
		q.Where = append(q.Where, c)
	}
	for _, f := range req.Fields {
		if err := query.CheckField(f); err != nil {
			return q, usage(fmt.Errorf("list: %s: %w", term("fields"), err))
		}
	}
	for _, v := range req.Verdicts {
		if !slices.Contains(Verdicts, strings.ToLower(v)) {
			return q, usage(fmt.Errorf("list: %s: unknown verdict %q (want %s)", term("verdict"), v, orList(Verdicts)))
		}
		q.Verdicts = append(q.Verdicts, strings.ToLower(v))
	}
	if req.DueWithin != "" {
		iv, err := vault.ParseInterval(req.DueWithin)
		if err != nil {
			return q, usage(fmt.Errorf("list: %s: %w", term("due_within"), err))
		}
		q.DueWithin = iv
	}
	if req.Limit < 0 {
		return q, usage(fmt.Errorf("list: %s %d: want 0 (all) or more", term("limit"), req.Limit))
	}
	if req.Transitive && req.LinksTo == "" && req.LinkedFrom == "" {
		return q, usage(fmt.Errorf("list: %s needs %s or %s", term("transitive"), term("links_to"), term("linked_from")))
	}
	return q, nil
}

// orList is "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// List is the notes that pass every filter of req, sorted and limited.
func (w *Workspace) List(ctx context.Context, req ListRequest) (query.Result, error) {
	q, err := ParseList(req, w.term)
	if err != nil {
		return query.Result{}, err
	}
	if err := w.checkTypes(q.Types); err != nil {
		return query.Result{}, err
	}
	v := w.Vault
	files, _, err := v.Files(ctx)
	if err != nil {
		return query.Result{}, err
	}
	for _, arg := range []struct {
		field, note string
		into        *string
	}{{"links_to", req.LinksTo, &q.LinksTo}, {"linked_from", req.LinkedFrom, &q.LinkedFrom}} {
		if arg.note == "" {
			continue
		}
		p, err := FindNote(v, files, arg.note)
		if err != nil {
			return query.Result{}, fmt.Errorf("list: %s: %w", w.field(arg.field), err)
		}
		*arg.into = p
	}
	for _, dir := range q.Folders {
		if !folderExists(v, files, dir) {
			return query.Result{}, usage(fmt.Errorf("list: %s: no folder %q in the vault", w.field("folder"), dir))
		}
	}
	q.Today = w.Today
	opts := w.recordOptions(query.FieldNeeds(req.Fields)|query.SortNeeds(q.Sort), !req.NoCache)
	var res query.Result
	if req.NoCache {
		res, err = query.Select(ctx, v, files, q, opts)
	} else {
		var notes []query.Note
		if notes, err = w.listRecords(ctx, files, opts); err == nil {
			res, err = q.Filter(notes)
		}
	}
	if _, ok := errors.AsType[*query.KindError](err); ok {
		err = usage(fmt.Errorf("list: %s: %w", w.field("where"), err))
	}
	return res, err
}

// checkTypes refuses a type filter that names no type of the vault's
// config (nor "none"), which would otherwise match nothing.
func (w *Workspace) checkTypes(types []string) error {
	names := []string{}
	for _, t := range w.Types {
		names = append(names, t.Name)
	}
	for _, t := range types {
		if !strings.EqualFold(t, "none") && !slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, t) }) {
			return usage(fmt.Errorf("list: %s: unknown type %q (want %s)", w.field("type"), t, orList(append(names, "none"))))
		}
	}
	return nil
}

// folderExists reports whether a folder filter names a folder of the
// vault: one holding a file zk reads (case ignored, as the filter
// matches), or an existing folder that holds none.
func folderExists(v *vault.Vault, files []vault.File, dir string) bool {
	for _, f := range files {
		if query.InFolder(f.Path, dir) {
			return true
		}
	}
	clean := path.Clean(strings.Trim(filepath.ToSlash(dir), "/"))
	if clean == "." {
		return true
	}
	st, err := v.Root().Stat(clean)
	return err == nil && st.IsDir()
}

// recordOptions are the options a note's record is read under: the
// workspace's types, tended keys and interval, templates left out (a
// template is not a note of its type), and what the query needs. With
// cached, or when the verdicts are needed, the run ledger, whose numbers
// tie runs recorded before falsifier ids, as zk check ties them: every
// record cached is read with it, whoever reads it.
func (w *Workspace) recordOptions(need query.Need, cached bool) query.Options {
	templates := w.SkipTemplates(nil)
	opts := query.Options{
		Skip:       func(p string) bool { return !templates(p) },
		Types:      w.Types,
		TendedKeys: w.Config.TendedKeys,
		Interval:   w.Config.Interval(),
		Need:       need,
	}
	if need&query.NeedVerdicts != 0 || cached {
		ledger, _ := ReadLedger(w.Vault)
		opts.Ledger = evidence.ReadLedger(ledger)
	}
	return opts
}

// listRecords is every note's query record (query.ReadAll), through
// the per-note cache (cachedNotes) in a file of its own.
func (w *Workspace) listRecords(ctx context.Context, files []vault.File, opts query.Options) ([]query.Note, error) {
	return cachedNotes(w, ctx, files, perNote[query.Note]{
		folder: "list", purpose: "zk list records v1", inputs: listInputs,
		read: func(reuse func(string) (query.Note, bool), hashed func(string, []byte)) ([]query.Note, error) {
			return query.ReadAll(ctx, w.Vault, files, opts, reuse, hashed)
		},
		encode: query.Encode,
		decode: query.Decode,
		path:   func(n query.Note) string { return n.Path },
	})
}

// perNote says how to cache one thing zk keeps of every note (a list
// record, a note's details): the cache's folder, its key's purpose and
// inputs, how to read the notes (reusing what reuse gives, telling hashed
// each note's source) and how to encode what they give.
type perNote[T any] struct {
	folder, purpose string
	inputs          Inputs
	read            func(reuse func(string) (T, bool), hashed func(string, []byte)) ([]T, error)
	encode          func([]T) ([]byte, error)
	decode          func([]byte) ([]T, error)
	path            func(T) string
}

// cachedNotes is what c reads of every note, through a cache kept as zk
// check keeps its own (checkcache: the same stamps, a key of c's inputs;
// a file of its own beside check's). Unlike check's, it is reused note by
// note: when the vault holds the same files as when it was written, a
// note whose stamp still holds (or whose bytes hash the same) keeps what
// was cached of it, and only the notes changed are read again. A file
// added, removed or renamed can change what any link resolves to, and so
// reads every note. A cache that cannot be read or written costs a full
// read, never the answer.
func cachedNotes[T any](w *Workspace, ctx context.Context, files []vault.File, c perNote[T]) ([]T, error) {
	v := w.Vault
	file, err := perNoteCacheFile(v.Dir, c.folder)
	if err != nil {
		return c.read(nil, nil)
	}
	key, err := w.inputKey(c.purpose, c.inputs)
	if err != nil {
		return nil, err
	}
	started := time.Now() // before the read: the stamps are the walk's
	var (
		mu     sync.Mutex
		parsed int
	)
	hashes := map[string][sha256.Size]byte{}
	reuse, changed := cachedEntries(file, key, files, func(p string) ([]byte, error) { return v.ReadFile(p, v.MaxNoteSize) }, hashes, c)
	notes, err := c.read(reuse, func(p string, src []byte) {
		h := checkcache.Hash(src)
		mu.Lock()
		hashes[p] = h
		parsed++
		mu.Unlock()
	})
	if err != nil {
		return nil, err
	}
	if !changed && parsed == 0 {
		return notes, nil // every entry and stamp as cached
	}
	if b, err := c.encode(notes); err == nil {
		stamps := checkcache.Stamps(files, func(p string) ([sha256.Size]byte, bool) {
			h, ok := hashes[p]
			return h, ok
		})
		e := checkcache.Entry{Key: key, Written: started.UnixNano(), Stamps: stamps, Result: b}
		if err := checkcache.Save(file, e); err != nil {
			w.warn("%v", err)
		}
	}
	return notes, nil
}

// cachedEntries reads the cache entry and returns what is still good of
// it (nil when nothing is: no entry, another key, another set of files)
// and whether any stamp needs writing again; hashes gets the hash of
// every note whose entry is reused.
func cachedEntries[T any](file string, key checkcache.Key, files []vault.File, read func(string) ([]byte, error),
	hashes map[string][sha256.Size]byte, c perNote[T]) (reuse func(string) (T, bool), changed bool) {
	e, err := checkcache.Read(file)
	if err != nil || e.Key != key || len(e.Stamps) != len(files) {
		return nil, true
	}
	for i, f := range files { // both sorted by path
		if e.Stamps[i].Path != f.Path {
			return nil, true
		}
	}
	old, err := c.decode(e.Result)
	if err != nil {
		return nil, true
	}
	entries := make(map[string]T, len(old))
	for _, n := range old {
		entries[c.path(n)] = n
	}
	good := make(map[string]bool, len(files))
	for i, f := range files {
		st := e.Stamps[i]
		if _, ok := entries[f.Path]; !ok || st.Hash == ([sha256.Size]byte{}) {
			continue
		}
		switch {
		case e.Settled(st, f):
		case st.Size != f.Size:
			changed = true
			continue
		default: // touched, or too recent to trust its time: its bytes decide
			changed = true
			src, err := read(f.Path)
			if err != nil || checkcache.Hash(src) != st.Hash {
				continue
			}
		}
		good[f.Path] = true
		hashes[f.Path] = st.Hash
	}
	return func(p string) (T, bool) {
		if !good[p] {
			var zero T
			return zero, false
		}
		return entries[p], true
	}, changed
}

// perNoteCacheFile is a per-note cache of the vault at dir: beside
// check's, in folder.
func perNoteCacheFile(dir, folder string) (string, error) {
	f, err := checkcache.File(dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(filepath.Dir(f)), folder, filepath.Base(f)), nil
}
