package workspace

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/zk-claims/zk/internal/cachecodec"
	"github.com/zk-claims/zk/internal/hugepage"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
)

// NoteEntry is what Live keeps of a note no editor holds: the session's
// summary of it (headings, block ids, aliases, rests-on entries), its
// links resolved with their places (references, code lenses) and its tags
// (completion). It is what the model file's section for Live keeps
// (Workspace.LiveCache), so that a start on an unchanged vault decodes
// every note's entry instead of parsing every note.
type NoteEntry struct {
	sum   lint.Summary
	links []LinkRef
	tags  []string
}

// Path is the vault path of the entry's note.
func (e NoteEntry) Path() string { return e.sum.Path }

// Pos is a place in a note's text as an editor counts it: a 0-based line
// and, in it, UTF-16 code units (LSP's default position encoding).
type Pos struct{ Line, Char uint32 }

// LinkRef is one link or embed of a note, resolved or not, with its place.
type LinkRef struct {
	// From is the note the link is in; To the file it reaches, "" for
	// none.
	From, To string
	// Path is the link's target as written when it reaches no file (To
	// is ""): a file created later may be what it names.
	Path string
	// Sub is the link's "#heading" or "#^block", "" for none: references
	// to a heading or a block, and code lens counts, are of these.
	Sub        string
	Start, End Pos
}

// LinksOf are n's links, resolved against r or not (To ""), with their
// places: every link zk's graph holds (vault.Note.GraphLinks), so that
// references and code lens counts are zk backlinks' — its body's links
// and embeds in source order, then its frontmatter links.
func LinksOf(n *vault.Note, r *vault.Resolver) []LinkRef {
	k := len(n.Links) + len(n.Embeds) + len(n.FrontmatterLinks)
	out := make([]LinkRef, 0, k)
	offs := make([]int, 0, 2*k)
	for l := range n.GraphLinks() {
		rf := LinkRef{From: n.Path, To: n.Path}
		if l.Path != "" {
			if t, ok := r.Resolve(l.Path, n.Path); ok {
				rf.To = t
			} else {
				rf.To, rf.Path = "", l.Path
			}
		}
		if l.Subpath != "" {
			rf.Sub = strings.Clone(l.Subpath) // not a slice of the note's text, which would stay alive
		}
		offs = append(offs, l.Span.Start.Offset, l.Span.End.Offset)
		out = append(out, rf)
	}
	pos := Positions(n.Src, offs)
	for i := range out {
		out[i].Start, out[i].End = pos[2*i], pos[2*i+1]
	}
	return out
}

// Positions are the places of offs, byte offsets into src between
// runes, in any order, found in one pass over src: in the order of the
// offsets, each counted on from the last on its line. Counting each from its line's
// start (and the lines from the top again for a link nested in another)
// was quadratic: the language server spent minutes on one 2 MB line of
// 200,000 links before its first diagnostics.
func Positions(src []byte, offs []int) []Pos {
	order := make([]int, len(offs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(offs[a], offs[b]) })
	out := make([]Pos, len(offs))
	line, at, char := 0, 0, 0 // at is the offset char is counted to, on line
	end := lineEnd(src, 0)
	for _, i := range order {
		off := min(max(offs[i], 0), len(src))
		for end < off {
			line, at, char = line+1, end+1, 0
			end = lineEnd(src, at)
		}
		char += UTF16Len(src[at:off])
		at = off
		out[i] = Pos{Line: uint32(line), Char: uint32(char)}
	}
	return out
}

// lineEnd is the offset of the first newline at or after from, or
// len(src).
func lineEnd(src []byte, from int) int {
	if i := bytes.IndexByte(src[from:], '\n'); i >= 0 {
		return from + i
	}
	return len(src)
}

// UTF16Len is how many UTF-16 code units the UTF-8 text s takes, the
// unit of an LSP position's character (an invalid byte one unit, as
// Unicode's replacement character): the one count the language server
// and Positions share.
func UTF16Len[S ~string | ~[]byte](s S) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			n, i = n+1, i+1
			continue
		}
		// A rune's few bytes made a string on the stack: ranging over
		// string(s) in generic code copied all of s.
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

// EntryCache is Live's cache of the notes' entries (the model file's
// section, Workspace.LiveCache), opened at the start.
type EntryCache interface {
	// Paths are the paths of the vault's files, sorted, as the cache
	// last saw them (nil when it has none): a note opened before the walk
	// is checked against them, and checked again if the walk finds
	// others.
	Paths() []string
	// Decode decodes the cached entries; Live runs it beside the walk.
	Decode()
	// Entries is every note's entry of a walk of the vault: read reads
	// the notes whose entry reuse does not give (reuse nil: every note),
	// telling hashed each one read, as the cache's stamps (its source)
	// and link names (its links) need. The entries of a walk resolve
	// links against its files: a cache reuses them for another set of
	// files only for the notes whose links name none of the files that
	// came or went.
	Entries(ctx context.Context, files []vault.File,
		read func(reuse func(path string) (NoteEntry, bool), hashed func(n *vault.Note)) ([]NoteEntry, error)) ([]NoteEntry, error)
	// Close releases the cache when Entries is not called (the walk
	// failed): Entries releases it itself.
	Close()
}

// entriesPurpose names the entries' cache in its key; another encoding,
// or another set of links in it, is another purpose (v2: frontmatter
// links, which v1's entries lack).
const entriesPurpose = "zk lsp note entries v2"

// liveInputs: a note's entry holds what zk check keeps of it (its
// summary, under the config's severities; its runs tied by the ledger,
// its refutations answered as the logs of refuting runs say);
// links resolve against the files, which the stamps hold.
const liveInputs = InBuild | InConfig | InTemplates | InLedger | InRunLogs

// LiveCache opens Live's section of the model file (its folder "lsp"),
// kept as the reading commands keep theirs (cachedNotes), before the
// vault is walked: the files the model file stamps are known at once,
// so that a note can be checked against them while the walk runs (and
// is checked again if the walk finds other files), and the entries
// decode beside the walk. None, or a damaged one, is a cache that knows
// no files and reads every note.
func (w *Workspace) LiveCache() EntryCache {
	return liveCache{openPerNote(w, perNote[NoteEntry]{
		folder: "lsp", purpose: entriesPurpose, inputs: liveInputs,
		encode:     func(es []NoteEntry) ([]byte, error) { return EncodeEntries(es), nil },
		decode:     DecodeEntries,
		decodeText: decodeEntriesText,
		path:       NoteEntry.Path,
		// Live reads an entry of every note (readEntries): on a vault
		// unchanged since the file was written, the entries decoded are
		// the start's, without a copy of each nor the tables that find
		// them.
		keeps: everyNote,
		names: true, // its links, resolved: after a file came or went, the notes naming it are read again
	})}
}

// liveCache is Live's section of the model file.
type liveCache struct{ p *perNoteCache[NoteEntry] }

func (c liveCache) Paths() []string { return c.p.paths() }

func (c liveCache) Decode() { c.p.load() }

func (c liveCache) Close() {
	if c.p.m != nil {
		c.p.m.Close()
	}
}

func (c liveCache) Entries(ctx context.Context, files []vault.File,
	read func(reuse func(string) (NoteEntry, bool), hashed func(*vault.Note)) ([]NoteEntry, error)) ([]NoteEntry, error) {
	return c.p.notes(ctx, files, read)
}

// entryMagic opens the encoding of entries; another version is a miss.
const entryMagic = "zk-lsp-entries\x01"

// EncodeEntries is entries as bytes to cache.
func EncodeEntries(entries []NoteEntry) []byte {
	b := []byte(entryMagic)
	b = binary.AppendUvarint(b, uint64(len(entries)))
	for _, e := range entries {
		b = lint.AppendSummary(b, e.sum)
		b = cachecodec.AppendStrs(b, e.tags)
		b = binary.AppendUvarint(b, uint64(len(e.links)))
		for _, r := range e.links {
			b = cachecodec.AppendStr(b, r.To)
			b = cachecodec.AppendStr(b, r.Path)
			b = cachecodec.AppendStr(b, r.Sub)
			for _, x := range []uint32{r.Start.Line, r.Start.Char, r.End.Line, r.End.Char} {
				b = binary.AppendUvarint(b, uint64(x))
			}
		}
	}
	return b
}

var errEntries = errors.New("damaged note entries")

// DecodeEntries reads what EncodeEntries wrote; anything else is an
// error, never a panic. The entries' strings share one copy of raw.
func DecodeEntries(raw []byte) ([]NoteEntry, error) { return decodeEntriesText(string(raw)) }

// decodeEntriesText is DecodeEntries of raw as a string, every string
// decoded a slice of it: the model file's section is not copied (its
// bytes are never written after they are read).
func decodeEntriesText(raw string) ([]NoteEntry, error) {
	if len(raw) < len(entryMagic) || raw[:len(entryMagic)] != entryMagic {
		return nil, errEntries
	}
	r := cachecodec.NewReader(raw[len(entryMagic):])
	n := r.Count(1)
	out := hugepage.Make[NoteEntry](n)[:0] // 22 MB at 100,000 notes
	// The entries' links, tags and summaries' lists are carved from
	// blocks of many entries' (carve, lint.SummaryBlocks): a hundred
	// thousand entries cost a few hundred allocations, not five hundred
	// thousand.
	var links []LinkRef
	var tags []string
	var sums lint.SummaryBlocks
	for range n {
		e := NoteEntry{sum: sums.Read(&r)}
		e.tags = carve(&tags, r.Count(1))
		for range cap(e.tags) {
			e.tags = append(e.tags, r.Str())
		}
		e.links = carve(&links, r.Count(7)) // three lengths and four numbers at least
		for range cap(e.links) {
			l := LinkRef{From: e.sum.Path, To: r.Str(), Path: r.Str(), Sub: r.Str()}
			l.Start = Pos{Line: uint32(r.Uvarint()), Char: uint32(r.Uvarint())}
			l.End = Pos{Line: uint32(r.Uvarint()), Char: uint32(r.Uvarint())}
			e.links = append(e.links, l)
		}
		if r.Bad() {
			return nil, errEntries
		}
		out = append(out, e)
	}
	if !r.Done() {
		return nil, errEntries
	}
	return out, nil
}

// carve is an empty slice of capacity n cut from *block, a new block of
// many slices' made when it has too little room left; each slice's
// capacity is its own, so that an append to one never reaches the next.
// nil for n 0.
func carve[T any](block *[]T, n int) []T { return cachecodec.Carve(block, n) }

// vocab counts the words the vault's notes use (tags), by note, so that
// a note saved again replaces its words and a word no note uses any more
// is no longer offered. Safe for several goroutines.
type vocab struct {
	mu    sync.Mutex
	of    map[string][]string // a note's words, by its path
	count map[string]int      // how many notes use each word
	// pending are a start's entries, their tags counted at the first
	// question: a start is not followed by a tag's completion or
	// references as often as it is by nothing.
	pending []NoteEntry
}

func newVocab() *vocab { return &vocab{of: map[string][]string{}, count: map[string]int{}} }

// setAll records the tags of a start's entries (a note's own set since
// then stays).
func (v *vocab) setAll(entries []NoteEntry) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.pending = entries
}

// fill counts the pending words. The caller holds mu.
func (v *vocab) fill() {
	entries := v.pending
	if entries == nil {
		return
	}
	v.pending = nil
	if len(v.of) == 0 {
		v.of = make(map[string][]string, len(entries))
	}
	for _, e := range entries {
		if _, own := v.of[e.Path()]; !own && len(e.tags) > 0 {
			v.setLocked(e.Path(), e.tags)
		}
	}
}

// set records the words of the note at p (nil: the note is gone).
func (v *vocab) set(p string, words []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.fill()
	v.setLocked(p, words)
}

// setLocked is set with mu held.
func (v *vocab) setLocked(p string, words []string) {
	for _, w := range v.of[p] {
		if v.count[w]--; v.count[w] <= 0 {
			delete(v.count, w)
		}
	}
	if len(words) == 0 {
		delete(v.of, p)
		return
	}
	v.of[p] = words
	for _, w := range words {
		v.count[w]++
	}
}

// words are the words in use, most used first, then by name.
func (v *vocab) words() []string {
	v.mu.Lock()
	v.fill()
	out := make([]string, 0, len(v.count))
	for w := range v.count {
		out = append(out, w)
	}
	counts := v.count
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(a, b)) })
	v.mu.Unlock()
	return out
}

// notesWith are the notes that use word w or a word nested under it
// (TagUnder), in no order.
func (v *vocab) notesWith(w string) []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.fill()
	var out []string
	for p, words := range v.of {
		if slices.ContainsFunc(words, func(x string) bool { return TagUnder(x, w) }) {
			out = append(out, p)
		}
	}
	return out
}

// tagsOf are a note's tags without their '#', sorted, each once.
func tagsOf(n *vault.Note) []string {
	out := n.AllTags()
	slices.Sort(out)
	return slices.Compact(out)
}

// TagUnder reports whether tag t (a '#' before it ignored) is want or
// nested under it, case ignored, as Obsidian's tag search finds them.
func TagUnder(t, want string) bool {
	t, want = strings.ToLower(strings.TrimPrefix(t, "#")), strings.ToLower(strings.TrimPrefix(want, "#"))
	return t == want || strings.HasPrefix(t, want+"/")
}
