package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestPipedRequestsAreAllAnswered: a client that writes its requests and
// closes its end at once (zk mcp < calls.jsonl) is owed every answer.
// Before drainTransport, the SDK took the end of input for the end of the
// connection and dropped the answers not yet written: most runs of this
// test lost the tools' answers, some the initialize answer too.
func TestPipedRequestsAreAllAnswered(t *testing.T) {
	dir := writeMCPVault(t)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, ".cache-home"))
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"check","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"backlinks","arguments":{"note":"Rates"}}}`,
	}, "\n") + "\n"
	for round := range 5 {
		var out bytes.Buffer
		if err := Serve(context.Background(), testOptions(dir), strings.NewReader(in), &out); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		got := map[float64]bool{}
		for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
			var m struct {
				ID     *float64        `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if line == "" || json.Unmarshal([]byte(line), &m) != nil || m.ID == nil || m.Result == nil {
				continue
			}
			got[*m.ID] = true
		}
		for _, id := range []float64{1, 2, 3} {
			if !got[id] {
				t.Fatalf("round %d: no answer to request %v; the server wrote:\n%s", round, id, out.String())
			}
		}
	}
}

// A result's structured content is its text, byte for byte: the
// command's key order (a finding's path first, as zk check --format json
// has it). The SDK sent the structured content from the map it checks
// against the schema, every object's keys sorted (a finding's column
// first), so the two said the same in two orders.
func TestStructuredContentInTheCommandsOrder(t *testing.T) {
	dir := writeMCPVault(t)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, ".cache-home"))
	calls := []string{
		`{"name":"check","arguments":{}}`,
		`{"name":"links","arguments":{"note":"Rates"}}`,
		`{"name":"read_note","arguments":{"note":"Rates"}}`,
		`{"name":"verdicts","arguments":{}}`,
	}
	in := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	for i, c := range calls {
		in = append(in, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+2, c))
	}
	var out bytes.Buffer
	if err := Serve(context.Background(), testOptions(dir), strings.NewReader(strings.Join(in, "\n")+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	answered := 0
	for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				Structured json.RawMessage `json:"structuredContent"`
				IsError    bool            `json:"isError"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || m.ID < 2 {
			continue
		}
		answered++
		call := calls[m.ID-2]
		if m.Result.IsError || len(m.Result.Content) != 1 {
			t.Errorf("%s: %s", call, line)
			continue
		}
		if text := m.Result.Content[0].Text; string(m.Result.Structured) != text {
			t.Errorf("%s: structured content\n%.200s\nis not its text\n%.200s", call, m.Result.Structured, text)
		}
	}
	if answered != len(calls) {
		t.Errorf("%d answers, want %d:\n%s", answered, len(calls), out.String())
	}
}
