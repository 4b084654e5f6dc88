package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/zk-claims/zk/internal/ownfile"
)

// Errors callers match on.
var (
	// ErrNotFound: no note has that path or name.
	ErrNotFound = errors.New("no such note")
	// ErrOutsideVault: a path or symlink leads out of the vault.
	ErrOutsideVault = errors.New("path is outside the vault")
)

// DefaultMaxNoteSize is the size above which a note is skipped, not parsed.
const DefaultMaxNoteSize = 4 << 20

// DefaultParseBudget is how long one note may take to parse before zk
// falls back to a plain line scan of it. goldmark is super-linear on some
// hostile shapes (research/reliability.md §5).
const DefaultParseBudget = 2 * time.Second

// Vault is an open vault. All file access goes through an os.Root, so the
// operating system, not string checks, keeps zk inside the vault.
type Vault struct {
	// Dir is the vault's root folder, as given to Open.
	Dir  string
	root *os.Root
	// MaxNoteSize and ParseBudget bound the work spent on one note.
	MaxNoteSize int64
	ParseBudget time.Duration
	// Ignore reports whether a vault-relative path is left out of the
	// vault (config ignore globs). Nil ignores nothing beyond dot folders.
	Ignore func(relPath string) bool
}

// Open opens the vault rooted at dir.
func Open(dir string) (*Vault, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open vault: %w", err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("open vault: %w", err)
	}
	return &Vault{Dir: abs, root: root, MaxNoteSize: DefaultMaxNoteSize, ParseBudget: DefaultParseBudget}, nil
}

// Close releases the vault.
func (v *Vault) Close() error { return v.root.Close() }

// Root returns the os.Root on the vault, for packages that write to it.
func (v *Vault) Root() *os.Root { return v.root }

// File is one file of the vault.
type File struct {
	// Path is vault-relative, with forward slashes.
	Path    string
	Size    int64
	ModTime time.Time
	// Symlink is set when the path is a symbolic link (to a file inside
	// the vault; links out of it are skipped).
	Symlink bool
}

// IsNote reports whether the file is a markdown note.
func (f File) IsNote() bool { return isNotePath(f.Path) }

func isNotePath(p string) bool { return strings.EqualFold(path.Ext(p), ".md") }

// Skip is a file zk leaves out, and why.
type Skip struct {
	Path   string
	Reason string
	// Folder is set for a folder the walk could not read: every note in
	// it is left out.
	Folder bool
}

// Files lists every file of the vault, sorted by path: dot files and
// folders are left out, as are ignored paths; symlinked folders are not
// followed (Obsidian ignores loops and links to folders in the vault), and a
// symlinked file that leads outside the vault or nowhere is skipped.
//
// Folders are read in parallel: an unchanged zk check is a walk and little
// else, and one goroutine waiting on one lstat at a time walked 100k notes
// at 1.6× find's time.
func (v *Vault) Files(ctx context.Context) ([]File, []Skip, error) {
	files, _, skips, err := v.FilesAndFolders(ctx)
	return files, skips, err
}

// Folder is a folder of the vault ("." for its root) and when its list of
// entries last changed: a file added, removed or renamed in it (an
// editor's save by rename too) moves its ModTime; a file written in
// place does not.
type Folder struct {
	Path    string
	ModTime time.Time
}

// FilesAndFolders is Files, with the folders it walked, sorted by path,
// the root first.
func (v *Vault) FilesAndFolders(ctx context.Context) ([]File, []Folder, []Skip, error) {
	return v.walkFrom(ctx, ".", false)
}

// ListFolder lists one folder of the vault as Files would, without
// walking its subfolders: its files, and its subfolders (the folder
// itself first, with its own ModTime).
func (v *Vault) ListFolder(ctx context.Context, dir string) ([]File, []Folder, []Skip, error) {
	return v.walkFrom(ctx, dir, true)
}

func (v *Vault) walkFrom(ctx context.Context, dir string, flat bool) ([]File, []Folder, []Skip, error) {
	st, err := v.root.Stat(filepath.FromSlash(dir))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("walk vault: %w", err)
	}
	top, err := fs.ReadDir(v.root.FS(), dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("walk vault: %w", err)
	}
	w := &walk{v: v, ctx: ctx, sem: make(chan struct{}, Workers()), flat: flat}
	w.folders = append(w.folders, Folder{Path: dir, ModTime: st.ModTime()})
	w.entries(dir, top)
	w.wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, fmt.Errorf("walk vault: %w", err)
	}
	files := sortedFiles(w.files)
	sort.Slice(w.skips, func(i, j int) bool { return w.skips[i].Path < w.skips[j].Path })
	sort.Slice(w.folders[1:], func(i, j int) bool { return w.folders[1+i].Path < w.folders[1+j].Path })
	return files, w.folders, w.skips, nil
}

// sortedFiles joins the walk's folders' files in path order. Each
// folder's come sorted (fs.ReadDir sorts by name); put in the order of
// their folders they are most often sorted already, which one pass
// tells, where a sort of every file cost more than the rest of the join.
func sortedFiles(chunks [][]File) []File {
	chunks = slices.DeleteFunc(chunks, func(c []File) bool { return len(c) == 0 })
	slices.SortFunc(chunks, func(a, b []File) int { return strings.Compare(a[0].Path, b[0].Path) })
	files := slices.Concat(chunks...)
	byPath := func(a, b File) int { return strings.Compare(a.Path, b.Path) }
	if !slices.IsSortedFunc(files, byPath) {
		slices.SortFunc(files, byPath)
	}
	return files
}

// walk is one Files call: each folder is read by a goroutine of its own,
// at most cap(sem) at a time.
type walk struct {
	v   *Vault
	ctx context.Context
	sem chan struct{}
	wg  sync.WaitGroup
	// flat lists the first folder's subfolders without walking them.
	flat bool

	mu sync.Mutex
	// files holds each folder's files, joined once at the end.
	files   [][]File
	skips   []Skip
	folders []Folder
}

// dir reads one folder below the vault's root and walks its entries.
func (w *walk) dir(p string) {
	defer w.wg.Done()
	w.sem <- struct{}{}
	ents, err := fs.ReadDir(w.v.root.FS(), p)
	<-w.sem
	if err != nil {
		w.mu.Lock()
		w.skips = append(w.skips, Skip{Path: p, Folder: true, Reason: "folder not read: " + cleanErr(err)})
		w.mu.Unlock()
		return
	}
	w.entries(p, ents)
}

// entries lists the files of one folder and starts a walk of each
// subfolder. The stats run under the semaphore, as the folder reads do.
func (w *walk) entries(dir string, ents []fs.DirEntry) {
	files := make([]File, 0, len(ents))
	var skips []Skip
	w.sem <- struct{}{}
	for _, d := range ents {
		if w.ctx.Err() != nil {
			break
		}
		name := d.Name()
		p := path.Join(dir, name)
		if strings.HasPrefix(name, ".") || (w.v.Ignore != nil && w.v.Ignore(p)) {
			continue
		}
		if d.IsDir() {
			// In an os.Root, a folder's entries come stat-ed: Info is free.
			if info, err := d.Info(); err == nil {
				w.mu.Lock()
				w.folders = append(w.folders, Folder{Path: p, ModTime: info.ModTime()})
				w.mu.Unlock()
			}
			if !w.flat {
				w.wg.Add(1)
				go w.dir(p)
			}
			continue
		}
		f := File{Path: p}
		if d.Type()&fs.ModeSymlink != 0 {
			f.Symlink = true
			st, err := w.v.root.Stat(p)
			if err != nil {
				skips = append(skips, Skip{Path: p, Reason: "symlink: " + cleanErr(err)})
				continue
			}
			if st.IsDir() {
				continue // a folder link: not followed
			}
			f.Size, f.ModTime = st.Size(), st.ModTime()
		} else if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				skips = append(skips, Skip{Path: p, Reason: cleanErr(err)})
				continue
			}
			f.Size, f.ModTime = info.Size(), info.ModTime()
		} else {
			if isNotePath(p) { // a note's name on a pipe, socket or device
				skips = append(skips, Skip{Path: p, Reason: "not a regular file (" + FileKind(d.Type()) + ")"})
			}
			continue
		}
		files = append(files, f)
	}
	<-w.sem
	w.mu.Lock()
	w.files = append(w.files, files)
	w.skips = append(w.skips, skips...)
	w.mu.Unlock()
}

// FileKind names a file type that is not a regular file: "a folder", "a
// named pipe"; skips and refusals say what a path is instead of a note.
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "type " + m.String()
}

func cleanErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	s := err.Error()
	if strings.Contains(s, "escapes from parent") {
		return "leads outside the vault"
	}
	return s
}

// Local reports whether the vault path p (slash-separated, from the
// vault's root) stays inside the vault by its text: not empty, not
// absolute, not on another volume, not up and out through "..". "." is the
// root, inside. Symlinks are Inside's to follow. The one lexical test, for
// paths from config, links, MCP resources and the command line alike.
func Local(p string) bool {
	return filepath.IsLocal(filepath.FromSlash(p))
}

// Within is the slash-separated path of the file path p (absolute, or
// both relative to one folder) from the folder dir, when p is dir or below
// it by their text ("." for dir itself). Symlinks are not followed: a
// caller that compares real places resolves both first.
func Within(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// Inside checks that the vault path p stays inside the vault once the
// symlinks of what exists of it are followed: a path with "..", an
// absolute one, or one through a folder that links outside is
// ErrOutsideVault. A path not there yet is judged by its nearest folder
// that is. Every front end asks this before it proposes a write (the CLI
// before zk mv, the language server before a rename or a new note).
func (v *Vault) Inside(p string) error {
	if !Local(p) {
		return fmt.Errorf("%s: %w", p, ErrOutsideVault)
	}
	for dir := path.Clean(filepath.ToSlash(p)); ; dir = path.Dir(dir) {
		_, err := v.root.Stat(filepath.FromSlash(dir))
		if err == nil || dir == "." {
			return nil
		}
		if cleanErr(err) == "leads outside the vault" {
			return fmt.Errorf("%s: %w", p, ErrOutsideVault)
		}
	}
}

// ReadFile reads a vault file through the root, refusing one over max bytes.
func (v *Vault) ReadFile(p string, max int64) ([]byte, error) {
	return readIn(v.root, filepath.FromSlash(p), p, max)
}

// readIn reads name inside root; p is the file's vault path, for errors.
func readIn(root *os.Root, name, p string, max int64) ([]byte, error) {
	f, err := ownfile.OpenRegular(root, name)
	if err != nil {
		if strings.Contains(err.Error(), "escapes from parent") {
			return nil, fmt.Errorf("%s: %w", p, ErrOutsideVault)
		}
		if errors.Is(err, ownfile.ErrNotRegular) {
			return nil, fmt.Errorf("%s: not a regular file", p)
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if max > 0 && st.Size() > max {
		return nil, &TooLargeError{Path: p, Size: st.Size(), Max: max}
	}
	limit := st.Size() + 1
	if max > 0 {
		limit = max + 1
	}
	// Read into a buffer of the size stat gave (one byte more, to see a
	// file that grew), grown only if the file did: io.ReadAll would start
	// at 512 bytes and grow, and bytes.Buffer.ReadFrom grows whenever
	// less than 512 bytes are free, which copied nearly every note.
	b := make([]byte, 0, min(st.Size(), limit-1)+1)
	r := io.LimitReader(f, limit)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if max > 0 && int64(len(b)) > max {
		return nil, &TooLargeError{Path: p, Size: int64(len(b)), Max: max}
	}
	return b, nil
}

// TooLargeError is returned for a note over the size cap.
type TooLargeError struct {
	Path      string
	Size, Max int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %d bytes, over the %d byte limit", e.Path, e.Size, e.Max)
}

// NotText reports why src is not a text note, or "" if it is one: a NUL
// byte in the first 8 KiB, a UTF-16 byte order mark, or mostly invalid
// UTF-8.
func NotText(src []byte) string {
	head := src[:min(len(src), 8<<10)]
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		return "UTF-16 text, not UTF-8"
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return "binary file (NUL bytes)"
	}
	if utf8.Valid(head) {
		return ""
	}
	bad := 0
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size == 1 {
			bad++
		}
		i += size
	}
	if len(head) > 0 && bad*10 > len(head) {
		return "not UTF-8 text"
	}
	return ""
}

// Workers is how many notes are read and parsed at once: more than
// the cores, because part of each note's cost is waiting on the file
// system (measured: 4 per core scanned 10k notes 16% faster than 1).
func Workers() int { return 4 * runtime.GOMAXPROCS(0) }

// dirRoots opens each folder of the vault once, as an os.Root of its own,
// so that a scan opens each note by its base name: one openat per note
// instead of one per path component. It is safe for concurrent use.
type dirRoots struct {
	v  *Vault
	mu sync.Mutex
	m  map[string]*os.Root
}

// read reads a note of the vault. A symlinked note is read through the
// vault's root, since its target may sit in another folder of the vault.
func (d *dirRoots) read(f File, max int64) ([]byte, error) {
	dir, base := path.Split(f.Path)
	if f.Symlink || dir == "" {
		return d.v.ReadFile(f.Path, max)
	}
	d.mu.Lock()
	r, ok := d.m[dir]
	if !ok {
		var err error
		if r, err = d.v.root.OpenRoot(filepath.FromSlash(dir)); err != nil {
			d.mu.Unlock()
			return nil, err
		}
		d.m[dir] = r
	}
	d.mu.Unlock()
	return readIn(r, base, f.Path, max)
}

func (d *dirRoots) close() {
	for _, r := range d.m {
		r.Close()
	}
}

// LoadNote reads and parses one note with the caller's parser (one per
// goroutine), as Scan does; a nil Note comes with the reason it was
// skipped (not text, too large, unreadable).
func (v *Vault) LoadNote(p *Parser, f File) (*Note, string) { return v.load(p, f, nil) }

// load reads and parses one note, or says why it was skipped.
func (v *Vault) load(p *Parser, f File, dirs *dirRoots) (*Note, string) {
	if dirs == nil {
		dirs = &dirRoots{v: v, m: map[string]*os.Root{}}
		defer dirs.close()
	}
	src, err := dirs.read(f, v.MaxNoteSize)
	if err != nil {
		var tl *TooLargeError
		if errors.As(err, &tl) {
			return nil, fmt.Sprintf("too large to parse (%d bytes; the limit is %d)", tl.Size, tl.Max)
		}
		return nil, cleanErr(err)
	}
	if why := NotText(src); why != "" {
		return nil, why
	}
	n := p.ParseWithBudget(f.Path, src, v.ParseBudget)
	n.Size, n.ModTime = f.Size, f.ModTime
	return n, ""
}

// ReadNote reads and parses one note by vault path.
func (v *Vault) ReadNote(p string) (*Note, error) {
	st, err := v.root.Stat(filepath.FromSlash(p))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", p, ErrNotFound)
		}
		return nil, fmt.Errorf("read note: %w", err)
	}
	n, why := v.load(NewParser(), File{Path: p, Size: st.Size(), ModTime: st.ModTime()}, nil)
	if n == nil {
		return nil, fmt.Errorf("%s: %s", p, why)
	}
	return n, nil
}
