// Package checkcache keeps what zk reads of a vault outside the vault,
// in one file per vault (the model file, ModelFile), so that a command on
// an unchanged vault costs about as much as stat-ing its files.
//
// The file stamps every file of the vault once: size, modification time
// and, for a note, the SHA-256 of its bytes when read. Each reader (zk
// check's findings and its notes' states, zk list's records, zk graph's
// details, the language server's entries) has a section of its own under
// a key of everything else it depends on (zk's build, the config, the
// templates, today...), holding the hash of the bytes each note's part was
// made from. A part is reused only while that hash is the note's: a stamp
// whose size or time differs, or whose time is too close to when it was
// written to be trusted (a file changed twice within the file system's
// clock resolution keeps its time), is settled by hashing the file again,
// as git does with racy index entries. A file of another format version,
// or damaged anywhere, is never trusted.
package checkcache

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/zk-claims/zk/vault"
)

// RacyWindow is how close to the cache's write time a file's modification
// time must be for its stamp not to be trusted without hashing.
const RacyWindow = 2 * time.Second

// Key identifies what a result depends on besides the vault's files.
type Key [sha256.Size]byte

// NewKey hashes the parts of a key, each length-prefixed so that no two
// lists of parts collide.
func NewKey(parts ...[]byte) Key {
	h := sha256.New()
	io.WriteString(h, "zk-cache-key v5\n")
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

// settled reports that f is the file stamped as s, at written (Unix
// nanoseconds), by its size and modification time alone: both unchanged,
// and the time older than RacyWindow before the stamp was written (a
// write in the same clock tick as the stamp could keep both). Anything
// else is settled by its bytes.
func settled(written int64, s Stamp, f vault.File) bool {
	mod := f.ModTime.UnixNano()
	return s.Size == f.Size && s.ModTime == mod && mod < written-int64(RacyWindow)
}

// ModelFile is the model file of the vault at dir (an absolute path)
// under the user's cache folder.
func ModelFile(dir string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("cache: %w", err)
	}
	return filepath.Join(base, "zk", "model", cacheName(dir)), nil
}

func cacheName(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return fmt.Sprintf("%x.cache", sum[:12])
}

// Retired are the files in which earlier versions of zk kept zk check's
// result and its notes' states, which the model file (file) now holds:
// zk check's save of the model file removes them, so that none lies
// stale in the cache folder; nothing reads them.
func Retired(file string) []string {
	check := filepath.Join(filepath.Dir(filepath.Dir(file)), "check", filepath.Base(file))
	return []string{check, check + ".states"}
}

// Hash is the hash a note's stamp holds.
func Hash(src []byte) [sha256.Size]byte { return sha256.Sum256(src) }
