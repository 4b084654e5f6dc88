package probetest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
