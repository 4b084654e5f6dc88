package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/vault"
)

// maxMessage bounds the messages the server decodes: a note the server
// checks is at most the vault's note size cap (4 MiB), and its text as
// JSON rarely doubles. A message over it is not decoded (a 50 MB didOpen
// took 2 GB, issue 23): it is read past, and what its first bytes say
// (its id, its method, its document) stands in for it, as a tooLarge
// message the server answers.
const maxMessage = 16 << 20

// tooLargeMethod is the method of the message that stands in for one
// over maxMessage; its params are tooLargeParams.
const tooLargeMethod = "$/zk/tooLarge"

type tooLargeParams struct {
	Method  string `json:"method"`
	URI     string `json:"uri,omitempty"`
	Version int32  `json:"version,omitempty"`
	Size    int64  `json:"size"`
}

// boundedCodec is jsonrpc2's VSCodeObjectCodec (Content-Length framing)
// with maxMessage, and a short way for the text of a large didChange.
type boundedCodec struct {
	jsonrpc2.VSCodeObjectCodec
	max   int64
	texts *changeTexts
}

// changeMethod is the method of the message that stands in for a large
// didChange whose text the codec decoded; its params are changeParams.
const changeMethod = "$/zk/didChange"

type changeParams struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
	Token   int64  `json:"token"`
}

// changeTexts holds the texts of the didChanges the codec decoded, by
// token, until the server takes them (in order: one message at a time).
type changeTexts struct {
	mu   sync.Mutex
	next int64
	m    map[int64]string
}

func (t *changeTexts) put(text string) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	if t.m == nil {
		t.m = map[int64]string{}
	}
	t.m[t.next] = text
	return t.next
}

func (t *changeTexts) take(token int64) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.m[token]
	delete(t.m, token)
	return s, ok
}

// largeChange is what a didChange's text costs to decode through
// jsonrpc2 and glsp (a dozen passes over it); above it the codec decodes
// it once itself.
const largeChange = 64 << 10

func (c boundedCodec) ReadObject(stream *bufio.Reader, v any) error {
	n, err := readHeader(stream)
	if err != nil {
		return err
	}
	if n <= c.max {
		body := make([]byte, n)
		if _, err := io.ReadFull(stream, body); err != nil {
			return err
		}
		if n > largeChange && c.texts != nil && bytes.Contains(body[:256], []byte(`"`+protocol.MethodTextDocumentDidChange+`"`)) {
			if stand, ok := c.change(body); ok {
				body = stand
			}
		}
		return json.Unmarshal(body, v)
	}
	// Read past, not kept: what it was (its id, method and document) is
	// picked out on the way.
	stand, err := standIn(bufio.NewReader(io.LimitReader(stream, n)), n)
	if err != nil {
		return err
	}
	return json.Unmarshal(stand, v)
}

// change decodes a didChange of whole texts once, keeps its last text
// and returns the message that stands in for it.
func (c boundedCodec) change(body []byte) ([]byte, bool) {
	var m struct {
		ID     *json.RawMessage `json:"id"`
		Method string           `json:"method"`
		Params struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version int32  `json:"version"`
			} `json:"textDocument"`
			ContentChanges []struct {
				Range *json.RawMessage `json:"range"`
				Text  string           `json:"text"`
			} `json:"contentChanges"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.ID != nil || m.Method != protocol.MethodTextDocumentDidChange || len(m.Params.ContentChanges) == 0 {
		return nil, false
	}
	last := m.Params.ContentChanges[len(m.Params.ContentChanges)-1]
	if last.Range != nil {
		return nil, false // a ranged change: the server says it asked for none
	}
	p := changeParams{URI: m.Params.TextDocument.URI, Version: m.Params.TextDocument.Version, Token: c.texts.put(last.Text)}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": changeMethod, "params": p})
	return b, err == nil
}

// changeFromCodec is didChange for a change the codec decoded.
func (s *Server) changeFromCodec(req *jsonrpc2.Request, texts *changeTexts) error {
	var p changeParams
	if req.Params == nil || json.Unmarshal(*req.Params, &p) != nil {
		return nil
	}
	text, ok := texts.take(p.Token)
	if !ok {
		return nil
	}
	return s.didChange(nil, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: p.URI}, Version: p.Version},
		ContentChanges: []any{protocol.TextDocumentContentChangeEventWhole{Text: text}},
	})
}

// readHeader reads a message's header and returns its Content-Length, as
// VSCodeObjectCodec does.
func readHeader(stream *bufio.Reader) (int64, error) {
	var n int64
	for {
		line, err := stream.ReadString('\r')
		if err != nil {
			return 0, err
		}
		b, err := stream.ReadByte()
		if err != nil {
			return 0, err
		}
		if b != '\n' {
			return 0, errors.New(`jsonrpc2: line endings must be \r\n`)
		}
		if line == "\r" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			if n, err = strconv.ParseInt(strings.TrimSpace(v), 10, 32); err != nil {
				return 0, err
			}
		}
	}
	if n <= 0 {
		return 0, errors.New("jsonrpc2: no Content-Length header found")
	}
	return n, nil
}

// standIn reads a message of size bytes from r to its end, keeping only
// what says what it was: its id, its method, and its document's uri and
// version, wherever they are in it (Neovim's keys come in any order, so a
// document's text may come first). It returns the tooLarge message that
// stands in for it. A scan over bytes, not a JSON decoder: a decoder would
// make a string of the 50 MB text.
func standIn(r *bufio.Reader, size int64) ([]byte, error) {
	var id json.RawMessage
	p := tooLargeParams{Size: size}
	type frame struct {
		object    bool
		key       string
		expectKey bool
	}
	var stack []frame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			if f.object {
				b.WriteString("." + f.key)
			}
		}
		return b.String()
	}
	// keep is how much of a wanted value is kept; a longer one is cut.
	const keep = 8 << 10
	wanted := func(path string) bool {
		switch path {
		case ".id", ".method", ".params.textDocument.uri", ".params.textDocument.version":
			return true
		}
		return false
	}
	set := func(path string, raw []byte) {
		switch path {
		case ".id":
			if json.Valid(raw) {
				id = append(json.RawMessage(nil), raw...)
			}
		case ".method":
			json.Unmarshal(raw, &p.Method) //nolint:errcheck // cut or not a string: left out
		case ".params.textDocument.uri":
			json.Unmarshal(raw, &p.URI) //nolint:errcheck
		case ".params.textDocument.version":
			json.Unmarshal(raw, &p.Version) //nolint:errcheck
		}
	}
	for {
		c, err := r.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		top := len(stack) - 1
		switch c {
		case '{', '[':
			if len(stack) >= 64 {
				continue // deeper than any message's: not followed
			}
			stack = append(stack, frame{object: c == '{', expectKey: c == '{'})
		case '}', ']':
			if top >= 0 {
				stack = stack[:top]
			}
		case ',':
			if top >= 0 && stack[top].object {
				stack[top].expectKey = true
			}
		case '"':
			var raw []byte
			isKey := top >= 0 && stack[top].object && stack[top].expectKey
			want := isKey || wanted(path())
			raw = append(raw, '"')
			for {
				b, err := r.ReadByte()
				if err != nil {
					return nil, err
				}
				if want && len(raw) < keep {
					raw = append(raw, b)
				}
				if b == '\\' {
					e, err := r.ReadByte()
					if err != nil {
						return nil, err
					}
					if want && len(raw) < keep {
						raw = append(raw, e)
					}
					continue
				}
				if b == '"' {
					break
				}
			}
			if isKey {
				var k string
				json.Unmarshal(raw, &k) //nolint:errcheck // a key cut short matches nothing
				stack[top].key, stack[top].expectKey = k, false
			} else if want {
				set(path(), raw)
			}
		default:
			if c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
				continue
			}
			// A number, true, false or null: to the next delimiter.
			raw := []byte{c}
			for {
				b, err := r.ReadByte()
				if err == io.EOF {
					break
				}
				if err != nil {
					return nil, err
				}
				if bytes.IndexByte([]byte(",}] \t\r\n"), b) >= 0 {
					r.UnreadByte() //nolint:errcheck // just read
					break
				}
				if len(raw) < 64 {
					raw = append(raw, b)
				}
			}
			if wanted(path()) {
				set(path(), raw)
			}
		}
	}
	msg := map[string]any{"jsonrpc": "2.0", "method": tooLargeMethod, "params": p}
	if id != nil {
		msg["id"] = id
	}
	return json.Marshal(msg)
}

// tooLarge answers the stand-in of a message over maxMessage: a document
// opened or changed so is kept as too large, and a request gets an error.
func (s *Server) tooLarge(req *jsonrpc2.Request) (any, error) {
	var p tooLargeParams
	if req.Params != nil {
		json.Unmarshal(*req.Params, &p) //nolint:errcheck // a stand-in zk wrote
	}
	switch p.Method {
	case protocol.MethodTextDocumentDidOpen, protocol.MethodTextDocumentDidChange:
		if path, ok := s.vaultPath(p.URI); ok && vault.IsNotePath(path) {
			s.openTooLarge(path, p.URI, p.Version, p.Size)
		}
	}
	if req.Notif {
		return nil, nil
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest,
		Message: fmt.Sprintf("%s: the message is %d bytes, over the %d zk reads", p.Method, p.Size, maxMessage)}
}
