package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// standIn picks a message's id, method and document out of it wherever
// they are (a client's keys in any order, the text first or last), and
// reads it to its end.
func TestStandIn(t *testing.T) {
	text := strings.Repeat(`a \"quoted\" [[link]] {brace} \\ `, 1000)
	for _, tc := range []struct {
		name, msg string
		want      tooLargeParams
		id        string
	}{
		{"text last", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///v/N.md","languageId":"markdown","version":3,"text":"` + text + `"}}}`,
			tooLargeParams{Method: "textDocument/didOpen", URI: "file:///v/N.md", Version: 3}, ""},
		{"text first", `{"params":{"textDocument":{"text":"` + text + `","version":7,"uri":"file:///v/N.md"},"contentChanges":[{"text":"` + text + `"}]},"method":"textDocument/didChange","jsonrpc":"2.0"}`,
			tooLargeParams{Method: "textDocument/didChange", URI: "file:///v/N.md", Version: 7}, ""},
		{"a request", `{"jsonrpc":"2.0","id":42,"method":"workspace/symbol","params":{"query":"` + text + `"}}`,
			tooLargeParams{Method: "workspace/symbol"}, "42"},
		{"a string id, spaced", "{ \"id\" : \"a-1\" ,\n \"method\" : \"x\" , \"params\" : { \"q\" : [ 1 , { \"uri\" : \"nope\" } ] } }",
			tooLargeParams{Method: "x"}, `"a-1"`},
		{"no JSON", `]]]}}}"unterminated`, tooLargeParams{}, ""},
	} {
		tc.want.Size = int64(len(tc.msg))
		r := bufio.NewReader(strings.NewReader(tc.msg))
		b, err := standIn(r, int64(len(tc.msg)))
		if tc.name == "no JSON" {
			if err == nil {
				t.Errorf("%s: no error for an unterminated string", tc.name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if _, err := r.ReadByte(); err == nil {
			t.Errorf("%s: not read to its end", tc.name)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params tooLargeParams  `json:"params"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %s: %v", tc.name, b, err)
		}
		if m.Method != tooLargeMethod || m.Params != tc.want || string(m.ID) != tc.id {
			t.Errorf("%s: %s, want %+v id %s", tc.name, b, tc.want, tc.id)
		}
	}
}

// The codec decodes a message under its cap as jsonrpc2's does, and one
// over it as its stand-in, without keeping it.
func TestBoundedCodec(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"method":"shutdown"}`
	big := `{"jsonrpc":"2.0","id":2,"method":"x","params":"` + strings.Repeat("y", 1000) + `"}`
	var in bytes.Buffer
	for _, m := range []string{body, big} {
		in.WriteString("Content-Length: " + itoa(len(m)) + "\r\n\r\n" + m)
	}
	c := boundedCodec{max: 500}
	r := bufio.NewReader(&in)
	for _, want := range []string{`"shutdown"`, `"` + tooLargeMethod + `"`} {
		var v map[string]any
		if err := c.ReadObject(r, &v); err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(v["method"]); string(b) != want {
			t.Errorf("method %s, want %s", b, want)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
