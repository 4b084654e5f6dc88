package probe

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
