package lint

import (
	"encoding/binary"
	"maps"
	"math/bits"

	"github.com/zk-claims/zk/internal/cachecodec"
	"github.com/zk-claims/zk/vault"
)

// Summary is what a Session keeps of a note it is not checking (its
// name, headings, block ids, aliases, whether it is refuted, the entries
// by which it rests on others, its relations), as bytes a caller may
// cache beside the note's stamp: a language server that starts on an
// unchanged vault records the summaries cached instead of parsing every
// note again.
type Summary struct {
	Path string
	sum  noteSummary
}

// Aliases are the note's aliases, as written.
func (s Summary) Aliases() []string { return s.sum.aliases }

// Refuted reports that the note is refuted (a falsifier's latest run
// refutes it).
func (s Summary) Refuted() bool { return s.sum.refuted != "" }

// Summarize is n's summary as the session's Load keeps it.
func (s *Session) Summarize(n *vault.Note) Summary {
	return Summary{Path: n.Path, sum: s.c.graphSummary(n)}
}

// Record records each of n summaries, sum(i), that the session has not
// recorded since it was opened, as Load does with the notes it reads: a
// note checked, learnt or updated meanwhile is newer than, or the same
// as, a summary made before. The session keeps the summaries themselves,
// not copies (a start's 100,000 are 17 MB): the caller does not change
// them after.
func (s *Session) Record(n int, sum func(i int) *Summary) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// A start's: one map sized once, not grown note by note (its rehashes
	// were most of a start's recording at 100,000 notes), though the
	// notes checked and learnt before it are in it already.
	if len(s.c.summaries) < n {
		all := make(map[string]*noteSummary, len(s.c.summaries)+n)
		maps.Copy(all, s.c.summaries)
		s.c.summaries = all
	}
	for i := range n {
		sm := sum(i)
		switch {
		case s.c.summaries[sm.Path] != nil: // recorded since
		case s.c.cached != nil:
			s.setSummary(sm.Path, &sm.sum)
		default: // nothing to replace: one lookup, not three
			s.addSummary(sm.Path, &sm.sum)
		}
	}
}

// SummaryLen is the length of AppendSummary(nil, sum): a cache encoding
// every note's summary makes its buffer once, not grown by a quarter at
// a time over megabytes (the help vault's states).
func SummaryLen(sum Summary) int {
	n := sum.sum
	size := strLen(sum.Path) + strLen(n.name) + strsLen(n.headings) + strsLen(n.blocks) + strsLen(n.aliases) +
		strLen(n.refuted) + strsLen(n.relations) + uvarintLen(uint64(len(n.restsOn)))
	for _, e := range n.restsOn {
		size += strLen(e.link) + strLen(e.relation)
		for _, x := range []int{e.line, e.column, e.endLine, e.endColumn} {
			size += uvarintLen(uint64(max(x, 0)))
		}
	}
	return size
}

func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

func strLen(s string) int { return uvarintLen(uint64(len(s))) + len(s) }

func strsLen(ss []string) int {
	size := uvarintLen(uint64(len(ss)))
	for _, s := range ss {
		size += strLen(s)
	}
	return size
}

// AppendSummary appends sum's encoding to b.
func AppendSummary(b []byte, sum Summary) []byte {
	n := sum.sum
	b = cachecodec.AppendStr(b, sum.Path)
	b = cachecodec.AppendStr(b, n.name)
	b = cachecodec.AppendStrs(b, n.headings)
	b = cachecodec.AppendStrs(b, n.blocks)
	b = cachecodec.AppendStrs(b, n.aliases)
	b = cachecodec.AppendStr(b, n.refuted)
	b = cachecodec.AppendStrs(b, n.relations)
	b = binary.AppendUvarint(b, uint64(len(n.restsOn)))
	for _, e := range n.restsOn {
		b = cachecodec.AppendStr(b, e.link)
		b = cachecodec.AppendStr(b, e.relation)
		for _, x := range []int{e.line, e.column, e.endLine, e.endColumn} {
			b = binary.AppendUvarint(b, uint64(max(x, 0)))
		}
	}
	return b
}

// ReadSummary reads a summary AppendSummary wrote at r, its strings
// slices of r's; damaged bytes make r bad (and the summary zero), never
// a panic.
func ReadSummary(r *cachecodec.Reader[string]) Summary { return readSummary(r, nil) }

// SummaryBlocks read many summaries in a row (Read), each one's lists
// cut from blocks of many summaries' instead of allocated apart: a
// language server's start reads 100,000, with three or four lists each.
// The zero value is ready.
type SummaryBlocks struct {
	strs  []string
	rests []restEdge
}

// Read is ReadSummary, the summary's lists cut from b's blocks; each
// list's capacity is its own, so that an append to one never reaches
// another's.
func (b *SummaryBlocks) Read(r *cachecodec.Reader[string]) Summary { return readSummary(r, b) }

// readSummary is ReadSummary, its lists cut from b's blocks when b is
// not nil.
func readSummary(r *cachecodec.Reader[string], b *SummaryBlocks) Summary {
	pos := func() int {
		v := r.Uvarint()
		if v > 1<<31 {
			r.Fail()
		}
		return int(v)
	}
	strs := func() []string {
		if b == nil {
			return r.Strs()
		}
		out := cachecodec.Carve(&b.strs, r.Count(1))
		for range cap(out) {
			out = append(out, r.Str())
		}
		return out
	}
	var sum Summary
	n := &sum.sum
	sum.Path = r.Str()
	n.name = r.Str()
	n.headings = strs()
	n.blocks = strs()
	n.aliases = strs()
	n.refuted = r.Str()
	n.relations = strs()
	if rests := r.Count(6); rests > 0 { // two lengths and four positions at least
		if b == nil {
			n.restsOn = make([]restEdge, 0, rests)
		} else {
			n.restsOn = cachecodec.Carve(&b.rests, rests)
		}
		for i := 0; i < rests && !r.Bad(); i++ {
			e := restEdge{link: r.Str(), relation: r.Str()}
			e.line, e.column, e.endLine, e.endColumn = pos(), pos(), pos(), pos()
			n.restsOn = append(n.restsOn, e)
		}
	}
	if r.Bad() {
		return Summary{}
	}
	return sum
}
