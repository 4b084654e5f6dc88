package lsp

import (
	"context"
	"encoding/binary"
	"errors"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
)

// Entry is what the server keeps of a note it has not opened: the
// session's summary of it (headings, block ids, aliases, rests-on
// entries), its links resolved with their ranges (references, code
// lenses) and its tags (completion). It is what the caller's per-note
// cache keeps (Options.Cache), so that a start on an unchanged vault
// decodes every note's entry instead of parsing every note.
type Entry struct {
	sum  lint.Summary
	refs []ref
	tags []string
}

// Path is the vault path of the entry's note.
func (e Entry) Path() string { return e.sum.Path }

// EntryCache is the caller's per-note cache of the entries
// (workspace.NoteModel, zk's, beside zk check's), opened at the start.
type EntryCache interface {
	// Paths are the paths of the vault's files, sorted, as the cache
	// last saw them (nil when it has none): a note opened before the walk
	// is checked against them, and checked again if the walk finds
	// others.
	Paths() []string
	// Decode decodes the cached entries; the server runs it beside the
	// walk.
	Decode()
	// Entries is every note's entry of a walk of the vault: read reads
	// the notes whose entry reuse does not give (reuse nil: every note),
	// telling hashed each one's source, as the cache's stamps need. The
	// entries of a walk resolve links against its files: a cache must
	// not reuse them for another set of files.
	Entries(ctx context.Context, files []vault.File,
		read func(reuse func(path string) (Entry, bool), hashed func(path string, src []byte)) ([]Entry, error)) ([]Entry, error)
	// Close releases the cache when Entries is not called (the walk
	// failed): Entries releases it itself.
	Close()
}

// CachePurpose names the entries' cache in its key; another encoding
// is another purpose.
const CachePurpose = "zk lsp note entries v1"

// readEntries is the entry of every note of a walk, reusing what reuse
// gives and reading the rest on the vault's workers.
func (s *Server) readEntries(ctx context.Context, session *lint.Session, res *vault.Resolver, notes []vault.File,
	reuse func(string) (Entry, bool), hashed func(string, []byte)) ([]Entry, error) {
	out := make([]Entry, len(notes))
	have := make([]bool, len(notes))
	var stale []vault.File
	var at []int
	for i, f := range notes {
		if reuse != nil {
			if e, ok := reuse(f.Path); ok {
				out[i], have[i] = e, true
				continue
			}
		}
		stale, at = append(stale, f), append(at, i)
	}
	s.v.Each(ctx, stale, func(k int, n *vault.Note) {
		out[at[k]] = Entry{sum: session.Summarize(n), refs: refsOf(n, res), tags: tagsOf(n)}
		have[at[k]] = true
		if hashed != nil {
			hashed(n.Path, n.Src)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kept := out[:0]
	for i, e := range out {
		if have[i] { // a note that could not be read has none
			kept = append(kept, e)
		}
	}
	return kept, nil
}

// entryMagic opens the encoding of entries; another version is a miss.
const entryMagic = "zk-lsp-entries\x01"

// EncodeEntries is entries as bytes to cache.
func EncodeEntries(entries []Entry) []byte {
	b := []byte(entryMagic)
	b = binary.AppendUvarint(b, uint64(len(entries)))
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, e := range entries {
		b = lint.AppendSummary(b, e.sum)
		b = binary.AppendUvarint(b, uint64(len(e.tags)))
		for _, t := range e.tags {
			str(t)
		}
		b = binary.AppendUvarint(b, uint64(len(e.refs)))
		for _, r := range e.refs {
			str(r.to)
			str(r.path)
			str(r.sub)
			for _, x := range []uint32{r.rng.Start.Line, r.rng.Start.Character, r.rng.End.Line, r.rng.End.Character} {
				b = binary.AppendUvarint(b, uint64(x))
			}
		}
	}
	return b
}

var errEntries = errors.New("damaged note entries")

// DecodeEntries reads what EncodeEntries wrote; anything else is an
// error, never a panic. The entries' strings share one copy of b.
func DecodeEntries(raw []byte) ([]Entry, error) {
	if len(raw) < len(entryMagic) || string(raw[:len(entryMagic)]) != entryMagic {
		return nil, errEntries
	}
	b := string(raw[len(entryMagic):]) // every string decoded is a slice of it
	bad := false
	num := func() uint64 {
		var v uint64
		for shift := 0; ; shift += 7 {
			if len(b) == 0 || shift > 63 {
				bad, b = true, ""
				return 0
			}
			c := b[0]
			b = b[1:]
			v |= uint64(c&0x7f) << shift
			if c < 0x80 {
				return v
			}
		}
	}
	str := func() string {
		l := num()
		if l > uint64(len(b)) {
			bad, b = true, ""
			return ""
		}
		s := b[:l]
		b = b[l:]
		return s
	}
	n := num()
	if bad || n > uint64(len(b)) { // an entry takes a byte at least
		return nil, errEntries
	}
	out := make([]Entry, 0, n)
	for range n {
		sum, rest, err := lint.ReadSummaryString(b)
		if err != nil {
			return nil, errEntries
		}
		b = rest
		e := Entry{sum: sum}
		tags := num()
		for i := uint64(0); i < tags && !bad; i++ {
			e.tags = append(e.tags, str())
		}
		refs := num()
		if bad || refs > uint64(len(b)) {
			return nil, errEntries
		}
		e.refs = make([]ref, 0, refs)
		for i := uint64(0); i < refs && !bad; i++ {
			r := ref{from: sum.Path, to: str(), path: str(), sub: str()}
			r.rng.Start = protocol.Position{Line: uint32(num()), Character: uint32(num())}
			r.rng.End = protocol.Position{Line: uint32(num()), Character: uint32(num())}
			e.refs = append(e.refs, r)
		}
		if bad {
			return nil, errEntries
		}
		out = append(out, e)
	}
	if len(b) != 0 {
		return nil, errEntries
	}
	return out, nil
}
