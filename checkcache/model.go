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
	"syscall"
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
// reader's policy says (Update.Carry, Section.Carried).

// ModelVersion is the model file's format; a file of another version is
// ignored and overwritten.
const ModelVersion = 2

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
	name     string
	key      Key
	carried  bool
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

// Settled reports that f is the file of stamp i by its size and
// modification time alone (see the package's comment).
func (m *Model) Settled(i int, f vault.File) bool { return settled(m.writtenAt(i), m.Stamps[i], f) }

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
		if b, err := syscall.Mmap(int(f.Fd()), 0, int(m.size), syscall.PROT_READ, syscall.MAP_SHARED); err == nil {
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
// it (a stamp takes at least 48 bytes); a missing or foreign file is an
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
	if n > uint64(st.Size())/(16+sha256.Size) {
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
		syscall.Munmap(m.data)
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
	if nsec > maxSections || n > uint64(m.size)/(16+sha256.Size) || pathsLen > uint64(m.size) || baseLen < 0 || baseLen > m.size {
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
	end := stampsAt + int64(pathsLen) + int64(n)*(16+sha256.Size)
	if end > baseLen {
		return errors.New("cache: truncated")
	}
	for _, e := range m.dir {
		if e.off < end || e.len < int64(n)*sha256.Size || e.len > baseLen-e.off {
			return errors.New("cache: bad model section")
		}
	}
	b, err := m.bytes(stampsAt, end-stampsAt)
	if err != nil {
		return err
	}
	paths := b[:pathsLen]
	sizes, mtimes, hashes := b[pathsLen:], b[int(pathsLen)+m.n*8:], b[int(pathsLen)+m.n*16:]
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
			Size:    int64(binary.LittleEndian.Uint64(sizes[i*8:])),
			ModTime: int64(binary.LittleEndian.Uint64(mtimes[i*8:]))}
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
		i         int
		size, mod int64
		hash      []byte
	}
	stamps := make([]stamp, 0, min(k, len(body)/(4+16+sha256.Size)))
	for range k {
		s := stamp{i: int(r.Uint32()), size: int64(r.Uint64()), mod: int64(r.Uint64()), hash: r.Take(sha256.Size)}
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
		m.Stamps[s.i].Size, m.Stamps[s.i].ModTime = s.size, s.mod
		copy(m.Stamps[s.i].Hash[:], s.hash)
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

// SectionAt is Section with the entries the file was written with left
// in it: Entries[0] is nil, and first reads them (until Close), so that a
// reader of a few entries among many reads those (zk check after an
// edit reads the states of the notes it can change, not the 39 MB of
// every note's at 100,000 notes).
func (m *Model) SectionAt(name string) (s Section, first *io.SectionReader, ok bool, err error) {
	s, ok, err = m.section(name, false)
	if !ok || err != nil {
		return s, nil, ok, err
	}
	for _, e := range m.dir {
		if e.name == name {
			h := int64(m.n * sha256.Size)
			first = io.NewSectionReader(m.f, e.off+h, e.len-h)
			break
		}
	}
	return s, first, true, nil
}

// section is Section, with the first entries read (whole) or left nil.
func (m *Model) section(name string, whole bool) (s Section, ok bool, err error) {
	for _, e := range m.dir {
		if e.name != name {
			continue
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
// in Changed (all of them when the section is written anew).
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
		if s.Key != u.Sections[0].Key || slices.ContainsFunc(u.Sections[:i], func(o Section) bool { return o.Name == s.Name }) {
			return errors.New("cache: sections saved together are of one key and each once")
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
		if st.Size != was.Size || st.ModTime != was.ModTime || st.Hash != was.Hash || st.ModTime >= m.writtenAt(i)-int64(RacyWindow) {
			changed = append(changed, i)
		}
	}
	body = binary.LittleEndian.AppendUint32(body, uint32(len(changed)))
	for _, i := range changed {
		st := u.Stamps[i]
		body = binary.LittleEndian.AppendUint32(body, uint32(i))
		body = binary.LittleEndian.AppendUint64(body, uint64(st.Size))
		body = binary.LittleEndian.AppendUint64(body, uint64(st.ModTime))
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
	secs := []Section{}
	var from []*io.SectionReader // the entries of secs[i] in m's file; nil for u's
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
	if same || moved != nil {
		for _, e := range m.dir {
			if slices.ContainsFunc(u.Sections, func(s Section) bool { return s.Name == e.name }) {
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
			s := Section{Name: e.name, Key: e.key, Hashes: hashesOf(b), Carried: e.carried || !same}
			for _, d := range m.deltas {
				for _, ih := range d.hashes[e.name] {
					s.Hashes[ih.i] = [sha256.Size]byte{}
				}
			}
			if !same { // the hashes of the files of the same paths, but those drop says
				hs := make([][sha256.Size]byte, len(u.Stamps))
				for j, i := range moved {
					if i >= 0 && (drop == nil || !drop(j)) {
						hs[i] = s.Hashes[j]
					}
				}
				s.Hashes = hs
			}
			secs = append(secs, s)
			from = append(from, io.NewSectionReader(m.f, e.off+h, e.len-h))
		}
	}
	for _, s := range u.Sections {
		secs = append(secs, s)
		from = append(from, nil)
	}
	entriesLen := func(i int) int64 {
		if from[i] != nil {
			return from[i].Size()
		}
		l := int64(0)
		for _, e := range secs[i].Entries {
			l += int64(len(e))
		}
		return l
	}
	n := len(u.Stamps)
	pathsLen := stampPathsLen(u.Stamps)
	dirLen := 0
	for _, x := range secs {
		dirLen += 1 + len(x.Name) + sha256.Size + 1 + 16
	}
	at := int64(modelFixed + dirLen + pathsLen + n*(16+sha256.Size))
	size := at
	for i := range secs {
		size += int64(n*sha256.Size) + entriesLen(i)
	}
	head := make([]byte, 0, modelFixed+dirLen)
	head = append(head, modelMagic...)
	head = binary.LittleEndian.AppendUint32(head, ModelVersion)
	head = binary.LittleEndian.AppendUint64(head, uint64(u.Written))
	head = binary.LittleEndian.AppendUint64(head, uint64(n))
	head = binary.LittleEndian.AppendUint64(head, uint64(pathsLen))
	head = binary.LittleEndian.AppendUint32(head, uint32(len(secs)))
	head = binary.LittleEndian.AppendUint64(head, uint64(size))
	for i, x := range secs {
		head = append(head, byte(len(x.Name)))
		head = append(head, x.Name...)
		head = append(head, x.Key[:]...)
		carried := byte(0)
		if x.Carried {
			carried = 1
		}
		head = append(head, carried)
		l := int64(n*sha256.Size) + entriesLen(i)
		head = binary.LittleEndian.AppendUint64(head, uint64(at))
		head = binary.LittleEndian.AppendUint64(head, uint64(l))
		at += l
	}
	fill := func(w io.Writer) error {
		ew := &errWriter{w: w}
		ew.write(head)
		ew.stamps(u.Stamps)
		for i, x := range secs {
			for _, h := range x.Hashes {
				ew.write(h[:])
			}
			if from[i] != nil {
				if ew.err == nil {
					_, ew.err = io.Copy(w, from[i])
				}
				continue
			}
			for _, e := range x.Entries {
				ew.write(e)
			}
		}
		return ew.err
	}
	return writeFile(file, fill)
}

// writeFile writes a cache file whole, atomically, from what fill
// writes, making its folder (private to the user) when it has none.
func writeFile(file string, fill func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if err := atomicfile.WriteFrom(file, 0o600, fill); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
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
// (length-prefixed), then every size, every time and every hash, each
// column read in one piece.
func (e *errWriter) stamps(stamps []Stamp) {
	var scratch [binary.MaxVarintLen64]byte
	for _, st := range stamps {
		e.write(binary.AppendUvarint(scratch[:0], uint64(len(st.Path))))
		e.writeString(st.Path)
	}
	for _, st := range stamps {
		e.write(binary.LittleEndian.AppendUint64(scratch[:0], uint64(st.Size)))
	}
	for _, st := range stamps {
		e.write(binary.LittleEndian.AppendUint64(scratch[:0], uint64(st.ModTime)))
	}
	for _, st := range stamps {
		e.write(st.Hash[:])
	}
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

func (e *errWriter) writeString(s string) {
	if e.err == nil {
		_, e.err = io.WriteString(e.w, s)
	}
}
