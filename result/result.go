// Package result reads the result files zk attach records: hyperfine's
// --export-json and Go benchmark output become Markdown tables, each
// figure with the count it stands on; anything else is kept as text.
package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchfmt"
)

// Kind names a format Render recognised.
type Kind string

// The formats Render knows.
const (
	Hyperfine Kind = "hyperfine"
	GoBench   Kind = "go test -bench"
)

// Render reads data as a result file and returns it as Markdown table
// lines. ok is false when data is none of the formats it knows.
func Render(data []byte) (kind Kind, table []string, ok bool) {
	if t, ok := hyperfine(data); ok {
		return Hyperfine, t, true
	}
	if t, ok := goBench(data); ok {
		return GoBench, t, true
	}
	return "", nil, false
}

// hyperfineJSON is the part of hyperfine --export-json that is shown.
type hyperfineJSON struct {
	Results []struct {
		Command string    `json:"command"`
		Mean    *float64  `json:"mean"`
		Stddev  *float64  `json:"stddev"`
		Min     float64   `json:"min"`
		Max     float64   `json:"max"`
		Times   []float64 `json:"times"`
	} `json:"results"`
}

func hyperfine(data []byte) ([]string, bool) {
	var h hyperfineJSON
	if err := json.Unmarshal(data, &h); err != nil || len(h.Results) == 0 {
		return nil, false
	}
	t := []string{"| command | runs | mean ± σ | min | max |", "|---|---:|---:|---:|---:|"}
	for _, r := range h.Results {
		if r.Mean == nil || r.Command == "" {
			return nil, false
		}
		sd := 0.0
		if r.Stddev != nil {
			sd = *r.Stddev
		}
		unit, scale := timeUnit(*r.Mean)
		t = append(t, fmt.Sprintf("| %s | %d | %s ± %s %s | %s %s | %s %s |", code(r.Command), len(r.Times),
			num(*r.Mean*scale), num(sd*scale), unit, num(r.Min*scale), unit, num(r.Max*scale), unit))
	}
	return t, true
}

// timeUnit picks the unit a duration in seconds reads best in.
func timeUnit(sec float64) (string, float64) {
	switch a := math.Abs(sec); {
	case a != 0 && a < 1e-6:
		return "ns", 1e9
	case a != 0 && a < 1e-3:
		return "µs", 1e6
	case a != 0 && a < 1:
		return "ms", 1e3
	}
	return "s", 1
}

// num writes v to three significant figures, without an exponent for the
// magnitudes benchmarks print.
func num(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'g', -1, 64)
	case a >= 999.5 && a < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// cell keeps a table cell from breaking its row.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// code writes a command as a code span when it can be one.
func code(s string) string {
	if strings.Contains(s, "`") {
		return cell(s)
	}
	return cell("`" + s + "`")
}

// bench is the values of one benchmark, per unit, over its runs.
type bench struct {
	name  string
	units map[string][]float64
}

func goBench(data []byte) ([]string, bool) {
	rd := benchfmt.NewReader(bytes.NewReader(data), "")
	var (
		order   []string
		byName  = map[string]*bench{}
		units   []string
		results int
	)
	for rd.Scan() {
		r, ok := rd.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		results++
		name := string(r.Name.Full())
		b := byName[name]
		if b == nil {
			b = &bench{name: name, units: map[string][]float64{}}
			byName[name] = b
			order = append(order, name)
		}
		for _, v := range r.Values {
			val, unit := v.Value, v.Unit
			if v.OrigUnit != "" {
				val, unit = v.OrigValue, v.OrigUnit // as the user's tools print it: ns/op
			}
			if !slices.Contains(units, unit) {
				units = append(units, unit)
			}
			b.units[unit] = append(b.units[unit], val)
		}
	}
	if results == 0 || rd.Err() != nil {
		return nil, false
	}
	head := "| benchmark | runs |"
	rule := "|---|---:|"
	for _, u := range units {
		head += " " + cell(u) + " |"
		rule += "---:|"
	}
	t := []string{head, rule}
	for _, name := range order {
		b := byName[name]
		row := fmt.Sprintf("| %s | %d |", cell(b.name), runs(b))
		for _, u := range units {
			row += " " + meanSD(b.units[u]) + " |"
		}
		t = append(t, row)
	}
	return t, true
}

func runs(b *bench) int {
	n := 0
	for _, vs := range b.units {
		n = max(n, len(vs))
	}
	return n
}

// meanSD writes values as "mean ± sd" (sample standard deviation), or
// the one value there is.
func meanSD(vs []float64) string {
	switch len(vs) {
	case 0:
		return ""
	case 1:
		return num(vs[0])
	}
	return num(stats.Mean(vs)) + " ± " + num(stats.StdDev(vs))
}
