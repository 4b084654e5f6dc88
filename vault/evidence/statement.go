package evidence

import (
	"fmt"
	"strconv"
	"strings"
)

// A claim's history: each falsifier's values over its runs, read back
// from the statements its records keep (criterion.Result.Describe writes
// them; TestParseStatementReadsDescribe holds the two together).

// Value is one value a record's statement says its criterion read.
type Value struct {
	Expr  string
	Value float64
	Unit  string
	// Lo and Hi bound the value's interval, when the record gives one
	// (Interval); N is the sample count it gives: 1 for one reading
	// (stated so, or bare, as statements before that were), 0 when the
	// record says nothing of it.
	Interval bool
	Lo, Hi   float64
	N        int
}

// String writes v as a history shows it, with what it stands on: "rate
// = 31 (interval 30–32, n = 12)", "rate = 31 (n = 1, noise unknown)".
func (v Value) String() string {
	s := v.Expr + " = " + strconv.FormatFloat(v.Value, 'f', -1, 64)
	if v.Unit != "" {
		s += " " + v.Unit
	}
	switch {
	case v.Interval:
		s += fmt.Sprintf(" (interval %s–%s, n = %d)", strconv.FormatFloat(v.Lo, 'g', -1, 64), strconv.FormatFloat(v.Hi, 'g', -1, 64), v.N)
	case v.Expr == "exit":
	case v.N > 0:
		s += fmt.Sprintf(" (n = %d, noise unknown)", v.N)
	}
	return s
}

// StatedValues reads the numbers a record's statement says its criterion
// read, in order: each "EXPR = NUMBER [UNIT] [(… interval LO–HI, n = N…)
// | (n = N)]" before "refuted if". Values that are no number (a string,
// an object) and parts it cannot read are left out.
func StatedValues(stmt string) []Value {
	i := strings.LastIndex(stmt, "refuted if `")
	if i < 0 {
		return nil
	}
	var out []Value
	for _, part := range splitTop(strings.TrimSuffix(strings.TrimSpace(stmt[:i]), ";")) {
		if v, ok := statedValue(part); ok {
			out = append(out, v)
		}
	}
	return out
}

// splitTop splits s at "; " outside parentheses and quotes.
func splitTop(s string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth = max(0, depth-1)
		case c == ';' && depth == 0 && i+1 < len(s) && s[i+1] == ' ':
			out = append(out, s[start:i])
			start = i + 2
			i++
		}
	}
	if strings.TrimSpace(s[start:]) != "" {
		out = append(out, s[start:])
	}
	return out
}

func statedValue(part string) (Value, bool) {
	expr, rest, ok := strings.Cut(part, " = ")
	if !ok {
		return Value{}, false
	}
	v := Value{Expr: strings.TrimSpace(expr)}
	rest = strings.TrimSpace(rest)
	paren := false
	if strings.HasSuffix(rest, ")") {
		if open := matchingOpen(rest); open > 0 {
			readParen(&v, rest[open+1:len(rest)-1])
			rest = strings.TrimSpace(rest[:open])
			paren = true
		}
	}
	if !paren {
		// A value stated bare is one reading: a statement written before
		// statements said so (criterion.OneReading), or the exit status.
		v.N = 1
	}
	num, unit, _ := strings.Cut(rest, " ")
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return Value{}, false
	}
	v.Value, v.Unit = f, strings.TrimSpace(unit)
	return v, true
}

// matchingOpen is the index of the "(" that the ")" ending s closes, or
// -1.
func matchingOpen(s string) int {
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// readParen reads "95% interval 64.1–67.9, n = 12: requests …", "n =
// 1: one reading…" or "n = 54" into v.
func readParen(v *Value, p string) {
	if _, iv, ok := strings.Cut(p, "interval "); ok {
		bounds, _, _ := strings.Cut(iv, ",")
		lo, hi, ok := strings.Cut(strings.TrimSpace(bounds), "–")
		l, err1 := strconv.ParseFloat(lo, 64)
		h, err2 := strconv.ParseFloat(hi, 64)
		if ok && err1 == nil && err2 == nil {
			v.Interval, v.Lo, v.Hi = true, l, h
		}
	}
	if n, ok := strings.CutPrefix(p, "n = "); ok && n != "" && strings.Trim(n, "0123456789") == "" {
		// A count stated alone, by a statement written before it said
		// so: a figure of a distribution the output carried no samples
		// of, judged on its one reading.
		v.N = 1
		return
	}
	if _, n, ok := strings.Cut(p, "n = "); ok {
		digits := n
		if k := strings.IndexFunc(n, func(r rune) bool { return r < '0' || r > '9' }); k >= 0 {
			digits = n[:k]
		}
		v.N, _ = strconv.Atoi(digits)
	}
}

// Change says how the values of a falsifier's latest run differ from
// those of the run before, for the values both read.
type Change string

// The changes.
const (
	// ChangeNone: fewer than two runs read values the other read too.
	ChangeNone Change = ""
	// ChangeBeyondNoise: a value's interval in one run and in the other
	// do not overlap.
	ChangeBeyondNoise Change = "beyond-noise"
	// ChangeWithinNoise: every shared value's intervals overlap.
	ChangeWithinNoise Change = "within-noise"
	// ChangeUnknown: a shared value has no interval in one of the runs,
	// so its noise is not known; the values may still differ.
	ChangeUnknown Change = "unknown"
)

// Compare says how values now differ from those before: beyond noise
// when the intervals of a value both read do not overlap.
func Compare(before, now []Value) Change {
	out := ChangeNone
	for _, n := range now {
		for _, b := range before {
			if b.Expr != n.Expr {
				continue
			}
			switch {
			case !b.Interval || !n.Interval:
				if out != ChangeBeyondNoise {
					out = ChangeUnknown
				}
			case b.Hi < n.Lo || n.Hi < b.Lo:
				return ChangeBeyondNoise
			case out == ChangeNone:
				out = ChangeWithinNoise
			}
		}
	}
	return out
}

// History is a falsifier's measurements, oldest first: its runs and
// attached results (not its judgements again), and how the values of the
// latest that read any differ from those of the one before it that did.
func (l Latest) History() ([]Run, Change) {
	var measured []Run
	var withValues [][]Value
	for _, r := range l.Runs {
		if r.Rejudges != "" {
			continue
		}
		measured = append(measured, r)
		if vs := StatedValues(r.Criterion); len(vs) > 0 {
			withValues = append(withValues, vs)
		}
	}
	if len(withValues) < 2 {
		return measured, ChangeNone
	}
	return measured, Compare(withValues[len(withValues)-2], withValues[len(withValues)-1])
}
