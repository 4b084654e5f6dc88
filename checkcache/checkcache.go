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
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/google/renameio/v2"

	"github.com/zk-claims/zk/vault"
)

// Version is the cache file's format; a file of another version is
// ignored and overwritten.
const Version = 1

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
	return filepath.Join(base, "zk", "check", fmt.Sprintf("%x.gob", sum[:12])), nil
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
	trustedBefore := e.Written - int64(RacyWindow)
	for i, f := range files {
		s := e.Stamps[i] // both lists are sorted by path
		if s.Path != f.Path {
			return nil, 0, false
		}
		mod := f.ModTime.UnixNano()
		if s.Size == f.Size && s.ModTime == mod && mod < trustedBefore {
			continue
		}
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

// disk is an entry as stored: the stamps by column, so that gob reads a
// hundred thousand of them as a few long slices rather than one struct
// (and 32 array elements) each.
type disk struct {
	Version  int
	Key      Key
	Written  int64
	Paths    []string
	Sizes    []int64
	ModTimes []int64
	Hashes   []byte // 32 bytes a stamp
	Result   []byte
}

// Save writes an entry atomically; a reader sees the old entry or the new
// one, never a torn one.
func Save(file string, e Entry) error {
	d := disk{Version: Version, Key: e.Key, Written: e.Written, Result: e.Result,
		Paths: make([]string, len(e.Stamps)), Sizes: make([]int64, len(e.Stamps)),
		ModTimes: make([]int64, len(e.Stamps)), Hashes: make([]byte, 0, len(e.Stamps)*sha256.Size)}
	if d.Written == 0 {
		d.Written = time.Now().UnixNano()
	}
	for i, st := range e.Stamps {
		d.Paths[i], d.Sizes[i], d.ModTimes[i] = st.Path, st.Size, st.ModTime
		d.Hashes = append(d.Hashes, st.Hash[:]...)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(d); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if err := renameio.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// Remove deletes the cache file, if there is one.
func Remove(file string) error {
	if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// Read returns a cache file's entry, of this format version.
func Read(file string) (Entry, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return Entry{}, err
	}
	var d disk
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&d); err != nil {
		return Entry{}, fmt.Errorf("cache: %w", err)
	}
	if d.Version != Version {
		return Entry{}, fmt.Errorf("cache: format %d, not %d", d.Version, Version)
	}
	n := len(d.Paths)
	if len(d.Sizes) != n || len(d.ModTimes) != n || len(d.Hashes) != n*sha256.Size {
		return Entry{}, errors.New("cache: stamps of unequal lengths")
	}
	e := Entry{Version: d.Version, Key: d.Key, Written: d.Written, Result: d.Result, Stamps: make([]Stamp, n)}
	for i := range e.Stamps {
		e.Stamps[i] = Stamp{Path: d.Paths[i], Size: d.Sizes[i], ModTime: d.ModTimes[i]}
		copy(e.Stamps[i].Hash[:], d.Hashes[i*sha256.Size:])
	}
	return e, nil
}
