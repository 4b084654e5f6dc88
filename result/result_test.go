package result

import (
	"reflect"
	"testing"
)

const hyperfineOut = `{
  "results": [
    {
      "command": "sleep 0.1",
      "mean": 0.10342,
      "stddev": 0.00121,
      "median": 0.1033,
      "user": 0.0006,
      "system": 0.0011,
      "min": 0.10201,
      "max": 0.10560,
      "times": [0.10201, 0.1033, 0.10560],
      "exit_codes": [0, 0, 0]
    },
    {
      "command": "echo a|b",
      "mean": 0.00042,
      "stddev": null,
      "min": 0.00042,
      "max": 0.00042,
      "times": [0.00042]
    }
  ]
}`

const goBenchOut = `goos: linux
goarch: amd64
pkg: github.com/zk-claims/zk/vault
cpu: AMD EPYC
BenchmarkParse-2   	    1000	   1234567 ns/op	  52.3 MB/s	   4096 B/op	      12 allocs/op
BenchmarkParse-2   	    1000	   1234589 ns/op	  52.1 MB/s	   4096 B/op	      12 allocs/op
BenchmarkScan/notes=100-2 	      10	 105000000 ns/op	       952 notes/s
PASS
ok  	github.com/zk-claims/zk/vault	3.2s
`

func TestRender(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		kind  Kind
		table []string
	}{
		{"hyperfine", hyperfineOut, Hyperfine, []string{
			"| command | runs | mean ± σ | min | max |",
			"|---|---:|---:|---:|---:|",
			"| `sleep 0.1` | 3 | 103 ± 1.21 ms | 102 ms | 106 ms |",
			"| `echo a\\|b` | 1 | 420 ± 0 µs | 420 µs | 420 µs |",
		}},
		{"go bench", goBenchOut, GoBench, []string{
			"| benchmark | runs | ns/op | MB/s | B/op | allocs/op | notes/s |",
			"|---|---:|---:|---:|---:|---:|---:|",
			"| Parse-2 | 2 | 1234578 ± 15.6 | 52.2 ± 0.141 | 4096 ± 0 | 12 ± 0 |  |",
			"| Scan/notes=100-2 | 1 | 105000000 |  |  |  | 952 |",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, table, ok := Render([]byte(tt.in))
			if !ok || kind != tt.kind {
				t.Fatalf("Render: kind %q, ok %v", kind, ok)
			}
			if !reflect.DeepEqual(table, tt.table) {
				t.Errorf("table:\n%q\nwant:\n%q", table, tt.table)
			}
		})
	}
}

func TestRenderOther(t *testing.T) {
	for _, in := range []string{"", "plain text\nlines", `{"results": []}`, `{"results": [{"x": 1}]}`, "[1,2]", "PASS\nok  x 0.1s\n"} {
		if kind, _, ok := Render([]byte(in)); ok {
			t.Errorf("Render(%q) = %q, want not recognised", in, kind)
		}
	}
}

func FuzzRender(f *testing.F) {
	f.Add([]byte(hyperfineOut))
	f.Add([]byte(goBenchOut))
	f.Add([]byte("BenchmarkX 1 NaN ns/op"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, table, ok := Render(data)
		if !ok {
			return
		}
		for _, l := range table {
			for _, c := range l {
				if c == '\n' || c == '\r' {
					t.Fatalf("table line with a line break: %q", l)
				}
			}
		}
	})
}
