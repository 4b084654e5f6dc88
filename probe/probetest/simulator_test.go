package probetest

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestSimulatorAnswers(t *testing.T) {
	srv := httptest.NewServer(&Simulator{Budget: 10000, Model: "sim"})
	defer srv.Close()
	post := func(path, body string) (int, string, http.Header) {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	tests := []struct {
		name, path, body string
		code             int
		want             string
	}{
		{"chat stream with usage", "/v1/chat/completions",
			`{"model":"sim","max_tokens":3,"stream":true,"stream_options":{"include_usage":true}}`, 200,
			`"usage":{"prompt_tokens":16,"completion_tokens":3,"total_tokens":19}}` + "\n\ndata: [DONE]\n\n"},
		{"completions stream", "/v1/completions", `{"model":"sim","max_tokens":2,"stream":true}`, 200,
			`{"object":"text_completion","choices":[{"index":0,"text":" tok"}]}` + "\n\ndata: [DONE]\n\n"},
		{"max_completion_tokens wins", "/v1/chat/completions",
			`{"model":"sim","max_tokens":9,"max_completion_tokens":1,"stream":true,"stream_options":{"include_usage":true}}`, 200,
			`"completion_tokens":1,`},
		{"no streaming", "/v1/chat/completions", `{"model":"sim","max_tokens":3}`, 400, "only streams"},
		{"unknown model", "/v1/chat/completions", `{"model":"gpt","max_tokens":3,"stream":true}`, 404, `model \"gpt\" does not exist`},
		{"bad max_tokens", "/v1/chat/completions", `{"model":"sim","stream":true}`, 400, "max_tokens out of range"},
		{"not JSON", "/v1/chat/completions", `{`, 400, "not JSON"},
		{"unknown path", "/v1/embeddings", `{}`, 404, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body, h := post(tt.path, tt.body)
			if code != tt.code || !strings.Contains(body, tt.want) {
				t.Errorf("%d %q; want %d and %q", code, body, tt.code, tt.want)
			}
			if h.Get(header) == "" {
				t.Error("a response without the simulation header")
			}
		})
	}
	resp, err := http.Get(srv.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"id":"sim"`) {
		t.Errorf("models: %s", b)
	}
}

// TestSimulatorCloseAfterStream: the response advertises keep-alive and
// ends properly, and the next request on the same connection gets no
// answer, only the close.
func TestSimulatorCloseAfterStream(t *testing.T) {
	srv := httptest.NewServer(&Simulator{Budget: 10000, CloseAfterStream: true})
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	body := `{"model":"m","max_tokens":2,"stream":true}`
	req := "POST /v1/chat/completions HTTP/1.1\r\nHost: sim\r\nContent-Type: application/json\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	io.WriteString(conn, req)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil || !strings.HasSuffix(string(b), "data: [DONE]\n\n") || resp.Close ||
		resp.Header.Get("Connection") != "keep-alive" || resp.Header.Get(header) == "" {
		t.Fatalf("first response: %v, close %v, headers %v, body %q", err, resp.Close, resp.Header, b)
	}
	io.WriteString(conn, req)
	if n, err := br.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("second request on the connection: read %d bytes, %v; want 0, EOF", n, err)
	}
}
