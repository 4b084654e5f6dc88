package probe_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/probe"
	"github.com/zk-claims/zk/probe/probetest"
)

// fakeOllama is an OpenAI-compatible server that, as Ollama does, sends
// no Server header and answers GET /api/version; models lists what its
// GET /v1/models lists.
func fakeOllama(t *testing.T, models ...string) string {
	t.Helper()
	sim := &probetest.Simulator{Budget: 5000, PerStream: 5000}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/version":
			fmt.Fprintln(w, `{"version":"0.17.4"}`)
		case "/v1/models":
			var data []string
			for _, m := range models {
				data = append(data, fmt.Sprintf(`{"id":%q,"object":"model"}`, m))
			}
			fmt.Fprintf(w, `{"object":"list","data":[%s]}`, strings.Join(data, ","))
		default:
			rec := httptest.NewRecorder()
			sim.ServeHTTP(rec, r)
			for k, v := range rec.Header() {
				if k != "Server" && k != probe.SimulationHeader {
					w.Header()[k] = v
				}
			}
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

var quick = probe.Config{Concurrency: []int{1}, Requests: 2, Warmup: 1, Timeout: 10 * time.Second}

// TestOpenAIModelFromServer: without --model, a server that lists exactly
// one model is asked for it; one that lists several is refused, naming
// them.
func TestOpenAIModelFromServer(t *testing.T) {
	res, err := probe.OpenAI(context.Background(), probe.OpenAITarget{BaseURL: fakeOllama(t, "llama3.2:1b"), MaxTokens: 4}, quick)
	if err != nil {
		t.Fatal(err)
	}
	if res.ModelID != "llama3.2:1b" || res.Levels[0].Completed != 2 {
		t.Errorf("model %q, completed %d", res.ModelID, res.Levels[0].Completed)
	}
	_, err = probe.OpenAI(context.Background(), probe.OpenAITarget{BaseURL: fakeOllama(t, "a", "b"), MaxTokens: 4}, quick)
	if err == nil || !strings.Contains(err.Error(), "the server lists 2 (a, b): name one with --model") {
		t.Errorf("two models: %v", err)
	}
	// The simulator lists one.
	res, err = probe.OpenAI(context.Background(), probe.OpenAITarget{BaseURL: simulate(t, &probetest.Simulator{Budget: 5000}), MaxTokens: 4}, quick)
	if err != nil || res.ModelID != "simulated" {
		t.Errorf("simulator: model %q, %v", res.ModelID, err)
	}
}

// TestOpenAIRecognisesOllama: Ollama sends no Server header; its own API
// names it.
func TestOpenAIRecognisesOllama(t *testing.T) {
	res, err := probe.OpenAI(context.Background(), probe.OpenAITarget{BaseURL: fakeOllama(t, "m"), Model: "m", MaxTokens: 4}, quick)
	if err != nil {
		t.Fatal(err)
	}
	if res.Server != "Ollama 0.17.4" {
		t.Errorf("server %q, want Ollama 0.17.4", res.Server)
	}
	// A server that names itself keeps its own name.
	res, err = probe.OpenAI(context.Background(), probe.OpenAITarget{BaseURL: simulate(t, &probetest.Simulator{Budget: 5000}), Model: "m", MaxTokens: 4}, quick)
	if err != nil || res.Server != "zk-probe-simulator" {
		t.Errorf("simulator: server %q, %v", res.Server, err)
	}
}
