package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// rpcWait bounds one rpc exchange: generous for a loaded machine, finite
// so that a server that never answers fails the script instead of
// hanging it. It is no timing assertion: the budgets are measured apart.
const rpcWait = 120 * time.Second

// rpcCmd is the testscript command
//
//	rpc mcp|lsp IN OUT
//
// It starts zk mcp --vault . or zk lsp in the script's folder, sends
// every JSON message of IN (one a line; Content-Length framed for lsp),
// answers the server's own requests with null, and once every request of
// IN is answered closes the server's input and waits for it to exit. OUT
// gets every message the server sent, one JSON a line; OUT.stderr its
// stderr. The wall time is logged, not asserted.
func rpcCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 || (args[0] != "mcp" && args[0] != "lsp") {
		ts.Fatalf("usage: rpc mcp|lsp IN OUT")
	}
	lsp := args[0] == "lsp"
	in, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	var msgs [][]byte
	pending := map[string]bool{}
	for line := range bytes.SplitSeq(in, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			ts.Fatalf("%s: %v", args[1], err)
		}
		if m.ID != nil {
			pending[string(m.ID)] = true
		}
		msgs = append(msgs, line)
	}

	zk := ""
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if p := filepath.Join(dir, "zk"); fileExists(p) {
			zk = p
			break
		}
	}
	if zk == "" {
		ts.Fatalf("rpc: no zk in $PATH")
	}
	argv := []string{"mcp", "--vault", "."}
	if lsp {
		argv = []string{"lsp"}
	}
	cmd := exec.Command(zk, argv...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = os.Environ()
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "ZK_TODAY", "NO_COLOR", "TMPDIR"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	stdout, err := cmd.StdoutPipe()
	ts.Check(err)
	start := time.Now()
	ts.Check(cmd.Start())

	var mu sync.Mutex // guards writes to stdin
	write := func(b []byte) error {
		mu.Lock()
		defer mu.Unlock()
		if lsp {
			if _, err := fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n", len(b)); err != nil {
				return err
			}
			_, err := stdin.Write(b)
			return err
		}
		_, err := stdin.Write(append(b, '\n'))
		return err
	}
	var out bytes.Buffer // the reader's until readErr
	answered := make(chan struct{})
	readErr := make(chan error, 1)
	go func() {
		r := bufio.NewReader(stdout)
		left := len(pending)
		if left == 0 {
			close(answered)
		}
		for {
			msg, err := readMessage(r, lsp)
			if err != nil {
				readErr <- err
				return
			}
			out.Write(msg)
			out.WriteByte('\n')
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(msg, &m) != nil || m.ID == nil {
				continue
			}
			if m.Method != "" { // the server asks: say nothing more
				write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":null}`)) //nolint:errcheck // a server gone is seen below
				continue
			}
			if pending[string(m.ID)] {
				delete(pending, string(m.ID))
				if left--; left == 0 {
					close(answered)
				}
			}
		}
	}()
	go func() {
		for _, m := range msgs {
			if write(m) != nil {
				return
			}
		}
	}()
	timeout := time.After(rpcWait)
	select {
	case <-answered:
	case err := <-readErr:
		cmd.Wait() //nolint:errcheck
		ts.Fatalf("rpc: the server stopped before answering every request: %v\n%s", err, stderr.String())
	case <-timeout:
		cmd.Process.Kill() //nolint:errcheck
		ts.Fatalf("rpc: no answer to every request within %v", rpcWait)
	}
	elapsed := time.Since(start)
	mu.Lock()
	stdin.Close()
	mu.Unlock()
	// Every message the server sends before it exits is kept: the reader
	// reads to the end of its output.
	select {
	case <-readErr:
	case <-time.After(rpcWait):
		cmd.Process.Kill() //nolint:errcheck
		ts.Fatalf("rpc: %s did not exit at the end of its input", args[0])
	}
	if err := cmd.Wait(); err != nil {
		ts.Logf("rpc: %s exited: %v", args[0], err)
	}
	ts.Logf("rpc %s %s: answered in %v", args[0], args[1], elapsed.Round(time.Millisecond))
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), out.Bytes(), 0o644))
	ts.Check(os.WriteFile(ts.MkAbs(args[2]+".stderr"), stderr.Bytes(), 0o644))
}

// readMessage reads one message: a line (mcp) or a Content-Length framed
// body (lsp).
func readMessage(r *bufio.Reader, lsp bool) ([]byte, error) {
	if !lsp {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
	h, err := textproto.NewReader(r).ReadMIMEHeader()
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(h.Get("Content-Length"))
	if err != nil {
		return nil, fmt.Errorf("content-length: %w", err)
	}
	b := make([]byte, n)
	_, err = io.ReadFull(r, b)
	return b, err
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// genrpcCmd is the testscript command
//
//	genrpc FILE SHAPE
//
// It writes the requests of a hostile input too large for a script
// (issue 23), after an initialize, as rpc reads them:
//
//	mcp-search-5mb   one search of 5 MB
//	mcp-parens       one search of 100 KB of (
//	mcp-read-huge    a read_note whose argument is 5 MB
//	lsp-docs-large   a 50 MB and a 5 MB note opened, then a hover
//	lsp-changes      a note opened, changed 100 times at 1 MB, then a
//	                 hover and its symbols
func genrpcCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: genrpc FILE SHAPE")
	}
	var b strings.Builder
	line := func(v any) {
		j, err := json.Marshal(v)
		ts.Check(err)
		b.Write(j)
		b.WriteByte('\n')
	}
	type obj = map[string]any
	mcpInit := func() {
		line(obj{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": obj{"protocolVersion": "2025-06-18", "capabilities": obj{}, "clientInfo": obj{"name": "t", "version": "1"}}})
		line(obj{"jsonrpc": "2.0", "method": "notifications/initialized"})
	}
	call := func(id int, tool string, arguments obj) {
		line(obj{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": obj{"name": tool, "arguments": arguments}})
	}
	uriOf := func(name string) string { return "file://" + filepath.ToSlash(ts.MkAbs(name)) }
	uri := uriOf("Note.md")
	lspInit := func() {
		line(obj{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": obj{"processId": nil, "rootUri": "file://" + filepath.ToSlash(ts.MkAbs(".")), "capabilities": obj{}}})
		line(obj{"jsonrpc": "2.0", "method": "initialized", "params": obj{}})
	}
	openAt := func(uri, text string) {
		line(obj{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": obj{"textDocument": obj{"uri": uri, "languageId": "markdown", "version": 1, "text": text}}})
	}
	open := func(text string) { openAt(uri, text) }
	hover := func(id int) {
		line(obj{"jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": obj{"textDocument": obj{"uri": uri}, "position": obj{"line": 0, "character": 3}}})
	}
	switch args[1] {
	case "mcp-search-5mb":
		mcpInit()
		call(2, "search", obj{"query": strings.Repeat("word ", 1<<20)})
		call(3, "search", obj{"query": "alpha"})
	case "mcp-parens":
		mcpInit()
		call(2, "search", obj{"query": strings.Repeat("(", 100_000)})
		call(3, "search", obj{"query": strings.Repeat("(", 4000)})
		call(4, "search", obj{"query": "alpha"})
	case "mcp-read-huge":
		mcpInit()
		call(2, "read_note", obj{"note": strings.Repeat("a", 5<<20)})
		call(3, "read_note", obj{"note": "Note.md"})
	case "lsp-docs-large":
		lspInit()
		open("# Note\n\n" + strings.Repeat("[[Nope]] words ", 50<<20/15) + "\n")
		openAt(uriOf("Other.md"), "# Other\n\n"+strings.Repeat("[[Nope]] words ", 5<<20/15)+"\n")
		hover(2)
	case "lsp-changes":
		lspInit()
		open("# Note\n")
		para := strings.Repeat("[[Nope]] words ", 1<<20/15)
		for v := 2; v <= 101; v++ {
			line(obj{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": obj{
				"textDocument":   obj{"uri": uri, "version": v},
				"contentChanges": []obj{{"text": "# Version " + strconv.Itoa(v) + "\n\n" + para + "\n"}}}})
		}
		hover(2)
		line(obj{"jsonrpc": "2.0", "id": 3, "method": "textDocument/documentSymbol", "params": obj{"textDocument": obj{"uri": uri}}})
	case "lsp-wrong":
		// Ordinary but wrong requests (lsp-errors.txtar), from a client
		// that can rename files.
		line(obj{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": obj{"processId": nil, "rootUri": uriOf("."), "capabilities": obj{
			"workspace": obj{"workspaceEdit": obj{"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"}}}}}})
		line(obj{"jsonrpc": "2.0", "method": "initialized", "params": obj{}})
		at := func(id int, method, u string, l, c int, more obj) {
			params := obj{"textDocument": obj{"uri": u}, "position": obj{"line": l, "character": c}}
			maps.Copy(params, more)
			line(obj{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		}
		at(2, "textDocument/hover", uriOf("")+"/A%00.md", 0, 0, nil)
		at(3, "textDocument/hover", uriOf("Gone.md"), 0, 0, nil)
		at(4, "textDocument/rename", uri, 2, 6, obj{"newName": "A#1"})
		at(5, "textDocument/rename", uri, 2, 6, obj{"newName": ".obsidian/X"})
		at(6, "textDocument/rename", uri, 2, 6, obj{"newName": "Note"})
		at(7, "textDocument/hover", uri, 0, -5, nil)
	default:
		ts.Fatalf("genrpc: unknown shape %q", args[1])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}
