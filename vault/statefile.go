package vault

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/zk-claims/zk/internal/atomicfile"
	"github.com/zk-claims/zk/internal/ownfile"
)

// ownWritesFile records what zk last wrote to each note, so that the next
// zk writer, minutes or milliseconds later, can tell its own write from an
// editor's save: the quiet window (WriteOptions.Quiet) is for other
// programs, and back-to-back zk runs on one note must not trip it. It is
// read and written only under the vault's writer lock.
const ownWritesFile = ".zk/writes.json"

// ownWritesKeep bounds the record: entries older than this are dropped
// (past the quiet window they change nothing), and at most ownWritesMax
// notes are kept.
const (
	ownWritesKeep = time.Hour
	ownWritesMax  = 256
	ownWritesSize = 1 << 20
)

// ownWrite is one note as zk left it: the file (device and inode, where
// the system has them), its size, mtime and content hash, and when.
type ownWrite struct {
	Dev    uint64    `json:"dev,omitempty"`
	Ino    uint64    `json:"ino,omitempty"`
	Size   int64     `json:"size"`
	MTime  int64     `json:"mtime_ns"`
	SHA256 string    `json:"sha256"`
	At     time.Time `json:"at"`
}

// ownWrites maps a note's vault path to zk's last write of it.
type ownWrites map[string]ownWrite

// ownWrites reads the record; a missing, unreadable or garbled one is
// empty, which only means the quiet window applies as before.
func (w *writer) ownWrites() ownWrites {
	out := ownWrites{}
	b, err := ownfile.Read(w.root, ownWritesFile, ownWritesSize)
	if err == nil {
		json.Unmarshal(b, &out)
	}
	return out
}

// is reports whether the note at p, read as cur with info, is exactly
// what zk last wrote there.
func (o ownWrites) is(p string, cur []byte, info fs.FileInfo) bool {
	rec, ok := o[p]
	if !ok || info == nil {
		return false
	}
	dev, ino := fileID(info)
	sum := sha256.Sum256(cur)
	return rec.Dev == dev && rec.Ino == ino && rec.Size == info.Size() &&
		rec.MTime == info.ModTime().UnixNano() && rec.SHA256 == hex.EncodeToString(sum[:])
}

// remember records that zk left the note at p holding data, as info
// describes it, at now; entries past ownWritesKeep are dropped.
func (o ownWrites) remember(p string, data []byte, info fs.FileInfo, now time.Time) {
	if info == nil {
		return
	}
	dev, ino := fileID(info)
	sum := sha256.Sum256(data)
	o[p] = ownWrite{Dev: dev, Ino: ino, Size: info.Size(), MTime: info.ModTime().UnixNano(), SHA256: hex.EncodeToString(sum[:]), At: now.UTC()}
	for k, rec := range o {
		if now.Sub(rec.At) > ownWritesKeep {
			delete(o, k)
		}
	}
	for len(o) > ownWritesMax {
		oldest := ""
		for k, rec := range o {
			if oldest == "" || rec.At.Before(o[oldest].At) {
				oldest = k
			}
		}
		delete(o, oldest)
	}
}

// saveOwnWrites replaces the record. A failure is not the note's: the
// write is done, and the next one only falls back to the quiet window. For
// the same reason it is not fsynced: a crash that loses it costs nothing,
// and an fsync would cost each write ~20% (measured on zk tend).
func (w *writer) saveOwnWrites(o ownWrites) {
	b, err := json.Marshal(o)
	if err != nil || bytes.Equal(b, []byte("null")) {
		return
	}
	// A writer killed while writing it left its temporary file here.
	atomicfile.Sweep(w.root, filepath.Dir(filepath.FromSlash(ownWritesFile)), w.opts.Now(), tempMaxAge)
	atomicfile.WriteIn(w.root, filepath.FromSlash(ownWritesFile), append(b, '\n'), atomicfile.Options{Perm: 0o600, NoSync: true})
}
