package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
	"unsafe"

	"github.com/zk-claims/zk/checkcache"
	"github.com/zk-claims/zk/internal/cachecodec"
	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/query"
)

// GraphFormat is how a front end prints a note's edges: the graph's
// section of the model file holds each note's edges as it prints them,
// so that an unchanged vault's graph is copied out rather than decoded
// and printed edge by edge (zk graph --format json, 16 MB at 10,000
// notes).
type GraphFormat struct {
	// Name names the format in the section's key: another format, or
	// another version of one, is another key.
	Name string
	// AppendEdges appends a note's edges as printed to b, each after
	// the separator printed between two edges.
	AppendEdges func(b []byte, edges []vault.Edge) []byte
	// Lead is the length of that separator, which the graph's first
	// edge goes without.
	Lead int
}

// GraphText is every note's edges as format prints them, with what the
// graph's nodes are made of. Close it after use.
type GraphText struct {
	// Files are the vault's files; Notes the notes read, in path order.
	Files []vault.File
	Notes []string
	// Others are, note by note in edge order, the targets of the edges
	// that do not resolve to a note's path (vault.File.IsNote): a
	// resolved one is a file unless it is a note, an unresolved one's id
	// is the path it names.
	Others []GraphTarget

	// texts are each note's edges as printed, in Notes' order ("" for a
	// note of none), when read into memory; else from holds where they
	// are.
	texts []string
	from  *graphSource
	lead  int
}

// WriteEdges writes every note's edges as printed, in note order, the
// first without its separator; wrote is false when there is none.
func (g GraphText) WriteEdges(w io.Writer) (wrote bool, err error) {
	if g.from != nil {
		return g.from.write(w, g.lead)
	}
	skip := g.lead
	for _, t := range g.texts {
		if t == "" {
			continue
		}
		if _, err := io.WriteString(w, t[min(skip, len(t)):]); err != nil {
			return true, err
		}
		skip, wrote = 0, true
	}
	return wrote, nil
}

// Close releases the model file the edges are copied from, if any.
func (g GraphText) Close() error {
	if g.from != nil {
		return g.from.m.Close()
	}
	return nil
}

// GraphTarget is an edge's target that may be a node other than a note.
type GraphTarget struct {
	ID       string
	Resolved bool
}

// graphEntry is a note's part of GraphText, as its section keeps it.
type graphEntry struct {
	path, text string
	others     []GraphTarget
}

// graphPurpose names the graph's section in its key, with the format's
// name.
const graphPurpose = "zk graph text v2"

// graphInputs: links resolve against the files, which the stamps hold;
// a format's text is its build's.
const graphInputs = InBuild

// GraphText is the vault's graph as format prints its edges, from the
// graph's section of the model file (its folder "graph"): a note whose
// bytes are those its entry was made from keeps it; a note changed is
// read again, alone (graphInputs). The text is printed
// as read: an entry holding a byte below space but a line feed, invalid
// UTF-8 or a line or paragraph separator is a damaged section, and every
// note is read again. ok is false when not every note of the files could
// be read: a front end then makes the graph from the details instead.
// When every note keeps its entry, the texts are not read into memory:
// GraphText.WriteEdges copies them from the file (graphSource).
func (w *Workspace) GraphText(ctx context.Context, format GraphFormat) (g GraphText, ok bool, err error) {
	files, _, err := w.Vault.Files(ctx)
	if err != nil {
		return GraphText{}, false, err
	}
	p := openPerNote(w, graphNote(format))
	if g, ok := streamGraph(p, files); ok {
		g.lead = format.Lead
		return g, true, nil
	}
	one := p.c.one
	entries, err := p.notes(ctx, files, func(reuse func(string) (graphEntry, bool), hashed func(*vault.Note)) ([]graphEntry, error) {
		// A note read again is made its entry as the fill makes it: its
		// edges alone, not its details (whose falsifiers' standing the
		// graph never prints).
		return query.ReadEach(ctx, w.Vault, files, reuse, hashed, func(n *vault.Note, r *vault.Resolver) graphEntry {
			return one(n, func() *vault.Resolver { return r })
		})
	})
	if err != nil {
		return GraphText{}, false, err
	}
	noteFiles := 0
	for _, f := range files {
		if f.IsNote() {
			noteFiles++
		}
	}
	g = GraphText{Files: files, Notes: make([]string, len(entries)), texts: make([]string, len(entries)), lead: format.Lead}
	for i, e := range entries {
		g.Notes[i], g.texts[i] = e.path, e.text
		g.Others = append(g.Others, e.others...)
	}
	return g, noteFiles == len(entries), nil
}

// graphSource is where an unchanged graph's texts are: the model file's
// graph section as written (first), with the entries of notes read again
// since in memory (a delta's). segs are the texts in note order: ranges
// of first (the texts of notes one after another are one range) and
// texts held in memory.
type graphSource struct {
	m     *checkcache.Model
	first *io.SectionReader
	segs  []graphSeg
	buf   []byte // the buffer both copies go through
}

// buffer is the buffer the texts are copied through, made once.
func (s *graphSource) buffer() []byte {
	if s.buf == nil {
		s.buf = make([]byte, graphCopyBuf)
	}
	return s.buf
}

// graphSeg is n bytes of first from off, or, when text is set, text.
type graphSeg struct {
	off, n int64
	text   string
}

// graphCopyBuf is the size of the buffer a graph's texts are copied
// through, twice (checked, then written): a buffer used again rather
// than 16 MB of fresh memory at 10,000 notes, where each page faulted in
// costs more than copying it.
const graphCopyBuf = 256 << 10

// streamGraph is the graph from p's section when it is current for every
// note of files and nothing is to be written (every stamp settled, every
// note's entry made from its bytes as stamped): its texts are left in
// the file, checked once to be printed as they are, and copied out by
// WriteEdges. The file's entries are never written in place (a save
// writes the file anew or appends), so the open file holds the bytes
// checked. False: p.notes reads the graph as ever.
func streamGraph(p *perNoteCache[graphEntry], files []vault.File) (GraphText, bool) {
	m := p.m
	if m == nil || p.err != nil || len(m.Stamps) != len(files) {
		return GraphText{}, false
	}
	sec, first, ok, err := m.SectionAt(p.c.folder)
	if err != nil || !ok || sec.Key != p.key || len(sec.Hashes) != len(files) {
		return GraphText{}, false
	}
	for i, f := range files {
		s := m.Stamps[i]
		switch {
		case s.Path != f.Path:
			return GraphText{}, false
		case !f.IsNote():
			if !m.Settled(i, f) && (s.Hash != [sha256.Size]byte{} || !s.Same(f)) {
				return GraphText{}, false // to stamp again
			}
		case !m.Settled(i, f) || s.Hash == [sha256.Size]byte{} || sec.Hashes[i] != s.Hash:
			return GraphText{}, false
		}
	}
	base, err := readGraphHead(first)
	if err != nil {
		return GraphText{}, false
	}
	// The entries of notes read again since, the latest of each.
	var again map[string]graphEntry
	for _, b := range sec.Entries[1:] {
		es, err := decodeGraphEntries(string(b))
		if err != nil {
			return GraphText{}, false
		}
		if again == nil {
			again = make(map[string]graphEntry, len(es))
		}
		for _, e := range es {
			again[e.path] = e
		}
	}
	src := &graphSource{m: m, first: first}
	notes, others := 0, 0 // each slice sized once
	for _, f := range files {
		if f.IsNote() {
			notes++
		}
	}
	for _, e := range base.entries {
		others += len(e.others)
	}
	g := GraphText{Files: files, from: src, Notes: make([]string, 0, notes), Others: make([]GraphTarget, 0, others)}
	j := 0 // the next of base's entries
	for _, f := range files {
		if !f.IsNote() {
			continue
		}
		for j < len(base.entries) && base.entries[j].path < f.Path {
			j++ // read again since (a note unreadable then): a delta holds it
		}
		fromBase := j < len(base.entries) && base.entries[j].path == f.Path
		if e, ok := again[f.Path]; ok {
			g.Others = append(g.Others, e.others...)
			src.add(graphSeg{text: e.text})
		} else if fromBase {
			e := base.entries[j]
			g.Others = append(g.Others, e.others...)
			src.add(graphSeg{off: e.off, n: e.n})
		} else {
			return GraphText{}, false // no entry: a note to read
		}
		if fromBase {
			j++
		}
		g.Notes = append(g.Notes, f.Path)
	}
	if !src.printable() {
		return GraphText{}, false
	}
	p.m = nil // g's now: not closed by p
	return g, true
}

// add appends s, a range that follows the last one joined to it.
func (s *graphSource) add(seg graphSeg) {
	if seg.text == "" && seg.n == 0 {
		return
	}
	if k := len(s.segs) - 1; seg.text == "" && k >= 0 && s.segs[k].text == "" && s.segs[k].off+s.segs[k].n == seg.off {
		s.segs[k].n += seg.n
		return
	}
	s.segs = append(s.segs, seg)
}

// printable reports whether the texts are printed as they are
// (printedAsIs), read a buffer at a time, each buffer cut before a
// character it holds only part of.
func (s *graphSource) printable() bool {
	buf := s.buffer()
	for _, seg := range s.segs {
		if seg.text != "" {
			if !printedAsIs(seg.text) {
				return false
			}
			continue
		}
		carry := 0
		for off, left := seg.off, seg.n; left > 0; {
			k := min(left, int64(len(buf)-carry))
			if _, err := s.first.ReadAt(buf[carry:carry+int(k)], off); err != nil {
				return false
			}
			off, left = off+k, left-k
			end := carry + int(k)
			cut := end
			if left > 0 {
				cut = runeCut(buf[:end])
			}
			if !printedAsIs(unsafe.String(unsafe.SliceData(buf), cut)) {
				return false
			}
			carry = copy(buf, buf[cut:end])
		}
	}
	return true
}

// runeCut is where b is cut so as not to split its last character: before
// a last character's first byte whose other bytes b does not hold.
func runeCut(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if !utf8.RuneStart(b[i]) {
			continue
		}
		if !utf8.FullRune(b[i:]) {
			return i
		}
		break
	}
	return len(b)
}

// write copies the texts to w, the first lead bytes left out.
func (s *graphSource) write(w io.Writer, lead int) (wrote bool, err error) {
	buf := s.buffer()
	skip := lead
	put := func(b []byte) error {
		if len(b) <= skip {
			skip -= len(b)
			return nil
		}
		b, skip, wrote = b[skip:], 0, true
		_, err := w.Write(b)
		return err
	}
	for _, seg := range s.segs {
		if seg.text != "" {
			if err := put([]byte(seg.text)); err != nil {
				return wrote, err
			}
			continue
		}
		for off, left := seg.off, seg.n; left > 0; {
			k := min(left, int64(len(buf)))
			if _, err := s.first.ReadAt(buf[:k], off); err != nil {
				return wrote, fmt.Errorf("cache: %w", err)
			}
			if err := put(buf[:k]); err != nil {
				return wrote, err
			}
			off, left = off+k, left-k
		}
	}
	return wrote, nil
}

// graphNote is how the graph's entries in format are cached.
func graphNote(format GraphFormat) perNote[graphEntry] {
	return perNote[graphEntry]{
		folder: "graph", purpose: graphPurpose + "\x00" + format.Name, inputs: graphInputs,
		encode:     func(es []graphEntry) ([]byte, error) { return encodeGraphEntries(es), nil },
		decode:     func(b []byte) ([]graphEntry, error) { return decodeGraphEntries(string(b)) },
		decodeText: decodeGraphEntries,
		path:       func(e graphEntry) string { return e.path },
		// GraphText's read and the fill's: the note's edges, printed.
		one: func(n *vault.Note, r func() *vault.Resolver) graphEntry {
			return newGraphEntry(n.Path, vault.NoteEdges(n, r()), format)
		},
		names: true, // its edges' targets
	}
}

// newGraphEntry is a note's entry: its edges as format prints them, and
// its edges' targets that are not a note's path.
func newGraphEntry(p string, edges []vault.Edge, format GraphFormat) graphEntry {
	e := graphEntry{path: p, text: string(format.AppendEdges(nil, edges))}
	for _, x := range edges {
		id := x.To
		if !x.Resolved() {
			id = x.Path
		} else if (vault.File{Path: id}).IsNote() {
			continue
		}
		e.others = append(e.others, GraphTarget{ID: id, Resolved: x.Resolved()})
	}
	return e
}

// graphMagic opens the encoding of graph entries; another version is a
// miss.
const graphMagic = "zk-graph-text\x02"

// The encoding of graph entries: graphMagic, the count of entries and
// the length of their heads, then each entry's head (its path, the
// length of its text, its other targets), then every text, one after the
// other: an unchanged graph reads the heads and copies the texts out
// (streamGraph).

func encodeGraphEntries(es []graphEntry) []byte {
	var head []byte
	texts := 0
	for _, e := range es {
		head = cachecodec.AppendStr(head, e.path)
		head = binary.AppendUvarint(head, uint64(len(e.text)))
		head = binary.AppendUvarint(head, uint64(len(e.others)))
		for _, o := range e.others {
			k := byte(0)
			if o.Resolved {
				k = 1
			}
			head = append(head, k)
			head = cachecodec.AppendStr(head, o.ID)
		}
		texts += len(e.text)
	}
	b := append(make([]byte, 0, len(graphMagic)+2*binary.MaxVarintLen64+len(head)+texts), graphMagic...)
	b = binary.AppendUvarint(b, uint64(len(es)))
	b = binary.AppendUvarint(b, uint64(len(head)))
	b = append(b, head...)
	for _, e := range es {
		b = append(b, e.text...)
	}
	return b
}

var errGraphEntries = errors.New("damaged graph entries")

// graphHead is the heads of a graph section's entries: each one's path,
// other targets, and text as its place among the texts.
type graphHead struct {
	entries []graphHeadEntry
	// texts is where the texts begin, the heads' bytes and the magic
	// before them.
	texts int64
}

type graphHeadEntry struct {
	path   string
	off, n int64 // the text's place, from the encoding's start
	others []GraphTarget
}

// decodeGraphHead reads the heads of an encoding of graph entries from
// its first bytes, b, whose whole length is size; every string a slice of
// b. The texts are not read: their lengths sum to what follows the heads.
func decodeGraphHead(b string, size int64) (graphHead, error) {
	if len(b) < len(graphMagic) || b[:len(graphMagic)] != graphMagic {
		return graphHead{}, errGraphEntries
	}
	r := cachecodec.NewReader(b[len(graphMagic):])
	n := r.Uvarint()
	l := r.Uvarint()
	if r.Bad() || l > uint64(r.Left()) || n > l/3 { // a path, a length and a count: a byte each at least
		return graphHead{}, errGraphEntries
	}
	start := int64(len(graphMagic) + r.Off())
	r = cachecodec.NewReader(r.Take(int(l)))
	h := graphHead{entries: make([]graphHeadEntry, 0, n), texts: start + int64(l)}
	at := h.texts
	for range n {
		e := graphHeadEntry{path: r.Str()}
		tl := r.Uvarint()
		if tl > uint64(size-at) {
			return graphHead{}, errGraphEntries
		}
		e.off, e.n = at, int64(tl)
		at += e.n
		if k := r.Count(2); k > 0 {
			e.others = make([]GraphTarget, k)
			for i := range e.others {
				switch r.Byte() {
				case 0:
				case 1:
					e.others[i].Resolved = true
				default:
					r.Fail()
				}
				e.others[i].ID = r.Str()
			}
		}
		if r.Bad() {
			return graphHead{}, errGraphEntries
		}
		h.entries = append(h.entries, e)
	}
	if !r.Done() || at != size {
		return graphHead{}, errGraphEntries
	}
	return h, nil
}

// readGraphHead reads the heads of the encoding of graph entries r
// holds, not their texts.
func readGraphHead(r *io.SectionReader) (graphHead, error) {
	pre := make([]byte, min(r.Size(), int64(len(graphMagic)+2*binary.MaxVarintLen64)))
	if _, err := r.ReadAt(pre, 0); err != nil {
		return graphHead{}, errGraphEntries
	}
	if len(pre) < len(graphMagic) || string(pre[:len(graphMagic)]) != graphMagic {
		return graphHead{}, errGraphEntries
	}
	pr := cachecodec.NewReader(pre[len(graphMagic):])
	pr.Uvarint()
	l := pr.Uvarint()
	at := int64(len(graphMagic) + pr.Off())
	if pr.Bad() || l > uint64(r.Size()-at) {
		return graphHead{}, errGraphEntries
	}
	b := make([]byte, at+int64(l))
	if _, err := r.ReadAt(b, 0); err != nil {
		return graphHead{}, errGraphEntries
	}
	return decodeGraphHead(unsafe.String(unsafe.SliceData(b), len(b)), r.Size())
}

// decodeGraphEntries reads what encodeGraphEntries wrote, every string a
// slice of b; anything else, or a text that is not printed as it is
// (printedAsIs), is an error, never a panic.
func decodeGraphEntries(b string) ([]graphEntry, error) {
	h, err := decodeGraphHead(b, int64(len(b)))
	if err != nil {
		return nil, err
	}
	out := make([]graphEntry, len(h.entries))
	for i, e := range h.entries {
		out[i] = graphEntry{path: e.path, text: b[e.off : e.off+e.n], others: e.others}
		if !printedAsIs(out[i].text) {
			return nil, errGraphEntries
		}
	}
	return out, nil
}

// printedAsIs reports whether s can be printed as it is, as a graph's
// text is: every byte a space or above but line feeds, valid UTF-8, no
// line or paragraph separator, C1 control or bidirectional override
// (what the front end's quoting leaves out: printable.JSON). Eight
// bytes at a time: a line feed is made a byte of 0x20 or above (its 0x20
// bit set) before the test for a byte below 0x20, both exact per byte.
func printedAsIs(s string) bool {
	const ones, highs, lows = 0x0101010101010101, 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	var high uint64
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		high |= x
		y := x ^ '\n'*ones
		lf := ^((y & lows) + lows | y) & highs // 0x80 in each byte that is a line feed
		x |= lf >> 2                           // 0x0a becomes 0x2a
		if ((x&lows)+(0x80-0x20)*ones|x)&highs != highs {
			return false // a byte below 0x20
		}
	}
	for ; i < len(s); i++ {
		if s[i] < 0x20 && s[i] != '\n' {
			return false
		}
		high |= uint64(s[i])
	}
	if high&highs == 0 { // ASCII
		return true
	}
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r >= utf8.RuneSelf && (r == '\u2028' || r == '\u2029' || r != utf8.RuneError && printable.Unsafe(r)) {
			return false
		}
	}
	return true
}
