package base

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The values an expression works on. Bases' types map onto Go values:
//
//	null      nil
//	string    string
//	number    float64 (every number; YAML and literal integers are widened)
//	boolean   bool
//	date      Date
//	duration  Duration
//	list      []any
//	object    map[string]any
//	link      Link
//	file      *File
//	regexp    Regexp
//	html, image, icon  Rendered
//	a tag     Tag (an element of file.tags or of the tags property)
//
// Functions take and return only these, so a value from a note's
// frontmatter is converted once (fromYAML) on its way in.

// Date is a date, or a date and time when HasTime.
type Date struct {
	T       time.Time
	HasTime bool
}

// Duration is a span of time as Bases writes it ("1M", "2 weeks"), kept
// as Moment.js keeps one: calendar months (a year is 12), calendar days
// (a week is 7) and fixed milliseconds apart, so that date("2024-12-01")
// + "1M" is 2025-01-01 and date("2025-01-31") + "1M" is 2025-02-28 as in
// Obsidian (addDuration).
type Duration struct {
	Months float64
	Days   float64
	Millis float64
}

// ms is the duration in milliseconds, a month counted as Moment.js's
// asMilliseconds() counts it when it must give a duration one number
// (146097/4800 days: 400 years' days over their months).
func (d Duration) ms() float64 {
	return d.Millis + d.Days*864e5 + d.Months*146097/4800*864e5
}

// scaled is the duration times n, each part on its own.
func (d Duration) scaled(n float64) Duration {
	return Duration{Months: d.Months * n, Days: d.Days * n, Millis: d.Millis * n}
}

// plus is the sum of two durations, each part on its own.
func (d Duration) plus(e Duration) Duration {
	return Duration{Months: d.Months + e.Months, Days: d.Days + e.Days, Millis: d.Millis + e.Millis}
}

// field is a duration's field: the whole span in a unit, with a fraction
// ("(now() - file.ctime).days"). Months and years convert as Moment.js's
// asMonths() and asYears() do (a year is 365.2425 days), the rest are
// fixed spans of milliseconds.
func (d Duration) field(name string) (float64, bool) {
	const day = 864e5
	days := d.Millis/day + d.Days + d.Months*146097/4800
	months := d.Months + (d.Millis/day+d.Days)*4800/146097
	switch name {
	case "years":
		return months / 12, true
	case "months":
		return months, true
	case "weeks":
		return days / 7, true
	case "days":
		return days, true
	case "hours":
		return days * 24, true
	case "minutes":
		return days * 24 * 60, true
	case "seconds":
		return days * 24 * 3600, true
	case "milliseconds":
		return days * day, true
	}
	return 0, false
}

// Link is a link to a note or a URL. Target is the vault path it resolves
// to ("" if it resolves to nothing); Text is the link's path as written.
type Link struct {
	Text    string
	Display any
	Target  string
}

// Tag is a tag as a list holds it: "#x/y" in file.tags, "x/y" in the tags
// property. It is a string everywhere (norm makes it one) except inside a
// list, where contains() matches it as Obsidian matches tags: ignoring
// case and the '#', and matching its nested tags (release notes 1.9.11
// and 1.9.14).
type Tag string

// tagMatches says whether tag t is the tag want or nested under it.
func tagMatches(t Tag, want string) bool {
	a := strings.ToLower(strings.TrimPrefix(string(t), "#"))
	b := strings.ToLower(strings.TrimPrefix(want, "#"))
	return b != "" && (a == b || strings.HasPrefix(a, b+"/"))
}

// Regexp is a regular expression literal, /src/flags.
type Regexp struct {
	Re     *regexp.Regexp
	Global bool
	Source string
}

// Rendered is a value a view draws rather than prints (html(), image(),
// icon()): headless, it is its source text.
type Rendered struct {
	Kind  string
	Value string
}

// typeName is a value's Bases type, as isType() names it.
func typeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string, Tag:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case Date:
		return "date"
	case Duration:
		return "duration"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	case Link:
		return "link"
	case *File, thisFile:
		return "file"
	case formulaRef:
		return "object"
	case Regexp:
		return "regexp"
	case Rendered:
		return x.Kind
	}
	return fmt.Sprintf("%T", v)
}

// norm converts what the expression VM produces (ints from literals,
// []any of them) to the value types above.
func norm(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case int32:
		return float64(x)
	case uint64:
		return float64(x)
	case float32:
		return float64(x)
	case Tag:
		return string(x)
	case []any:
		return x
	case map[string]any:
		return x
	}
	return v
}

// truthy is JavaScript's truthiness, which Bases' if(), filters and
// boolean operators follow: null, false, 0, NaN and "" are false; lists
// and objects, even empty, are true.
func truthy(v any) bool {
	switch x := norm(v).(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	case *File:
		return x != nil
	}
	return true
}

// isEmpty is the isEmpty() method: null, "", an empty list or object.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// toString is the toString() method and how a value is shown in text
// output: numbers as JavaScript prints them, dates as Obsidian shows them,
// links as wikilinks.
func toString(v any) string {
	switch x := norm(v).(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return formatNumber(x)
	case bool:
		return strconv.FormatBool(x)
	case Date:
		if x.HasTime {
			return x.T.Format("2006-01-02 15:04:05")
		}
		return x.T.Format("2006-01-02")
	case Duration:
		return formatNumber(x.ms())
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = toString(e)
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		keys := sortedKeys(x)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + toString(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case Link:
		if x.Display != nil {
			return "[[" + x.Text + "|" + toString(x.Display) + "]]"
		}
		return "[[" + x.Text + "]]"
	case *File:
		if x == nil {
			return ""
		}
		return x.Path
	case thisFile:
		return toString(x.f)
	case Regexp:
		return x.Source
	case Rendered:
		return x.Value
	}
	return fmt.Sprint(v)
}

// formatNumber prints a number as JavaScript's String(n) does for the
// numbers a note holds: integers without a point, others in the shortest
// form that reads back the same.
func formatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == math.Trunc(f) && math.Abs(f) < 1e21:
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// equal is Bases' ==: numbers, strings and booleans by value, dates by
// instant, lists element by element, and a link equal to a file (or
// another link) when both name the same file.
func equal(a, b any) bool {
	a, b = norm(a), norm(b)
	if t, ok := a.(thisFile); ok {
		a = t.f
	}
	if t, ok := b.(thisFile); ok {
		b = t.f
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case Date:
		y, ok := b.(Date)
		return ok && x.T.Equal(y.T)
	case Duration:
		y, ok := b.(Duration)
		return ok && x.ms() == y.ms()
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case Link:
		return linkEquals(x, b)
	case *File:
		switch y := b.(type) {
		case *File:
			return x != nil && y != nil && x.Path == y.Path
		case Link:
			return linkEquals(y, x)
		}
		return false
	case Regexp:
		y, ok := b.(Regexp)
		return ok && x.Source == y.Source
	case Rendered:
		y, ok := b.(Rendered)
		return ok && x == y
	}
	if _, ok := b.(Link); ok {
		return false
	}
	return a == b
}

// linkEquals: links are equal when they resolve to the same file, or,
// unresolved, when their text is identical; a link equals the file it
// resolves to.
func linkEquals(l Link, b any) bool {
	switch y := b.(type) {
	case Link:
		if l.Target != "" || y.Target != "" {
			return l.Target == y.Target
		}
		return l.Text == y.Text
	case *File:
		return y != nil && l.Target != "" && l.Target == y.Path
	}
	return false
}

// compare orders two values for <, > and sort: numbers, strings, dates,
// durations and booleans among their kind. ok is false for values that
// have no order between them (a number and a list, null and anything).
func compare(a, b any) (c int, ok bool) {
	a, b = norm(a), norm(b)
	switch x := a.(type) {
	case float64:
		switch y := b.(type) {
		case float64:
			return cmpFloat(x, y), true
		case Date:
			return cmpFloat(x, float64(y.T.UnixMilli())), true
		case Duration:
			return cmpFloat(x, y.ms()), true
		case string:
			if f, err := strconv.ParseFloat(strings.TrimSpace(y), 64); err == nil {
				return cmpFloat(x, f), true
			}
		}
	case string:
		switch y := b.(type) {
		case string:
			return strings.Compare(x, y), true
		case float64:
			if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				return cmpFloat(f, y), true
			}
		case Date:
			if d, ok := parseDate(x, y.T.Location()); ok {
				return d.T.Compare(y.T), true
			}
		case Duration:
			if d, err := parseDuration(x); err == nil {
				return cmpFloat(d.ms(), y.ms()), true
			}
		}
	case Date:
		switch y := b.(type) {
		case Date:
			return x.T.Compare(y.T), true
		case float64:
			return cmpFloat(float64(x.T.UnixMilli()), y), true
		case string:
			if d, ok := parseDate(y, x.T.Location()); ok {
				return x.T.Compare(d.T), true
			}
		}
	case Duration:
		switch y := b.(type) {
		case Duration:
			return cmpFloat(x.ms(), y.ms()), true
		case float64:
			return cmpFloat(x.ms(), y), true
		case string:
			// (today() - due) > "6 days": the text is a duration.
			if d, err := parseDuration(y); err == nil {
				return cmpFloat(x.ms(), d.ms()), true
			}
		}
	case bool:
		if y, ok := b.(bool); ok {
			return cmpFloat(b2f(x), b2f(y)), true
		}
	case Link:
		if y, ok := b.(Link); ok {
			return strings.Compare(toString(x), toString(y)), true
		}
	case *File:
		if y, ok := b.(*File); ok && x != nil && y != nil {
			return strings.Compare(x.Path, y.Path), true
		}
	}
	return 0, false
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// sortCompare orders any two values for sorting a view or a list: nulls
// last, then by kind (numbers, dates, strings, the rest by their text),
// then within a kind by compare (text
// ignoring case first, as a reader expects A→Z).
func sortCompare(a, b any) int {
	a, b = norm(a), norm(b)
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return 1
		}
		return -1
	}
	ra, rb := kindRank(a), kindRank(b)
	if ra != rb {
		return ra - rb
	}
	if x, ok := a.(string); ok {
		if c := strings.Compare(strings.ToLower(x), strings.ToLower(b.(string))); c != 0 {
			return c
		}
	}
	if c, ok := compare(a, b); ok {
		return c
	}
	return strings.Compare(toString(a), toString(b))
}

func kindRank(v any) int {
	switch v.(type) {
	case float64, Duration:
		return 0
	case Date:
		return 1
	case bool:
		return 2
	case string:
		return 3
	}
	return 4
}
