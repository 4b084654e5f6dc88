package mcp

import (
	"bytes"
	"context"
	"encoding/json"
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
