package base

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The operators of Bases syntax, with JavaScript's meaning for mixed
// types, and the coercions they need.

func negate(v any) (any, error) {
	switch x := v.(type) {
	case float64:
		return -x, nil
	case Duration:
		return x.scaled(-1), nil
	}
	n, err := toNumber(v)
	if err != nil {
		return nil, fmt.Errorf("cannot negate a %s", typeName(v))
	}
	return -n.(float64), nil
}

// asDuration is a duration, or a string that reads as one (date + "1M").
func asDuration(v any) (Duration, bool) {
	switch x := v.(type) {
	case Duration:
		return x, true
	case string:
		d, err := parseDuration(x)
		return d, err == nil
	}
	return Duration{}, false
}

// arith is a value as a number for - * / %: JavaScript's coercion of
// null, booleans and numeric strings.
func arith(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case nil:
		return 0, true
	case bool:
		return b2f(x), true
	case Date:
		return float64(x.T.UnixMilli()), true
	case Duration:
		return x.ms(), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	return 0, false
}

// binaryOp is every arithmetic and comparison operator, with Bases'
// (JavaScript's) meaning for mixed types.
func binaryOp(r *row, op string, a, b any) (any, error) {
	switch op {
	case "==":
		return equal(a, b), nil
	case "!=":
		return !equal(a, b), nil
	case "<", ">", "<=", ">=":
		c, ok := compare(a, b)
		if !ok {
			return false, nil
		}
		switch op {
		case "<":
			return c < 0, nil
		case ">":
			return c > 0, nil
		case "<=":
			return c <= 0, nil
		}
		return c >= 0, nil
	}
	// Dates and durations.
	if d, ok := a.(Date); ok && (op == "+" || op == "-") {
		if e, ok := b.(Date); ok && op == "-" {
			// A Duration, not a number, since Obsidian 1.9.3 ("a new
			// duration type ... the difference between dates"; in the
			// API, DurationValue "can result from subtracting a
			// DateValue from another"): (due - today()).days.
			return Duration{Millis: float64(d.T.Sub(e.T).Milliseconds())}, nil
		}
		if dur, ok := asDuration(b); ok {
			sign := 1
			if op == "-" {
				sign = -1
			}
			return addDuration(d, dur, sign)
		}
		if n, ok := b.(float64); ok {
			sign := 1.0
			if op == "-" {
				sign = -1
			}
			return addDuration(d, Duration{Millis: sign * n}, 1)
		}
	}
	if d, ok := a.(Duration); ok {
		switch op {
		case "+", "-":
			if e, ok := asDuration(b); ok {
				if op == "-" {
					e = e.scaled(-1)
				}
				return d.plus(e), nil
			}
			if t, ok := b.(Date); ok && op == "+" {
				return addDuration(t, d, 1)
			}
		case "*", "/":
			if n, ok := b.(float64); ok {
				if op == "/" {
					return Duration{Millis: d.ms() / n}, nil
				}
				if n == math.Trunc(n) && math.Abs(n) < 1e6 {
					return d.scaled(n), nil
				}
				return Duration{Millis: d.ms() * n}, nil
			}
		}
	}
	if op == "+" {
		// List concatenation (release notes 1.9.8; ListValue.concat in
		// the API).
		if x, ok := a.([]any); ok {
			if y, ok := b.([]any); ok {
				// The operands' elements were charged as steps
				// when they were read (weigh): the result's memory
				// is what is left to charge.
				if err := r.grow(len(x)+len(y), false); err != nil {
					return nil, err
				}
				return append(slices.Clip(x), y...), nil
			}
		}
		_, as := a.(string)
		_, bs := b.(string)
		if as || bs || isListLike(a) || isListLike(b) {
			x, err := textOf(a)
			if err != nil {
				return nil, err
			}
			y, err := textOf(b)
			if err != nil {
				return nil, err
			}
			if err := room(len(x) + len(y)); err != nil {
				return nil, err
			}
			return x + y, nil
		}
	}
	x, ok1 := arith(a)
	y, ok2 := arith(b)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("cannot apply %s to a %s and a %s", op, typeName(a), typeName(b))
	}
	switch op {
	case "+":
		return x + y, nil
	case "-":
		return x - y, nil
	case "*":
		return x * y, nil
	case "/":
		return x / y, nil
	case "%":
		return math.Mod(x, y), nil
	}
	return nil, &UnsupportedError{What: "operator " + op}
}

func isListLike(v any) bool {
	switch v.(type) {
	case []any, map[string]any, Link, *File, Rendered, Regexp:
		return true
	}
	return false
}
