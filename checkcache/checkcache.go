// Package checkcache keeps the result of a zk check outside the vault, so
// that checking an unchanged vault costs about as much as stat-ing its
// files.
//
// A cache file (one per vault, in the user's cache folder) holds the
// findings of the last whole check, the key of everything else they depend
// on (zk's version, the config, the templates, today, the arguments), and
// a stamp of every file of the vault: size, modification time and, for a
// note, the SHA-256 of the bytes that were checked. The result is reused
// only when the key matches and every file is still there, unchanged, and
// no other file has appeared. A stamp whose size or time differs, or whose
// time is too close to when the cache was written to be trusted (a file
// changed twice within the file system's clock resolution keeps its
// time), is settled by hashing the file again, as git does with racy
// index entries. A file of another format version is never trusted.
package checkcache

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/zk-claims/zk/vault"
)

// Version is the cache file's format; a file of another version is
// ignored and overwritten.
const Version = 4

// RacyWindow is how close to the cache's write time a file's modification
// time must be for its stamp not to be trusted without hashing.
const RacyWindow = 2 * time.Second

// Key identifies what a result depends on besides the vault's files.
type Key [sha256.Size]byte

// NewKey hashes the parts of a key, each length-prefixed so that no two
// lists of parts collide.
func NewKey(parts ...[]byte) Key {
	h := sha256.New()
	fmt.Fprintf(h, "zk-check-cache v%d\n", Version)
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	var k Key
	h.Sum(k[:0])
	return k
}

// Stamp is what the cache remembers of one file.
type Stamp struct {
	Path    string
	Size    int64
	ModTime int64 // Unix nanoseconds
	// Hash is the SHA-256 of a note's checked bytes; zero for other files,
	// whose content no finding depends on.
	Hash [sha256.Size]byte
}

// Settled reports that f is the file e stamped as s by its size and
// modification time alone: both unchanged, and the time older than
// RacyWindow before the entry was written (a write in the same clock tick
// as the stamp could keep both). Anything else is settled by its bytes.
func (e *Entry) Settled(s Stamp, f vault.File) bool {
	mod := f.ModTime.UnixNano()
	return s.Size == f.Size && s.ModTime == mod && mod < e.Written-int64(RacyWindow)
}

// Entry is one cache file's content.
type Entry struct {
	Version int
	Key     Key
	// Written is when the entry was made, in Unix nanoseconds.
	Written int64
	Stamps  []Stamp
	// Result is the cached result, encoded by the caller.
	Result []byte
}

// File is the cache file of the vault at dir (an absolute path) under the
// user's cache folder.
func File(dir string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("cache: %w", err)
	}
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join(base, "zk", "check", fmt.Sprintf("%x.cache", sum[:12])), nil
}

// Hash is the hash a note's stamp holds.
func Hash(src []byte) [sha256.Size]byte { return sha256.Sum256(src) }

// Stamps builds the stamps of a vault's files; hash gives a note's hash
// (its checked bytes) and false for a file that is not a note or was not
// read.
func Stamps(files []vault.File, hash func(path string) ([sha256.Size]byte, bool)) []Stamp {
	out := make([]Stamp, len(files))
	for i, f := range files {
		out[i] = Stamp{Path: f.Path, Size: f.Size, ModTime: f.ModTime.UnixNano()}
		if h, ok := hash(f.Path); ok {
			out[i].Hash = h
		}
	}
	return out
}

// Load returns the cached result for key if the vault's files are those
// the entry stamped. read reads a note again when its stamp cannot be
// trusted; rehashed counts those, so that the caller can save fresh
// stamps. A missing, unreadable or foreign cache file is a miss, never an
// error: the cache is only ever a shortcut.
func Load(file string, key Key, files []vault.File, read func(path string) ([]byte, error)) (result []byte, rehashed int, ok bool) {
	e, err := Read(file)
	if err != nil || e.Key != key {
		return nil, 0, false
	}
	if len(e.Stamps) != len(files) {
		return nil, 0, false
	}
	for i, f := range files {
		s := e.Stamps[i] // both lists are sorted by path
		if s.Path != f.Path {
			return nil, 0, false
		}
		if e.Settled(s, f) {
			continue
		}
		mod := f.ModTime.UnixNano()
		if s.Size != f.Size {
			return nil, 0, false // other bytes, without reading them
		}
		if s.Hash == ([sha256.Size]byte{}) {
			if s.ModTime != mod {
				return nil, 0, false // an attachment changed: the file list still holds
			}
			continue
		}
		src, err := read(f.Path)
		if err != nil || Hash(src) != s.Hash {
			return nil, 0, false
		}
		rehashed++
	}
	return e.Result, rehashed, true
}

// magic opens every cache file, so that a file of another kind is told
// apart before anything in it is believed.
const magic = "zk-check-cache\n"

// Save writes an entry atomically; a reader sees the old entry or the new
// one, never a torn one.
//
// The format is hand-rolled, little-endian, by column: the magic, the
// version (uint32), the key, the write time (int64), the number of stamps
// (uint64), the paths' length (uint64) and the paths (each a uvarint
// length and its bytes), then every size, every mtime (int64 each), every
// hash (32 bytes each), and the result to the end of the file. Measured
// on 100k notes it reads in a fraction of gob's time (a few long copies and
// one string for all the paths), and reading is most of what an unchanged
// check does besides the walk.
func Save(file string, e Entry) error {
	written := e.Written
	if written == 0 {
		written = time.Now().UnixNano()
	}
	n := len(e.Stamps)
	pathsLen := stampPathsLen(e.Stamps)
	head := make([]byte, 0, len(magic)+4+len(e.Key)+8+8+8)
	head = append(head, magic...)
	head = binary.LittleEndian.AppendUint32(head, Version)
	head = append(head, e.Key[:]...)
	head = binary.LittleEndian.AppendUint64(head, uint64(written))
	head = binary.LittleEndian.AppendUint64(head, uint64(n))
	head = binary.LittleEndian.AppendUint64(head, uint64(pathsLen))
	// Written piece by piece: a copy of the whole file beside the
	// stamps and the result it is made from would add to the check's
	// peak memory.
	fill := func(w io.Writer) error {
		ew := &errWriter{w: w}
		ew.write(head)
		ew.stamps(e.Stamps)
		ew.write(e.Result)
		return ew.err
	}
	return writeFile(file, fill)
}

// Remove deletes the cache file, if there is one.
func Remove(file string) error {
	if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// Read returns a cache file's entry, of this format version. A file that
// is short, long or inconsistent anywhere is an error, never a panic or an
// allocation larger than the file.
func Read(file string) (Entry, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return Entry{}, err
	}
	r := reader{b: b}
	if string(r.take(len(magic))) != magic {
		return Entry{}, errors.New("cache: not a zk check cache")
	}
	if v := r.uint32(); v != Version {
		return Entry{}, fmt.Errorf("cache: format %d, not %d", v, Version)
	}
	e := Entry{Version: Version}
	copy(e.Key[:], r.take(len(e.Key)))
	e.Written = int64(r.uint64())
	n := r.uint64()
	paths := r.take(int(min(r.uint64(), uint64(len(b)))))
	if r.bad || n > uint64(len(b))/(16+sha256.Size) {
		return Entry{}, errors.New("cache: truncated")
	}
	sizes, mtimes, hashes := r.take(int(n)*8), r.take(int(n)*8), r.take(int(n)*sha256.Size)
	if r.bad {
		return Entry{}, errors.New("cache: truncated")
	}
	all := string(paths) // one string; each path is a slice of it
	e.Stamps = make([]Stamp, n)
	off := 0
	for i := range e.Stamps {
		l, w := binary.Uvarint(paths[off:])
		if w <= 0 || l > uint64(len(paths)-off-w) {
			return Entry{}, errors.New("cache: bad path")
		}
		off += w
		e.Stamps[i] = Stamp{Path: all[off : off+int(l)],
			Size:    int64(binary.LittleEndian.Uint64(sizes[i*8:])),
			ModTime: int64(binary.LittleEndian.Uint64(mtimes[i*8:]))}
		copy(e.Stamps[i].Hash[:], hashes[i*sha256.Size:])
		off += int(l)
	}
	if off != len(paths) {
		return Entry{}, errors.New("cache: bad paths")
	}
	e.Result = r.b[r.off:]
	return e, nil
}

// reader reads a cache file front to back; a read past its end sets bad
// and returns nothing.
type reader struct {
	b   []byte
	off int
	bad bool
}

func (r *reader) take(n int) []byte {
	if r.bad || n < 0 || n > len(r.b)-r.off {
		r.bad = true
		return nil
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *reader) uint32() uint32 {
	if p := r.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (r *reader) uint64() uint64 {
	if p := r.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

// Changed compares the vault's files with the stamps of e. same is true
// when they are the files stamped, none added, removed or renamed;
// changed are the notes of both whose bytes may differ from those
// stamped (read again and found different, or of another size, or not
// read then), and rehashed counts the notes read again and found the
// same. Other files changed change nothing a check finds.
func (e *Entry) Changed(files []vault.File, read func(path string) ([]byte, error)) (changed []string, rehashed int, same bool) {
	same = len(e.Stamps) == len(files)
	for i, j := 0, 0; i < len(files); i++ {
		f := files[i]
		for j < len(e.Stamps) && e.Stamps[j].Path < f.Path { // both lists are sorted by path
			j++
			same = false
		}
		if j == len(e.Stamps) || e.Stamps[j].Path != f.Path {
			same = false
			continue // added
		}
		s := e.Stamps[j]
		j++
		switch {
		case e.Settled(s, f):
		case !f.IsNote():
		case s.Hash == ([sha256.Size]byte{}) || s.Size != f.Size:
			changed = append(changed, f.Path)
		default:
			src, err := read(f.Path)
			if err != nil || Hash(src) != s.Hash {
				changed = append(changed, f.Path)
			} else {
				rehashed++
			}
		}
	}
	return changed, rehashed, same
}
