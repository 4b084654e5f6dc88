package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/zk-claims/zk/config"
	"github.com/zk-claims/zk/index"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/tending"
)

// SearchMaxUpdate is the most changed notes Search indexes itself before
// it answers; more, and it answers from the index as it is and says so
// (index.Result.Stale). At about 1 ms a note that keeps a search well
// under a second.
const SearchMaxUpdate = 200

// IndexOptions say where the search index is and how to wait for it.
type IndexOptions struct {
	// Dir is the index's folder as the user's environment names it
	// ($ZK_INDEX_DIR); "" takes index-dir from the config, else the user
	// cache folder.
	Dir string
	// Wait is how long to wait for another zk holding the index.
	Wait time.Duration
	// Progress, when set, is told of a build's progress.
	Progress func(done, total int)
}

// SearchRequest is zk search's: the query (bleve's query-string syntax),
// at most Limit notes (field "limit"), and NoUpdate to answer from the
// index as it is.
type SearchRequest struct {
	Query    string
	Limit    int
	NoUpdate bool
	Index    IndexOptions
	// EveryNote compares every note of the vault with the index however
	// many there are (within the search's budget of a second), where a
	// vault over index.DefaultMaxCheckNotes has only its folders compared
	// for a terminal's milliseconds: zk mcp's, whose agent cannot tell a
	// stale hit and does not mind a tenth of a second.
	EveryNote bool
}

// Search searches the vault's notes, best match first, bringing the index
// up to date first when few notes changed (building it the first time).
// A query that does not parse is a UsageError.
func (w *Workspace) Search(ctx context.Context, req SearchRequest) (*index.Result, error) {
	if req.Limit < 1 {
		return nil, usage(fmt.Errorf("search: %s must be at least 1", w.field("limit")))
	}
	iopts, err := w.indexOptions(req.Index)
	if err != nil {
		return nil, err
	}
	ireq := index.Request{Query: req.Query, Limit: req.Limit, MaxUpdate: SearchMaxUpdate}
	if req.NoUpdate {
		ireq.MaxUpdate = -1
	}
	if req.EveryNote {
		ireq.MaxCheckNotes, ireq.WaitCheckNotes = math.MaxInt, math.MaxInt
	}
	res, err := index.Search(ctx, w.Vault, iopts, ireq)
	if errors.Is(err, index.ErrQuery) {
		return nil, usage(fmt.Errorf("search: %w", err))
	}
	if err != nil {
		return nil, fmt.Errorf("search: %w", indexHint(err))
	}
	return res, nil
}

// Index brings the search index up to date (Rebuild: builds it from
// scratch).
func (w *Workspace) Index(ctx context.Context, rebuild bool, o IndexOptions) (index.Stats, error) {
	iopts, err := w.indexOptions(o)
	if err != nil {
		return index.Stats{}, err
	}
	st, err := index.Update(ctx, w.Vault, iopts, rebuild)
	if err != nil {
		return st, fmt.Errorf("index: %w", indexHint(err))
	}
	return st, nil
}

// indexOptions are the index's options: the folder (o.Dir, else
// index-dir in the config, relative to the vault, else the user cache
// folder), how long to wait, how the tended field is read, and the key of
// what the documents derive from (IndexKey).
func (w *Workspace) indexOptions(o IndexOptions) (index.Options, error) {
	v, cfg, types := w.Vault, w.Config, w.Types
	// bleve's scorch reports what it recovers from ("unable to load
	// snapshot ... continuing") through the standard logger; zk says what
	// it does about a damaged index itself.
	log.SetOutput(io.Discard)
	dir := o.Dir
	if dir == "" && cfg.IndexDir != "" {
		// config.Parse dropped a path that leaves the vault by its text;
		// a symlink inside the vault could still lead out.
		dir = filepath.Join(v.Dir, filepath.FromSlash(cfg.IndexDir))
		if !realInside(v.Dir, dir) {
			w.warn("%s: index-dir %q leads outside the vault through a symlink, and a vault's config may not direct writes outside it; using the default (set $ZK_INDEX_DIR to put the index elsewhere)", config.File, cfg.IndexDir)
			dir = ""
		}
	}
	key, err := w.IndexKey()
	if err != nil {
		return index.Options{}, err
	}
	return index.Options{
		Dir: dir, Wait: o.Wait, Progress: o.Progress,
		Tended: func(n *vault.Note) (tending.Tended, bool) {
			return tending.LastTended(n, vault.TendedSection(types, n), cfg.TendedKeys)
		},
		TendedKey: key,
		Languages: cfg.Languages,
	}, nil
}

// realInside reports whether dir, once the symlinks of the part of it
// that exists are followed, is inside the vault folder. A dangling or
// looping symlink is not: where it leads is unknown.
func realInside(vaultDir, dir string) bool {
	top, err := filepath.EvalSymlinks(vaultDir)
	if err != nil {
		return false
	}
	rest := ""
	for p := dir; ; p = filepath.Dir(p) {
		real, err := filepath.EvalSymlinks(p)
		if _, lerr := os.Lstat(p); lerr == nil && err != nil {
			return false // a dangling or looping symlink: where it leads is unknown
		}
		if err == nil {
			_, ok := vault.Within(top, filepath.Join(real, rest))
			return ok
		}
		if filepath.Dir(p) == p {
			return false
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// indexHint adds to an index error what the user can do about it.
func indexHint(err error) error {
	var me *index.MarkerError
	if errors.As(err, &me) {
		return fmt.Errorf("%w; if that folder is zk's index, zk index --rebuild rebuilds it there", err)
	}
	return err
}
