package workspace

import (
	"context"
	"encoding/binary"
	"errors"
	"unicode/utf8"
	"unsafe"

	"github.com/zk-claims/zk/internal/cachecodec"
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
	// AppendEdges appends a note's edges as printed to b.
	AppendEdges func(b []byte, edges []vault.Edge) []byte
}

// GraphText is every note's edges as format prints them, with what the
// graph's nodes are made of.
type GraphText struct {
	// Files are the vault's files; Notes the notes read, in path order.
	Files []vault.File
	Notes []string
	// Texts are each note's edges as printed, in Notes' order ("" for a
	// note of none).
	Texts []string
	// Others are, note by note in edge order, the targets of the edges
	// that do not resolve to a note's path (vault.File.IsNote): a
	// resolved one is a file unless it is a note, an unresolved one's id
	// is the path it names.
	Others []GraphTarget
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
const graphPurpose = "zk graph text v1"

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
func (w *Workspace) GraphText(ctx context.Context, format GraphFormat) (g GraphText, ok bool, err error) {
	files, _, err := w.Vault.Files(ctx)
	if err != nil {
		return GraphText{}, false, err
	}
	entries, err := cachedNotes(w, ctx, files, perNote[graphEntry]{
		folder: "graph", purpose: graphPurpose + "\x00" + format.Name, inputs: graphInputs,
		read: func(reuse func(string) (graphEntry, bool), hashed func(string, []byte)) ([]graphEntry, error) {
			if all, ok := reuseAll(files, reuse); ok {
				return all, nil // nothing to read: no details made
			}
			// The entries reused, in the notes' order, as the details
			// come: a note read again is made an entry of its details.
			var (
				kept  []graphEntry
				again func(string) (query.Detail, bool)
			)
			if reuse != nil {
				again = func(p string) (query.Detail, bool) {
					e, ok := reuse(p)
					if ok {
						kept = append(kept, e)
					}
					return query.Detail{Path: p}, ok
				}
			}
			details, err := query.ReadDetails(ctx, w.Vault, files, nil, again, hashed)
			if err != nil {
				return nil, err
			}
			out := make([]graphEntry, len(details))
			for i, d := range details {
				if len(kept) > 0 && kept[0].path == d.Path {
					out[i], kept = kept[0], kept[1:]
					continue
				}
				out[i] = newGraphEntry(d.Path, d.Edges(), format)
			}
			return out, nil
		},
		encode:     func(es []graphEntry) ([]byte, error) { return encodeGraphEntries(es), nil },
		decode:     func(b []byte) ([]graphEntry, error) { return decodeGraphEntries(string(b)) },
		decodeText: decodeGraphEntries,
		path:       func(e graphEntry) string { return e.path },
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
	g = GraphText{Files: files, Notes: make([]string, len(entries)), Texts: make([]string, len(entries))}
	for i, e := range entries {
		g.Notes[i], g.Texts[i] = e.path, e.text
		g.Others = append(g.Others, e.others...)
	}
	return g, noteFiles == len(entries), nil
}

// reuseAll is every note's entry of files when reuse gives them all.
func reuseAll(files []vault.File, reuse func(string) (graphEntry, bool)) ([]graphEntry, bool) {
	if reuse == nil {
		return nil, false
	}
	out := make([]graphEntry, 0, len(files))
	for _, f := range files {
		if !f.IsNote() {
			continue
		}
		e, ok := reuse(f.Path)
		if !ok {
			return nil, false
		}
		out = append(out, e)
	}
	return out, true
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
const graphMagic = "zk-graph-text\x01"

func encodeGraphEntries(es []graphEntry) []byte {
	size := len(graphMagic) + 10
	for _, e := range es {
		size += 30 + len(e.path) + len(e.text)
		for _, o := range e.others {
			size += 11 + len(o.ID)
		}
	}
	b := append(make([]byte, 0, size), graphMagic...)
	b = binary.AppendUvarint(b, uint64(len(es)))
	for _, e := range es {
		b = cachecodec.AppendStr(b, e.path)
		b = cachecodec.AppendStr(b, e.text)
		b = binary.AppendUvarint(b, uint64(len(e.others)))
		for _, o := range e.others {
			k := byte(0)
			if o.Resolved {
				k = 1
			}
			b = append(b, k)
			b = cachecodec.AppendStr(b, o.ID)
		}
	}
	return b
}

var errGraphEntries = errors.New("damaged graph entries")

// decodeGraphEntries reads what encodeGraphEntries wrote, every string a
// slice of b; anything else, or a text that is not printed as it is
// (printedAsIs), is an error, never a panic.
func decodeGraphEntries(b string) ([]graphEntry, error) {
	if len(b) < len(graphMagic) || b[:len(graphMagic)] != graphMagic {
		return nil, errGraphEntries
	}
	r := cachecodec.NewReader(b[len(graphMagic):])
	n := r.Count(3) // a path, a text and a count: a byte each at least
	out := make([]graphEntry, 0, n)
	for range n {
		e := graphEntry{path: r.Str(), text: r.Str()}
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
		if r.Bad() || !printedAsIs(e.text) {
			return nil, errGraphEntries
		}
		out = append(out, e)
	}
	if !r.Done() {
		return nil, errGraphEntries
	}
	return out, nil
}

// printedAsIs reports whether s can be printed as it is, as a graph's
// text is: every byte a space or above but line feeds, valid UTF-8, no
// line or paragraph separator (what JSON's quoting leaves out). Eight
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
	for i := 0; i+2 < len(s); i++ {
		if s[i] == 0xe2 && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9) {
			return false
		}
	}
	return true
}
