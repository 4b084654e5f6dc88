// Package checkcache keeps what zk reads of a vault outside the vault,
// in one file per vault (the model file, ModelFile), so that a command on
// an unchanged vault costs about as much as stat-ing its files.
//
// The file stamps every file of the vault once: size, modification and
// status change times, device and inode (Stamp) and, for a note, the
// SHA-256 of its bytes when read. Each reader (zk check's findings and
// its notes' states, zk list's records, zk graph's details, the language
// server's entries) has a section of its own under a key of everything
// else it depends on (zk's build, the config, the templates, today...),
// holding the hash of the bytes each note's part was made from. A part is
// reused only while that hash is the note's: a stamp whose stat differs,
// or whose time is too close to when it was written to be trusted (a file
// changed twice within the file system's clock resolution keeps its
// time), is settled by hashing the file again, as git does with racy
// index entries. A file of another format version,
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

// Stamp is what the cache remembers of one file: its stat (StampOf) and
// the hash of its bytes. It is the one stamp of every reader's cache, and
// Same the one comparison of it with the walk's file.
type Stamp struct {
	Path    string
	Size    int64
	ModTime int64 // Unix nanoseconds
	// ChangeTime (the ctime, Unix nanoseconds), Dev and Ino are
	// vault.File's: zero where the system gives none (Windows), where
	// size and modification time alone stamp a file.
	ChangeTime int64
	Dev, Ino   uint64
	// Hash is the SHA-256 of a note's checked bytes; zero for other files,
	// whose content no finding depends on.
	Hash [sha256.Size]byte
}

// StampOf is the stamp of f as the walk stat-ed it, its Hash zero.
func StampOf(f vault.File) Stamp {
	return Stamp{Path: f.Path, Size: f.Size, ModTime: f.ModTime.UnixNano(), ChangeTime: f.ChangeTime, Dev: f.Dev, Ino: f.Ino}
}

// Same reports whether f is, by its stat, the file s stamps: the same
// size, modification and status change times, device and inode (its path
// and hash aside). A same-size edit given back its old mtime (touch -r,
// rsync -t, git checkout, a sync client, or anyone writing the vault)
// keeps size and mtime, not the ctime, which the kernel sets and no
// program can set back; a file replaced by a rename (an editor's save,
// zk's own writes) is another inode. A chmod or a new hard link moves
// the ctime too, which costs a read of the file, not its findings.
func (s Stamp) Same(f vault.File) bool { return s.file().SameStat(f) }

func (s Stamp) sameStat(o Stamp) bool { return s.file().SameStat(o.file()) }

// file is the file s stamps, as the walk lists it (vault.File.SameStat
// is the rule).
func (s Stamp) file() vault.File {
	return vault.File{Path: s.Path, Size: s.Size, ModTime: time.Unix(0, s.ModTime), ChangeTime: s.ChangeTime, Dev: s.Dev, Ino: s.Ino}
}

// racy reports that s's modification time is too close to written (Unix
// nanoseconds, when the stamp was made) to be trusted: a write in the
// same clock tick as the stamp could keep it.
func (s Stamp) racy(written int64) bool { return s.ModTime >= written-int64(RacyWindow) }

// settled reports that f is the file stamped as s, at written (Unix
// nanoseconds), by its stat alone: unchanged (Same), and its time older
// than RacyWindow before the stamp was written (racy). Anything else is
// settled by its bytes.
//
// The ctime is not held to the window, as git holds it to none: only an
// edit within one tick of the kernel's clock of the file's last change,
// after the stamp and with its mtime set back, keeps the stat whole, and
// the window on it would have every file changed in the last two seconds
// read again (and, in a test, every file made in it).
func settled(written int64, s Stamp, f vault.File) bool {
	return s.Same(f) && !s.racy(written)
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
