package index

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"slices"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/cachecodec"
	"github.com/zk-claims/zk/vault"
)

// entry is what the index knows about one note file: enough to tell,
// from a stat, whether the note may have changed, and from its bytes
// whether it did.
type entry struct {
	Path    string
	Size    int64
	ModTime int64 // Unix nanoseconds
	// ChangeTime, Dev and Ino are vault.File's, zero where the system
	// gives none: a same-size edit given back its old mtime keeps size
	// and mtime, not the ctime (checkcache.Stamp says why).
	ChangeTime int64
	Dev, Ino   uint64
	Hash       [16]byte
	// Skipped is set for a note that is not indexed (not text, too large),
	// so that it is not read again while it stays the same.
	Skipped bool
}

// manifest lists every note file the index holds, sorted by path. It is
// stored inside the index, in the same batch as the documents it
// describes, so the two can never disagree.
type manifest struct {
	// Written is when the manifest was made, in Unix nanoseconds. A note
	// modified within racyWindow of it may have changed again in the same
	// clock tick, so it is re-hashed next time (git's "racy" rule).
	Written int64
	Entries []entry
}

// racyWindow is the clock granularity a note's mtime is trusted to: the
// coarsest common file system (FAT) keeps 2 s.
const racyWindow = 2 * time.Second

// manifestKey is the bleve internal key of the manifest; schemaKey holds
// the schema the index was built with.
var (
	manifestKey = []byte("zk.manifest")
	schemaKey   = []byte("zk.schema")
)

// errBadManifest is a manifest that does not decode: the index is damaged.
var errBadManifest = errors.New("index manifest is corrupt")

const manifestMagic = "zkm2"

func contentHash(src []byte) [16]byte {
	sum := sha256.Sum256(src)
	return [16]byte(sum[:16])
}

// hashText is a content hash as the index stores it with a document.
func hashText(h [16]byte) string { return hex.EncodeToString(h[:]) }

// encode writes the manifest compactly (varints) with a CRC-32 at the end:
// bbolt checks its own pages but not the values in them.
func (m *manifest) encode() []byte {
	b := make([]byte, 0, 64+len(m.Entries)*64)
	b = append(b, manifestMagic...)
	b = binary.AppendVarint(b, m.Written)
	b = binary.AppendUvarint(b, uint64(len(m.Entries)))
	for _, e := range m.Entries {
		b = cachecodec.AppendStr(b, e.Path)
		b = binary.AppendVarint(b, e.Size)
		b = binary.AppendVarint(b, e.ModTime)
		b = binary.AppendVarint(b, e.ChangeTime)
		b = binary.AppendUvarint(b, e.Dev)
		b = binary.AppendUvarint(b, e.Ino)
		b = append(b, e.Hash[:]...)
		flag := byte(0)
		if e.Skipped {
			flag = 1
		}
		b = append(b, flag)
	}
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

func decodeManifest(b []byte) (*manifest, error) {
	if len(b) < len(manifestMagic)+4 || string(b[:len(manifestMagic)]) != manifestMagic {
		return nil, errBadManifest
	}
	body, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errBadManifest
	}
	r := cachecodec.NewReader(string(body[len(manifestMagic):])) // one string; each path a slice of it
	m := &manifest{Written: r.Varint()}
	count := r.Count(2 + 1 + 1 + 3 + 16 + 1) // a path (never empty) and its length, a size, a time, a stat's three, a hash, a flag
	m.Entries = make([]entry, 0, count)
	for range count {
		e := entry{Path: r.Str(), Size: r.Varint(), ModTime: r.Varint(), ChangeTime: r.Varint(), Dev: r.Uvarint(), Ino: r.Uvarint()}
		copy(e.Hash[:], r.Take(16))
		e.Skipped = r.Byte() == 1
		m.Entries = append(m.Entries, e)
	}
	if !r.Done() {
		return nil, errBadManifest
	}
	return m, nil
}

// entryOf is the entry of note file f, its content hashed as h.
func entryOf(f vault.File, h [16]byte) entry {
	return entry{Path: f.Path, Size: f.Size, ModTime: f.ModTime.UnixNano(), ChangeTime: f.ChangeTime, Dev: f.Dev, Ino: f.Ino, Hash: h}
}

// file is the note file e stamps, as the walk would list it unchanged.
func (e entry) file() vault.File {
	return vault.File{Path: e.Path, Size: e.Size, ModTime: time.Unix(0, e.ModTime), ChangeTime: e.ChangeTime, Dev: e.Dev, Ino: e.Ino}
}

// lookup returns the entry for a path.
func (m *manifest) lookup(p string) (entry, bool) {
	i, ok := slices.BinarySearchFunc(m.Entries, p, func(e entry, p string) int { return strings.Compare(e.Path, p) })
	if !ok {
		return entry{}, false
	}
	return m.Entries[i], true
}

// diff is how the vault's note files differ from a manifest, by stat
// alone: suspect files have a new size or mtime and racy ones an mtime too
// close to the manifest's to trust; both must be read to know whether they
// changed.
type diff struct {
	added   []vault.File
	suspect []vault.File
	racy    []vault.File
	deleted []string
}

func (d diff) empty() bool { return d.count() == 0 }

// count is how many notes may have changed.
func (d diff) count() int { return len(d.added) + len(d.suspect) + len(d.racy) + len(d.deleted) }

// compare walks the sorted note files and the sorted manifest together.
func (m *manifest) compare(files []vault.File) diff {
	var d diff
	racy := m.Written - int64(racyWindow)
	i := 0
	for _, f := range files {
		for i < len(m.Entries) && m.Entries[i].Path < f.Path {
			d.deleted = append(d.deleted, m.Entries[i].Path)
			i++
		}
		if i < len(m.Entries) && m.Entries[i].Path == f.Path {
			e := m.Entries[i]
			i++
			switch {
			case !e.file().SameStat(f):
				d.suspect = append(d.suspect, f)
			case e.ModTime >= racy:
				d.racy = append(d.racy, f)
			}
			continue
		}
		d.added = append(d.added, f)
	}
	for ; i < len(m.Entries); i++ {
		d.deleted = append(d.deleted, m.Entries[i].Path)
	}
	return d
}

// unracy drops the racy notes whose bytes still hash to the manifest's:
// a search can settle those itself, by reading them, without a writer.
func (d diff) unracy(m *manifest, v *vault.Vault) diff {
	var still []vault.File
	for _, f := range d.racy {
		e, _ := m.lookup(f.Path)
		src, err := v.ReadFile(f.Path, v.MaxNoteSize)
		if err != nil || e.Skipped || contentHash(src) != e.Hash {
			still = append(still, f)
		}
	}
	d.racy = still
	return d
}

// notes keeps the markdown notes of a file list.
func notes(files []vault.File) []vault.File {
	out := make([]vault.File, 0, len(files))
	for _, f := range files {
		if f.IsNote() {
			out = append(out, f)
		}
	}
	return out
}
