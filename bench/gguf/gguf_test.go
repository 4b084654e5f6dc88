package gguf

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestFloat16(t *testing.T) {
	for _, tc := range []struct {
		in   float32
		want uint16
	}{
		{0, 0x0000},
		{1, 0x3c00},
		{-2, 0xc000},
		{0.5, 0x3800},
		{65504, 0x7bff},
		{65520, 0x7c00}, // rounds up past the largest half: infinity
		{float32(math.Inf(-1)), 0xfc00},
		{5.960464477539063e-08, 0x0001}, // the smallest subnormal
		{2.9e-08, 0x0000},               // below half of it: zero
		{6.097555160522461e-05, 0x03ff}, // the largest subnormal
		{1.0009765625, 0x3c01},          // 1 + one half ulp step
		{1.00048828125, 0x3c00},         // a tie: to even (down)
		{1.00146484375, 0x3c02},         // a tie: to even (up)
	} {
		if got := Float16(tc.in); got != tc.want {
			t.Errorf("Float16(%g) = %#04x, want %#04x", tc.in, got, tc.want)
		}
	}
	// Every finite half survives the round trip through float32.
	for h := range uint32(0x10000) {
		if h&0x7c00 == 0x7c00 {
			continue
		}
		if got := Float16(Float32(uint16(h))); got != uint16(h) {
			t.Fatalf("Float16(Float32(%#04x)) = %#04x", h, got)
		}
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	f := &File{
		KV: []KV{
			{"general.architecture", "llama"},
			{"u32", uint32(7)},
			{"i32", int32(-3)},
			{"f32", float32(1.5)},
			{"flag", true},
			{"u64", uint64(1 << 40)},
			{"strings", []string{"a", "▁b", ""}},
			{"floats", []float32{0, -1.25}},
			{"ints", []int32{1, 6, 3}},
		},
		Tensors: []Tensor{
			f32Tensor("a.weight", []uint64{3}, []float32{1, 2, 3}), // 12 bytes: the next is padded
			f16Tensor("b.weight", []uint64{2, 2}, []float32{1, -2, 0.5, 65504}),
		},
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	raw := buf.Bytes()
	h, err := Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if h.Version != 3 {
		t.Errorf("version %d", h.Version)
	}
	if !reflect.DeepEqual(h.KV, f.KV) {
		t.Errorf("metadata:\n got %#v\nwant %#v", h.KV, f.KV)
	}
	if h.DataStart%Alignment != 0 {
		t.Errorf("data starts at %d, not aligned", h.DataStart)
	}
	want := []TensorInfo{{"a.weight", []uint64{3}, F32, 0}, {"b.weight", []uint64{2, 2}, F16, 32}}
	if !reflect.DeepEqual(h.Tensors, want) {
		t.Fatalf("tensors:\n got %+v\nwant %+v", h.Tensors, want)
	}
	for i, ti := range h.Tensors {
		start := h.DataStart + ti.Offset
		got := raw[start : start+uint64(len(f.Tensors[i].Data))]
		if !bytes.Equal(got, f.Tensors[i].Data) {
			t.Errorf("tensor %s data differs", ti.Name)
		}
	}
	if uint64(len(raw)) != h.DataStart+32+32 {
		t.Errorf("file is %d bytes, want %d (each tensor padded to %d)", len(raw), h.DataStart+64, Alignment)
	}
}

func TestWriteRejects(t *testing.T) {
	short := &File{Tensors: []Tensor{{Name: "x", Dims: []uint64{4}, Type: F32, Data: make([]byte, 8)}}}
	if err := short.Write(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "tensor x") {
		t.Errorf("short data: %v", err)
	}
	odd := &File{KV: []KV{{"k", []uint64{1}}}}
	if err := odd.Write(&bytes.Buffer{}); err == nil {
		t.Error("an unsupported value type was written")
	}
}

func TestReadRejects(t *testing.T) {
	for name, in := range map[string][]byte{
		"empty":     nil,
		"not gguf":  []byte("GGML\x03\x00\x00\x00"),
		"truncated": append([]byte("GGUF\x03\x00\x00\x00"), 1, 0, 0, 0),
		"huge key":  append([]byte("GGUF\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00"), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f),
	} {
		if _, err := Read(bytes.NewReader(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestLlamaShape checks the model file llama.cpp and Ollama load: the
// metadata they require and every tensor's name, shape and type, for the
// default configuration (28M parameters, about 56 MB).
func TestLlamaShape(t *testing.T) {
	c := Default
	f, err := Llama(c)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	h, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]any{
		"general.architecture":         "llama",
		"llama.embedding_length":       uint32(512),
		"llama.block_count":            uint32(8),
		"llama.attention.head_count":   uint32(8),
		"llama.rope.dimension_count":   uint32(64),
		"tokenizer.ggml.model":         "llama",
		"tokenizer.ggml.bos_token_id":  uint32(BOS),
		"tokenizer.ggml.eos_token_id":  uint32(EOS),
		"tokenizer.ggml.add_bos_token": true,
	} {
		if got := h.Get(key); got != want {
			t.Errorf("%s = %#v, want %#v", key, got, want)
		}
	}
	toks, _ := h.Get("tokenizer.ggml.tokens").([]string)
	types, _ := h.Get("tokenizer.ggml.token_type").([]int32)
	scores, _ := h.Get("tokenizer.ggml.scores").([]float32)
	if len(toks) != c.Vocab || len(types) != c.Vocab || len(scores) != c.Vocab {
		t.Fatalf("vocabulary: %d tokens, %d types, %d scores; want %d", len(toks), len(types), len(scores), c.Vocab)
	}
	seen := map[string]bool{}
	for _, s := range toks {
		if seen[s] {
			t.Errorf("token %q twice", s)
		}
		seen[s] = true
	}
	if toks[3] != "<0x00>" || toks[258] != "<0xFF>" || types[258] != tokenByte || types[FirstNormal] != tokenNormal {
		t.Errorf("byte tokens misplaced: %q %q", toks[3], toks[258])
	}
	var params uint64
	names := map[string]TensorInfo{}
	for i, ti := range h.Tensors {
		names[ti.Name] = ti
		params += f.Tensors[i].Elements()
		if ti.Offset%Alignment != 0 {
			t.Errorf("%s at offset %d", ti.Name, ti.Offset)
		}
	}
	if len(h.Tensors) != 3+9*c.Layers {
		t.Errorf("%d tensors", len(h.Tensors))
	}
	for name, want := range map[string]TensorInfo{
		"token_embd.weight":      {Dims: []uint64{512, 1024}, Type: F16},
		"blk.0.attn_q.weight":    {Dims: []uint64{512, 512}, Type: F16},
		"blk.7.ffn_gate.weight":  {Dims: []uint64{512, 1536}, Type: F16},
		"blk.7.ffn_down.weight":  {Dims: []uint64{1536, 512}, Type: F16},
		"blk.3.attn_norm.weight": {Dims: []uint64{512}, Type: F32},
		"output_norm.weight":     {Dims: []uint64{512}, Type: F32},
		"output.weight":          {Dims: []uint64{512, 1024}, Type: F16},
	} {
		got, ok := names[name]
		if !ok || !reflect.DeepEqual(got.Dims, want.Dims) || got.Type != want.Type {
			t.Errorf("%s: %+v, want dims %v type %d", name, got, want.Dims, want.Type)
		}
	}
	if params < 27e6 || params > 29e6 {
		t.Errorf("%d parameters, want about 28M", params)
	}
	if n := buf.Len(); n < 54e6 || n > 58e6 {
		t.Errorf("%d bytes, want about 56 MB", n)
	}
}

// TestLlamaGreedyCycle checks the property the benchmarks rely on: with
// the residual stream equal to a token's embedding (the layers add about
// 1% to it, see layerScale), the output layer's argmax after token t is
// Next(t), by a wide margin, and never a control or byte token. It reads
// the F16 weights as the server does.
func TestLlamaGreedyCycle(t *testing.T) {
	c := Default
	f, err := Llama(c)
	if err != nil {
		t.Fatal(err)
	}
	embd, out := halfRows(t, f, "token_embd.weight", c), halfRows(t, f, "output.weight", c)
	seen := map[int]bool{}
	minMargin := math.Inf(1)
	for cur := range c.Vocab {
		x := embd[cur]
		rms := float64(rowRMS(x))
		best, second, arg := math.Inf(-1), math.Inf(-1), -1
		for j, w := range out {
			var dot float64
			for i := range x {
				dot += float64(w[i]) * float64(x[i]) / rms
			}
			switch {
			case dot > best:
				best, second, arg = dot, best, j
			case dot > second:
				second = dot
			}
		}
		if arg < FirstNormal {
			t.Fatalf("after token %d the argmax is control or byte token %d", cur, arg)
		}
		if cur >= FirstNormal {
			if arg != c.Next(cur) {
				t.Fatalf("after token %d the argmax is %d, want %d", cur, arg, c.Next(cur))
			}
			seen[arg] = true
			minMargin = math.Min(minMargin, best-second)
		}
	}
	if len(seen) != c.Vocab-FirstNormal {
		t.Errorf("the cycle visits %d of %d normal tokens", len(seen), c.Vocab-FirstNormal)
	}
	// The winner's logit is outputScale*Hidden (25.6); the runner-up's is
	// a few units: a margin this wide survives the layers' small additions.
	if minMargin < 15 {
		t.Errorf("smallest margin between the winner and the runner-up: %.1f", minMargin)
	}
	t.Logf("smallest greedy margin over %d tokens: %.1f logits", c.Vocab-FirstNormal, minMargin)
}

func halfRows(t *testing.T, f *File, name string, c Config) [][]float32 {
	t.Helper()
	for _, ts := range f.Tensors {
		if ts.Name != name {
			continue
		}
		rows := make([][]float32, c.Vocab)
		for r := range rows {
			rows[r] = make([]float32, c.Hidden)
			for i := range rows[r] {
				rows[r][i] = Float32(binary.LittleEndian.Uint16(ts.Data[2*(r*c.Hidden+i):]))
			}
		}
		return rows
	}
	t.Fatalf("no tensor %s", name)
	return nil
}

func TestLlamaRejects(t *testing.T) {
	for _, c := range []Config{
		{Vocab: 100, Hidden: 512, Layers: 1, FFN: 1, Heads: 8, Context: 1},
		{Vocab: 1024, Hidden: 500, Layers: 1, FFN: 1, Heads: 8, Context: 1},
		{Vocab: 1024, Hidden: 512, Layers: 0, FFN: 1, Heads: 8, Context: 1},
	} {
		if _, err := Llama(c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}
