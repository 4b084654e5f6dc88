package probe

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rivo/uniseg"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata from the current output")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test ./probe -update and read the diff):\n%s", name, got)
	}
}

// fixture is a recorded result: a sweep of the simulator at 1, 4 and 16
// streams, fixed so the renderings can be compared byte for byte.
func fixture(t *testing.T, name string) *Result {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	r, ok := Detect(data)
	if !ok {
		t.Fatalf("%s is not probe JSON", name)
	}
	return r
}

func TestRenderGolden(t *testing.T) {
	for _, name := range []string{"openai", "http"} {
		t.Run(name, func(t *testing.T) {
			r := fixture(t, name+".json")
			golden(t, name+".md", []byte(RenderMarkdown(r)))
			golden(t, name+".txt", []byte(RenderText(r)))
			var svg bytes.Buffer
			if err := WriteSVG(&svg, r); err != nil {
				t.Fatal(err)
			}
			golden(t, name+".svg", svg.Bytes())
		})
	}
}

func TestRenderLabelsEveryRate(t *testing.T) {
	for _, name := range []string{"openai", "http"} {
		md := RenderMarkdown(fixture(t, name+".json"))
		header := strings.SplitN(md, "\n", 2)[0]
		cells := strings.Split(strings.Trim(header, "| "), " | ")
		if !strings.HasPrefix(cells[0], "concurrency") {
			t.Errorf("%s: first column %q, want concurrency", name, cells[0])
		}
		for _, c := range cells {
			if strings.Contains(c, "/s") && !strings.Contains(c, "aggregate") && !strings.Contains(c, "per-stream") {
				t.Errorf("%s: rate column %q says neither aggregate nor per-stream", name, c)
			}
		}
	}
}

func TestDetect(t *testing.T) {
	for _, in := range []string{"", "hello", `{"schema":"other/v1"}`, `{"schema":`, `[1]`} {
		if _, ok := Detect([]byte(in)); ok {
			t.Errorf("Detect(%q) = true", in)
		}
	}
	if _, ok := Detect([]byte(" \n{\"schema\":\"zk-probe/v1\",\"levels\":[]}\n")); !ok {
		t.Error("Detect missed probe JSON")
	}
}

// TestRenderTextIsPlainAndFits: the text format fits an 80-column
// terminal and carries no markdown; every rate column names whether it is
// aggregate or per stream. The odd cases (retries, a flagged check, an
// interrupt) add notes, which must wrap too.
func TestRenderTextIsPlainAndFits(t *testing.T) {
	odd := fixture(t, "openai.json")
	odd.DialPerRequest, odd.WasCancelled = true, true
	odd.Levels[0].Retried = 3
	odd.Levels[1].Consistency.Flagged, odd.Levels[1].Consistency.Ratio = true, 0.76
	odd.Levels[2].Partial = true
	results := map[string]*Result{"openai": fixture(t, "openai.json"), "http": fixture(t, "http.json"), "odd": odd}
	for name, r := range results {
		text := RenderText(r)
		for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if n := uniseg.StringWidth(line); n > TextWidth {
				t.Errorf("%s line %d is %d columns wide, over %d:\n%s", name, i+1, n, TextWidth, line)
			}
		}
		if strings.Contains(text, "**") || strings.Contains(text, "`") || strings.Contains(text, "| ") {
			t.Errorf("%s: markdown in the text format:\n%s", name, text)
		}
		header := strings.SplitN(text, "\n", 3)
		if !strings.Contains(header[0], "aggregate") || !strings.Contains(header[0], "per-stream") ||
			!strings.Contains(header[1], "(all streams)") {
			t.Errorf("%s: header does not say which rate is aggregate and which per stream:\n%s%s", name, header[0], header[1])
		}
	}
	text := RenderText(odd)
	for _, want := range []string{"3 of ", "dialled a connection each", "Check flagged at concurrency 4 (0.76)",
		"16 / 16.00 *", "Interrupted (* in the table):", "0.76 !"} {
		if !strings.Contains(text, want) {
			t.Errorf("odd result: %q missing from\n%s", want, text)
		}
	}
}

// TestRenderSaysWhyRequestsFailed: failures in the window and outside it
// (a warm-up that timed out) are explained under the table in both
// formats, and what the server said (its name, model id, error bodies) is
// shown with its control characters escaped, never raw.
func TestRenderSaysWhyRequestsFailed(t *testing.T) {
	r := fixture(t, "openai.json")
	r.Server, r.Simulated, r.ModelID = "evil\x1b[2J", false, "m\u202e"
	lv := &r.Levels[2]
	lv.Failed, lv.ErrorSummary = 2, []ErrorCount{{"HTTP 500 Internal Server Error: boom\x1b]0;pwned\x07", 2}}
	lv.FailedOutsideWindow, lv.ErrorSummaryOutsideWindow = 1, []ErrorCount{{"no response within 1m0s", 1}}
	for name, out := range map[string]string{"markdown": RenderMarkdown(r), "text": RenderText(r)} {
		flat := strings.Join(strings.Fields(out), " ") // the text format wraps
		for _, want := range []string{
			"Failed at concurrency 16: 2 in the window (HTTP 500 Internal Server Error: boom\\x1b]0;pwned\\a ×2); " +
				"1 outside it, in the warm-up or the drain (no response within 1m0s ×1).",
			`Server: evil\x1b[2J.`, `m\u202e`,
		} {
			if !strings.Contains(flat, want) {
				t.Errorf("%s: %q missing from\n%s", name, want, out)
			}
		}
		if strings.ContainsAny(out, "\x1b\x07\u202e") {
			t.Errorf("%s: a raw control character reached the output:\n%q", name, out)
		}
	}
}

// TestRenderSetsTheServersAccountBeside: the server's own figures for the
// same requests are said under the table, level by level.
func TestRenderSetsTheServersAccountBeside(t *testing.T) {
	r := fixture(t, "openai.json")
	if md := RenderMarkdown(r); strings.Contains(md, "own account") {
		t.Fatalf("an account where the server gave none:\n%s", md)
	}
	for i := range r.Levels {
		r.Levels[i].Server = &ServerAccount{Source: "llama.cpp timings", Requests: 10 + i,
			DecodePerUser: &Stat{Unit: "tokens/sec/user", P50: 100 / float64(i+1)}, Ratio: 0.97 + 0.01*float64(i)}
	}
	want := "The server's own account of the same requests (llama.cpp timings, sent with each response): decode per request " +
		"p50 100 / 50.0 / 33.3 tok/s at 1 / 4 / 16 streams; the probe's decode rate ÷ the server's, request by request, " +
		"median 0.97 / 0.98 / 0.99 (10 / 11 / 12 requests)."
	for name, out := range map[string]string{"markdown": RenderMarkdown(r), "text": RenderText(r)} {
		if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, want) {
			t.Errorf("%s: %q missing from\n%s", name, want, out)
		}
	}
}
