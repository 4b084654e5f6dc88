package checkcache

import (
	"encoding/binary"
	"errors"
	"unsafe"

	"github.com/zk-claims/zk/internal/cachecodec"
	"github.com/zk-claims/zk/vault/lint"
)

// EncodeFindings encodes a check's result for an entry's Result: the
// number of notes checked, a table of every distinct string (paths and
// rule ids repeat from finding to finding), then each finding as varints
// (string indices, positions, severity, next step). It decodes several
// times faster than gob, which mattered: at 100k notes and 81k findings,
// decoding the result was the largest cost of an unchanged check after
// the walk.
func EncodeFindings(notes int, findings []lint.Finding) []byte {
	return appendFindings(nil, notes, findings)
}

// appendFindings appends EncodeFindings' bytes to b: its pieces
// (findingsPieces) copied into b, sized once.
func appendFindings(b []byte, notes int, findings []lint.Finding) []byte {
	ps := findingsPieces(b, notes, findings)
	out := make([]byte, 0, len(ps[0])+len(ps[1])+len(ps[2]))
	return append(append(append(out, ps[0]...), ps[1]...), ps[2]...)
}

// findingsPieces are EncodeFindings' bytes after b, in three pieces to
// be written one after the other, each made once at its size: b and the
// head, the table of strings, the number of findings and the findings.
// At 10,000 notes a save after a file came or went encodes 8,000
// findings: growing the table, the body and the result by doubling was
// most of it, and a copy of them all into one piece (some 500 KB to
// fault in) half of what was left.
func findingsPieces(b []byte, notes int, findings []lint.Finding) [][]byte {
	index := make(map[string]uint64, len(findings))
	var table []byte
	id := func(s string) uint64 {
		i, ok := index[s]
		if !ok {
			i = uint64(len(index))
			index[s] = i
			table = binary.AppendUvarint(table, uint64(len(s)))
			table = append(table, s...)
		}
		return i
	}
	strs := 0
	for i, f := range findings {
		if i == 0 || f.Path != findings[i-1].Path {
			strs += len(f.Path)
		}
		strs += len(f.Message) + 2
	}
	table = make([]byte, 0, strs+len(findings)*binary.MaxVarintLen64/4)
	// The body leaves room before it for the number of findings, written
	// last, right before it.
	const room = binary.MaxVarintLen64
	body := make([]byte, room, room+len(findings)*16)
	var lastPath, lastRule string // a path's findings come together, and often of one rule
	var pathID, ruleID uint64
	for i, f := range findings {
		if i == 0 || f.Path != lastPath {
			lastPath, pathID = f.Path, id(f.Path)
		}
		if i == 0 || f.Rule != lastRule {
			lastRule, ruleID = f.Rule, id(f.Rule)
		}
		body = binary.AppendUvarint(body, pathID)
		body = binary.AppendUvarint(body, ruleID)
		body = binary.AppendUvarint(body, id(f.Message))
		for _, n := range []int{f.Line, f.Column, f.EndLine, f.EndColumn, int(f.Severity), int(f.Next.Step), f.Next.Falsifier} {
			body = binary.AppendVarint(body, int64(n))
		}
	}
	count := binary.AppendUvarint(nil, uint64(len(findings)))
	body = body[room-len(count):]
	copy(body, count)
	head := make([]byte, 0, len(b)+3*binary.MaxVarintLen64)
	head = append(head, b...)
	head = binary.AppendVarint(head, int64(notes))
	head = binary.AppendUvarint(head, uint64(len(index)))
	head = binary.AppendUvarint(head, uint64(len(table)))
	return [][]byte{head, table, body}
}

// errFindings is a result that does not decode.
var errFindings = errors.New("cache: bad findings")

// DecodeFindings decodes what EncodeFindings encoded. Damaged input is an
// error, never a panic or an allocation larger than the input. The
// findings' strings are slices of b, which must not change after: b is
// what a model file's section holds (Section.Entries), never written.
func DecodeFindings(b []byte) (notes int, findings []lint.Finding, err error) {
	d := cachecodec.NewReader(b)
	notes = int(d.Varint())
	nstr := d.Count(1)
	table := d.Str()
	t := cachecodec.NewReader(unsafe.String(unsafe.SliceData(table), len(table)))
	strs := make([]string, 0, nstr)
	for range nstr {
		strs = append(strs, t.Str())
	}
	n := d.Count(10) // a finding is 10 varints, 10 bytes at least
	if d.Bad() || !t.Done() {
		return 0, nil, errFindings
	}
	findings = make([]lint.Finding, n)
	for i := range findings {
		var s [3]string
		for j := range s {
			k := d.Uvarint()
			if k >= uint64(len(strs)) {
				return 0, nil, errFindings
			}
			s[j] = strs[k]
		}
		f := &findings[i]
		f.Path, f.Rule, f.Message = s[0], s[1], s[2]
		f.Line, f.Column = int(d.Varint()), int(d.Varint())
		f.EndLine, f.EndColumn = int(d.Varint()), int(d.Varint())
		f.Severity = lint.Severity(d.Varint())
		step := d.Varint()
		if step < 0 || step > int64(lint.LastStep) {
			return 0, nil, errFindings
		}
		f.Next.Step, f.Next.Falsifier = lint.Step(step), int(d.Varint())
	}
	if !d.Done() {
		return 0, nil, errFindings
	}
	return notes, findings, nil
}
