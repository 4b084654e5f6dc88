package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	zapx "github.com/blevesearch/zapx/v17"
	"go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/zk-claims/zk/internal/atomicfile"
	"github.com/zk-claims/zk/internal/ownfile"
)

// generation is one open bleve index: a gen-<n> folder. Every call into
// bleve goes through guard, and every failure of one comes back as a
// DamagedError naming the folder.
type generation struct {
	dir    string
	idx    bleve.Index
	closed bool
}

// guard runs one bleve call, turning a panic inside bleve into an error.
// bleve panics in the caller's goroutine on some corrupt segments
// (research: zapx bounds errors); such an index is damaged, not zk.
func guard(dir string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &DamagedError{Dir: dir, Err: fmt.Errorf("panic in bleve: %v\n%s", r, firstFrames(debug.Stack()))}
		}
	}()
	return f()
}

// firstFrames keeps the top of a stack trace for the error message.
func firstFrames(stack []byte) []byte {
	lines := bytes.SplitN(stack, []byte("\n"), 12)
	return bytes.Join(lines[:min(len(lines), 11)], []byte("\n"))
}

// damaged runs a bleve call through guard and reports any failure as
// damage to the generation.
func (g *generation) damaged(f func() error) error {
	err := guard(g.dir, f)
	var de *DamagedError
	if err == nil || errors.As(err, &de) {
		return err
	}
	return &DamagedError{Dir: g.dir, Err: err}
}

// sizeSegments turns off zapx's guess at a new segment's size, once per
// process: it grew each new segment's buffer at once to the previous
// segment's bytes per document times the batch's documents plus 100. A
// batch after one hostile note (a document of 6 MB encoded) asked for
// 640 MB in one allocation, and zk index died under a 4 GB address
// limit. Grown as it fills, a buffer holds at most twice its bytes.
var sizeSegments = sync.OnceFunc(func() { zapx.NewSegmentBufferNumResultsFactor = 0 })

// openGeneration opens a generation, after checking its segments, with
// a bounded wait for bbolt's file lock (bleve's default is to wait for
// ever).
func openGeneration(dir string, readOnly bool, wait time.Duration) (*generation, error) {
	if err := verifySegments(dir, true, wait); err != nil {
		return nil, err
	}
	if err := registerAnalysis(); err != nil {
		return nil, err
	}
	sizeSegments()
	g := &generation{dir: dir}
	err := guard(dir, func() error {
		var err error
		cfg := scorchConfig()
		cfg["read_only"] = readOnly
		cfg["bolt_timeout"] = max(wait, 10*time.Millisecond).String()
		g.idx, err = bleve.OpenUsing(dir, cfg)
		return err
	})
	if err == nil {
		return g, nil
	}
	var de *DamagedError
	switch {
	case errors.As(err, &de):
		return nil, err
	case strings.Contains(err.Error(), "timeout"):
		return nil, ErrBusy
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, bleve.ErrorIndexPathDoesNotExist):
		return nil, fmt.Errorf("%s: %w", dir, fs.ErrNotExist)
	}
	return nil, notDamage(dir, err)
}

// mergeFloor is the size (in notes) below which scorch's merge planner
// takes every segment to be of that size. Its default, 2,000, put every
// segment of a build's 1 MiB batches (150–450 notes) in one tier, so
// each merge merged the last one's output again: 40% of a cold build of
// Obsidian's help vault went to merging (12 s of 30 s of CPU; 2.5 s at
// 10).
var mergeFloor = 10

// scorchConfig is the scorch configuration of every open.
func scorchConfig() map[string]any {
	return map[string]any{"scorchMergePlanOptions": map[string]any{
		"MaxSegmentsPerTier":   10,
		"MaxSegmentSize":       5000000,
		"TierGrowth":           10.0,
		"SegmentsPerMergeTask": 10,
		"FloorSegmentSize":     mergeFloor,
		"ReclaimDeletesWeight": 2.0,
	}}
}

// createGeneration makes a new, empty generation stamped with Schema.
func createGeneration(dir string) (*generation, error) {
	sizeSegments()
	im, err := newMapping()
	if err != nil {
		return nil, err
	}
	g := &generation{dir: dir}
	err = g.damaged(func() error {
		var err error
		if g.idx, err = bleve.NewUsing(dir, im, bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, scorchConfig()); err != nil {
			return err
		}
		return g.idx.SetInternal(schemaKey, fmt.Append(nil, Schema))
	})
	if err != nil {
		if g.idx != nil {
			g.close()
		}
		return nil, fmt.Errorf("create index: %w", err)
	}
	return g, nil
}

// close closes the generation once; later calls do nothing.
func (g *generation) close() error {
	if g.closed {
		return nil
	}
	g.closed = true
	return g.damaged(g.idx.Close)
}

// meta checks the generation's schema stamp and reads its manifest.
func (g *generation) meta() (*manifest, error) {
	var schema, raw []byte
	err := g.damaged(func() error {
		var err error
		if schema, err = g.idx.GetInternal(schemaKey); err != nil {
			return err
		}
		raw, err = g.idx.GetInternal(manifestKey)
		return err
	})
	if err != nil {
		return nil, err
	}
	if string(schema) != fmt.Sprint(Schema) {
		return nil, &DamagedError{Dir: g.dir, Err: fmt.Errorf("schema stamp %q, want %d", schema, Schema)}
	}
	m, err := decodeManifest(raw)
	if err != nil {
		return nil, &DamagedError{Dir: g.dir, Err: err}
	}
	return m, nil
}

// folderRecord checks the generation's schema stamp and reads its
// folder record.
func (g *generation) folderRecord() (*folderRecord, error) {
	var schema, raw []byte
	err := g.damaged(func() error {
		var err error
		if schema, err = g.idx.GetInternal(schemaKey); err != nil {
			return err
		}
		raw, err = g.idx.GetInternal(foldersKey)
		return err
	})
	if err != nil {
		return nil, err
	}
	if string(schema) != fmt.Sprint(Schema) {
		return nil, &DamagedError{Dir: g.dir, Err: fmt.Errorf("schema stamp %q, want %d", schema, Schema)}
	}
	rec, err := decodeFolders(raw)
	if err != nil {
		return nil, &DamagedError{Dir: g.dir, Err: err}
	}
	return rec, nil
}

// batch applies a batch (documents and the manifest together) and waits
// until it is persisted.
func (g *generation) batch(b *bleve.Batch) error {
	return g.damaged(func() error { return g.idx.Batch(b) })
}

// search runs a search request; a context error stays a context error.
func (g *generation) search(ctx context.Context, req *bleve.SearchRequest) (*bleve.SearchResult, error) {
	var out *bleve.SearchResult
	err := g.damaged(func() error {
		var err error
		out, err = g.idx.SearchInContext(ctx, req)
		return err
	})
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return out, err
}

// linkingTo finds the indexed notes whose links name any of paths.
func (g *generation) linkingTo(paths []string) (map[string]bool, error) {
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
	res, err := g.search(context.Background(), bleve.NewSearchRequestOptions(query.NewDisjunctionQuery(qs), 1<<20, 0, false))
	if err != nil {
		return nil, err
	}
	for _, h := range res.Hits {
		out[h.ID] = true
	}
	return out, nil
}

// verifySegments checks the CRC-32 that zap writes at the end of every
// segment file a persisted snapshot names: bleve opens a segment with
// flipped bytes without a word and then answers from it (or panics). A
// segment no snapshot names is a write that a kill cut short (scorch
// writes the segment, then the snapshot naming it): bleve never reads it
// and removes it itself, so it is not damage. Segments are immutable, so
// each is checked once; zk-checked remembers which, by name, size and
// mtime. A file zk may not read is a permission problem, not damage.
func verifySegments(genDir string, record bool, wait time.Duration) error {
	root, err := checkShape(genDir)
	if err != nil {
		return err
	}
	defer root.Close()
	storeDir := filepath.Join(genDir, "store")
	ents, err := os.ReadDir(storeDir)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Lstat(genDir); errors.Is(serr, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", genDir, fs.ErrNotExist) // replaced meanwhile
		}
	}
	if err != nil {
		return notDamage(genDir, err)
	}
	// Every entry before any is opened: root.bolt sorts after the
	// segments, and a FIFO there would hang bbolt.
	for _, e := range ents {
		if err := ownfile.Kind(e.Type(), false); err != nil {
			return shapeDamage(genDir, path.Join("store", e.Name()), err)
		}
	}
	checked := map[string]bool{}
	// A record zk cannot use only costs the segments a check again.
	if b, err := ownfile.Read(root, checkedName, checkedMax); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			checked[l] = true
		}
	}
	var named map[string]bool // read from root.bolt when a segment needs checking
	var lines []string
	fresh := false
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".zap") {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed by scorch as we looked: no snapshot names it
		}
		if err != nil {
			return notDamage(genDir, err)
		}
		key := fmt.Sprintf("%s %d %d", e.Name(), info.Size(), info.ModTime().UnixNano())
		if checked[key] {
			lines = append(lines, key)
			continue
		}
		if named == nil {
			if named, err = snapshotSegments(storeDir, wait); err != nil {
				return err
			}
		}
		if !named[e.Name()] {
			continue // an orphan, not read by bleve
		}
		lines = append(lines, key)
		if err := checkZap(filepath.Join(storeDir, e.Name())); err != nil {
			return notDamage(genDir, err)
		}
		fresh = true
	}
	if record && fresh {
		// A reader records too; if the folder went meanwhile, no matter.
		atomicfile.Write(filepath.Join(genDir, checkedName), []byte(strings.Join(lines, "\n")), 0o644)
	}
	return nil
}

// metaMax caps bleve's index_meta.json, which bleve reads whole (zk's
// are a few hundred bytes).
const metaMax = 1 << 20

// checkShape checks that the generation is what zk and bleve make of
// one, before either opens a file of it: a real folder of regular files
// and the real folder store/, itself of regular files (verifySegments
// checks those as it lists them). An index folder may be inside the
// vault (index-dir), so a generation may arrive with it: a segment or
// root.bolt linked to a file elsewhere would have bleve read, lock or
// write that file, a FIFO would hang it, and an index_meta.json linked to
// /dev/zero would have it read without end. Such a generation is
// damaged, so moved aside (the link renamed, nothing it names touched)
// and rebuilt. It returns the generation opened as a root, for reading
// zk's own file in it.
func checkShape(genDir string) (*os.Root, error) {
	info, err := os.Lstat(genDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", genDir, fs.ErrNotExist) // replaced meanwhile
	}
	if err != nil {
		return nil, notDamage(genDir, err)
	}
	if err := ownfile.Kind(info.Mode(), true); err != nil {
		return nil, shapeDamage(genDir, "", err)
	}
	root, err := os.OpenRoot(genDir)
	if err != nil {
		return nil, notDamage(genDir, err)
	}
	ents, err := readDir(root)
	if err != nil {
		root.Close()
		return nil, notDamage(genDir, err)
	}
	for _, e := range ents {
		name := e.Name()
		err := ownfile.Kind(e.Type(), name == "store")
		if err == nil && name == "index_meta.json" {
			if info, ierr := e.Info(); ierr == nil && info.Size() > metaMax {
				err = fmt.Errorf("%w (%d bytes, at most %d)", ownfile.ErrTooLarge, info.Size(), metaMax)
			}
		}
		if err != nil {
			root.Close()
			return nil, shapeDamage(genDir, name, err)
		}
	}
	return root, nil
}

// readDir lists root's folder.
func readDir(root *os.Root) ([]fs.DirEntry, error) {
	d, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}

// shapeDamage is a generation holding rel (a path inside it; "": the
// generation itself) in a shape zk does not open.
func shapeDamage(genDir, rel string, err error) error {
	at := filepath.Base(genDir)
	if rel != "" {
		at = path.Join(at, rel)
	}
	return &DamagedError{Dir: genDir, Err: &ownfile.PathError{Path: at, At: at, Err: err}}
}

// notDamage sorts a failure to read a generation: a permission error or
// a busy file is the caller's to fix and leaves the index as it is;
// anything else is damage.
func notDamage(genDir string, err error) error {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return &PermissionError{Dir: genDir, Err: err}
	case errors.Is(err, bolterrors.ErrTimeout):
		return ErrBusy
	}
	return &DamagedError{Dir: genDir, Err: err}
}

// snapshotSegments lists the segment files that scorch's persisted
// snapshots name, read from its root.bolt (a bucket "s" of snapshots,
// each a bucket per segment whose key "p" is the file name; "i" and "m"
// hold internal values and metadata). It opens root.bolt read-only, with
// the same bounded wait as bleve's open.
func snapshotSegments(storeDir string, wait time.Duration) (map[string]bool, error) {
	genDir := filepath.Dir(storeDir)
	db, err := bbolt.Open(filepath.Join(storeDir, "root.bolt"), 0, &bbolt.Options{ReadOnly: true, Timeout: max(wait, 10*time.Millisecond)})
	if err != nil {
		return nil, notDamage(genDir, err)
	}
	defer db.Close()
	named := map[string]bool{}
	err = db.View(func(tx *bbolt.Tx) error {
		snaps := tx.Bucket([]byte{'s'})
		if snaps == nil {
			return nil
		}
		return snaps.ForEachBucket(func(k []byte) error {
			snap := snaps.Bucket(k)
			return snap.ForEachBucket(func(k []byte) error {
				if k[0] == 'i' || k[0] == 'm' {
					return nil
				}
				if p := snap.Bucket(k).Get([]byte{'p'}); p != nil {
					named[string(p)] = true
				}
				return nil
			})
		})
	})
	if err != nil {
		return nil, &DamagedError{Dir: genDir, Err: fmt.Errorf("root.bolt: %w", err)}
	}
	return named, nil
}

// checkZap compares a zap segment's trailing CRC-32 (big-endian, of every
// byte before it) with its content.
func checkZap(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() < 4 {
		return fmt.Errorf("segment %s is truncated", filepath.Base(name))
	}
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, io.LimitReader(f, st.Size()-4)); err != nil {
		return err
	}
	var want [4]byte
	if _, err := io.ReadFull(f, want[:]); err != nil {
		return err
	}
	if h.Sum32() != binary.BigEndian.Uint32(want[:]) {
		return fmt.Errorf("segment %s fails its checksum", filepath.Base(name))
	}
	return nil
}
