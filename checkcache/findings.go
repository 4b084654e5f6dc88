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
// (string indices, positions, severity). It decodes several times faster
// than gob, which mattered: at 100k notes and 81k findings, decoding the
// result was the largest cost of an unchanged check after the walk.
func EncodeFindings(notes int, findings []lint.Finding) []byte {
	index := map[string]uint64{}
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
	var body []byte
	for _, f := range findings {
		for _, s := range []string{f.Path, f.Rule, f.Message} {
			body = binary.AppendUvarint(body, id(s))
		}
		for _, n := range []int{f.Line, f.Column, f.EndLine, f.EndColumn, int(f.Severity)} {
			body = binary.AppendVarint(body, int64(n))
		}
	}
	b := binary.AppendVarint(nil, int64(notes))
	b = binary.AppendUvarint(b, uint64(len(index)))
	b = binary.AppendUvarint(b, uint64(len(table)))
	b = append(b, table...)
	b = binary.AppendUvarint(b, uint64(len(findings)))
	return append(b, body...)
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
	n := d.Count(8) // a finding is 8 varints, 8 bytes at least
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
	}
	if !d.Done() {
		return 0, nil, errFindings
	}
	return notes, findings, nil
}
