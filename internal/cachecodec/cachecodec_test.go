package cachecodec

import (
	"encoding/binary"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	b := AppendStr(nil, "zk")
	b = AppendStrs(b, []string{"a", "", "ccc"})
	b = AppendStrs(b, nil)
	b = binary.AppendUvarint(b, math.MaxUint64)
	b = binary.AppendVarint(b, math.MinInt64)
	b = binary.AppendVarint(b, -1)
	b = append(b, 7)
	b = binary.LittleEndian.AppendUint32(b, 0xdeadbeef)
	b = binary.LittleEndian.AppendUint64(b, 0x0102030405060708)
	for _, r := range []interface {
		read() (string, []string, []string, uint64, int64, int64, byte, uint32, uint64)
		done() bool
	}{&bytesReader{NewReader(b)}, &stringReader{NewReader(string(b))}} {
		s, ss, none, u, v1, v2, c, u32, u64 := r.read()
		got := []any{s, ss, none, u, v1, v2, c, u32, u64}
		want := []any{"zk", []string{"a", "", "ccc"}, []string(nil), uint64(math.MaxUint64), int64(math.MinInt64), int64(-1), byte(7), uint32(0xdeadbeef), uint64(0x0102030405060708)}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%T read %v, want %v", r, got, want)
		}
		if !r.done() {
			t.Errorf("%T: not done", r)
		}
	}
}

type bytesReader struct{ Reader[[]byte] }

func (r *bytesReader) read() (string, []string, []string, uint64, int64, int64, byte, uint32, uint64) {
	s := string(r.Str())
	var ss []string
	for _, x := range r.Strs() {
		ss = append(ss, string(x))
	}
	var none []string
	for _, x := range r.Strs() {
		none = append(none, string(x))
	}
	return s, ss, none, r.Uvarint(), r.Varint(), r.Varint(), r.Byte(), r.Uint32(), r.Uint64()
}

func (r *bytesReader) done() bool { return r.Done() }

type stringReader struct{ Reader[string] }

func (r *stringReader) read() (string, []string, []string, uint64, int64, int64, byte, uint32, uint64) {
	return r.Str(), r.Strs(), r.Strs(), r.Uvarint(), r.Varint(), r.Varint(), r.Byte(), r.Uint32(), r.Uint64()
}

func (r *stringReader) done() bool { return r.Done() }

// TestDamaged holds each read to an error on bytes no writer writes,
// and every read after it to a zero value.
func TestDamaged(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		read func(r *Reader[string])
	}{
		{"a varint cut short", "\x80", func(r *Reader[string]) { r.Uvarint() }},
		{"a varint of 65 bits", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", func(r *Reader[string]) { r.Uvarint() }},
		{"a varint of eleven bytes", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x80\x00", func(r *Reader[string]) { r.Uvarint() }},
		{"nothing for a byte", "", func(r *Reader[string]) { r.Byte() }},
		{"a string longer than the bytes", "\x05abcd", func(r *Reader[string]) { r.Str() }},
		{"a string of 2^64-1 bytes", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", func(r *Reader[string]) { r.Str() }},
		{"more strings than bytes", "\x04\x00\x00\x00", func(r *Reader[string]) { r.Strs() }},
		{"a count of items too large for the bytes", "\x03abcde", func(r *Reader[string]) { r.Count(2) }},
		{"a uint32 cut short", "abc", func(r *Reader[string]) { r.Uint32() }},
		{"a uint64 cut short", "abcdefg", func(r *Reader[string]) { r.Uint64() }},
		{"a negative length", "abc", func(r *Reader[string]) { r.Take(-1) }},
		{"failed", "abc", func(r *Reader[string]) { r.Fail() }},
	} {
		r := NewReader(tt.in)
		tt.read(&r)
		if !r.Bad() || r.Done() {
			t.Errorf("%s: read as good", tt.name)
		}
		if r.Byte() != 0 || r.Uvarint() != 0 || r.Str() != "" || r.Count(1) != 0 || r.Uint64() != 0 || r.Left() != 0 {
			t.Errorf("%s: a read after a bad one is not zero", tt.name)
		}
	}
	r := NewReader("\x03abcdef")
	if n := r.Count(2); n != 3 || r.Bad() {
		t.Errorf("a count the bytes hold: %d, bad %v", n, r.Bad())
	}
	if r.Done() {
		t.Error("done with bytes left")
	}
	if rest := r.Rest(); rest != "abcdef" || !r.Done() {
		t.Errorf("rest %q, done %v", rest, r.Done())
	}
}

// FuzzReader reads any bytes as any sequence of reads: a zero value and
// Bad, never a panic, a read past the input, or an allocation larger
// than it.
//
//	go test ./internal/cachecodec -run '^$' -fuzz FuzzReader -fuzztime 30s
func FuzzReader(f *testing.F) {
	f.Add([]byte{0, 1, 2}, []byte("\x02ab\x01\x01c"))
	f.Add([]byte{4, 5, 6, 7}, []byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Fuzz(func(t *testing.T, ops, in []byte) {
		r := NewReader(string(in))
		for _, op := range ops {
			before := r.Left()
			switch op % 9 {
			case 0:
				r.Byte()
			case 1:
				r.Uvarint()
			case 2:
				r.Varint()
			case 3:
				if s := r.Str(); len(s) > before {
					t.Fatalf("a string of %d bytes from %d", len(s), before)
				}
			case 4:
				if ss := r.Strs(); len(ss) > before {
					t.Fatalf("%d strings from %d bytes", len(ss), before)
				}
			case 5:
				if n := r.Count(int(op/9) + 1); n*(int(op/9)+1) > before {
					t.Fatalf("a count of %d items of %d bytes from %d", n, op/9+1, before)
				}
			case 6:
				r.Uint32()
			case 7:
				r.Uint64()
			case 8:
				r.Take(int(op / 9))
			}
			if r.Left() < 0 || r.Left() > before || r.Off()+r.Left() != len(in) {
				t.Fatalf("at %d with %d left of %d", r.Off(), r.Left(), len(in))
			}
		}
	})
}

// Carve's slices are apart: each has the capacity asked for, an append
// to one leaves its neighbour as it was, and a slice larger than any
// block is carved whole.
func TestCarve(t *testing.T) {
	var block []int
	if s := Carve(&block, 0); s != nil {
		t.Errorf("Carve of 0: %v, want nil", s)
	}
	var all [][]int
	for i := range 3000 {
		n := 1 + i%5
		if i == 1500 {
			n = 1 << 21 // past any block
		}
		s := Carve(&block, n)
		if len(s) != 0 || cap(s) != n {
			t.Fatalf("Carve of %d: len %d cap %d", n, len(s), cap(s))
		}
		for k := range n {
			s = append(s, i*10+k)
		}
		all = append(all, s)
	}
	_ = append(all[7], -1) // past its capacity: a copy, not all[8]'s first
	for i, s := range all {
		for k, v := range s {
			if v != i*10+k {
				t.Fatalf("slice %d[%d] = %d, want %d", i, k, v, i*10+k)
			}
		}
	}
}

// TestAppendPairs: what AppendPairs writes reads back as it says, pair by
// pair, in exactly its bytes; no pairs are the magic and a zero count.
func TestAppendPairs(t *testing.T) {
	pairs := [][2]string{{"a.md", "x"}, {"", ""}, {"dir/b.md", strings.Repeat("y", 300)}}
	for _, n := range []int{0, 1, len(pairs)} {
		b := AppendPairs("magic\x01", n, func(i int) (string, string) { return pairs[i][0], pairs[i][1] })
		r := NewReader(string(b))
		if got := r.Take(len("magic\x01")); got != "magic\x01" {
			t.Fatalf("n %d: magic %q", n, got)
		}
		if got := r.Count(2); got != n {
			t.Fatalf("n %d: count %d", n, got)
		}
		for i := range n {
			if a, b := r.Str(), r.Str(); a != pairs[i][0] || b != pairs[i][1] {
				t.Errorf("n %d: pair %d = %q, %q; want %q", n, i, a, b, pairs[i])
			}
		}
		if !r.Done() {
			t.Errorf("n %d: bytes left after the pairs", n)
		}
	}
}
