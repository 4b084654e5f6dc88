package query

import (
	"context"
	"encoding/binary"
	"math"
	"slices"
	"strings"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/tending"
)

// Tending is what zk stale keeps of a note: what it says of its own
// tending (tending.Cadence) and the files it links to, by index in the
// walk it was read in. It is cached in a section of its own, not the
// records' (properties, tags, verdicts), which zk stale never reads: at
// 10,000 notes a fifth of their bytes. A link is an index, not a path: an
// entry kept when a file is added, removed or renamed is made one among
// the files now (Remap).
type Tending struct {
	Path    string
	cadence string // encodeCadence's
	links   string // a count, then each file's index, as uvarints
}

// ReadTending is what zk stale keeps of every note of a walk of the
// vault (Files), templates too; reuse and hashed are as ReadAll's, and
// opts' types, keys and interval are what the cadence is read under.
func ReadTending(ctx context.Context, v *vault.Vault, files []vault.File, opts Options,
	reuse func(path string) (Tending, bool), hashed func(*vault.Note)) ([]Tending, error) {
	return readEach(ctx, v, files, nil, resolveLinks, reuse, hashed, func(n *vault.Note, r *vault.Resolver) Tending {
		return ReadTendingOf(n, r, files, opts)
	})
}

// ReadTendingOf is what zk stale keeps of n, one of files (sorted by
// path), whose links r resolves among them; opts are as ReadTending's.
func ReadTendingOf(n *vault.Note, r *vault.Resolver, files []vault.File, opts Options) Tending {
	sopts := tending.StaleOptions{Types: opts.Types, Interval: opts.Interval, Keys: opts.TendedKeys}
	targets := vault.LinkedFiles(n, r)
	e := &encoder{b: make([]byte, 0, binary.MaxVarintLen64*(1+len(targets)))}
	e.uvarint(uint64(len(targets)))
	for _, t := range targets {
		// A target is one of the files the resolver was made of.
		i, _ := slices.BinarySearchFunc(files, t, func(f vault.File, p string) int { return strings.Compare(f.Path, p) })
		e.uvarint(uint64(i))
	}
	return Tending{Path: n.Path, cadence: encodeCadence(tending.CadenceOf(n, sopts)), links: string(e.b)}
}

// Cadence is what the note says of its tending (tending.CadenceOf); ok
// is false when its encoding is damaged.
func (t Tending) Cadence() (c tending.Cadence, ok bool) {
	d := newDecoder(t.cadence)
	c = d.cadence(t.Path)
	return c, d.Done()
}

// EachLink calls f with the index of each file the note links to among
// the files (of which there are files) it was read among; false, having
// called f for none, when the encoding is damaged or an index is not
// below files.
func (t Tending) EachLink(files int, f func(i int)) bool {
	d := newDecoder(t.links)
	n := d.Count(1)
	for range n { // checked whole before any is told
		if d.Uvarint() >= uint64(files) {
			d.Fail()
		}
	}
	if !d.Done() {
		return false
	}
	d = newDecoder(t.links)
	for range d.Count(1) {
		f(int(d.Uvarint()))
	}
	return true
}

// Remap is t, read among other files, as read among the files now (move
// gives a file's index among those now by its index among the others,
// -1 for none); false when its encoding is damaged or a file it links
// to is not among the files now.
func (t Tending) Remap(move func(int) int) (Tending, bool) {
	d := newDecoder(t.links)
	n := d.Count(1)
	e := &encoder{b: make([]byte, 0, len(t.links)+binary.MaxVarintLen64)}
	e.uvarint(uint64(n))
	for range n {
		i := move(int(min(d.Uvarint(), math.MaxInt32)))
		if i < 0 {
			return Tending{}, false
		}
		e.uvarint(uint64(i))
	}
	if !d.Done() {
		return Tending{}, false
	}
	t.links = string(e.b)
	return t, true
}

// tendingMagic opens the encoding of Tending; another version is a miss.
const tendingMagic = "zk-note-tending\x01"

// EncodeTending is notes' Tending as bytes to cache.
func EncodeTending(notes []Tending) []byte {
	return encodeRecords(tendingMagic, 3, notes, func(t Tending) [3]string { return [3]string{t.Path, t.cadence, t.links} })
}

// DecodeTending reads what EncodeTending wrote; anything else is an
// error, never a panic. A note's cadence and links are read when asked
// (Cadence, EachLink).
func DecodeTending(b []byte) ([]Tending, error) { return DecodeTendingText(string(b)) }

// DecodeTendingText is DecodeTending of the bytes as a string (see
// DecodeText).
func DecodeTendingText(b string) ([]Tending, error) {
	return decodeRecords(b, tendingMagic, 3, func(s [3]string) Tending { return Tending{Path: s[0], cadence: s[1], links: s[2]} })
}
