package base

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Summary is one property's summary over a view's rows (or a group's):
// a default summary of Bases syntax's table, or a formula of the base's
// summaries section, where values is the list of the property's values.
type Summary struct {
	Property string `json:"property"`
	Name     string `json:"summary"`
	Value    any    `json:"-"`
}

// defaultSummaries are Bases syntax's "Default Summary Formulas", by
// their lower-case name.
var defaultSummaries = map[string]func(vals []any) any{
	"average": func(vals []any) any {
		ns := numbers(vals)
		if len(ns) == 0 {
			return nil
		}
		return sum(ns) / float64(len(ns))
	},
	"min": func(vals []any) any { return extreme(numbers(vals), -1) },
	"max": func(vals []any) any { return extreme(numbers(vals), 1) },
	"sum": func(vals []any) any { return sum(numbers(vals)) },
	"range": func(vals []any) any {
		if ds := dates(vals); len(ds) > 0 {
			lo, hi := ds[0], ds[0]
			for _, d := range ds {
				if d.T.Before(lo.T) {
					lo = d
				}
				if d.T.After(hi.T) {
					hi = d
				}
			}
			return Duration{Millis: float64(hi.T.Sub(lo.T).Milliseconds())}
		}
		ns := numbers(vals)
		if len(ns) == 0 {
			return nil
		}
		return extreme(ns, 1).(float64) - extreme(ns, -1).(float64)
	},
	"median": func(vals []any) any {
		ns := numbers(vals)
		if len(ns) == 0 {
			return nil
		}
		slices.Sort(ns)
		if len(ns)%2 == 1 {
			return ns[len(ns)/2]
		}
		return (ns[len(ns)/2-1] + ns[len(ns)/2]) / 2
	},
	"stddev": func(vals []any) any {
		ns := numbers(vals)
		if len(ns) == 0 {
			return nil
		}
		mean := sum(ns) / float64(len(ns))
		var sq float64
		for _, n := range ns {
			sq += (n - mean) * (n - mean)
		}
		return math.Sqrt(sq / float64(len(ns)))
	},
	"earliest": func(vals []any) any { return extremeDate(dates(vals), -1) },
	"latest":   func(vals []any) any { return extremeDate(dates(vals), 1) },
	"checked":  func(vals []any) any { return count(vals, func(v any) bool { return v == true }) },
	"unchecked": func(vals []any) any {
		return count(vals, func(v any) bool { return v == false })
	},
	"empty":  func(vals []any) any { return count(vals, isEmpty) },
	"filled": func(vals []any) any { return count(vals, func(v any) bool { return !isEmpty(v) }) },
	"unique": func(vals []any) any {
		// Distinct values among those filled: Empty counts the rest.
		var filled []any
		for _, v := range vals {
			if !isEmpty(v) {
				filled = append(filled, v)
			}
		}
		u, _ := uniqueValues(filled, func(int) error { return nil })
		return float64(len(u))
	},
}

func numbers(vals []any) []float64 {
	var out []float64
	for _, v := range vals {
		if f, ok := v.(float64); ok && !math.IsNaN(f) {
			out = append(out, f)
		}
	}
	return out
}

func dates(vals []any) []Date {
	var out []Date
	for _, v := range vals {
		if d, ok := v.(Date); ok {
			out = append(out, d)
		}
	}
	return out
}

func sum(ns []float64) float64 {
	var s float64
	for _, n := range ns {
		s += n
	}
	return s
}

func extreme(ns []float64, sign float64) any {
	if len(ns) == 0 {
		return nil
	}
	best := ns[0]
	for _, n := range ns[1:] {
		if (n-best)*sign > 0 {
			best = n
		}
	}
	return best
}

func extremeDate(ds []Date, sign int) any {
	if len(ds) == 0 {
		return nil
	}
	best := ds[0]
	for _, d := range ds[1:] {
		if d.T.Compare(best.T)*sign > 0 {
			best = d
		}
	}
	return best
}

func count(vals []any, f func(any) bool) any {
	n := 0
	for _, v := range vals {
		if f(v) {
			n++
		}
	}
	return float64(n)
}

// summaryOrder is the view's summarised properties, in column order, then
// any others by name.
func summaryOrder(view View, cols []Column) []string {
	var out []string
	for _, c := range cols {
		if _, ok := view.Summaries[c.ID]; ok {
			out = append(out, c.ID)
		}
	}
	var rest []string
	for p := range view.Summaries {
		if !slices.Contains(out, p) {
			rest = append(rest, p)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// summarise computes the view's summaries over rows. values of each
// property are read from the rows' cells where the property is a column,
// else evaluated.
func (ev *evaluator) summarise(view View, cols []Column, rows []Row, props []string) ([]Summary, []string) {
	var out []Summary
	var warnings []string
	for _, p := range props {
		name := view.Summaries[p]
		vals := make([]any, 0, len(rows))
		col := slices.IndexFunc(cols, func(c Column) bool { return c.ID == p })
		for _, r := range rows {
			var v any
			if col >= 0 {
				v = r.Values[col]
			} else {
				v, _ = ev.newRow(r.File).property(p)
			}
			if _, bad := v.(*CellError); bad {
				v = nil
			}
			vals = append(vals, v)
		}
		s := Summary{Property: p, Name: name}
		if f, ok := defaultSummaries[strings.ToLower(name)]; ok {
			s.Value = f(vals)
		} else if src, ok := ev.base.Summaries[name]; ok {
			v, err := ev.customSummary(src, vals)
			if err != nil {
				v = &CellError{Msg: err.Error()}
				warnings = append(warnings, fmt.Sprintf("summary %s of %s: %v", name, p, err))
			}
			s.Value = v
		} else {
			s.Value = &CellError{Msg: "no such summary"}
			warnings = append(warnings, fmt.Sprintf("summary %q of %s: not a default summary nor one of the base's summaries", name, p))
		}
		out = append(out, s)
	}
	return out, warnings
}

// customSummary evaluates a summaries formula, values being the list of
// the property's values over the rows.
func (ev *evaluator) customSummary(src string, vals []any) (any, error) {
	x, err := ev.compile(src)
	if err != nil {
		return nil, err
	}
	r := ev.newRow(&File{snap: ev.snap, Props: map[string]any{"values": vals}})
	return r.run(x)
}

func (ev *evaluator) newRow(f *File) *row {
	return &row{ev: ev, file: f}
}
