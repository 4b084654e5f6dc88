package probe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/zk-claims/zk/probe"
	"github.com/zk-claims/zk/probe/probetest"
)

// TestOpenAIWarmupStaggersTheStreams: each stream's last warm-up request
// asks for (stream+1)/N of the token budget, so the measured requests of N
// streams begin spread over one request's length instead of in lockstep
// (on a batching server, lockstep streams prefill together and the window
// opens on that stall); every measured request asks for the whole budget.
func TestOpenAIWarmupStaggersTheStreams(t *testing.T) {
	for _, tc := range []struct {
		name         string
		streams, max int
		warmup       int
		want         []int // what the streams×warmup warm-up requests ask for, sorted
	}{
		{"one stream", 1, 40, 1, []int{40}},
		{"four streams", 4, 40, 1, []int{10, 20, 30, 40}},
		{"rounded up, never zero", 3, 2, 1, []int{1, 2, 2}},
		{"only the last warm-up is cut", 2, 40, 2, []int{20, 40, 40, 40}},
		{"no warm-up, no stagger", 2, 40, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sim := &probetest.Simulator{Budget: 100000, PerStream: 100000}
			seqRE := regexp.MustCompile(`^Request (\d+)\. `)
			var mu sync.Mutex
			asked := map[int]int{} // request number -> max_tokens
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet { // the probe asking who the server is
					http.NotFound(w, r)
					return
				}
				body, _ := io.ReadAll(r.Body)
				var req struct {
					MaxTokens int `json:"max_tokens"`
					Messages  []struct {
						Content string `json:"content"`
					} `json:"messages"`
				}
				if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
					t.Errorf("request body %q: %v", body, err)
				} else if m := seqRE.FindStringSubmatch(req.Messages[0].Content); m != nil {
					n, _ := strconv.Atoi(m[1])
					mu.Lock()
					asked[n] = req.MaxTokens
					mu.Unlock()
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
				sim.ServeHTTP(w, r)
			}))
			defer srv.Close()
			_, err := probe.OpenAI(context.Background(),
				probe.OpenAITarget{BaseURL: srv.URL + "/v1", Model: "m", MaxTokens: tc.max},
				probe.Config{Concurrency: []int{tc.streams}, Requests: 4 * tc.streams, Warmup: tc.warmup, Timeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			// Every request but a stream's last warm-up asks for the
			// whole budget, so the requests that ask for less are the
			// staggered warm-ups whatever order the streams sent them in
			// (the request numbers say when a request was sent, not
			// whose it was: a fast stream's measured request can be
			// numbered before a slow stream's warm-up).
			var cut []int
			for _, m := range asked {
				if m != tc.max {
					cut = append(cut, m)
				}
			}
			slices.Sort(cut)
			want := slices.DeleteFunc(slices.Clone(tc.want), func(m int) bool { return m == tc.max })
			if !slices.Equal(cut, want) || len(asked) < len(tc.want) {
				t.Errorf("%d requests, those asking for less than %d tokens asked for %v, want %v (at least %d requests)",
					len(asked), tc.max, cut, want, len(tc.want))
			}
		})
	}
}
