package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/bench/vaultgen"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/workspace"
)

// The benchmarks run over the protocol (a pipe, JSON-RPC both ways) on a
// generated vault (bench/vaultgen: permanent notes with typed links, tags
// and dates), as an editor would see the server. Figures are in
// docs/performance.md; each reports its denominators (notes, requests,
// cores) beside the time.
const benchNotes = 10000

var (
	benchMu   sync.Mutex
	benchDirs = map[int]string{}
)

// benchVault is a generated vault of n notes, made once per test binary.
func benchVault(b *testing.B, n int) string {
	benchMu.Lock()
	defer benchMu.Unlock()
	if dir, ok := benchDirs[n]; ok {
		return dir
	}
	dir, err := os.MkdirTemp("", "zk-lsp-bench-")
	if err == nil {
		err = vaultgen.Generate(dir, n, 1)
	}
	if err != nil {
		b.Fatal(err)
	}
	benchDirs[n] = dir
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range benchDirs {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// benchSession starts a server on dir; diags receives the URI of each
// publishDiagnostics.
func benchSession(b *testing.B, dir string) (*jsonrpc2.Conn, chan string, func()) {
	return benchSessionWith(b, dir, nil)
}

// benchSessionWith is benchSession with the entries' cache c (nil: none).
func benchSessionWith(b *testing.B, dir string, cache *memCache) (*jsonrpc2.Conn, chan string, func()) {
	v, err := vault.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	// Today pinned after every generated date (2026): each note is due
	// for tending, and a code action on its date is offered.
	opts := Options{Vault: v, Debounce: time.Millisecond, Lint: lint.Options{Today: time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC)}}
	if cache != nil {
		opts.Cache = cache.open
	}
	srv := New(opts)
	a, c := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Serve(ctx, a); close(done) }()
	diags := make(chan string, 1000)
	conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(c, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			if req.Method == protocol.ServerTextDocumentPublishDiagnostics {
				var p struct {
					URI string `json:"uri"`
				}
				json.Unmarshal(*req.Params, &p)
				diags <- p.URI
			}
			return nil, nil
		}))
	var init json.RawMessage
	if err := conn.Call(ctx, protocol.MethodInitialize, map[string]any{"capabilities": map[string]any{}}, &init); err != nil {
		b.Fatal(err)
	}
	return conn, diags, func() { conn.Close(); cancel(); <-done; v.Close() }
}

func fileURI(dir, p string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, filepath.FromSlash(p)))}
	return u.String()
}

// BenchmarkFirstDiagnostics is the time from the server's start to the
// diagnostics of the first note opened (first-diag-s, first-cpu-s), and
// to the whole vault known: the answer to a references request, which
// waits for every note's links (vault-s, vault-cpu-s; ns/op is the same
// wall time), on 10k and 100k notes, with no cache and from a cache of
// every note's entry (cache=entries: held in memory, each start decoding
// it, as zk's model file is after an unchanged vault's first start).
func BenchmarkFirstDiagnostics(b *testing.B) {
	for _, bc := range []struct {
		n      int
		cached bool
	}{{benchNotes, false}, {benchNotes, true}, {10 * benchNotes, false}, {10 * benchNotes, true}} {
		name := fmt.Sprintf("notes=%d", bc.n)
		if bc.cached {
			name += "/cache=entries"
		}
		b.Run(name, func(b *testing.B) {
			n := bc.n
			dir := benchVault(b, n)
			var cache *memCache
			if bc.cached { // a first start writes it
				cache = &memCache{}
				conn, _, stop := benchSessionWith(b, dir, cache)
				var refs json.RawMessage
				if err := conn.Call(context.Background(), protocol.MethodTextDocumentReferences, protocol.ReferenceParams{
					TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: fileURI(dir, vaultgen.Path(17))}}}, &refs); err != nil {
					b.Fatal(err)
				}
				stop()
				cache.reuse = true
			}
			p := vaultgen.Path(17)
			src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
			if err != nil {
				b.Fatal(err)
			}
			uri := fileURI(dir, p)
			b.ResetTimer()
			var first, whole time.Duration
			var firstCPU, wholeCPU time.Duration
			for range b.N {
				start, before := time.Now(), cpuTime()
				conn, diags, stop := benchSessionWith(b, dir, cache)
				conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
					TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "markdown", Version: 1, Text: string(src)}})
				for got := <-diags; got != uri; got = <-diags {
				}
				first += time.Since(start)
				firstCPU += cpuTime() - before
				var refs json.RawMessage
				if err := conn.Call(context.Background(), protocol.MethodTextDocumentReferences, protocol.ReferenceParams{
					TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}}}, &refs); err != nil {
					b.Fatal(err)
				}
				whole += time.Since(start)
				wholeCPU += cpuTime() - before
				b.StopTimer()
				stop()
				b.StartTimer()
			}
			per := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
			b.ReportMetric(per(first), "first-diag-s")
			b.ReportMetric(per(firstCPU), "first-cpu-s")
			b.ReportMetric(per(whole), "vault-s")
			b.ReportMetric(per(wholeCPU), "vault-cpu-s")
			b.ReportMetric(float64(n), "notes")
			b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "cores")
		})
	}
}

// percentiles reports the p50 and p99 of times, with the denominators.
func percentiles(b *testing.B, times []time.Duration) {
	slices.Sort(times)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(times[len(times)/2]), "p50-ms")
	b.ReportMetric(ms(times[len(times)*99/100]), "p99-ms")
	b.ReportMetric(float64(len(times)), "requests")
	b.ReportMetric(benchNotes, "notes")
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "cores")
}

// BenchmarkRequests times requests on an open note once the vault of 10k
// notes is scanned, reporting p50 and p99 over b.N each: definition,
// completion of a note name, a tag and a relation, code actions, and the
// diagnostics of a change (from the change sent to the diagnostics
// received, with a debounce of 1 ms instead of the editor's 150).
func BenchmarkRequests(b *testing.B) {
	dir := benchVault(b, benchNotes)
	p := vaultgen.Path(17)
	srcb, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		b.Fatal(err)
	}
	src := string(srcb) + "\nSee [[Claim 00042\nAnd #late\n"
	uri := fileURI(dir, p)
	conn, diags, stop := benchSession(b, dir)
	defer stop()
	ctx := context.Background()
	conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "markdown", Version: 1, Text: src}})
	for got := <-diags; got != uri; got = <-diags {
	}
	lines := strings.Split(src, "\n")
	linkLine := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "- [[") })
	relAt := strings.Index(lines[linkLine], "— ") + len("— ") + 2
	end := func(l int) protocol.Position {
		return protocol.Position{Line: uint32(l), Character: uint32(len(lines[l]))}
	}
	for _, tc := range []struct {
		name   string
		method string
		params any
		ok     func(json.RawMessage) bool
	}{
		{"definition", protocol.MethodTextDocumentDefinition, protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: protocol.Position{Line: uint32(linkLine), Character: 5}},
			func(r json.RawMessage) bool {
				return strings.Contains(string(r), `"uri"`) || strings.Contains(string(r), "null")
			}},
		{"completion", protocol.MethodTextDocumentCompletion, protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: end(len(lines) - 3)},
			func(r json.RawMessage) bool { return strings.Contains(string(r), "Claim 00042") }},
		{"completion-tag", protocol.MethodTextDocumentCompletion, protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: end(len(lines) - 2)},
			func(r json.RawMessage) bool { return strings.Contains(string(r), `"latency"`) }},
		{"completion-relation", protocol.MethodTextDocumentCompletion, protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: protocol.Position{Line: uint32(linkLine), Character: uint32(workspace.UTF16Len(lines[linkLine][:relAt]))}},
			func(r json.RawMessage) bool { return strings.Contains(string(r), `"label"`) }},
		{"codeAction", protocol.MethodTextDocumentCodeAction, map[string]any{"textDocument": map[string]any{"uri": uri},
			"range": protocol.Range{Start: end(len(lines) - 5), End: end(len(lines) - 5)}, "context": map[string]any{"diagnostics": []any{}}},
			func(r json.RawMessage) bool { return strings.Contains(string(r), "Set Last tended") }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			times := make([]time.Duration, 0, b.N)
			for range b.N {
				var r json.RawMessage
				start := time.Now()
				if err := conn.Call(ctx, tc.method, tc.params, &r); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
				if !tc.ok(r) {
					b.Fatalf("%s: %s", tc.name, r)
				}
			}
			percentiles(b, times)
		})
	}
	b.Run("diagnostics-on-change", func(b *testing.B) {
		times := make([]time.Duration, 0, b.N)
		for i := range b.N {
			text := src + strings.Repeat("x", i%7) + "\n" // a keystroke
			start := time.Now()
			conn.Notify(ctx, protocol.MethodTextDocumentDidChange, map[string]any{
				"textDocument":   map[string]any{"uri": uri, "version": i + 2},
				"contentChanges": []map[string]any{{"text": text}},
			})
			for got := <-diags; got != uri; got = <-diags {
			}
			times = append(times, time.Since(start))
		}
		percentiles(b, times)
	})
}

// BenchmarkSave is the cost of a save, the walk of the vault it may ask
// for included (the save answered and the walk ended): CPU time per save
// (cpu-s, the process's, every goroutine) and wall time, on 10k and 100k
// notes, for a client that watches the vault's files on request (VS
// Code: watch=true) and one that does not (Neovim).
func BenchmarkSave(b *testing.B) {
	for _, n := range []int{benchNotes, 10 * benchNotes} {
		for _, watch := range []bool{false, true} {
			b.Run(fmt.Sprintf("notes=%d/watch=%v", n, watch), func(b *testing.B) {
				dir := benchVault(b, n)
				v, err := vault.Open(dir)
				if err != nil {
					b.Fatal(err)
				}
				defer v.Close()
				srv := New(Options{Vault: v, Debounce: time.Millisecond})
				a, c := net.Pipe()
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { srv.Serve(ctx, a); close(done) }()
				defer func() { cancel(); <-done }()
				// Asynchronous, as an editor reads while it answers: over
				// net.Pipe the answer to the server's registration would
				// wait for the server, writing a diagnostic meanwhile.
				conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(c, jsonrpc2.VSCodeObjectCodec{}),
					jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) { return nil, nil })))
				defer conn.Close()
				caps := map[string]any{}
				if watch {
					caps = map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}}
				}
				var init json.RawMessage
				if err := conn.Call(ctx, protocol.MethodInitialize, map[string]any{"capabilities": caps}, &init); err != nil {
					b.Fatal(err)
				}
				conn.Notify(ctx, string(protocol.MethodInitialized), map[string]any{})
				p := vaultgen.Path(17)
				src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
				if err != nil {
					b.Fatal(err)
				}
				uri := fileURI(dir, p)
				conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
					TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "markdown", Version: 1, Text: string(src)}})
				idle := func() {
					var refs json.RawMessage // answered once the vault is read
					conn.Call(ctx, protocol.MethodTextDocumentReferences, protocol.ReferenceParams{
						TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}}}, &refs)
					for {
						srv.rescanMu.Lock()
						busy := srv.rescanning
						srv.rescanMu.Unlock()
						if !busy {
							return
						}
						time.Sleep(time.Millisecond)
					}
				}
				idle()
				b.ResetTimer()
				before := cpuTime()
				for range b.N {
					conn.Notify(ctx, protocol.MethodTextDocumentDidSave, map[string]any{"textDocument": map[string]any{"uri": uri}})
					idle()
				}
				b.ReportMetric((cpuTime()-before).Seconds()/float64(b.N), "cpu-s/save")
				b.ReportMetric(float64(n), "notes")
				b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "cores")
			})
		}
	}
}
