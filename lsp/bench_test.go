package lsp

import (
	"context"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/bench/vaultgen"
	"github.com/zk-claims/zk/vault"
)

// The benchmarks run over the protocol (a pipe, JSON-RPC both ways) on a
// generated vault of benchNotes notes, as an editor would see the server.
const benchNotes = 10000

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

func benchVault(b *testing.B) string {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "zk-lsp-bench-")
		if benchErr == nil {
			benchErr = vaultgen.Generate(benchDir, benchNotes, 1)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

// benchSession starts a server on dir; diags receives the URI of each
// publishDiagnostics.
func benchSession(b *testing.B, dir string) (*jsonrpc2.Conn, chan string, func()) {
	v, err := vault.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	srv := New(Options{Vault: v, Debounce: time.Millisecond})
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
// diagnostics of the first note opened: the vault's scan, then one check.
func BenchmarkFirstDiagnostics(b *testing.B) {
	dir := benchVault(b)
	p := vaultgen.Path(17)
	src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		b.Fatal(err)
	}
	uri := fileURI(dir, p)
	b.ReportMetric(benchNotes, "notes")
	b.ResetTimer()
	for range b.N {
		conn, diags, stop := benchSession(b, dir)
		conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: uri, LanguageID: "markdown", Version: 1, Text: string(src)}})
		for got := <-diags; got != uri; got = <-diags {
		}
		b.StopTimer()
		stop()
		b.StartTimer()
	}
}

// BenchmarkRequests times definition and completion requests on an open
// note once the vault is scanned, reporting p50 and p99 over b.N each.
func BenchmarkRequests(b *testing.B) {
	dir := benchVault(b)
	p := vaultgen.Path(17)
	srcb, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		b.Fatal(err)
	}
	src := string(srcb) + "\nSee [[Claim 00042\n"
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
	lastLine := len(lines) - 2
	for _, tc := range []struct {
		name   string
		method string
		pos    protocol.Position
		ok     func(json.RawMessage) bool
	}{
		{"definition", protocol.MethodTextDocumentDefinition, protocol.Position{Line: uint32(linkLine), Character: 5},
			func(r json.RawMessage) bool {
				return strings.Contains(string(r), `"uri"`) || strings.Contains(string(r), "null")
			}},
		{"completion", protocol.MethodTextDocumentCompletion, protocol.Position{Line: uint32(lastLine), Character: uint32(len(lines[lastLine]))},
			func(r json.RawMessage) bool { return strings.Contains(string(r), "Claim 00042") }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			params := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: tc.pos}
			times := make([]time.Duration, 0, b.N)
			for range b.N {
				var r json.RawMessage
				start := time.Now()
				if err := conn.Call(ctx, tc.method, params, &r); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
				if !tc.ok(r) {
					b.Fatalf("%s: %s", tc.name, r)
				}
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), "p99-µs")
			b.ReportMetric(benchNotes, "notes")
		})
	}
}
