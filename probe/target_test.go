package probe

import (
	"errors"
	"net/url"
	"testing"
)

func TestCheckHost(t *testing.T) {
	tests := []struct {
		url    string
		remote bool
		ok     bool
	}{
		{"http://127.0.0.1:8000/v1", false, true},
		{"http://127.9.9.9/", false, true},
		{"http://[::1]:8080/", false, true},
		{"http://localhost:11434/v1", false, true},
		{"http://LOCALHOST/", false, true},
		{"http://10.0.0.5:8000/v1", false, false},
		{"http://example.com/", false, false},
		{"http://127.0.0.1.example.com/", false, false},
		{"http://example.com/", true, true},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckHost(u, tt.remote)
		if tt.ok && err != nil || !tt.ok && !errors.Is(err, ErrNotLoopback) {
			t.Errorf("CheckHost(%s, %v) = %v", tt.url, tt.remote, err)
		}
	}
}

func TestEndpointURL(t *testing.T) {
	tests := []struct{ base, endpoint, want string }{
		{"http://127.0.0.1:8000/v1", EndpointChat, "http://127.0.0.1:8000/v1/chat/completions"},
		{"http://127.0.0.1:8000/v1/", EndpointCompletions, "http://127.0.0.1:8000/v1/completions"},
		{"http://127.0.0.1:8000", EndpointChat, "http://127.0.0.1:8000/v1/chat/completions"},
		{"http://127.0.0.1:8000/proxy/v1", EndpointChat, "http://127.0.0.1:8000/proxy/v1/chat/completions"},
		{"http://127.0.0.1:8000/v1/chat/completions", EndpointCompletions, "http://127.0.0.1:8000/v1/chat/completions"},
	}
	for _, tt := range tests {
		got, err := EndpointURL(tt.base, tt.endpoint)
		if err != nil || got != tt.want {
			t.Errorf("EndpointURL(%q, %q) = %q, %v; want %q", tt.base, tt.endpoint, got, err, tt.want)
		}
	}
	for _, bad := range []struct{ base, endpoint string }{{"ftp://x/", EndpointChat}, {"http://x/", "embeddings"}} {
		if _, err := EndpointURL(bad.base, bad.endpoint); err == nil {
			t.Errorf("EndpointURL(%q, %q) did not fail", bad.base, bad.endpoint)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	good := Config{Concurrency: []int{1, 4}, Duration: 1e9, Timeout: 1e9}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]Config{
		"no levels":       {Duration: 1e9, Timeout: 1e9},
		"zero streams":    {Concurrency: []int{0}, Duration: 1e9, Timeout: 1e9},
		"too many":        {Concurrency: []int{MaxConcurrency + 1}, Duration: 1e9, Timeout: 1e9},
		"unbounded":       {Concurrency: []int{1}, Timeout: 1e9},
		"no timeout":      {Concurrency: []int{1}, Duration: 1e9},
		"negative warmup": {Concurrency: []int{1}, Duration: 1e9, Timeout: 1e9, Warmup: -1},
	} {
		if c.Validate() == nil {
			t.Errorf("%s: Validate passed", name)
		}
	}
}
