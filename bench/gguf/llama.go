package gguf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Config shapes the random llama model.
type Config struct {
	Vocab   int // tokens, including the 3 control and 256 byte tokens
	Hidden  int // embedding length
	Layers  int
	FFN     int // feed-forward length
	Heads   int // attention heads (as many key/value heads)
	Context int // trained context length
	Seed    uint64
}

// Default is the benchmark model: 28M parameters, 56 MB in F16.
var Default = Config{Vocab: 1024, Hidden: 512, Layers: 8, FFN: 1536, Heads: 8, Context: 4096, Seed: 1}

// The special token ids; the byte tokens <0x00>..<0xFF> follow them.
const (
	UNK = 0
	BOS = 1
	EOS = 2
	// FirstNormal is the first ordinary (text) token.
	FirstNormal = 3 + 256
)

// Token types of the tokenizer.ggml.token_type array (llama.cpp's).
const (
	tokenNormal  = 1
	tokenUnknown = 2
	tokenControl = 3
	tokenByte    = 6
)

// layerScale scales the output projections of attention and feed-forward
// (attn_output, ffn_down) relative to the others. The model must decode
// the same way on every server, whatever the prompt: greedy decoding
// walks one cycle through the normal tokens (Next), never emits a control
// token and never repeats a token within a cycle of Vocab-259 tokens. Two
// servers' traps make this necessary: Ollama ends a stream early, with no
// usage, once one token repeats more than 30 times, and it ignores
// ignore_eos, so a random model would stop at a random length. The cycle
// lives in token_embd and output (see Llama); it survives the layers only
// if their contribution to the residual stream is small beside the
// embedding. The layers still run at full cost: their weights are random
// and dense, only the two output projections are scaled down, so each
// layer adds about 0.01 of the embedding's magnitude.
const layerScale = 0.002

// outputScale sets the winning logit near 25 and the others within a few
// units of 0: greedy decoding is decided by a wide margin, and sampling
// at a usual temperature almost always agrees with it.
const outputScale = 0.05

// Next is the token greedy decoding produces after tok: the next normal
// token, wrapping from the last to the first. After a control or byte
// token (which may end a prompt) it is some normal token.
func (c Config) Next(tok int) int {
	if tok < FirstNormal || tok == c.Vocab-1 {
		return FirstNormal
	}
	return tok + 1
}

// Tokens are the vocabulary: <unk>, <s>, </s>, the 256 byte tokens, then
// SentencePiece pieces built from syllables, half of them word-initial
// ("▁ka"), so that a generated stream reads as text.
func (c Config) Tokens() (tokens []string, scores []float32, types []int32) {
	tokens = []string{"<unk>", "<s>", "</s>"}
	types = []int32{tokenUnknown, tokenControl, tokenControl}
	for b := range 256 {
		tokens = append(tokens, fmt.Sprintf("<0x%02X>", b))
		types = append(types, tokenByte)
	}
	const cons, vows = "bdfghjklmnprstvwz", "aeiou"
	var pieces []string
	for _, v := range vows {
		pieces = append(pieces, string(v))
	}
	for _, k := range cons {
		for _, v := range vows {
			pieces = append(pieces, string(k)+string(v))
		}
	}
	for _, k := range cons {
		for _, v := range vows {
			for _, k2 := range "nrst" {
				pieces = append(pieces, string(k)+string(v)+string(k2))
			}
		}
	}
	for i := 0; len(tokens) < c.Vocab; i++ {
		p := pieces[i/2%len(pieces)]
		if i%2 == 0 {
			p = "▁" + p
		}
		if i/2 >= len(pieces) { // beyond the syllables: numbered pieces
			p = fmt.Sprintf("%s%d", p, i/2/len(pieces))
		}
		tokens = append(tokens, p)
		types = append(types, tokenNormal)
	}
	scores = make([]float32, len(tokens))
	for i := range scores {
		if types[i] == tokenNormal {
			scores[i] = -float32(i) // earlier pieces are preferred when merging
		}
	}
	return tokens, scores, types
}

// Llama builds the model: a llama-architecture GGUF with a SentencePiece
// ("llama") tokenizer and random weights drawn from c.Seed, shaped so that
// greedy decoding follows c.Next (see layerScale).
func Llama(c Config) (*File, error) {
	switch {
	case c.Vocab < FirstNormal+2:
		return nil, fmt.Errorf("vocabulary of %d: needs at least %d tokens", c.Vocab, FirstNormal+2)
	case c.Hidden <= 0 || c.Layers <= 0 || c.FFN <= 0 || c.Heads <= 0 || c.Context <= 0:
		return nil, errors.New("sizes must be positive")
	case c.Hidden%c.Heads != 0 || (c.Hidden/c.Heads)%2 != 0:
		return nil, fmt.Errorf("hidden %d is not an even multiple of %d heads", c.Hidden, c.Heads)
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x7a6b)) // "zk"
	headDim := c.Hidden / c.Heads
	tokens, scores, types := c.Tokens()
	f := &File{KV: []KV{
		{"general.architecture", "llama"},
		{"general.name", "zk-bench random llama"},
		{"general.file_type", uint32(1)}, // mostly F16
		{"general.alignment", uint32(Alignment)},
		{"llama.context_length", uint32(c.Context)},
		{"llama.embedding_length", uint32(c.Hidden)},
		{"llama.block_count", uint32(c.Layers)},
		{"llama.feed_forward_length", uint32(c.FFN)},
		{"llama.attention.head_count", uint32(c.Heads)},
		{"llama.attention.head_count_kv", uint32(c.Heads)},
		{"llama.attention.key_length", uint32(headDim)},
		{"llama.attention.value_length", uint32(headDim)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.rope.dimension_count", uint32(headDim)},
		{"llama.rope.freq_base", float32(10000)},
		{"llama.vocab_size", uint32(c.Vocab)},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.scores", scores},
		{"tokenizer.ggml.token_type", types},
		{"tokenizer.ggml.unknown_token_id", uint32(UNK)},
		{"tokenizer.ggml.bos_token_id", uint32(BOS)},
		{"tokenizer.ggml.eos_token_id", uint32(EOS)},
		{"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.ggml.add_eos_token", false},
		// A plain template: every message's text on its own line. Without
		// one llama-server falls back to ChatML, Ollama to the bare prompt.
		{"tokenizer.chat_template", "{% for message in messages %}{{ message['content'] }}\n{% endfor %}"},
	}}

	// The embedding of every token: standard normal, so each row's RMS is
	// about 1 and two rows are nearly orthogonal (cosine ~ 1/sqrt(Hidden)).
	embd := make([]float32, c.Vocab*c.Hidden)
	for i := range embd {
		embd[i] = float32(rng.NormFloat64())
	}
	// Round through F16 first, so the output rows below are built from
	// the embedding the server will actually read.
	for i := range embd {
		embd[i] = Float32(Float16(embd[i]))
	}
	// output row Next(t) is token t's normalised embedding, so the logit of
	// Next(t) given t's embedding is outputScale*Hidden, and every other
	// normal token's is outputScale times a near-zero cosine. Rows of
	// control and byte tokens are zero: they never beat the winner.
	out := make([]float32, c.Vocab*c.Hidden)
	for t := FirstNormal; t < c.Vocab; t++ {
		src, dst := embd[t*c.Hidden:(t+1)*c.Hidden], out[c.Next(t)*c.Hidden:]
		rms := rowRMS(src)
		for i, v := range src {
			dst[i] = outputScale * v / rms
		}
	}

	dense := func(n int, sd float64) []float32 {
		w := make([]float32, n)
		for i := range w {
			w[i] = float32(rng.NormFloat64() * sd)
		}
		return w
	}
	ones := func(n int) []float32 {
		w := make([]float32, n)
		for i := range w {
			w[i] = 1
		}
		return w
	}
	h, ff := uint64(c.Hidden), uint64(c.FFN)
	f.Tensors = append(f.Tensors, f16Tensor("token_embd.weight", []uint64{h, uint64(c.Vocab)}, embd))
	const sd = 0.02
	for l := range c.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		f.Tensors = append(f.Tensors,
			f32Tensor(p+"attn_norm.weight", []uint64{h}, ones(c.Hidden)),
			f16Tensor(p+"attn_q.weight", []uint64{h, h}, dense(c.Hidden*c.Hidden, sd)),
			f16Tensor(p+"attn_k.weight", []uint64{h, h}, dense(c.Hidden*c.Hidden, sd)),
			f16Tensor(p+"attn_v.weight", []uint64{h, h}, dense(c.Hidden*c.Hidden, sd)),
			f16Tensor(p+"attn_output.weight", []uint64{h, h}, dense(c.Hidden*c.Hidden, layerScale)),
			f32Tensor(p+"ffn_norm.weight", []uint64{h}, ones(c.Hidden)),
			f16Tensor(p+"ffn_gate.weight", []uint64{h, ff}, dense(c.Hidden*c.FFN, sd)),
			f16Tensor(p+"ffn_up.weight", []uint64{h, ff}, dense(c.Hidden*c.FFN, sd)),
			f16Tensor(p+"ffn_down.weight", []uint64{ff, h}, dense(c.Hidden*c.FFN, layerScale)),
		)
	}
	f.Tensors = append(f.Tensors,
		f32Tensor("output_norm.weight", []uint64{h}, ones(c.Hidden)),
		f16Tensor("output.weight", []uint64{h, uint64(c.Vocab)}, out),
	)
	return f, nil
}

func rowRMS(v []float32) float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return float32(math.Sqrt(s / float64(len(v))))
}

func f16Tensor(name string, dims []uint64, v []float32) Tensor {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], Float16(x))
	}
	return Tensor{Name: name, Dims: dims, Type: F16, Data: b}
}

func f32Tensor(name string, dims []uint64, v []float32) Tensor {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return Tensor{Name: name, Dims: dims, Type: F32, Data: b}
}
