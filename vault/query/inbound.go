package query

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"unsafe"

	"github.com/zk-claims/zk/internal/cachecodec"
	"github.com/zk-claims/zk/vault"
)

// inboundBuffer is how much of the details AppendEdgesInto holds at once.
const inboundBuffer = 256 << 10

// AppendEdgesInto appends to dst the edges into the file at path to of
// the details EncodeDetails wrote, size bytes read from r a piece at a
// time: zk backlinks looks through 11 MB of details at 10,000 notes for
// the few edges into one note, and reading them whole into memory of
// their own cost more than the looking. look is told each note's path
// (valid during the call only) and says whether its edges are to be
// looked through (false: a later entry of the note replaces this one).
// Only a note whose edges hold to's encoding is decoded. Bytes
// EncodeDetails did not write are an error, never a panic or an
// allocation past size.
func AppendEdgesInto(dst []vault.Edge, r io.Reader, size int64, to string, look func(path string) bool) ([]vault.Edge, error) {
	br := bufio.NewReaderSize(r, inboundBuffer)
	left := size
	bad := errors.New("damaged note details")
	// next is the next string of the details: its bytes, valid until the
	// next read (a slice of br's buffer, or of memory of its own when
	// longer than it).
	next := func() ([]byte, error) {
		l, err := binary.ReadUvarint(br)
		if err != nil {
			return nil, bad
		}
		left -= int64(uvarintLen(l))
		if left < 0 || l > uint64(left) {
			return nil, bad
		}
		left -= int64(l)
		if l > uint64(br.Size()) {
			b := make([]byte, l)
			if _, err := io.ReadFull(br, b); err != nil {
				return nil, bad
			}
			return b, nil
		}
		b, err := br.Peek(int(l))
		if err != nil {
			return nil, bad
		}
		br.Discard(int(l))
		return b, nil
	}
	magic := make([]byte, len(detailMagic))
	if left < int64(len(magic)) {
		return dst, bad
	}
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != detailMagic {
		return dst, bad
	}
	left -= int64(len(magic))
	n, err := binary.ReadUvarint(br)
	if err != nil {
		return dst, bad
	}
	left -= int64(uvarintLen(n))
	if left < 0 || n > uint64(left)/3 { // an entry takes three lengths at least
		return dst, bad
	}
	needle := cachecodec.AppendStr(nil, to) // an edge into to starts so
	var path []byte
	for range n {
		p, err := next()
		if err != nil {
			return dst, err
		}
		path = append(path[:0], p...)
		edges, err := next()
		if err != nil {
			return dst, err
		}
		// The path as a string without a copy: look keeps it no longer
		// than the call, and path is written again only after it.
		if look(unsafe.String(unsafe.SliceData(path), len(path))) && bytes.Contains(edges, needle) {
			dst = Detail{Path: string(path), edges: string(edges)}.AppendEdgesTo(dst, to)
		}
		if _, err := next(); err != nil { // the falsifiers
			return dst, err
		}
	}
	if left != 0 {
		return dst, bad
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return dst, bad
	}
	return dst, nil
}

func uvarintLen(v uint64) int {
	var scratch [binary.MaxVarintLen64]byte
	return binary.PutUvarint(scratch[:], v)
}
