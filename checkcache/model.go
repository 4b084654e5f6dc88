package checkcache

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"time"
	"unsafe"

	"github.com/zk-claims/zk/internal/atomicfile"
	"github.com/zk-claims/zk/internal/cachecodec"
	"github.com/zk-claims/zk/internal/hugepage"
	"github.com/zk-claims/zk/vault"
)

// The model file is the one cache of what zk keeps of every note, for
// every reader of it (zk check's findings and notes' states, zk list's
// records, zk graph's details, the language server's entries): one file
// per vault, its files stamped once, then a section per reader (two for
// check, saved together). A section holds, for each file, the hash of the
// bytes its entry was made from (zero: no entry) and the entries,
// encoded by the reader. An entry is good while its hash is the note's:
// the stamps say which notes are unchanged, so each reader keeps what it
// read of a note until that note changes, whoever wrote the file last.
//
// A reader reads the header, the stamps and its own section, never the
// others': a listing does not pay for the graph's details. A reader that
// read a few notes again appends what changed (a delta: their stamps,
// hashes and entries, with a checksum) instead of writing the file anew;
// a torn or damaged delta is ignored with all after it, so that its notes
// are read again. A change of the files' set, of a reader's key, or deltas
// grown past a quarter of the file, write the file anew; the other
// readers' sections are kept, over a change of the files' set as each
// reader's policy says (Update.Carry, Section.Carried), or whole with the
// files they were made over (Update.KeepFiles, Section.Paths).

// ModelVersion is the model file's format; a file of another version is
// ignored and overwritten. Version 3's stamps hold each file's status
// change time, device and inode: version 2's, of size and mtime alone,
// would settle a same-size edit given back its mtime, and are a miss.
const ModelVersion = 3

// stampBytes is one stamp's fixed part in the file (size, modification
// and change times, device, inode, hash), its path aside: at least what
// each stamp the file's header counts takes of it.
const stampBytes = 5*8 + sha256.Size

const modelMagic = "zk-model-cache\n"

// maxSections bounds a model file's sections: zk has five.
const maxSections = 64

// Section is one reader's part of the model file.
type Section struct {
	// Name tells the reader's section from the others ("list", "lsp");
	// a save replaces the section of its name.
	Name string
	// Key is what the entries depend on besides the notes (NewKey).
	Key Key
	// Hashes holds, for each stamped file, the hash of the bytes its
	// entry was made from; zero for a file without an entry.
	Hashes [][sha256.Size]byte
	// Entries are the entries, encoded by the reader: the file's, then
	// each delta's, a later entry of a note in place of an earlier one.
	// Read from a model file, they are never to be written: they may be
	// its mapping (MapModel).
	Entries [][]byte
	// Carried says the section was made over other files than the
	// stamps, and kept by another reader's save over these
	// (Update.Carry): its entries are good by their hashes, but the
	// file's may include entries of files gone and lack those of files
	// come, so that a save of it is written anew, not appended
	// (Appendable), and a reader that reads nothing again still saves.
	// Saved by its reader, it is not.
	Carried bool
	// Paths, when set, are the files the section was made over, sorted,
	// which its Hashes are by instead of the stamps: the section was kept
	// whole over another reader's save over other files
	// (Update.KeepFiles), its entries the file's and every delta's as
	// they were (Carried is set). Nil: the stamps'.
	Paths []string
}

// Model is an open model file: its stamps with every delta applied, and
// its sections' places.
type Model struct {
	// Stamps are the vault's files as stamped, sorted by path; a note's
	// Hash is that of its bytes when stamped, zero when unknown.
	Stamps []Stamp
	// written is when the file's stamps were made, in Unix nanoseconds;
	// rewritten, when each stamp a delta changed was (a map, not a time
	// for every stamp: that was 80 KB to fault in at 10,000 files).
	written   int64
	rewritten map[int]int64

	f    *os.File
	size int64
	// data is the file mapped read-only (MapModel), never unmapped; nil
	// when it is read into memory of its own (OpenModel).
	data []byte
	// faulted is set when a read of data faulted (the file cut short
	// under the mapping): nothing more of the file is trusted.
	faulted  bool
	n        int
	dir      []dirEntry
	deltas   []delta
	deltaLen int64
}

type dirEntry struct {
	name    string
	key     Key
	carried bool
	// own: kept whole with its own files (Section.Paths), laid out as
	// ownSection reads it.
	own      bool
	off, len int64
}

// delta is one appended change: the sections' hashes and entries (the
// stamps' are applied when the file is opened).
type delta struct {
	hashes  map[string][]indexHash
	entries map[string][]byte
}

type indexHash struct {
	i    int
	hash [sha256.Size]byte
}

// Settled reports that f is the file of stamp i by its stat alone
// (Stamp.Same; see the package's comment).
func (m *Model) Settled(i int, f vault.File) bool { return settled(m.writtenAt(i), m.Stamps[i], f) }

// Kept is m as the reader of a section kept with its own files
// (Section.Paths, sorted) reads it: its stamps are those files', each
// the stamp of the same path (Settled as m's), or the path alone for a
// file m does not stamp (gone: never settled); its sections are m's.
// For reading alone: a save is m's (SaveModel).
func (m *Model) Kept(paths []string) *Model {
	k := *m
	k.Stamps, k.rewritten = make([]Stamp, len(paths)), nil
	for j, i := 0, 0; j < len(paths); j++ {
		for i < len(m.Stamps) && m.Stamps[i].Path < paths[j] {
			i++
		}
		if i == len(m.Stamps) || m.Stamps[i].Path != paths[j] {
			k.Stamps[j] = Stamp{Path: paths[j], Size: -1} // no file's size
			continue
		}
		k.Stamps[j] = m.Stamps[i]
		if w := m.writtenAt(i); w != m.written {
			if k.rewritten == nil {
				k.rewritten = map[int]int64{}
			}
			k.rewritten[j] = w
		}
	}
	return &k
}

// writtenAt is when stamp i was made.
func (m *Model) writtenAt(i int) int64 {
	if w, ok := m.rewritten[i]; ok {
		return w
	}
	return m.written
}

// header: magic, version, written, n, paths length, sections, base length.
const modelFixed = len(modelMagic) + 4 + 8 + 8 + 8 + 4 + 8

// OpenModel opens a model file and reads its stamps, every delta applied.
// A missing, unreadable or foreign file is an error; so is a file short,
// long or inconsistent anywhere, never a panic or an allocation larger
// than the file. Close it after use.
func OpenModel(file string) (*Model, error) { return openModelFile(file, false) }

// MapModel is OpenModel with the file mapped read-only rather than read:
// its sections' entries are slices of the mapping, read in place, which
// stays mapped until the process ends (strings decoded from them may be
// kept anywhere, so it is never unmapped). For a process that opens the
// file a few times (a command; the language server, once), not one that
// opens it for each request: each opening maps the file anew.
//
// Copying the file into fresh memory costs a page fault every 4 KiB;
// the page cache's pages come mapped 16 at a time, and nothing is copied.
// zk replaces the file by renaming another over it, or appends to it,
// so no zk changes a mapped file's bytes; a file cut short under the
// mapping by something else makes its pages fault, which the model's
// reads and the decoders of its entries (Guard) turn into an error, the
// cache then being damaged (and rebuilt) as any other. A string decoded
// from the mapping and read after its decoding (a command printing it)
// would still stop the process on such a fault: the file must be cut
// short in that moment, and the next command rebuilds it.
func MapModel(file string) (*Model, error) { return openModelFile(file, true) }

func openModelFile(file string, mapped bool) (*Model, error) {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	m := &Model{f: f}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	m.size = st.Size()
	if mapped && m.size >= int64(modelFixed) && m.size == int64(int(m.size)) {
		// A file that cannot be mapped (a file system without mmap) is read.
		if b, err := mapFile(f, int(m.size)); err == nil {
			m.data = b
		}
	}
	if err := m.read(); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// ModelFiles is how many files the model file stamps, from its header
// alone: a command sizes its first garbage collection by it before
// reading the file. It is bounded by the file's size as OpenModel bounds
// it (a stamp takes at least stampBytes); a missing or foreign file is an
// error.
func ModelFiles(file string) (int, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	fixed := make([]byte, modelFixed)
	if _, err := io.ReadFull(f, fixed); err != nil {
		return 0, errors.New("cache: not a zk model cache")
	}
	r := cachecodec.NewReader(fixed)
	if string(r.Take(len(modelMagic))) != modelMagic {
		return 0, errors.New("cache: not a zk model cache")
	}
	if v := r.Uint32(); v != ModelVersion {
		return 0, fmt.Errorf("cache: model format %d, not %d", v, ModelVersion)
	}
	r.Uint64() // written
	n := r.Uint64()
	if n > uint64(st.Size())/stampBytes {
		return 0, errors.New("cache: bad model header")
	}
	return int(n), nil
}

// errFault is a read of a mapped model file that faulted: the file was
// cut short under the mapping.
var errFault = errors.New("cache: the model file was cut short while read")

// Guard runs read, which reads entries of a mapped model file
// (MapModel), turning a fault on the mapping (the file cut short under
// it) into an error rather than a crash; other panics go on.
func Guard(read func() error) (err error) {
	defer recoverFault(debug.SetPanicOnFault(true), &err)
	return read()
}

// recoverFault ends a Guard: it restores the goroutine's panic-on-fault
// setting (was) and turns a fault's panic into errFault in *err.
func recoverFault(was bool, err *error) {
	debug.SetPanicOnFault(was)
	if r := recover(); r != nil {
		if _, ok := r.(interface{ Addr() uintptr }); !ok {
			panic(r)
		}
		*err = errFault
	}
}

// guard is Guard for the model's own reads: after a fault, nothing more
// of the file is trusted (no delta appended to it, none of its sections
// copied into a file written anew).
func (m *Model) guard(read func() error) error {
	if m.faulted {
		return errFault
	}
	if m.data == nil {
		return read()
	}
	err := Guard(read)
	if err == errFault {
		m.faulted = true
	}
	return err
}

// bytes are the n bytes of the file at off: a slice of the mapping, or
// read into memory of their own. Never written: they may be the mapping.
func (m *Model) bytes(off, n int64) ([]byte, error) {
	if off < 0 || n < 0 || off > m.size || n > m.size-off {
		return nil, errors.New("cache: truncated")
	}
	if m.data != nil {
		return m.data[off : off+n : off+n], nil
	}
	b := make([]byte, n)
	if _, err := m.f.ReadAt(b, off); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return b, nil
}

// Close closes the file; a mapping stays (MapModel).
func (m *Model) Close() error { return m.f.Close() }

// unmap unmaps the file, for tests that open many: nothing read from it
// may be used after.
func (m *Model) unmap() {
	if m.data != nil {
		unmapFile(m.data)
		m.data = nil
	}
}

func (m *Model) read() error { return m.guard(m.readAll) }

func (m *Model) readAll() error {
	fixed, err := m.bytes(0, int64(modelFixed))
	if err != nil {
		return errors.New("cache: not a zk model cache")
	}
	r := cachecodec.NewReader(fixed)
	if string(r.Take(len(modelMagic))) != modelMagic {
		return errors.New("cache: not a zk model cache")
	}
	if v := r.Uint32(); v != ModelVersion {
		return fmt.Errorf("cache: model format %d, not %d", v, ModelVersion)
	}
	written := int64(r.Uint64())
	n, pathsLen, nsec, baseLen := r.Uint64(), r.Uint64(), r.Uint32(), int64(r.Uint64())
	if nsec > maxSections || n > uint64(m.size)/stampBytes || pathsLen > uint64(m.size) || baseLen < 0 || baseLen > m.size {
		return errors.New("cache: bad model header")
	}
	m.n = int(n)
	dir, err := m.bytes(int64(modelFixed), min(int64(nsec)*(1+255+sha256.Size+1+16), m.size-int64(modelFixed)))
	if err != nil {
		return err
	}
	r = cachecodec.NewReader(dir)
	for range nsec {
		var e dirEntry
		e.name = string(r.Take(int(r.Byte())))
		copy(e.key[:], r.Take(sha256.Size))
		switch r.Byte() {
		case 0:
		case 1:
			e.carried = true
		case 2:
			e.carried, e.own = true, true
		default:
			return errors.New("cache: bad model directory")
		}
		e.off, e.len = int64(r.Uint64()), int64(r.Uint64())
		if r.Bad() {
			return errors.New("cache: bad model directory")
		}
		m.dir = append(m.dir, e)
	}
	stampsAt := int64(modelFixed + r.Off())
	end := stampsAt + int64(pathsLen) + int64(n)*stampBytes
	if end > baseLen {
		return errors.New("cache: truncated")
	}
	for _, e := range m.dir {
		least := int64(n) * sha256.Size
		if e.own {
			least = 8 // its head's length; its paths are its own
		}
		if e.off < end || e.len < least || e.len > baseLen-e.off {
			return errors.New("cache: bad model section")
		}
	}
	b, err := m.bytes(stampsAt, end-stampsAt)
	if err != nil {
		return err
	}
	paths := b[:pathsLen]
	col := func(k int) []byte { return b[int(pathsLen)+m.n*8*k:] } // the k-th column of 8 bytes a stamp
	sizes, mtimes, ctimes, devs, inos, hashes := col(0), col(1), col(2), col(3), col(4), col(5)
	// One string; each path is a slice of it. Read into memory of its
	// own, the bytes are the string; a mapping's are copied, the stamps
	// being read anywhere (the language server keeps the paths), where no
	// fault is turned into an error (MapModel).
	var ps string
	if m.data != nil {
		b := hugepage.Make[byte](len(paths))
		copy(b, paths)
		ps = unsafe.String(unsafe.SliceData(b), len(b))
	} else {
		ps = unsafe.String(unsafe.SliceData(paths), len(paths))
	}
	pr := cachecodec.NewReader(ps)
	// The stamps, the paths' copy and the hashes' (hashesOf) are a few
	// MB each at 100,000 files: in huge pages, they fault in a few times,
	// not once every 4 KiB (hugepage).
	m.Stamps, m.written = hugepage.Make[Stamp](m.n), written
	for i := range m.Stamps {
		m.Stamps[i] = Stamp{Path: pr.Str(),
			Size:       int64(binary.LittleEndian.Uint64(sizes[i*8:])),
			ModTime:    int64(binary.LittleEndian.Uint64(mtimes[i*8:])),
			ChangeTime: int64(binary.LittleEndian.Uint64(ctimes[i*8:])),
			Dev:        binary.LittleEndian.Uint64(devs[i*8:]),
			Ino:        binary.LittleEndian.Uint64(inos[i*8:])}
		copy(m.Stamps[i].Hash[:], hashes[i*sha256.Size:])
	}
	if !pr.Done() {
		return errors.New("cache: bad paths")
	}
	return m.readDeltas(baseLen)
}

// readDeltas reads the deltas from at to the end of the file; the first
// one damaged or cut short ends them, as if it and those after it had
// never been written.
func (m *Model) readDeltas(at int64) error {
	rest, err := m.bytes(at, m.size-at)
	if err != nil {
		return err
	}
	m.deltaLen = int64(len(rest))
	for len(rest) > 0 {
		r := cachecodec.NewReader(rest)
		l := r.Uint64()
		body := r.Take(int(min(l, uint64(len(rest)))))
		sum := r.Take(sha256.Size)
		if r.Bad() || uint64(len(body)) != l || sha256.Sum256(body) != [sha256.Size]byte(sum) {
			return nil
		}
		if !m.applyDelta(body) {
			return nil
		}
		rest = rest[r.Off():]
	}
	return nil
}

// applyDelta applies a delta's stamps and keeps its sections' changes;
// false when it does not read as one (it is then left out, and those
// after it).
func (m *Model) applyDelta(body []byte) bool {
	r := cachecodec.NewReader(body)
	written := int64(r.Uint64())
	k := int(min(r.Uint32(), uint32(len(body))))
	type stamp struct {
		i int
		s Stamp
	}
	stamps := make([]stamp, 0, min(k, len(body)/(4+stampBytes)))
	for range k {
		s := stamp{i: int(r.Uint32())}
		s.s = Stamp{Size: int64(r.Uint64()), ModTime: int64(r.Uint64()), ChangeTime: int64(r.Uint64()), Dev: r.Uint64(), Ino: r.Uint64()}
		copy(s.s.Hash[:], r.Take(sha256.Size))
		if r.Bad() || s.i >= m.n {
			return false
		}
		stamps = append(stamps, s)
	}
	d := delta{hashes: map[string][]indexHash{}, entries: map[string][]byte{}}
	nsec := r.Uint32()
	if nsec > maxSections {
		return false
	}
	for range nsec {
		name := string(r.Take(int(r.Byte())))
		c := int(r.Uint32())
		if r.Bad() || c > len(body)/(4+sha256.Size) {
			return false
		}
		hs := make([]indexHash, c)
		for j := range hs {
			hs[j].i = int(r.Uint32())
			copy(hs[j].hash[:], r.Take(sha256.Size))
			if r.Bad() || hs[j].i >= m.n {
				return false
			}
		}
		ents := r.Take(int(min(r.Uint64(), uint64(len(body)))))
		if r.Bad() {
			return false
		}
		d.hashes[name], d.entries[name] = hs, ents
	}
	if !r.Done() {
		return false
	}
	for _, s := range stamps {
		s.s.Path = m.Stamps[s.i].Path
		m.Stamps[s.i] = s.s
		if m.rewritten == nil {
			m.rewritten = map[int]int64{}
		}
		m.rewritten[s.i] = written
	}
	m.deltas = append(m.deltas, d)
	return true
}

// Section reads the section of name, every delta applied; ok false when
// the file has none.
func (m *Model) Section(name string) (s Section, ok bool, err error) {
	return m.section(name, true)
}

// Has reports whether the file has a section of name, under any key,
// without reading it.
func (m *Model) Has(name string) bool {
	return slices.ContainsFunc(m.dir, func(e dirEntry) bool { return e.name == name })
}

// Keyed reports whether the file has a section of name under key,
// without reading it.
func (m *Model) Keyed(name string, key Key) bool {
	for _, e := range m.dir {
		if e.name == name {
			return e.key == key
		}
	}
	return false
}

// SectionAt is Section with the entries the file was written with left
// in it: Entries[0] is nil, and first reads them (until Close), so that a
// reader of a few entries among many reads those (zk check after an
// edit reads the states of the notes it can change, not the 39 MB of
// every note's at 100,000 notes).
func (m *Model) SectionAt(name string) (s Section, first *io.SectionReader, ok bool, err error) {
	for _, e := range m.dir {
		if e.name == name && e.own {
			if s, first, err = m.ownSection(e, false); err != nil {
				return Section{}, nil, false, err
			}
			return s, first, true, nil
		}
	}
	s, ok, err = m.section(name, false)
	if !ok || err != nil {
		return s, nil, ok, err
	}
	for _, e := range m.dir {
		if e.name == name {
			h := int64(m.n * sha256.Size)
			first = io.NewSectionReader(m.readerAt(), e.off+h, e.len-h)
			break
		}
	}
	return s, first, true, nil
}

// readerAt reads the model file: its mapping (MapModel), whose bytes a
// reader of a whole part may take in place (inPlace), or the file.
func (m *Model) readerAt() io.ReaderAt {
	if m.data != nil {
		return mapping(m.data)
	}
	return m.f
}

// mapping is a mapped model file read as an io.ReaderAt: a read that
// faults (the file cut short under the mapping) reads nothing.
type mapping []byte

func (b mapping) ReadAt(p []byte, off int64) (n int, err error) {
	if off < 0 || off > int64(len(b)) {
		return 0, io.EOF
	}
	if err := Guard(func() error { n = copy(p, b[off:]); return nil }); err != nil {
		return 0, err
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// section is Section, with the first entries read (whole) or left nil.
func (m *Model) section(name string, whole bool) (s Section, ok bool, err error) {
	for _, e := range m.dir {
		if e.name != name {
			continue
		}
		if e.own {
			if s, _, err = m.ownSection(e, whole); err != nil {
				return Section{}, false, err
			}
			return s, true, nil
		}
		h := m.n * sha256.Size
		n := int64(h)
		if whole {
			n = e.len
		}
		var b []byte
		err := m.guard(func() error {
			var err error
			if b, err = m.bytes(e.off, n); err == nil {
				s = Section{Name: name, Key: e.key, Hashes: m.hashes(b[:h]), Entries: [][]byte{nil}, Carried: e.carried}
			}
			return err
		})
		if err != nil {
			return Section{}, false, err
		}
		if whole {
			s.Entries[0] = b[h:]
		}
		for _, d := range m.deltas {
			for _, ih := range d.hashes[name] {
				s.Hashes[ih.i] = ih.hash
			}
			if ents, ok := d.entries[name]; ok {
				s.Entries = append(s.Entries, ents)
			}
		}
		return s, true, nil
	}
	return s, false, nil
}

// A section kept whole with its own files (Update.KeepFiles) is laid
// out as: its head's length (uint64), then the head: the number of its
// files (uvarint), each one's path (uvarint length, bytes), each one's
// hash, the number of its parts (uvarint) and each part's length
// (uvarint); then the parts, one after the other: the entries of the
// file it was kept from, then each delta's. No delta is appended to it
// (Appendable): its reader writes it anew.

var errOwn = errors.New("cache: bad model section")

// ownSection reads a section kept with its own files, its parts read
// whole, or every part but the first (nil in Entries), whose place in
// the file is then first.
func (m *Model) ownSection(e dirEntry, whole bool) (s Section, first *io.SectionReader, err error) {
	err = m.guard(func() error {
		lb, err := m.bytes(e.off, 8)
		if err != nil {
			return err
		}
		hl := binary.LittleEndian.Uint64(lb)
		if hl > uint64(e.len-8) {
			return errOwn
		}
		head, err := m.bytes(e.off+8, int64(hl))
		if err != nil {
			return err
		}
		if m.data != nil {
			head = slices.Clone(head) // its paths are kept anywhere, as the stamps' (readAll)
		}
		r := cachecodec.NewReader(unsafe.String(unsafe.SliceData(head), len(head)))
		paths := make([]string, r.Count(1+sha256.Size))
		for i := range paths {
			if paths[i] = r.Str(); i > 0 && paths[i] <= paths[i-1] {
				return errOwn
			}
		}
		at := r.Off()
		r.Take(len(paths) * sha256.Size)
		lens := make([]int64, r.Count(1))
		left := e.len - 8 - int64(hl)
		for i := range lens {
			if lens[i] = int64(r.Uvarint()); lens[i] < 0 || lens[i] > left {
				return errOwn
			}
			left -= lens[i]
		}
		if !r.Done() || len(lens) == 0 || left != 0 {
			return errOwn
		}
		s = Section{Name: e.name, Key: e.key, Hashes: hashesOf(head[at : at+len(paths)*sha256.Size]), Carried: true, Paths: paths}
		off := e.off + 8 + int64(hl)
		for i, l := range lens {
			var b []byte
			if i == 0 && !whole {
				first = io.NewSectionReader(m.readerAt(), off, l)
			} else if b, err = m.bytes(off, l); err != nil {
				return err
			}
			s.Entries = append(s.Entries, b)
			off += l
		}
		return nil
	})
	if err != nil {
		return Section{}, nil, err
	}
	return s, first, nil
}

// ownPaths are stamps' paths as the head of a section kept with them
// as its own files holds them (see ownSection).
func ownPaths(stamps []Stamp) []byte {
	b := binary.AppendUvarint(make([]byte, 0, binary.MaxVarintLen64+stampPathsLen(stamps)), uint64(len(stamps)))
	for _, st := range stamps {
		b = cachecodec.AppendStr(b, st.Path)
	}
	return b
}

// ownHead is the head of a section kept with its own files, their paths
// (ownPaths), whose parts are of lens (see ownSection): made in one
// piece of its size, as it is a MB or so at 10,000 files.
func ownHead(paths []byte, hashes [][sha256.Size]byte, lens []int64) []byte {
	n := len(paths) + len(hashes)*sha256.Size + (1+len(lens))*binary.MaxVarintLen64
	b := make([]byte, 8, 8+n)
	b = append(b, paths...)
	b = append(b, hashBytes(hashes)...)
	b = binary.AppendUvarint(b, uint64(len(lens)))
	for _, l := range lens {
		b = binary.AppendUvarint(b, uint64(l))
	}
	binary.LittleEndian.PutUint64(b, uint64(len(b)-8))
	return b
}

// hashes are a section's hashes, b, as the deltas may then change them:
// b itself when it is memory of the model's own (OpenModel), a copy of
// a mapping's (MapModel).
func (m *Model) hashes(b []byte) [][sha256.Size]byte {
	if m.data != nil || len(b) < sha256.Size {
		return hashesOf(b)
	}
	return unsafe.Slice((*[sha256.Size]byte)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/sha256.Size)
}

func hashesOf(b []byte) [][sha256.Size]byte {
	out := hugepage.Make[[sha256.Size]byte](len(b) / sha256.Size)
	for i := range out {
		copy(out[i][:], b[i*sha256.Size:])
	}
	return out
}

// samePaths reports whether the file stamps the files of stamps.
func (m *Model) samePaths(stamps []Stamp) bool {
	if m == nil || m.faulted || len(stamps) != m.n {
		return false
	}
	for i := range stamps { // the file's paths, decoded, without encoding stamps' again
		if stamps[i].Path != m.Stamps[i].Path {
			return false
		}
	}
	return true
}

// Update is one reader's save: the vault's files stamped (sorted by
// path), when the walk that stamped them began, and the reader's
// sections as they now are (one, or check's two: its findings and its
// notes' states, saved together), their Entries the entries of the notes
// in Changed (all of them when the section is written anew). A save
// written anew may hold other readers' sections too, each of its own
// key (a read of every note fills the sections missing); a delta's
// sections are of one key.
type Update struct {
	Written  int64
	Stamps   []Stamp
	Sections []Section
	// Changed are the indexes of the files whose section hash changed;
	// each section's Entries holds what changed only. Nil: every file's.
	Changed []int
	// Carry says, for a save written anew over other files than the
	// model file stamps (a file added, removed or renamed), what becomes
	// of each other section there (name, under key): dropped (ok false:
	// its entries hold more of the other files than their paths), or
	// kept, its entries as they are and each hash moved to the file of
	// the same path (a file come has none), but for the old stamps drop
	// says (an entry the files that came or went change; drop may be
	// nil). Nil drops every other section. With the same files, every
	// other section is kept.
	Carry func(name string, key Key) (drop func(j int) bool, ok bool)
	// KeepFiles says, for a save written anew over other files than the
	// model file stamps, which other sections are kept whole instead,
	// with the files they were made over (Section.Paths): their hashes
	// and entries, every delta's too, as they are, for a reader whose
	// entries hold files by their place among those and which reads
	// again itself what the files that came or went change (zk check).
	// Nil, or false: as Carry says. A section kept so stays so over
	// every save of another reader, until its reader saves it.
	KeepFiles func(name string) bool
}

// Appendable reports whether a reader's save of its sections names under
// key, with the files stamped as stamps, can be a delta: m stamps the
// same files, has every section under the same key, and its deltas are
// small. m may be nil (no file yet, or none readable).
func (m *Model) Appendable(stamps []Stamp, key Key, names ...string) bool {
	if !m.samePaths(stamps) || m.deltaLen >= m.size/4 || len(m.deltas) >= 64 {
		return false
	}
	for _, name := range names {
		if !slices.ContainsFunc(m.dir, func(e dirEntry) bool { return e.name == name && e.key == key && !e.carried }) {
			return false
		}
	}
	return true
}

// SaveModel writes u into the model file m was opened from (m may be
// nil): as a delta when u.Changed is set (m.Appendable said it can be),
// otherwise anew (see the package's comment on the model file).
func SaveModel(file string, m *Model, u Update) error {
	if len(u.Sections) == 0 || len(u.Sections) > maxSections {
		return errors.New("cache: no section to save")
	}
	for i, s := range u.Sections {
		if len(s.Hashes) != len(u.Stamps) {
			return errors.New("cache: a section's hashes are not the stamps'")
		}
		if len(s.Name) > 255 {
			return errors.New("cache: section name too long")
		}
		if slices.ContainsFunc(u.Sections[:i], func(o Section) bool { return o.Name == s.Name }) {
			return errors.New("cache: a section saved twice")
		}
		if u.Changed != nil && s.Key != u.Sections[0].Key {
			return errors.New("cache: a delta's sections are of one key")
		}
	}
	if u.Changed != nil {
		names := make([]string, len(u.Sections))
		for i, s := range u.Sections {
			names[i] = s.Name
		}
		if !m.Appendable(u.Stamps, u.Sections[0].Key, names...) {
			return errors.New("cache: a delta to a model it does not fit")
		}
		return m.appendDelta(u)
	}
	return saveModel(file, m, u)
}

// appendDelta appends u as a delta, in one write.
func (m *Model) appendDelta(u Update) error {
	var body []byte
	body = binary.LittleEndian.AppendUint64(body, uint64(u.Written))
	var changed []int
	for i, st := range u.Stamps {
		// A stamp too recent for its time to be trusted is dated again by
		// this delta, as a file written anew would date it. (The paths
		// are the same: Appendable compared them.)
		was := m.Stamps[i]
		if !st.sameStat(was) || st.Hash != was.Hash || st.racy(m.writtenAt(i)) {
			changed = append(changed, i)
		}
	}
	body = binary.LittleEndian.AppendUint32(body, uint32(len(changed)))
	for _, i := range changed {
		st := u.Stamps[i]
		body = binary.LittleEndian.AppendUint32(body, uint32(i))
		body = binary.LittleEndian.AppendUint64(body, uint64(st.Size))
		body = binary.LittleEndian.AppendUint64(body, uint64(st.ModTime))
		body = binary.LittleEndian.AppendUint64(body, uint64(st.ChangeTime))
		body = binary.LittleEndian.AppendUint64(body, st.Dev)
		body = binary.LittleEndian.AppendUint64(body, st.Ino)
		body = append(body, st.Hash[:]...)
	}
	body = binary.LittleEndian.AppendUint32(body, uint32(len(u.Sections)))
	for _, s := range u.Sections {
		body = append(body, byte(len(s.Name)))
		body = append(body, s.Name...)
		body = binary.LittleEndian.AppendUint32(body, uint32(len(u.Changed)))
		for _, i := range u.Changed {
			body = binary.LittleEndian.AppendUint32(body, uint32(i))
			body = append(body, s.Hashes[i][:]...)
		}
		var ents []byte
		for _, e := range s.Entries {
			ents = append(ents, e...)
		}
		body = binary.LittleEndian.AppendUint64(body, uint64(len(ents)))
		body = append(body, ents...)
	}
	b := binary.LittleEndian.AppendUint64(make([]byte, 0, 8+len(body)+sha256.Size), uint64(len(body)))
	b = append(b, body...)
	sum := sha256.Sum256(body)
	b = append(b, sum[:]...)
	// One write to a file opened to append: a reader sees it whole or,
	// cut short by a crash, fails its checksum and ignores it.
	if _, err := m.f.Write(b); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// saveModel writes the model file anew: u's stamps and section, and the
// other sections of m when it stamps the same files (their entries
// changed by a delta dropped, to be read again: a delta's entries are the
// reader's to merge), atomically (writeFile). It is written
// piece by piece: the other sections' entries are copied from m's file,
// not read into memory, and no copy of the whole file is built beside the
// entries it is made from (at 100,000 notes that copy was about 70 MB of
// a cold language server's peak, and the garbage collector lets the heap
// grow to several times what is live).
func saveModel(file string, m *Model, u Update) error {
	// Each section is written as it is named in the directory (secs, but
	// their Entries), then its pieces one after the other: its hashes and
	// entries, or its head and parts when kept with its own files.
	var secs []dirEntry
	var pieces [][]piece
	add := func(e dirEntry, ps ...piece) {
		secs, pieces = append(secs, e), append(pieces, ps)
	}
	same := m.samePaths(u.Stamps)
	var moved []int // a stamp's index among u's, -1 for a file gone: when carried to other files
	if !same && m != nil && !m.faulted && u.Carry != nil {
		moved = make([]int, len(m.Stamps))
		for j, i := 0, 0; j < len(m.Stamps); j++ {
			for i < len(u.Stamps) && u.Stamps[i].Path < m.Stamps[j].Path {
				i++
			}
			moved[j] = -1
			if i < len(u.Stamps) && u.Stamps[i].Path == m.Stamps[j].Path {
				moved[j] = i
			}
		}
	}
	keep := func(name string) bool { return u.KeepFiles != nil && u.KeepFiles(name) }
	var paths []byte // m's stamps' paths, for the sections kept with them (ownPaths), once
	for _, e := range m.otherSections(u.Sections) {
		own := dirEntry{name: e.name, key: e.key, carried: true, own: true}
		switch {
		case e.own && (same || keep(e.name)): // as it is, its own files and all
			add(own, piece{r: io.NewSectionReader(m.f, e.off, e.len)})
			continue
		case e.own:
			continue
		case !same && keep(e.name):
			s, first, ok, err := m.SectionAt(e.name)
			if err != nil || !ok {
				continue
			}
			if paths == nil {
				paths = ownPaths(m.Stamps)
			}
			lens, ps := []int64{first.Size()}, []piece{{}, {r: first}}
			for _, b := range s.Entries[1:] {
				lens, ps = append(lens, int64(len(b))), append(ps, piece{b: b})
			}
			ps[0].b = ownHead(paths, s.Hashes, lens)
			add(own, ps...)
			continue
		case !same && moved == nil:
			continue
		}
		var drop func(int) bool
		if !same {
			var ok bool
			if drop, ok = u.Carry(e.name, e.key); !ok {
				continue
			}
		}
		h := int64(m.n * sha256.Size)
		b := make([]byte, h)
		if _, err := m.f.ReadAt(b, e.off); err != nil {
			continue
		}
		hs := hashesOf(b)
		for _, d := range m.deltas {
			for _, ih := range d.hashes[e.name] {
				hs[ih.i] = [sha256.Size]byte{}
			}
		}
		if !same { // the hashes of the files of the same paths, but those drop says
			to := make([][sha256.Size]byte, len(u.Stamps))
			for j, i := range moved {
				if i >= 0 && (drop == nil || !drop(j)) {
					to[i] = hs[j]
				}
			}
			hs = to
		}
		add(dirEntry{name: e.name, key: e.key, carried: e.carried || !same},
			piece{b: hashBytes(hs)}, piece{r: io.NewSectionReader(m.f, e.off+h, e.len-h)})
	}
	for _, s := range u.Sections {
		ps := []piece{{b: hashBytes(s.Hashes)}}
		for _, e := range s.Entries {
			ps = append(ps, piece{b: e})
		}
		add(dirEntry{name: s.Name, key: s.Key, carried: s.Carried}, ps...)
	}
	n := len(u.Stamps)
	pathsLen := stampPathsLen(u.Stamps)
	dirLen := 0
	for _, x := range secs {
		dirLen += 1 + len(x.name) + sha256.Size + 1 + 16
	}
	at := int64(modelFixed + dirLen + pathsLen + n*stampBytes)
	for i := range secs {
		secs[i].off = at
		for _, p := range pieces[i] {
			secs[i].len += p.size()
		}
		at += secs[i].len
	}
	head := make([]byte, 0, modelFixed+dirLen)
	head = append(head, modelMagic...)
	head = binary.LittleEndian.AppendUint32(head, ModelVersion)
	head = binary.LittleEndian.AppendUint64(head, uint64(u.Written))
	head = binary.LittleEndian.AppendUint64(head, uint64(n))
	head = binary.LittleEndian.AppendUint64(head, uint64(pathsLen))
	head = binary.LittleEndian.AppendUint32(head, uint32(len(secs)))
	head = binary.LittleEndian.AppendUint64(head, uint64(at))
	for _, x := range secs {
		head = append(head, byte(len(x.name)))
		head = append(head, x.name...)
		head = append(head, x.key[:]...)
		kind := byte(0)
		switch {
		case x.own:
			kind = 2
		case x.carried:
			kind = 1
		}
		head = append(head, kind)
		head = binary.LittleEndian.AppendUint64(head, uint64(x.off))
		head = binary.LittleEndian.AppendUint64(head, uint64(x.len))
	}
	fill := func(w io.Writer) error {
		ew := &errWriter{w: w}
		ew.write(head)
		ew.stamps(u.Stamps)
		for _, ps := range pieces {
			for _, p := range ps {
				if p.r == nil {
					ew.write(p.b)
				} else if ew.err == nil {
					ew.err = copyPiece(w, p.r)
				}
			}
		}
		return ew.err
	}
	return writeFile(file, fill)
}

// otherSections are the sections of m, if it can be trusted, that are
// not among secs (those saved now).
func (m *Model) otherSections(secs []Section) []dirEntry {
	if m == nil || m.faulted {
		return nil
	}
	var out []dirEntry
	for _, e := range m.dir {
		if !slices.ContainsFunc(secs, func(s Section) bool { return s.Name == e.name }) {
			out = append(out, e)
		}
	}
	return out
}

// copyPiece copies r's bytes, a part of the model file, to w: from the
// file's descriptor, which the kernel copies from file to file where it
// can (copy_file_range, through bufio's and os.File's ReadFrom), or from
// its mapping, not read into memory and written again; the other sections are most of a
// save after a file came or went (some 30 MB at 10,000 notes). An error
// when fewer bytes are there.
func copyPiece(w io.Writer, r *io.SectionReader) error {
	src := io.Reader(io.NewSectionReader(r, 0, r.Size()))
	switch outer, off, n := r.Outer(); x := outer.(type) {
	case *os.File:
		if _, err := x.Seek(off, io.SeekStart); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
		src = &io.LimitedReader{R: x, N: n}
	case mapping: // written from the mapping: a fault is an error (Guard)
		if b, ok := inPlace(r, n); ok {
			return Guard(func() error {
				if _, err := w.Write(b); err != nil {
					return fmt.Errorf("cache: %w", err)
				}
				return nil
			})
		}
	}
	n, err := io.Copy(w, src)
	if err == nil && n != r.Size() {
		err = errors.New("cache: truncated")
	}
	return err
}

// A piece is bytes of a section to write: b, or r's (a part of the
// model file written anew, copied rather than read into memory).
type piece struct {
	b []byte
	r *io.SectionReader
}

func (p piece) size() int64 {
	if p.r != nil {
		return p.r.Size()
	}
	return int64(len(p.b))
}

// hashBytes are hashes as the bytes they are, not a copy.
func hashBytes(hashes [][sha256.Size]byte) []byte {
	if len(hashes) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(hashes))), len(hashes)*sha256.Size)
}

// writeFile writes a cache file whole, atomically, from what fill
// writes, making its folder (private to the user) when it has none.
func writeFile(file string, fill func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	sweep(filepath.Dir(file))
	if err := atomicfile.WriteFrom(file, 0o600, fill); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// tempMaxAge is how old a temporary file in the model files' folder is
// before it is taken for a killed writer's whatever its pid says (a pid
// reused).
const tempMaxAge = 10 * time.Minute

// sweep removes from dir the temporary files of writers killed mid-save:
// a signal's grace ends a command whose save of a model file of hundreds
// of megabytes has not finished (100,000 notes), and each such file
// stayed in the user's cache folder for good.
func sweep(dir string) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return
	}
	defer root.Close()
	atomicfile.Sweep(root, ".", time.Now(), tempMaxAge)
}

// stampPathsLen is the length of the stamps' paths as stamps writes
// them, which a file's head records before they are written.
func stampPathsLen(stamps []Stamp) int {
	var scratch [binary.MaxVarintLen64]byte
	n := 0
	for _, st := range stamps {
		n += len(binary.AppendUvarint(scratch[:0], uint64(len(st.Path)))) + len(st.Path)
	}
	return n
}

// stamps writes stamps as the model file holds them: every path
// (length-prefixed), then every size, every modification time, every
// change time, device, inode and every hash, each column read in one
// piece. They are written a buffer at a time, not a
// write a field (50,000 writes at 10,000 files, and a copy of each stamp
// made on the heap to write its hash from).
func (e *errWriter) stamps(stamps []Stamp) {
	buf := make([]byte, 0, 32<<10)
	room := func(n int) { // written out first when n more bytes do not fit
		if len(buf)+n > cap(buf) {
			e.write(buf)
			buf = buf[:0]
		}
	}
	for i := range stamps {
		p := stamps[i].Path
		room(binary.MaxVarintLen64 + len(p))
		buf = append(binary.AppendUvarint(buf, uint64(len(p))), p...)
	}
	for i := range stamps {
		room(8)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(stamps[i].Size))
	}
	for _, field := range []func(*Stamp) uint64{
		func(s *Stamp) uint64 { return uint64(s.ModTime) },
		func(s *Stamp) uint64 { return uint64(s.ChangeTime) },
		func(s *Stamp) uint64 { return s.Dev },
		func(s *Stamp) uint64 { return s.Ino },
	} {
		for i := range stamps {
			room(8)
			buf = binary.LittleEndian.AppendUint64(buf, field(&stamps[i]))
		}
	}
	for i := range stamps {
		room(sha256.Size)
		buf = append(buf, stamps[i].Hash[:]...)
	}
	e.write(buf)
}

// errWriter keeps a writer's first error and writes nothing after it.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) write(p []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
}
