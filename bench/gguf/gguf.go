// Package gguf writes (and, for its tests, reads back) GGUF v3 model files:
// the container llama.cpp and Ollama load. It knows just enough of the
// format to write the random-weight model the real-server benchmarks serve
// (bench/ollama.sh, bench/llama-server.sh): no weights can be downloaded
// where they run, so one is written.
//
// Layout (little-endian): magic "GGUF", version, tensor count, key/value
// count; the key/value pairs; one info per tensor (name, dimensions with the
// innermost first, type, offset into the data section); padding to the
// alignment; the tensor data, each tensor starting on an aligned offset.
package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Magic opens every GGUF file; Version is the format version written.
const (
	Magic     = "GGUF"
	Version   = 3
	Alignment = 32 // the default general.alignment
)

// ValueType is the type tag of a metadata value.
type ValueType uint32

// The metadata value types of GGUF v3.
const (
	TypeUint8 ValueType = iota
	TypeInt8
	TypeUint16
	TypeInt16
	TypeUint32
	TypeInt32
	TypeFloat32
	TypeBool
	TypeString
	TypeArray
	TypeUint64
	TypeInt64
	TypeFloat64
)

// TensorType is a ggml tensor element type.
type TensorType uint32

// The tensor types this package writes.
const (
	F32 TensorType = 0
	F16 TensorType = 1
)

// Size is the byte size of one element.
func (t TensorType) Size() int {
	if t == F16 {
		return 2
	}
	return 4
}

// KV is one metadata pair. Value is one of uint32, int32, float32, bool,
// string, uint64, []string, []float32, []int32 (what a llama model needs).
type KV struct {
	Key   string
	Value any
}

// Tensor is one named tensor. Dims are ggml's: the innermost (contiguous)
// dimension first, so a matrix mapping n inputs to m outputs is {n, m} and
// row r is Data[r*n*size:(r+1)*n*size].
type Tensor struct {
	Name string
	Dims []uint64
	Type TensorType
	Data []byte
}

// Elements is the number of elements the dimensions hold.
func (t Tensor) Elements() uint64 {
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// File is a whole model: metadata and tensors, in the order written.
type File struct {
	KV      []KV
	Tensors []Tensor
}

// Write writes f as GGUF v3. Each tensor's data must match its dimensions.
func (f *File) Write(w io.Writer) error {
	for _, t := range f.Tensors {
		if want := t.Elements() * uint64(t.Type.Size()); uint64(len(t.Data)) != want {
			return fmt.Errorf("tensor %s: %d bytes of data for %d", t.Name, len(t.Data), want)
		}
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	e := &encoder{w: bw}
	e.raw([]byte(Magic))
	e.u32(Version)
	e.u64(uint64(len(f.Tensors)))
	e.u64(uint64(len(f.KV)))
	for _, kv := range f.KV {
		e.str(kv.Key)
		e.value(kv.Value)
	}
	var off uint64
	for _, t := range f.Tensors {
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(off)
		off = align(off + uint64(len(t.Data)))
	}
	e.pad()
	for _, t := range f.Tensors {
		e.raw(t.Data)
		e.pad()
	}
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

func align(n uint64) uint64 { return (n + Alignment - 1) / Alignment * Alignment }

type encoder struct {
	w   io.Writer
	n   uint64
	err error
}

func (e *encoder) raw(b []byte) {
	if e.err != nil {
		return
	}
	var n int
	n, e.err = e.w.Write(b)
	e.n += uint64(n)
}

func (e *encoder) u32(v uint32) { e.raw(binary.LittleEndian.AppendUint32(nil, v)) }
func (e *encoder) u64(v uint64) { e.raw(binary.LittleEndian.AppendUint64(nil, v)) }
func (e *encoder) str(s string) { e.u64(uint64(len(s))); e.raw([]byte(s)) }
func (e *encoder) pad()         { e.raw(make([]byte, align(e.n)-e.n)) }

func (e *encoder) value(v any) {
	switch v := v.(type) {
	case uint32:
		e.u32(uint32(TypeUint32))
		e.u32(v)
	case int32:
		e.u32(uint32(TypeInt32))
		e.u32(uint32(v))
	case float32:
		e.u32(uint32(TypeFloat32))
		e.u32(math.Float32bits(v))
	case bool:
		e.u32(uint32(TypeBool))
		b := byte(0)
		if v {
			b = 1
		}
		e.raw([]byte{b})
	case string:
		e.u32(uint32(TypeString))
		e.str(v)
	case uint64:
		e.u32(uint32(TypeUint64))
		e.u64(v)
	case []string:
		e.u32(uint32(TypeArray))
		e.u32(uint32(TypeString))
		e.u64(uint64(len(v)))
		for _, s := range v {
			e.str(s)
		}
	case []float32:
		e.u32(uint32(TypeArray))
		e.u32(uint32(TypeFloat32))
		e.u64(uint64(len(v)))
		for _, f := range v {
			e.u32(math.Float32bits(f))
		}
	case []int32:
		e.u32(uint32(TypeArray))
		e.u32(uint32(TypeInt32))
		e.u64(uint64(len(v)))
		for _, i := range v {
			e.u32(uint32(i))
		}
	default:
		if e.err == nil {
			e.err = fmt.Errorf("gguf: metadata value of type %T is not supported", v)
		}
	}
}

// TensorInfo is a tensor as a file's header describes it.
type TensorInfo struct {
	Name   string
	Dims   []uint64
	Type   TensorType
	Offset uint64 // from the start of the data section
}

// Header is what Read returns: the metadata, the tensor infos and where the
// data section starts.
type Header struct {
	Version   uint32
	KV        []KV
	Tensors   []TensorInfo
	DataStart uint64
}

// limit bounds every count and length Read accepts, so a damaged file gives
// an error, not an enormous allocation.
const limit = 1 << 24

// Read parses a GGUF header (metadata and tensor infos) from r.
func Read(r io.Reader) (*Header, error) {
	d := &decoder{r: bufio.NewReader(r)}
	if string(d.bytes(4)) != Magic {
		return nil, errors.New("gguf: not a GGUF file")
	}
	h := &Header{Version: d.u32()}
	nt, nkv := d.u64(), d.u64()
	if d.err == nil && (nt > limit || nkv > limit) {
		return nil, fmt.Errorf("gguf: %d tensors, %d keys: too many", nt, nkv)
	}
	for i := uint64(0); i < nkv && d.err == nil; i++ {
		k := d.str()
		h.KV = append(h.KV, KV{Key: k, Value: d.value(ValueType(d.u32()))})
	}
	for i := uint64(0); i < nt && d.err == nil; i++ {
		ti := TensorInfo{Name: d.str()}
		nd := d.u32()
		if nd > 4 {
			return nil, fmt.Errorf("gguf: tensor %s has %d dimensions", ti.Name, nd)
		}
		for range nd {
			ti.Dims = append(ti.Dims, d.u64())
		}
		ti.Type = TensorType(d.u32())
		ti.Offset = d.u64()
		h.Tensors = append(h.Tensors, ti)
	}
	if d.err != nil {
		return nil, fmt.Errorf("gguf: %w", d.err)
	}
	h.DataStart = align(d.n)
	return h, nil
}

// Get returns the value of key, or nil.
func (h *Header) Get(key string) any {
	for _, kv := range h.KV {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

type decoder struct {
	r   io.Reader
	n   uint64
	err error
}

func (d *decoder) bytes(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if n > limit {
		d.err = fmt.Errorf("length %d too large", n)
		return nil
	}
	b := make([]byte, n)
	_, d.err = io.ReadFull(d.r, b)
	d.n += n
	return b
}

func (d *decoder) u32() uint32 {
	b := d.bytes(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (d *decoder) u64() uint64 {
	b := d.bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

func (d *decoder) str() string { return string(d.bytes(d.u64())) }

func (d *decoder) value(t ValueType) any {
	switch t {
	case TypeUint32:
		return d.u32()
	case TypeInt32:
		return int32(d.u32())
	case TypeFloat32:
		return math.Float32frombits(d.u32())
	case TypeBool:
		b := d.bytes(1)
		return b != nil && b[0] != 0
	case TypeString:
		return d.str()
	case TypeUint64:
		return d.u64()
	case TypeArray:
		et, n := ValueType(d.u32()), d.u64()
		if n > limit {
			d.err = fmt.Errorf("array of %d elements too large", n)
			return nil
		}
		switch et {
		case TypeString:
			out := make([]string, 0, n)
			for i := uint64(0); i < n && d.err == nil; i++ {
				out = append(out, d.str())
			}
			return out
		case TypeFloat32:
			out := make([]float32, 0, n)
			for i := uint64(0); i < n && d.err == nil; i++ {
				out = append(out, math.Float32frombits(d.u32()))
			}
			return out
		case TypeInt32:
			out := make([]int32, 0, n)
			for i := uint64(0); i < n && d.err == nil; i++ {
				out = append(out, int32(d.u32()))
			}
			return out
		}
		d.err = fmt.Errorf("array of type %d is not supported", et)
	default:
		if d.err == nil {
			d.err = fmt.Errorf("value type %d is not supported", t)
		}
	}
	return nil
}

// Float16 converts f to IEEE half precision, rounding to nearest even.
func Float16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff > 0x7f800000: // NaN
		return sign | 0x7e00
	case exp >= 31:
		return sign | 0x7c00 // overflow: infinity
	case exp <= 0: // subnormal half, or zero
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint(14 - exp)
		h := mant >> shift
		rem, halfway := mant&(1<<shift-1), uint32(1)<<(shift-1)
		if rem > halfway || rem == halfway && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | mant>>13
	if rem := mant & 0x1fff; rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++ // a carry into the exponent is still the right rounding
	}
	return sign | uint16(h)
}

// Float32 converts a half-precision value back to float32.
func Float32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: normalise
		e := uint32(127 - 15 + 1)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
	case exp == 31:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}
