// Package cachecodec reads and writes the bytes of zk's cache entries
// (the model file's sections: list records, graph details, Bases
// entries, the language server's entries, check findings and states):
// varints, length-prefixed strings, fixed-width little-endian numbers.
//
// What is read back is hostile input: a cache file can be cut short,
// damaged or written by something else. Reader checks every count and
// length against the bytes left, so such bytes are an error, never a
// panic, an allocation larger than the input, or a loop longer than it.
package cachecodec

import (
	"encoding/binary"
	"unsafe"
)

// Bytes are what a Reader reads: a string, whose strings it then slices
// rather than copies (a section read whole as one string costs one
// allocation for every path and value in it), or bytes.
type Bytes interface{ ~[]byte | ~string }

// Reader reads b front to back. Once a read runs past the end or finds
// what no writer writes, the Reader is bad (Bad) and stays at the end:
// every read after returns a zero value, so a decoder checks Bad once
// after many reads instead of after each.
type Reader[B Bytes] struct {
	b   B
	off int
	bad bool
}

// NewReader is a Reader of b from its first byte.
func NewReader[B Bytes](b B) Reader[B] { return Reader[B]{b: b} }

// Fail marks the input bad: what was read is not what a writer writes.
func (r *Reader[B]) Fail() { r.bad, r.off = true, len(r.b) }

// Bad reports whether a read failed, or Fail was called.
func (r *Reader[B]) Bad() bool { return r.bad }

// Off is how many bytes have been read.
func (r *Reader[B]) Off() int { return r.off }

// Left is how many bytes are left to read.
func (r *Reader[B]) Left() int { return len(r.b) - r.off }

// Rest is the bytes left to read, which the Reader then counts as read.
func (r *Reader[B]) Rest() B {
	p := r.b[r.off:]
	r.off = len(r.b)
	return p
}

// Done reports whether every byte was read and none was bad: a whole
// encoding, nothing after it.
func (r *Reader[B]) Done() bool { return !r.bad && r.off == len(r.b) }

// Take reads the next n bytes.
func (r *Reader[B]) Take(n int) B {
	if n < 0 || n > len(r.b)-r.off {
		r.Fail()
		return r.b[:0]
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

// Byte reads one byte.
func (r *Reader[B]) Byte() byte {
	if r.off >= len(r.b) {
		r.Fail()
		return 0
	}
	c := r.b[r.off]
	r.off++
	return c
}

// Uvarint reads what binary.AppendUvarint wrote.
func (r *Reader[B]) Uvarint() uint64 {
	if r.off < len(r.b) {
		if c := r.b[r.off]; c < 0x80 { // most lengths and indexes: inlined
			r.off++
			return uint64(c)
		}
	}
	return r.uvarint()
}

// uvarint is Uvarint of two bytes or more, or none.
func (r *Reader[B]) uvarint() uint64 {
	var v uint64
	for i := 0; i < binary.MaxVarintLen64 && r.off < len(r.b); i++ {
		c := r.b[r.off]
		r.off++
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break // more than 64 bits
			}
			return v | uint64(c)<<(7*i)
		}
		v |= uint64(c&0x7f) << (7 * i)
	}
	r.Fail()
	return 0
}

// Varint reads what binary.AppendVarint wrote.
func (r *Reader[B]) Varint() int64 {
	u := r.Uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

// Count reads a count of items each written in size bytes at least
// (size 1 or more), checked against the bytes left: a damaged count
// cannot make its reader allocate more than the input holds, or loop
// longer than it.
func (r *Reader[B]) Count(size int) int {
	n := r.Uvarint()
	if n > uint64((len(r.b)-r.off)/size) {
		r.Fail()
		return 0
	}
	return int(n)
}

// Str reads what AppendStr wrote: a length, then that many bytes.
func (r *Reader[B]) Str() B {
	if r.off < len(r.b) { // a length of one byte, the bytes there: inlined
		if n := int(r.b[r.off]); n < 0x80 && n < len(r.b)-r.off {
			p := r.b[r.off+1 : r.off+1+n]
			r.off += 1 + n
			return p
		}
	}
	return r.Take(r.Count(1))
}

// Strs reads what AppendStrs wrote; nil for none.
func (r *Reader[B]) Strs() []B {
	n := r.Count(1)
	if n == 0 {
		return nil
	}
	out := make([]B, n)
	for i := range out {
		out[i] = r.Str()
	}
	return out
}

// Uint32 reads a little-endian uint32.
func (r *Reader[B]) Uint32() uint32 {
	p := r.Take(4)
	if len(p) < 4 {
		return 0
	}
	return uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
}

// Uint64 reads a little-endian uint64.
func (r *Reader[B]) Uint64() uint64 {
	p := r.Take(8)
	if len(p) < 8 {
		return 0
	}
	return uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 |
		uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56
}

// AppendStr appends s as Reader.Str reads it: its length, then its bytes.
func AppendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// AppendStrs appends ss as Reader.Strs reads them: their count, then
// each as AppendStr writes it.
func AppendStrs(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = AppendStr(b, s)
	}
	return b
}

// AppendPairs is magic, then n, then n pairs of strings, each as
// AppendStr writes it (pair(i) the i-th), in one allocation: a Reader
// reads it back with Take(len(magic)), Count(2) and two Strs a pair.
// Caches of one string per note (its types, its link names) keep this
// shape.
func AppendPairs(magic string, n int, pair func(i int) (string, string)) []byte {
	size := len(magic) + binary.MaxVarintLen64
	for i := range n {
		a, b := pair(i)
		size += 2*binary.MaxVarintLen64 + len(a) + len(b)
	}
	b := append(make([]byte, 0, size), magic...)
	b = binary.AppendUvarint(b, uint64(n))
	for i := range n {
		x, y := pair(i)
		b = AppendStr(AppendStr(b, x), y)
	}
	return b
}

// Carve is an empty slice of capacity n cut from *block, a new block
// made when it has too little room left; each slice's capacity is its
// own, so that an append to one never reaches the next. nil for n 0.
// A decoder of many entries' lists carves them from a few blocks instead
// of allocating each: each new block is twice the one before it (1,024
// items at least, 8 MiB at most past that, or the slice), so that a
// large decoding takes few blocks and a small one a block of a few KB.
// Not in huge pages: hugepage.Make's slack (up to 4 MiB a block) took
// the language server's start at 100,000 notes past its first
// collection's goal of 2 KiB a file, which one collection cost more
// than the faults it saved.
func Carve[T any](block *[]T, n int) []T {
	if n == 0 {
		return nil
	}
	if cap(*block)-len(*block) < n {
		var zero T
		most := max(1024, carveMax/int(unsafe.Sizeof(zero)))
		*block = make([]T, 0, max(n, 1024, min(most, 2*cap(*block))))
	}
	k := len(*block)
	*block = (*block)[:k+n]
	return (*block)[k : k : k+n]
}

// carveMax bounds a block Carve makes (but for one slice larger).
const carveMax = 8 << 20
