package probe

import (
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func readAll(t testing.TB, in string) ([]string, error) {
	t.Helper()
	r := newSSEReader(strings.NewReader(in))
	var out []string
	for {
		data, err := r.next()
		if err != nil {
			if err == io.EOF {
				return out, nil
			}
			return out, err
		}
		out = append(out, string(data))
	}
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"two events", "data: a\n\ndata: b\n\n", []string{"a", "b"}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}},
		{"multi-line data joins with newline", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"comment pings are skipped", ": ping\n\ndata: a\n\n: ping\n\n", []string{"a"}},
		{"other fields are ignored", "event: x\nid: 3\nretry: 10\ndata: a\n\n", []string{"a"}},
		{"no space after colon", "data:a\n\n", []string{"a"}},
		{"only one leading space is stripped", "data:  a\n\n", []string{" a"}},
		{"last event without blank line", "data: a\n\ndata: b", []string{"a", "b"}},
		{"blank lines between events", "\n\n\ndata: a\n\n\n\n", []string{"a"}},
		{"a field named like data is not data", "database: x\n\n", nil},
		{"empty stream", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAll(t, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("events = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSSEReaderBoundsAnEvent(t *testing.T) {
	in := "data: " + strings.Repeat("x", maxEventBytes+1) + "\n\n"
	if _, err := readAll(t, in); !errors.Is(err, errEventTooLarge) {
		t.Errorf("err = %v, want errEventTooLarge", err)
	}
	// Many data lines that together pass the bound.
	in = strings.Repeat("data: "+strings.Repeat("y", 1000)+"\n", maxEventBytes/1000+1) + "\n"
	if _, err := readAll(t, in); !errors.Is(err, errEventTooLarge) {
		t.Errorf("err = %v, want errEventTooLarge", err)
	}
}

// FuzzSSEReader checks that no input makes the reader panic or return
// more data than it was given.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{"data: a\n\n", "data: [DONE]\r\n\r\n", ": x\n", "data:\ndata\n\n", "\r\r\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		events, _ := readAll(t, in)
		n := 0
		for _, e := range events {
			n += len(e)
		}
		if n > len(in) {
			t.Errorf("%d bytes of data from %d bytes of input", n, len(in))
		}
	})
}

func TestReadStream(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		units   float64
		usage   bool
		chunks  int
		wantErr string
		server  float32 // the server's own decode rate, from llama.cpp's timings
	}{
		{"usage block wins over chunks",
			"data: {\"choices\":[{\"delta\":{\"content\":\"a b\"}}]}\n\n" +
				"data: {\"choices\":[{\"delta\":{\"content\":\"c\"}}]}\n\n" +
				"data: {\"choices\":[],\"usage\":{\"completion_tokens\":3}}\n\ndata: [DONE]\n\n", 3, true, 2, "", 0},
		{"chunks without usage",
			"data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[{\"text\":\"b\"}]}\n\ndata: [DONE]\n\n", 2, false, 2, "", 0},
		{"role-only and empty chunks are not tokens",
			"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n" +
				"data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"hm\"}}]}\n\n" +
				"data: {\"choices\":[{\"delta\":{}}]}\n\ndata: [DONE]\n\n", 1, false, 1, "", 0},
		{"more chunks than the limit", strings.Repeat("data: {\"choices\":[{\"text\":\"a\"}]}\n\n", 4) + "data: [DONE]\n\n",
			0, false, 0, "more than 3 chunks", 0},
		{"no DONE", "data: {\"choices\":[{\"text\":\"a\"}]}\n\n", 0, false, 0, "stream ended before [DONE]", 0},
		{"server error in the stream", "data: {\"error\":{\"message\":\"overloaded\"}}\n\n", 0, false, 0, "server error", 0},
		{"not JSON", "data: {oops\n\n", 0, false, 0, "not JSON", 0},
		{"llama.cpp's timings are the server's own rate",
			"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n" +
				"data: {\"choices\":[],\"usage\":{\"completion_tokens\":4},\"timings\":{\"predicted_n\":4,\"predicted_ms\":40}}\n\ndata: [DONE]\n\n",
			4, true, 1, "", 75}, // 3 tokens after the first in 40 ms
		{"timings without a time are no rate",
			"data: {\"choices\":[{\"text\":\"a\"}],\"timings\":{\"predicted_n\":4,\"predicted_ms\":0}}\n\ndata: [DONE]\n\n",
			1, false, 1, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &request{epoch: time.Now()}
			err := readStream(strings.NewReader(tt.in), s, 3)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.units != tt.units || s.usage != tt.usage || len(s.events) != tt.chunks || s.serverDecode != tt.server {
				t.Errorf("units, usage, chunks, server rate = %v, %v, %d, %v; want %v, %v, %d, %v",
					s.units, s.usage, len(s.events), s.serverDecode, tt.units, tt.usage, tt.chunks, tt.server)
			}
			var sum float64
			for _, e := range s.events {
				sum += e.units
			}
			if math.Abs(sum-s.units) > 1e-9*s.units {
				t.Errorf("events carry %v units, want %v", sum, s.units)
			}
		})
	}
}

// FuzzReadStream checks that no stream makes the chunk reader panic, and
// that whatever it counts adds up: the token events carry exactly the
// request's units.
func FuzzReadStream(f *testing.F) {
	f.Add("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[],\"usage\":{\"completion_tokens\":7}}\n\ndata: [DONE]\n\n")
	f.Add("data: {\"choices\":[{\"text\":\"a\"}],\"error\":null}\n\ndata: [DONE]\n\n")
	f.Add("data: {\"usage\":{\"completion_tokens\":-3},\"choices\":[{\"text\":\"x\"}]}\n\ndata: [DONE]\n\n")
	f.Add("data: {\"choices\":[{\"text\":\"x\"}],\"timings\":{\"predicted_n\":2,\"predicted_ms\":1e-300}}\n\ndata: [DONE]\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		r := &request{epoch: time.Now()}
		if err := readStream(strings.NewReader(in), r, 64); err != nil {
			return
		}
		var sum float64
		for _, e := range r.events {
			sum += e.units
		}
		if r.units < 0 || math.Abs(sum-r.units) > 1e-9*r.units {
			t.Errorf("units %v, events carry %v", r.units, sum)
		}
		if d := float64(r.serverDecode); d < 0 || math.IsNaN(d) || math.IsInf(d, 0) {
			t.Errorf("server decode rate %v", d)
		}
	})
}

// traceRead is one read of a synthetic arrival trace: at ms after the
// epoch the client's read returns chunks chunks of text (and then tail).
type traceRead struct {
	ms     float64
	chunks int
	tail   string
}

// traceBody replays reads on a fake clock: each read sets the clock to its
// time, and every look at the clock after it costs a microsecond, as
// parsing the chunks a read brought costs the client its time.
type traceBody struct {
	reads []traceRead
	rest  []byte
	base  time.Duration
	calls int
}

const traceChunk = "data: {\"choices\":[{\"text\":\"a\"}]}\n\n"

func (b *traceBody) Read(p []byte) (int, error) {
	if len(b.rest) == 0 {
		if len(b.reads) == 0 {
			return 0, io.EOF
		}
		r := b.reads[0]
		b.reads = b.reads[1:]
		b.rest = []byte(strings.Repeat(traceChunk, r.chunks) + r.tail)
		b.base, b.calls = time.Duration(r.ms*float64(time.Millisecond)), 0
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}

func (b *traceBody) now() time.Duration {
	b.calls++
	return b.base + time.Duration(b.calls)*time.Microsecond
}

// paced is n reads of one chunk, every ms milliseconds from from.
func paced(from, ms float64, n int) []traceRead {
	var rs []traceRead
	for i := range n {
		rs = append(rs, traceRead{ms: from + ms*float64(i), chunks: 1})
	}
	return rs
}

// TestReadStreamTimesDecodeByRead replays arrival traces: a chunk arrived
// with the read that brought it, the decode is timed from the first
// token's read to the last's over the tokens that came after the first
// read, and a request whose chunks came in a burst (more than four a read)
// has no decode rate. Stamping chunks as they were parsed gave a response
// read at once a rate over the parsing's microseconds.
func TestReadStreamTimesDecodeByRead(t *testing.T) {
	const done = "data: [DONE]\n\n"
	tests := []struct {
		name  string
		reads []traceRead
		rate  float64 // 0: none
		burst bool
	}{
		{"a chunk a read", paced(0, 10, 13), 100, false},
		{"the whole response in one read", []traceRead{{ms: 500, chunks: 13}}, 0, true},
		{"two chunks in one read", []traceRead{{ms: 500, chunks: 2}}, 0, true},
		{"a burst split across reads by buffers",
			[]traceRead{{ms: 500, chunks: 12}, {ms: 500.02, chunks: 12}, {ms: 500.04, chunks: 4}}, 0, true},
		// Tokens 1-4 waited in the socket until 30 ms; 5-13 came 10 ms
		// apart: 9 tokens after the first read, in 90 ms.
		{"the first token read late", append([]traceRead{{ms: 30, chunks: 4}}, paced(40, 10, 9)...), 100, false},
		// 14 tokens two a read, 20 ms apart: 12 after the first read in
		// 120 ms.
		{"two chunks a read, paced", func() []traceRead {
			rs := paced(0, 20, 7)
			for i := range rs {
				rs[i].chunks = 2
			}
			return rs
		}(), 100, false},
		// A server that sends four at once, every 40 ms (speculative
		// decoding): 24 tokens, 20 after the first read in 200 ms.
		{"four chunks a read, paced", func() []traceRead {
			rs := paced(0, 40, 6)
			for i := range rs {
				rs[i].chunks = 4
			}
			return rs
		}(), 100, false},
		{"five chunks a read", []traceRead{{ms: 0, chunks: 5}, {ms: 40, chunks: 5}}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.reads[len(tt.reads)-1].tail = done
			body := &traceBody{reads: tt.reads}
			r := &request{clock: body.now}
			if err := readStream(body, r, 1000); err != nil {
				t.Fatal(err)
			}
			s := r.sample
			s.from, s.to = 0, int32(len(r.events))
			rate, ok := decodeRate(s)
			if s.burst != tt.burst || ok != (tt.rate > 0) || ok && math.Abs(rate-tt.rate) > 1e-6*tt.rate {
				t.Errorf("burst %v, rate %v (%v); want burst %v, rate %v", s.burst, rate, ok, tt.burst, tt.rate)
			}
		})
	}
}
