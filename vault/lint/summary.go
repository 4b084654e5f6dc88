package lint

import (
	"encoding/binary"
	"errors"

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

// Record records each summary of sums the session has not recorded since
// it was opened, as Load does with the notes it reads: a note checked,
// learnt or updated meanwhile is newer than, or the same as, a summary
// made before.
func (s *Session) Record(sums []Summary) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.c.summaries) == 0 { // a start's: one map and one block, not a growth per note
		s.c.summaries = make(map[string]*noteSummary, len(sums))
	}
	all := make([]noteSummary, len(sums))
	for i := range sums {
		if s.c.summaries[sums[i].Path] == nil {
			all[i] = sums[i].sum
			s.setSummary(sums[i].Path, &all[i])
		}
	}
}

// AppendSummary appends sum's encoding to b.
func AppendSummary(b []byte, sum Summary) []byte {
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	strs := func(ss []string) {
		b = binary.AppendUvarint(b, uint64(len(ss)))
		for _, s := range ss {
			str(s)
		}
	}
	n := sum.sum
	str(sum.Path)
	str(n.name)
	strs(n.headings)
	strs(n.blocks)
	strs(n.aliases)
	str(n.refuted)
	strs(n.relations)
	b = binary.AppendUvarint(b, uint64(len(n.restsOn)))
	for _, e := range n.restsOn {
		str(e.link)
		str(e.relation)
		for _, x := range []int{e.line, e.column, e.endLine, e.endColumn} {
			b = binary.AppendUvarint(b, uint64(max(x, 0)))
		}
	}
	return b
}

var errSummary = errors.New("damaged note summary")

// ReadSummary decodes a summary AppendSummary wrote at the start of b,
// and returns the bytes after it; damaged bytes are an error, never a
// panic.
func ReadSummary(b []byte) (Summary, []byte, error) { return readSummary(b) }

// ReadSummaryString is ReadSummary of a string, whose strings it slices
// rather than copies: a cache of every note's summary decodes in one
// allocation for the text.
func ReadSummaryString(s string) (Summary, string, error) { return readSummary(s) }

func readSummary[B []byte | string](b B) (Summary, B, error) {
	bad := false
	num := func() int {
		var v uint64
		k := 0
		for shift := 0; ; shift += 7 {
			if k >= len(b) || shift > 63 {
				bad, b = true, b[:0]
				return 0
			}
			c := b[k]
			k++
			v |= uint64(c&0x7f) << shift
			if c < 0x80 {
				break
			}
		}
		if v > 1<<31 {
			bad, b = true, b[:0]
			return 0
		}
		b = b[k:]
		return int(v)
	}
	str := func() string {
		l := num()
		if l > len(b) {
			bad, b = true, b[:0]
			return ""
		}
		s := string(b[:l])
		b = b[l:]
		return s
	}
	strs := func() []string {
		l := num()
		if l > len(b) { // each string takes a byte at least
			bad, b = true, b[:0]
			return nil
		}
		if l == 0 {
			return nil
		}
		out := make([]string, 0, l)
		for range l {
			out = append(out, str())
		}
		return out
	}
	var sum Summary
	n := &sum.sum
	sum.Path = str()
	n.name = str()
	n.headings, n.blocks, n.aliases = strs(), strs(), strs()
	n.refuted = str()
	n.relations = strs()
	rests := num()
	if rests > len(b) {
		bad = true
	} else if rests > 0 {
		n.restsOn = make([]restEdge, 0, rests)
	}
	for i := 0; i < rests && !bad; i++ {
		e := restEdge{link: str(), relation: str()}
		e.line, e.column, e.endLine, e.endColumn = num(), num(), num(), num()
		n.restsOn = append(n.restsOn, e)
	}
	if bad {
		return Summary{}, b[:0], errSummary
	}
	return sum, b, nil
}
