package base

import (
	"math"
	"strconv"
	"strings"
)

// String is a value as text output shows it: numbers as JavaScript prints
// them, dates in ISO form, lists joined with ", ", links as [[wikilinks]],
// files by path; an error cell is "#error".
func String(v any) string {
	if _, ok := v.(*CellError); ok {
		return "#error"
	}
	return toString(v)
}

// Display is a value as Obsidian shows it in a view's summary: a number
// to at most three decimals, as JavaScript's toLocaleString() rounds
// (11.674999999999999 is 11.675), without its grouping separators, which
// would read as a list in zk's text; anything else as String.
func Display(v any) string {
	if f, ok := v.(float64); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
		s := strconv.FormatFloat(f, 'f', 3, 64)
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		if s == "-0" {
			s = "0"
		}
		return s
	}
	return String(v)
}

// JSON is a value as JSON output writes it: null, strings, numbers,
// booleans, lists and objects as themselves; a date as its ISO string; a
// duration as milliseconds; a link as its [[wikilink]] text; a file as
// its path; an error cell as {"error": why}.
func JSON(v any) any {
	switch x := norm(v).(type) {
	case nil, string, bool:
		return x
	case float64:
		if x != x || x > 1.7e308 || x < -1.7e308 { // NaN and ±Inf are not JSON numbers
			return toString(x)
		}
		return x
	case *CellError:
		return map[string]string{"error": x.Msg}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = JSON(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = JSON(e)
		}
		return out
	case Duration:
		return x.ms()
	}
	return toString(v)
}
