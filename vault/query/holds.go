package query

import (
	"strings"

	"github.com/zk-claims/zk/vault/evidence"
)

// Holds is what a note holds that a refutation whose block is not in its
// own note is followed to (evidence.Held: its run blocks' ids, its block
// ids), kept in a cache section of its own: a vault holding a refuted
// note deleted places that refutation by every note's Holds, not by a
// read of every note.
type Holds struct {
	Path string
	evidence.Held
}

// HoldsOf is what the note at path, of bytes src, holds.
func HoldsOf(path string, src []byte) Holds {
	return Holds{Path: path, Held: evidence.HeldIn(src)}
}

// holdsMagic opens the encoding of Holds; another version is a miss.
const holdsMagic = "zk-note-holds\x01"

// EncodeHolds is holds as bytes to cache.
func EncodeHolds(holds []Holds) []byte {
	return encodeRecords(holdsMagic, 3, holds, func(h Holds) [3]string { return [3]string{h.Path, h.Runs, h.Blocks} })
}

// DecodeHolds reads what EncodeHolds wrote; anything else is an error,
// never a panic.
func DecodeHolds(b []byte) ([]Holds, error) { return DecodeHoldsText(string(b)) }

// DecodeHoldsText is DecodeHolds of the bytes as a string (see
// DecodeText). A list of ids that HeldIn could not have made is damage.
func DecodeHoldsText(b string) ([]Holds, error) {
	out, err := decodeRecords(b, holdsMagic, 3, func(s [3]string) Holds {
		return Holds{Path: s[0], Held: evidence.Held{Runs: s[1], Blocks: s[2]}}
	})
	if err != nil {
		return nil, err
	}
	for _, h := range out {
		if !idList(h.Runs) || !idList(h.Blocks) {
			return nil, errCorrupt
		}
	}
	return out, nil
}

// idList says s is block ids joined by single spaces, or empty.
func idList(s string) bool {
	if s == "" {
		return true
	}
	for {
		id, rest, more := strings.Cut(s, " ")
		if !evidence.IsBlockID(id) {
			return false
		}
		if !more {
			return true
		}
		s = rest
	}
}
