package measure

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	rate, err := ParseCapture("rate = ([0-9.,]+) tok/s")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, out string
		has       []string // names set
		absent    []string // names absent
	}{
		{"probe", `{"schema":"zk-probe/v1","levels":[]}`, []string{Exit, JSON, Probe}, []string{Hyperfine, Bench, "rate"}},
		{"hyperfine", `{"results":[{"command":"x","mean":1.5}]}`, []string{JSON, Hyperfine}, []string{Probe, Bench}},
		{"json not hyperfine", `{"results":[{"mean":1.5}]}`, []string{JSON}, []string{Hyperfine}},
		{"bench", "BenchmarkX-4 10 5 ns/op\n", []string{Bench}, []string{JSON}},
		{"capture", "rate = 1,250.5 tok/s\n", []string{"rate"}, []string{JSON, Bench}},
		{"empty", "", []string{Exit}, []string{JSON, Probe, Hyperfine, Bench, "rate"}},
	}
	for _, tt := range tests {
		e := Read([]byte(tt.out), 0, []Capture{rate})
		for _, n := range tt.has {
			if _, ok := e.Values[n]; !ok {
				t.Errorf("%s: %s not read (absent: %s)", tt.name, n, e.Absent[n])
			}
		}
		for _, n := range tt.absent {
			if _, ok := e.Values[n]; ok || e.Absent[n] == "" {
				t.Errorf("%s: %s read, or absent without a reason", tt.name, n)
			}
		}
	}
	if got := Read([]byte("rate = 1,250.5 tok/s"), 0, []Capture{rate}).Values["rate"]; got != 1250.5 {
		t.Errorf("rate = %v, want 1250.5", got)
	}
}

func TestReadBench(t *testing.T) {
	b, ok := ReadBench([]byte("BenchmarkA/n=10-8 100 10 ns/op 3 widgets/op\nBenchmarkA/n=10-8 100 30 ns/op 5 widgets/op\nBenchmarkB 5 1 ns/op\n"))
	if !ok {
		t.Fatal("not read")
	}
	a := b["BenchmarkA/n=10"].(map[string]any)
	if a["ns/op"] != 20.0 || a["widgets/op"] != 4.0 {
		t.Errorf("BenchmarkA/n=10 = %v, want ns/op 20 and widgets/op 4 (means of two runs)", a)
	}
	if _, ok := b["BenchmarkB"]; !ok {
		t.Errorf("BenchmarkB missing: %v", b)
	}
	if _, ok := ReadBench([]byte("PASS\nok x 0.1s\n")); ok {
		t.Error("output without results read as bench")
	}
}

func TestParseCapture(t *testing.T) {
	tests := []struct{ in, name, err string }{
		{"rate = ([0-9.]+) tok/s", "rate", ""},
		{"`p99 = p99: ([0-9.]+) ms`", "p99", ""},
		{"rate ([0-9.]+)", "", "NAME = REGEXP"},
		{"exit = ([0-9]+)", "", "taken"},
		{"rate = [0-9]+", "", "group"},
		{"rate = ([0-9]+", "", "missing closing )"},
		{"9x = (1)", "", "NAME = REGEXP"},
	}
	for _, tt := range tests {
		c, err := ParseCapture(tt.in)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("ParseCapture(%q): %v", tt.in, err)
		case tt.err == "" && c.Name != tt.name:
			t.Errorf("ParseCapture(%q) name = %q, want %q", tt.in, c.Name, tt.name)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseCapture(%q) error = %v, want one containing %q", tt.in, err, tt.err)
		}
	}
}

func TestLevel(t *testing.T) {
	p := map[string]any{"levels": []any{map[string]any{"concurrency": 4.0,
		"output_token_throughput":          map[string]any{"avg": 300.0},
		"output_token_throughput_per_user": map[string]any{"p50": 80.0}}}}
	l, err := Level(p, 4)
	if err != nil {
		t.Fatal(err)
	}
	if l["aggregate"] != 300.0 || l["per_stream"].(map[string]any)["p50"] != 80.0 {
		t.Errorf("Level = %v", l)
	}
	if _, err := Level(p, 1); err == nil || !strings.Contains(err.Error(), "it measured 4") {
		t.Errorf("Level(1) error = %v", err)
	}
	if _, err := Level("x", 1); err == nil {
		t.Error("Level of a string: no error")
	}
}

// TestReadBenchKeepsApart: runs are pooled only within one benchmark of
// one package at one GOMAXPROCS; two packages' BenchmarkParse, -cpu's
// levels and sub-benchmarks that differ only in a number are named apart,
// never averaged into one figure labelled as -count runs.
func TestReadBenchKeepsApart(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      map[string]float64 // name → ns/op mean
	}{
		{"-count runs", "BenchmarkParse-2 1 100 ns/op\nBenchmarkParse-2 1 300 ns/op\n", map[string]float64{"BenchmarkParse": 200}},
		{"two packages", "pkg: a/x\nBenchmarkParse-2 1 100 ns/op\npkg: a/y\nBenchmarkParse-2 1 300 ns/op\n",
			map[string]float64{"a/x.BenchmarkParse-2": 100, "a/y.BenchmarkParse-2": 300}},
		{"-cpu 1,2", "BenchmarkParse 1 100 ns/op\nBenchmarkParse-2 1 60 ns/op\n", map[string]float64{"BenchmarkParse": 100, "BenchmarkParse-2": 60}},
		{"sizes, GOMAXPROCS 1", "BenchmarkDecode/size-1024 1 10 ns/op\nBenchmarkDecode/size-4096 1 40 ns/op\n",
			map[string]float64{"BenchmarkDecode/size-1024": 10, "BenchmarkDecode/size-4096": 40}},
		{"sizes, GOMAXPROCS 2", "BenchmarkDecode/size-1024-2 1 10 ns/op\nBenchmarkDecode/size-4096-2 1 40 ns/op\n",
			map[string]float64{"BenchmarkDecode/size-1024": 10, "BenchmarkDecode/size-4096": 40}},
	} {
		b, _, ok := readBench([]byte(tc.out))
		if !ok || len(b) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, slices.Sorted(maps.Keys(b)), tc.want)
			continue
		}
		for name, mean := range tc.want {
			got, _ := b[name].(map[string]any)["ns/op"].(float64)
			if got != mean {
				t.Errorf("%s: %s = %v, want %v (read %v)", tc.name, name, got, mean, b)
			}
		}
	}
}

func TestJSONValues(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{`1`, 1},
		{`[1,2,3]`, 4},
		{`{"a":[1,{"b":2}]}`, 5},
		{`{"a,b":"x,{[y"}`, 2},
		{`["a\",b",1]`, 3},
		{`["a\\",1]`, 3},
		{`not json, at all`, 2},
	} {
		if got := jsonValues([]byte(tt.in), 100); got != tt.want {
			t.Errorf("jsonValues(%s) = %d, want %d", tt.in, got, tt.want)
		}
	}
	if got := jsonValues([]byte("[1,2,3,4,5]"), 3); got != 4 {
		t.Errorf("jsonValues past max = %d, want max+1", got)
	}
}

// An output of more JSON values than zk decodes is not decoded: decoded
// whole, a 64 MiB log of small objects took 2.2 GB. Its json is absent,
// saying why; one within the cap is read.
func TestReadRefusesJSONOfTooManyValues(t *testing.T) {
	big := "[" + strings.Repeat("0,", MaxJSONValues) + "0]"
	e := Read([]byte(big), 0, nil)
	if _, ok := e.Values[JSON]; ok || !strings.Contains(e.Absent[JSON], "over 524288 values") {
		t.Errorf("%d values: json read %v, absent %q", MaxJSONValues+1, ok, e.Absent[JSON])
	}
	small := "[" + strings.Repeat("0,", MaxJSONValues-2) + "0]"
	if e := Read([]byte(small), 0, nil); e.Values[JSON] == nil {
		t.Errorf("%d values: json absent: %q", MaxJSONValues-1, e.Absent[JSON])
	}
}

// A capture whose pattern has nothing around its number matches the
// first number of any output; one with text or an anchor beside it does
// not.
func TestCaptureBare(t *testing.T) {
	tests := []struct {
		in   string
		bare bool
	}{
		{"failing = ([0-9]+)", true},
		{`failing = \s*(\d+)`, true},
		{"rate = ([0-9.,]+)", true},
		{`rate = ([0-9]+\.[0-9]+)`, true},
		{"rate = (.+)", true},
		{`rate = \b([0-9]+)\b`, true},
		{"failing = failing = ([0-9]+)", false},
		{"rate = ([0-9.,]+) tok/s", false},
		{"rate = (?i)RATE:? *([0-9.]+)", false},
		{"rate = (rate=[0-9.]+)", false},
		{"lines = ^([0-9]+)$", false},
		{"lines = (?m)^([0-9]+)", false},
		{"x = (?:ok|fail)(\\d+)", false},
	}
	for _, tt := range tests {
		c, err := ParseCapture(tt.in)
		if err != nil {
			t.Fatalf("ParseCapture(%q): %v", tt.in, err)
		}
		if got := c.Bare(); got != tt.bare {
			t.Errorf("Bare(%q) = %v, want %v", tt.in, got, tt.bare)
		}
	}
	// The trap itself: the name is not looked for, the first number is read.
	c, _ := ParseCapture("failing = ([0-9]+)")
	if got := Read([]byte("--- FAIL: 2 tests ... failing = 0\n"), 1, []Capture{c}).Values["failing"]; got != 2.0 {
		t.Errorf("read %v, want the first number, 2: the trap Bare warns of", got)
	}
}
