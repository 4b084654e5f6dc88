package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/zk-claims/zk/checkcache"
	"github.com/zk-claims/zk/config"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/query"
	"github.com/zk-claims/zk/workspace"
)

// listRecords is every note's query record (query.ReadAll), through a
// cache kept as zk check keeps its own (checkcache: the same stamps, the
// same key of zk's version, the config and the templates; a file of its
// own beside check's). Unlike check's, it is reused note by note: when the
// vault holds the same files as when it was written, a note whose stamp
// still holds (or whose bytes hash the same) keeps its record, and only
// the notes changed are read again. A file added, removed or renamed can
// change what any link resolves to, and so reads every note. A cache that
// cannot be read or written costs a full read, never the listing.
func listRecords(ctx context.Context, w *workspace.Workspace, files []vault.File, opts query.Options, s *streams) ([]query.Note, error) {
	v := w.Vault
	file, err := listCacheFile(v.Dir)
	if err != nil {
		return query.ReadAll(ctx, v, files, opts, nil, nil)
	}
	key, err := listKey(v, w.Config)
	if err != nil {
		return nil, err
	}
	started := time.Now() // before the read: the stamps are the walk's
	var (
		mu     sync.Mutex
		parsed int
	)
	hashes := map[string][sha256.Size]byte{}
	reuse, changed := cachedRecords(file, key, files, func(p string) ([]byte, error) { return v.ReadFile(p, v.MaxNoteSize) }, hashes)
	notes, err := query.ReadAll(ctx, v, files, opts, reuse, func(p string, src []byte) {
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
		return notes, nil // every record and stamp as cached
	}
	if b, err := query.Encode(notes); err == nil {
		stamps := checkcache.Stamps(files, func(p string) ([sha256.Size]byte, bool) {
			h, ok := hashes[p]
			return h, ok
		})
		e := checkcache.Entry{Key: key, Written: started.UnixNano(), Stamps: stamps, Result: b}
		if err := checkcache.Save(file, e); err != nil {
			fmt.Fprintf(s.err, "zk: warning: %v\n", err)
		}
	}
	return notes, nil
}

// cachedRecords reads the cache entry and returns the records still good
// (nil when none is: no entry, another key, another set of files) and
// whether any stamp needs writing again; hashes gets the hash of every
// note whose record is reused.
func cachedRecords(file string, key checkcache.Key, files []vault.File, read func(string) ([]byte, error),
	hashes map[string][sha256.Size]byte) (reuse func(string) (query.Note, bool), changed bool) {
	e, err := checkcache.Read(file)
	if err != nil || e.Key != key || len(e.Stamps) != len(files) {
		return nil, true
	}
	for i, f := range files { // both sorted by path
		if e.Stamps[i].Path != f.Path {
			return nil, true
		}
	}
	old, err := query.Decode(e.Result)
	if err != nil {
		return nil, true
	}
	records := make(map[string]query.Note, len(old))
	for _, n := range old {
		records[n.Path] = n
	}
	good := make(map[string]bool, len(files))
	for i, f := range files {
		st := e.Stamps[i]
		if _, ok := records[f.Path]; !ok || st.Hash == ([sha256.Size]byte{}) {
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
	return func(p string) (query.Note, bool) {
		if !good[p] {
			return query.Note{}, false
		}
		return records[p], true
	}, changed
}

// listKey is everything the records depend on besides the notes: zk's
// version, the config (note types, tended keys, intervals, the templates
// folder) and each type's template. Today is left out, as the records
// hold dates that a query compares with today when it runs; so is the
// run ledger, which zk check's key holds and no record depends on.
func listKey(v *vault.Vault, cfg *config.Config) (checkcache.Key, error) {
	parts := [][]byte{[]byte("zk list records v1"), []byte(buildVersion()), []byte(buildStamp())}
	if raw, err := config.Read(v.Root()); err == nil {
		parts = append(parts, raw)
	}
	for _, name := range cfg.TypeNames() {
		tmpl, _, err := cfg.Template(name, func(p string) ([]byte, error) { return v.ReadFile(p, v.MaxNoteSize) })
		if err != nil {
			return checkcache.Key{}, err
		}
		parts = append(parts, []byte(name), tmpl)
	}
	return checkcache.NewKey(parts...), nil
}

// listCacheFile is the list cache of the vault at dir: beside check's, in
// a folder of its own.
func listCacheFile(dir string) (string, error) {
	f, err := checkcache.File(dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(filepath.Dir(f)), "list", filepath.Base(f)), nil
}
