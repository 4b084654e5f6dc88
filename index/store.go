package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/atomicfile"
	"github.com/zk-claims/zk/internal/ownfile"
)

// Errors callers match on.
var (
	// ErrBusy: another zk holds the index longer than the caller waits.
	ErrBusy = errors.New("the index is busy: another zk is updating it")
	// ErrNotIndexDir: the index folder holds files that are not a zk index,
	// so zk will neither write nor delete there.
	ErrNotIndexDir = errors.New("folder is not empty and is not a zk index")
)

// DamagedError is an index that failed to open or read, or panicked
// inside bleve. It is never read again: it is moved aside and rebuilt.
type DamagedError struct {
	Dir string
	Err error
}

func (e *DamagedError) Error() string { return fmt.Sprintf("index %s is damaged: %v", e.Dir, e.Err) }
func (e *DamagedError) Unwrap() error { return e.Err }

// MarkerError is an index folder that holds a zk index's files but whose
// marker, zk-index.json, is missing or corrupt. zk writes in a folder only
// when its marker proves it is an index; an update asked to rebuild
// (Update with rebuild) writes the marker again, as the folder holds
// nothing else, and builds a new index there.
type MarkerError struct {
	Dir string
	Err error
}

func (e *MarkerError) Error() string {
	return fmt.Sprintf("index folder %s looks like a zk index but cannot be trusted: %v", e.Dir, e.Err)
}
func (e *MarkerError) Unwrap() error { return e.Err }

// PermissionError is an index that zk may not read or write. It is not
// damage: the index is left as it is, for the user to fix its
// permissions or point zk at another folder.
type PermissionError struct {
	Dir string
	Err error
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("index %s: %v (left as it is: fix its permissions, or use another index folder)", e.Dir, e.Err)
}
func (e *PermissionError) Unwrap() error { return e.Err }

// Layout of an index folder (one per vault):
//
//	zk-index.json   the marker: format, schema and vault; proves the folder is ours
//	CURRENT         the name of the live generation, replaced atomically
//	lock            held (flock) by the one zk that writes
//	gen-<n>/        a bleve index (index_meta.json, store/), plus zk-checked
//	gen-<n>.broken/ the last damaged generation, kept for a bug report
//
// The folder may be inside the vault (index-dir in its config), so every
// file of it can arrive with the vault: zk's own files in it are opened
// as internal/ownfile opens those under .zk/ (never through a symlink,
// regular files only, reads capped), and a generation is checked to be
// real folders and regular files before bleve opens it (checkShape).
const (
	markerName  = "zk-index.json"
	currentName = "CURRENT"
	lockName    = "lock"
	genPrefix   = "gen-"
	brokenExt   = ".broken"
	checkedName = "zk-checked"
	markerKind  = "zk-index"
)

// Caps on the reads of the index folder's own files, far above what zk
// writes: a marker holds the vault's path and the languages key, which
// a config of at most 1 MiB makes, escaped as JSON; CURRENT holds a
// generation's name; zk-checked a line per segment.
const (
	markerMax  = 8 << 20
	currentMax = 1 << 10
	checkedMax = 4 << 20
)

// marker is the content of zk-index.json.
type marker struct {
	Format string `json:"format"`
	Schema int    `json:"schema"`
	Vault  string `json:"vault"`
	// Tended is the Options.TendedKey the index was built under.
	Tended string `json:"tended,omitempty"`
	// Langs is the folder-language map the index was built under.
	Langs string `json:"langs,omitempty"`
}

// DefaultDir is where a vault's index lives unless the caller says
// otherwise: the user cache folder, one folder per vault, named for the
// vault and a hash of its real path. Outside the vault, because sync
// clients and git would otherwise copy a live index half-written.
func DefaultDir(vaultDir string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("index folder: %w", err)
	}
	real, err := filepath.EvalSymlinks(vaultDir)
	if err != nil {
		return "", fmt.Errorf("index folder: %w", err)
	}
	sum := sha256.Sum256([]byte(real))
	name := strings.Map(func(r rune) rune {
		if r == os.PathSeparator || r == ' ' || r < ' ' {
			return '-'
		}
		return r
	}, filepath.Base(real))
	return filepath.Join(cache, "zk", name+"-"+hex.EncodeToString(sum[:8])), nil
}

// store is an index folder.
type store struct {
	dir    string
	vault  string
	tended string // Options.TendedKey: stamped at a build, checked by current
	langs  string // langFolders.key(): the same
}

// openStore prepares an index folder, creating it (0700: a vault's text
// is private) when absent. A folder that already holds anything but a zk
// index is refused. A folder that holds only what a zk index holds but
// whose marker is missing or corrupt is refused too (ErrNoMarker), unless
// reclaim: then the marker is written again and the caller rebuilds.
func openStore(dir, vaultDir string, reclaim bool) (*store, error) {
	if dir == "" {
		return nil, errors.New("index folder: empty path")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("index folder: %w", err)
	}
	s := &store{dir: abs, vault: vaultDir}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("index folder: %w", err)
	}
	_, merr := s.marker()
	if merr == nil {
		return s, nil
	}
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil, fmt.Errorf("index folder: %w", err)
	}
	ours := false // something only a zk index holds
	for _, e := range ents {
		switch n := e.Name(); {
		// Another zk may be claiming the folder at this very moment.
		case n == lockName || strings.HasPrefix(n, atomicfile.TempPrefix):
		case n == markerName || n == currentName:
			ours = true
		case e.IsDir() && isGenName(strings.TrimSuffix(n, brokenExt)):
			ours = true
		default:
			return nil, fmt.Errorf("%s: %w", abs, ErrNotIndexDir)
		}
	}
	if ours && !reclaim {
		if errors.Is(merr, fs.ErrNotExist) {
			merr = fmt.Errorf("%s is missing", markerName)
		}
		return nil, &MarkerError{Dir: abs, Err: merr}
	}
	// An empty folder is claimed at once, so that a build which dies
	// before it publishes leaves a folder zk still recognises and cleans.
	if err := s.writeMarker(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *store) writeMarker() error {
	mb, err := json.Marshal(marker{Format: markerKind, Schema: Schema, Vault: s.vault, Tended: s.tended, Langs: s.langs})
	if err != nil {
		return err
	}
	return atomicfile.Write(s.path(markerName), append(mb, '\n'), 0o644)
}

func (s *store) path(name string) string { return filepath.Join(s.dir, name) }

// read reads the index folder's own file name as ownfile reads a
// vault's: a marker linked to /dev/zero ran zk out of memory, and a FIFO
// hung it.
func (s *store) read(name string, max int64) ([]byte, error) {
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return ownfile.Read(root, name, max)
}

func (s *store) marker() (marker, error) {
	var m marker
	b, err := s.read(markerName, markerMax)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Format != markerKind {
		return m, fmt.Errorf("%s is corrupt: not a zk index marker", markerName)
	}
	return m, nil
}

// current returns the live generation's name ("" when there is none)
// and why it may not be used as it is ("" when it may).
func (s *store) current() (gen string, stale string) {
	b, err := s.read(currentName, currentMax)
	if errors.Is(err, fs.ErrNotExist) {
		return "", ""
	}
	if err != nil {
		return "", fmt.Sprintf("the CURRENT pointer is unreadable: %v", err)
	}
	name := strings.TrimSpace(string(b))
	if !isGenName(name) {
		return "", "the CURRENT pointer is corrupt"
	}
	m, err := s.marker()
	switch {
	case err != nil:
		return name, err.Error()
	case m.Schema != Schema:
		return name, fmt.Sprintf("index schema %d, this zk writes %d", m.Schema, Schema)
	case m.Vault != s.vault:
		return name, fmt.Sprintf("index belongs to another vault (%s)", m.Vault)
	case m.Tended != s.tended:
		return name, "the Last tended settings changed (tended-keys or a template's section)"
	case m.Langs != s.langs:
		return name, "the folder languages changed (languages in the config)"
	}
	return name, ""
}

func isGenName(name string) bool {
	rest, ok := strings.CutPrefix(name, genPrefix)
	if !ok || rest == "" {
		return false
	}
	_, err := strconv.ParseUint(rest, 10, 64)
	return err == nil
}

// lock takes the writer lock, waiting at most wait. A zero wait tries
// once. A lock file that is a symlink or not a regular file is refused,
// not followed (one linked out of the vault had zk create the file it
// named) nor waited on.
func (s *store) lock(ctx context.Context, wait time.Duration) (unlock func(), err error) {
	root, err := os.OpenRoot(s.dir)
	if err == nil {
		defer root.Close()
		unlock, err = ownfile.LockContext(ctx, root, lockName, wait)
	}
	if errors.Is(err, ownfile.ErrBusy) {
		return nil, ErrBusy
	}
	if err != nil {
		return nil, fmt.Errorf("index lock %s: %w", s.path(lockName), err)
	}
	return unlock, nil
}

// publish makes gen the live generation: the marker, then CURRENT, each
// written to a temporary file, synced and renamed into place.
func (s *store) publish(gen string) error {
	if err := s.writeMarker(); err != nil {
		return err
	}
	return atomicfile.Write(s.path(currentName), []byte(gen+"\n"), 0o644)
}

// newGen names a fresh generation folder.
func (s *store) newGen() string {
	return genPrefix + strconv.FormatInt(time.Now().UnixNano(), 10)
}

// moveAside renames a damaged generation to gen-<n>.broken, replacing the
// previous broken one, so the next build starts clean and the evidence
// stays for a bug report.
func (s *store) moveAside(gen string) error {
	broken := gen + brokenExt
	if err := s.removeGen(broken); err != nil {
		return err
	}
	if err := os.Rename(s.path(gen), s.path(broken)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("move damaged index aside: %w", err)
	}
	return nil
}

// sweep removes every generation but keep and the newest broken one:
// leftovers of builds that crashed or indexes that were replaced.
func (s *store) sweep(keep string) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	var broken []string
	for _, e := range ents {
		name := e.Name()
		switch {
		case name == keep:
		case strings.HasSuffix(name, brokenExt) && isGenName(strings.TrimSuffix(name, brokenExt)):
			broken = append(broken, name)
		case isGenName(name):
			s.removeGen(name)
		}
	}
	for i := 0; i+1 < len(broken); i++ { // ReadDir sorts; the last is newest
		s.removeGen(broken[i])
	}
}

// removeGen deletes a generation folder, but only one that is provably a
// zk index generation: a real folder (not a symlink) directly inside an
// index folder that carries zk's marker, named gen-<n>, holding bleve's
// index_meta.json or nothing at all (a build that died at once).
func (s *store) removeGen(name string) error {
	if err := provablyGen(s.dir, name); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	return os.RemoveAll(filepath.Join(s.dir, name))
}

// provablyGen is the deletion guard; a nil error means dir/name may be
// removed.
func provablyGen(dir, name string) error {
	if dir == "" || name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return fmt.Errorf("refusing to delete %q in %q: not an index generation", name, dir)
	}
	if !isGenName(strings.TrimSuffix(name, brokenExt)) {
		return fmt.Errorf("refusing to delete %q: not an index generation", name)
	}
	if _, err := os.Stat(filepath.Join(dir, markerName)); err != nil {
		return fmt.Errorf("refusing to delete in %s: no zk index marker", dir)
	}
	p := filepath.Join(dir, name)
	st, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("refusing to delete %s: not a folder", p)
	}
	for _, bleveFile := range []string{"index_meta.json", filepath.Join("store", "root.bolt")} {
		if _, err := os.Lstat(filepath.Join(p, bleveFile)); err == nil {
			return nil
		}
	}
	if ents, err := os.ReadDir(p); err == nil && len(ents) == 0 {
		return nil
	}
	return fmt.Errorf("refusing to delete %s: not a bleve index", p)
}
