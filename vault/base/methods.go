package base

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/zk-claims/zk/internal/moment"
)

// The methods of Functions.md, by the type of the value they are called
// on: Any, Date, String, Number, List, Link, File, Object, Regular
// expression.

// method calls a method of Functions.md on a value.
func (r *row) method(recv any, name string, args []any) (any, error) {
	wrong := func() error {
		return fmt.Errorf("%s() is not a function of a %s", name, typeName(recv))
	}
	if err := r.weigh(recv); err != nil {
		return nil, err
	}
	nargs := func(lo, hi int) error {
		if len(args) < lo || len(args) > hi {
			return fmt.Errorf("%s() takes %d to %d arguments, not %d", name, lo, hi, len(args))
		}
		return nil
	}
	// Any type.
	switch name {
	case "isTruthy":
		return truthy(recv), nil
	case "isType":
		if err := nargs(1, 1); err != nil {
			return nil, err
		}
		return typeName(recv) == toString(args[0]), nil
	case "toString":
		return toString(recv), nil
	case "isEmpty":
		if x, ok := recv.(thisFile); ok {
			return x.f == nil, nil
		}
		return isEmpty(recv), nil
	}
	if t, ok := recv.(thisFile); ok {
		recv = t.f
	}
	switch x := recv.(type) {
	case nil:
		return nil, fmt.Errorf("%s() on a missing value", name)
	case string:
		return r.stringMethod(x, name, args, wrong)
	case float64:
		return numberMethod(x, name, args, wrong)
	case []any:
		return r.listMethod(x, name, args, wrong)
	case Date:
		switch name {
		case "date":
			t := x.T
			return Date{T: time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())}, nil
		case "format":
			if err := nargs(1, 1); err != nil {
				return nil, err
			}
			return moment.Format(x.T, toString(args[0])), nil
		case "time":
			return x.T.Format("15:04:05"), nil
		case "relative":
			return relative(x.T, r.ev.now), nil
		}
	case Link:
		switch name {
		case "asFile":
			if f := r.ev.snap.File(x.Target); f != nil {
				return f, nil
			}
			return nil, nil
		case "linksTo":
			if err := nargs(1, 1); err != nil {
				return nil, err
			}
			f := r.ev.snap.File(x.Target)
			return f != nil && r.hasLink(f, args[0]), nil
		}
	case *File:
		switch name {
		case "asLink":
			if err := nargs(0, 1); err != nil {
				return nil, err
			}
			var display any
			if len(args) == 1 {
				display = args[0]
			}
			return fileLink(x, display), nil
		case "hasLink":
			if err := nargs(1, 1); err != nil {
				return nil, err
			}
			return r.hasLink(x, args[0]), nil
		case "hasProperty":
			if err := nargs(1, 1); err != nil {
				return nil, err
			}
			want := toString(args[0])
			for k := range x.Props {
				if strings.EqualFold(k, want) {
					return true, nil
				}
			}
			return false, nil
		case "hasTag":
			for _, a := range args {
				want := strings.ToLower(strings.TrimPrefix(toString(a), "#"))
				for _, t := range x.Tags {
					t = strings.ToLower(t)
					if t == want || strings.HasPrefix(t, want+"/") {
						return true, nil
					}
				}
			}
			return false, nil
		case "inFolder":
			if err := nargs(1, 1); err != nil {
				return nil, err
			}
			dir := strings.Trim(toString(args[0]), "/")
			if dir == "" {
				return true, nil
			}
			return x.Folder() == dir || strings.HasPrefix(x.Path, dir+"/"), nil
		}
	case map[string]any:
		switch name {
		case "keys":
			keys := sortedKeys(x)
			out := make([]any, len(keys))
			for i, k := range keys {
				out[i] = k
			}
			return out, nil
		case "values":
			keys := sortedKeys(x)
			out := make([]any, len(keys))
			for i, k := range keys {
				out[i] = x[k]
			}
			return out, nil
		}
	case Regexp:
		if name == "matches" {
			if err := nargs(1, 1); err != nil {
				return nil, err
			}
			return x.Re.MatchString(toString(args[0])), nil
		}
	}
	return nil, wrong()
}

// hasLink: f links (or embeds) to the file other names.
func (r *row) hasLink(f *File, other any) bool {
	target := r.asFile(other)
	if target == nil {
		return false
	}
	for _, ls := range [][]Link{f.Links, f.Embeds} {
		for _, l := range ls {
			if l.Target == target.Path {
				return true
			}
		}
	}
	return false
}

func (r *row) stringMethod(s, name string, args []any, wrong func() error) (any, error) {
	strArgs := func() []string {
		out := make([]string, len(args))
		for i, a := range args {
			out[i] = toString(a)
		}
		return out
	}
	switch name {
	case "contains":
		if len(args) != 1 {
			return nil, errors.New("contains() takes 1 argument")
		}
		return strings.Contains(s, toString(args[0])), nil
	case "containsAll":
		for _, a := range strArgs() {
			if !strings.Contains(s, a) {
				return false, nil
			}
		}
		return true, nil
	case "containsAny":
		for _, a := range strArgs() {
			if strings.Contains(s, a) {
				return true, nil
			}
		}
		return false, nil
	case "startsWith", "endsWith":
		if len(args) != 1 {
			return nil, fmt.Errorf("%s() takes 1 argument", name)
		}
		if name == "startsWith" {
			return strings.HasPrefix(s, toString(args[0])), nil
		}
		return strings.HasSuffix(s, toString(args[0])), nil
	case "lower":
		return strings.ToLower(s), nil
	case "title":
		return titleCase(s), nil
	case "trim":
		return strings.TrimSpace(s), nil
	case "reverse":
		rs := []rune(s)
		slices.Reverse(rs)
		return string(rs), nil
	case "repeat":
		if len(args) != 1 {
			return nil, errors.New("repeat() takes 1 argument")
		}
		n, ok := args[0].(float64)
		if !ok || n < 0 || n != math.Trunc(n) {
			return nil, fmt.Errorf("repeat(): the count must be a whole number ≥ 0, not %s", toString(args[0]))
		}
		if float64(len(s))*n > maxString {
			return nil, fmt.Errorf("repeat(): the result would be over %d bytes", maxString)
		}
		return strings.Repeat(s, int(n)), nil
	case "slice":
		rs := []rune(s)
		lo, hi, err := sliceBounds(len(rs), args)
		if err != nil {
			return nil, err
		}
		return string(rs[lo:hi]), nil
	case "replace":
		if len(args) != 2 {
			return nil, errors.New("replace() takes 2 arguments")
		}
		repl := toString(args[1])
		if re, ok := args[0].(Regexp); ok {
			repl = jsDollar.ReplaceAllString(repl, "$${$1}")
			if re.Global {
				return limitString(re.Re.ReplaceAllString(s, repl))
			}
			loc := re.Re.FindStringSubmatchIndex(s)
			if loc == nil {
				return s, nil
			}
			out := re.Re.ExpandString(nil, repl, s, loc)
			return limitString(s[:loc[0]] + string(out) + s[loc[1]:])
		}
		return limitString(strings.ReplaceAll(s, toString(args[0]), repl))
	case "split":
		if len(args) < 1 || len(args) > 2 {
			return nil, errors.New("split() takes 1 or 2 arguments")
		}
		var parts []string
		if re, ok := args[0].(Regexp); ok {
			parts = re.Re.Split(s, -1)
		} else {
			parts = strings.Split(s, toString(args[0]))
		}
		if len(args) == 2 {
			n, ok := args[1].(float64)
			if !ok || n < 0 {
				return nil, errors.New("split(): n must be a number ≥ 0")
			}
			if int(n) < len(parts) {
				parts = parts[:int(n)]
			}
		}
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out, nil
	}
	return nil, wrong()
}

func limitString(s string) (any, error) {
	if len(s) > maxString {
		return nil, fmt.Errorf("the result would be over %d bytes", maxString)
	}
	return s, nil
}

// titleCase capitalises the first letter of each word.
func titleCase(s string) string {
	var b strings.Builder
	start := true
	for _, c := range s {
		if unicode.IsSpace(c) {
			start = true
			b.WriteRune(c)
			continue
		}
		if start {
			c = unicode.ToUpper(c)
		}
		start = false
		b.WriteRune(c)
	}
	return b.String()
}

// sliceBounds is JavaScript's slice(start, end?) on n elements: negative
// indexes count from the end, bounds are clamped.
func sliceBounds(n int, args []any) (int, int, error) {
	if len(args) < 1 || len(args) > 2 {
		return 0, 0, errors.New("slice() takes 1 or 2 arguments")
	}
	idx := func(v any) (int, error) {
		f, ok := v.(float64)
		if !ok {
			return 0, fmt.Errorf("slice(): %s is not a number", toString(v))
		}
		i := int(math.Max(math.Min(f, float64(n)), -float64(n)-1))
		if i < 0 {
			i += n
		}
		return min(max(i, 0), n), nil
	}
	lo, err := idx(args[0])
	if err != nil {
		return 0, 0, err
	}
	hi := n
	if len(args) == 2 {
		if hi, err = idx(args[1]); err != nil {
			return 0, 0, err
		}
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi, nil
}

func numberMethod(x float64, name string, args []any, wrong func() error) (any, error) {
	digits := func() (int, error) {
		if len(args) == 0 {
			return 0, nil
		}
		d, ok := args[0].(float64)
		if !ok || d < 0 || d > 100 || d != math.Trunc(d) {
			return 0, fmt.Errorf("%s(): digits must be a whole number from 0 to 100", name)
		}
		return int(d), nil
	}
	switch name {
	case "abs":
		return math.Abs(x), nil
	case "ceil":
		return math.Ceil(x), nil
	case "floor":
		return math.Floor(x), nil
	case "round":
		d, err := digits()
		if err != nil {
			return nil, err
		}
		p := math.Pow(10, float64(d))
		return math.Floor(x*p+0.5) / p, nil // JavaScript's Math.round: halves up
	case "toFixed":
		d, err := digits()
		if err != nil {
			return nil, err
		}
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return formatNumber(x), nil
		}
		return strconv.FormatFloat(x, 'f', d, 64), nil
	}
	return nil, wrong()
}

func (r *row) listMethod(l []any, name string, args []any, wrong func() error) (any, error) {
	has := func(v any) bool {
		for _, e := range l {
			if equal(e, v) {
				return true
			}
		}
		return false
	}
	switch name {
	case "contains":
		if len(args) != 1 {
			return nil, errors.New("contains() takes 1 argument")
		}
		return has(args[0]), nil
	case "containsAll":
		for _, a := range args {
			if !has(a) {
				return false, nil
			}
		}
		return true, nil
	case "containsAny":
		for _, a := range args {
			if has(a) {
				return true, nil
			}
		}
		return false, nil
	case "flat":
		var out []any
		for _, e := range l {
			if inner, ok := e.([]any); ok {
				out = append(out, inner...)
			} else {
				out = append(out, e)
			}
		}
		if out == nil {
			out = []any{}
		}
		return out, nil
	case "join":
		sep := ","
		if len(args) > 0 {
			sep = toString(args[0])
		}
		var b strings.Builder
		for i, e := range l {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(toString(e))
			if b.Len() > maxString {
				return nil, fmt.Errorf("join(): the result would be over %d bytes", maxString)
			}
		}
		return b.String(), nil
	case "reverse":
		out := slices.Clone(l)
		slices.Reverse(out)
		return out, nil
	case "slice":
		lo, hi, err := sliceBounds(len(l), args)
		if err != nil {
			return nil, err
		}
		return slices.Clone(l[lo:hi]), nil
	case "sort":
		out := slices.Clone(l)
		slices.SortStableFunc(out, sortCompare)
		return out, nil
	case "unique":
		return uniqueValues(l, func(n int) error { return r.spend(n, 0) })
	case "mean":
		// Not in Functions.md, but Bases syntax's summary example
		// (values.mean().round(3)) calls it: the mean of the numbers.
		ns := numbers(l)
		if len(ns) == 0 {
			return nil, nil
		}
		return sum(ns) / float64(len(ns)), nil
	}
	return nil, wrong()
}

// uniqueValues is l without repeats, in order: scalars by a key (linear),
// links, files, lists and objects by equal, which compares them by what
// they name or hold; charge pays for those comparisons.
func uniqueValues(l []any, charge func(n int) error) ([]any, error) {
	out := []any{}
	seen := map[string]bool{}
	for _, e := range l {
		switch e.(type) {
		case string, float64, bool, nil, Date:
			k := typeName(e) + ":" + toString(e)
			if seen[k] {
				continue
			}
			seen[k] = true
		default:
			if err := charge(len(out)); err != nil {
				return nil, err
			}
			if slices.ContainsFunc(out, func(o any) bool { return equal(o, e) }) {
				continue
			}
		}
		out = append(out, e)
	}
	return out, nil
}
