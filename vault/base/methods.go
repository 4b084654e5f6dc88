package base

import (
	"errors"
	"fmt"
	"math"
	"slices"
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
	if recv == nil && !funcs().has("any", name) {
		return nil, fmt.Errorf("%s() on a missing value", name)
	}
	if !funcs().has(typeName(recv), name) {
		return nil, wrong()
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
			layout, err := textOf(args[0])
			if err != nil {
				return nil, err
			}
			if len(layout) > maxFormat {
				return nil, &LimitError{fmt.Sprintf("the format is over %d bytes", maxFormat)}
			}
			if tok := moment.Unsupported(layout); tok != "" {
				return nil, &UnsupportedError{What: fmt.Sprintf("format(): the Moment.js token %q", tok)}
			}
			return moment.Format(x.T, layout), nil
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
		case "hasLink", "linksTo": // file.linksTo(): release notes 1.12.2
			if err := nargs(1, 1); err != nil {
				return nil, err
			}
			return r.hasLink(x, args[0]), nil
		case "hasProperty":
			if err := nargs(1, 1); err != nil {
				return nil, err
			}
			want := toString(args[0])
			x.load()
			for k := range x.Props {
				if strings.EqualFold(k, want) {
					return true, nil
				}
			}
			return false, nil
		case "hasTag":
			x.load()
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
	f.load()
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
	case "contains", "containsAll", "containsAny":
		// Ignoring case since Obsidian 1.9.1 ("contains function is now
		// case-insensitive"); containsAll and containsAny are the same
		// test over several values.
		if name == "contains" && len(args) != 1 {
			return nil, errors.New("contains() takes 1 argument")
		}
		folded := strings.ToLower(s)
		for _, a := range strArgs() {
			found := strings.Contains(folded, strings.ToLower(a))
			if found && name == "containsAny" {
				return true, nil
			}
			if !found && name != "containsAny" {
				return false, nil
			}
		}
		return name != "containsAny", nil
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
			return nil, room(maxString + 1)
		}
		return strings.Repeat(s, int(n)), nil
	case "slice":
		return jsSlice(s, args)
	case "replace":
		if len(args) != 2 {
			return nil, errors.New("replace() takes 2 arguments")
		}
		repl, err := textOf(args[1])
		if err != nil {
			return nil, err
		}
		if re, ok := args[0].(Regexp); ok {
			return r.replaceRegexp(s, re, repl)
		}
		old, err := textOf(args[0])
		if err != nil {
			return nil, err
		}
		// The result's size is known before it is built: a 1 MiB string
		// with every byte replaced by 1 MiB would be a terabyte.
		if err := room(replacedSize(s, old, repl)); err != nil {
			return nil, err
		}
		return strings.ReplaceAll(s, old, repl), nil
	case "split":
		if len(args) < 1 || len(args) > 2 {
			return nil, errors.New("split() takes 1 or 2 arguments")
		}
		// At most maxList parts are split off (one more says there are
		// too many), before any is.
		var parts []string
		if re, ok := args[0].(Regexp); ok {
			parts = re.Re.Split(s, maxList+1)
		} else {
			sep, err := textOf(args[0])
			if err != nil {
				return nil, err
			}
			parts = strings.SplitN(s, sep, maxList+1)
		}
		if err := r.grow(len(parts), true); err != nil {
			return nil, err
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

// maxFormat bounds a date format: each token prints at most 13 bytes.
const maxFormat = 4 << 10

// replaceRegexp is s.replace(re, repl): the first match, or every one
// with g, the replacement read as JavaScript reads it ($1, $&, $$). The
// size of the result is known before it is built: the matches are found
// first (at most maxList of them), then each replacement's size is added
// up before any is written.
func (r *row) replaceRegexp(s string, re Regexp, repl string) (any, error) {
	parts := jsReplacement(repl, re.Re.NumSubexp())
	n := 1
	if re.Global {
		// Every match adds the replacement's literal text: no more
		// matches are looked for than the result could hold.
		n = maxList + 1
		lit := 0
		for _, p := range parts {
			lit += len(p.lit)
		}
		if lit > 0 {
			n = min(n, maxString/lit+2)
		}
	}
	matches := re.Re.FindAllStringSubmatchIndex(s, n)
	if len(matches) > maxList {
		return nil, &LimitError{fmt.Sprintf("over %d matches", maxList)}
	}
	if err := r.spend(len(matches), 0); err != nil {
		return nil, err
	}
	size, last := 0, 0
	for _, m := range matches {
		size += m[0] - last
		for _, p := range parts {
			size += len(p.text(s, m))
		}
		if err := room(size + len(s) - m[1]); err != nil {
			return nil, err
		}
		last = m[1]
	}
	out := make([]byte, 0, size+len(s)-last)
	last = 0
	for _, m := range matches {
		out = append(out, s[last:m[0]]...)
		for _, p := range parts {
			out = append(out, p.text(s, m)...)
		}
		last = m[1]
	}
	return string(append(out, s[last:]...)), nil
}

// replPart is a piece of a JavaScript replacement string: literal text,
// or what a $ pattern names.
type replPart struct {
	lit   string
	group int // a group's number, 0 for the match ($&); -1 literal, -2 before the match ($`), -3 after it ($')
}

func (p replPart) text(s string, m []int) string {
	switch {
	case p.group == -1:
		return p.lit
	case p.group == -2:
		return s[:m[0]]
	case p.group == -3:
		return s[m[1]:]
	case m[2*p.group] < 0: // a group that did not take part
		return ""
	}
	return s[m[2*p.group]:m[2*p.group+1]]
}

// jsReplacement reads a replacement as String.prototype.replace does: $$
// is $, $& the match, $` and $' the text before and after it, $n and $nn
// a group when there is one of that number; any other $ is itself.
func jsReplacement(repl string, groups int) []replPart {
	var parts []replPart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, replPart{lit: lit.String(), group: -1})
			lit.Reset()
		}
	}
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '$' || i+1 == len(repl) {
			lit.WriteByte(c)
			continue
		}
		next := repl[i+1]
		group := -1
		width := 2
		switch {
		case next == '$':
			lit.WriteByte('$')
			i++
			continue
		case next == '&':
			group = 0
		case next == '`':
			group = -2
		case next == '\'':
			group = -3
		case next >= '0' && next <= '9':
			n := int(next - '0')
			if i+2 < len(repl) && repl[i+2] >= '0' && repl[i+2] <= '9' {
				if nn := n*10 + int(repl[i+2]-'0'); nn >= 1 && nn <= groups {
					n, width = nn, 3
				}
			}
			if n >= 1 && n <= groups {
				group = n
			}
		}
		if group == -1 {
			lit.WriteByte(c)
			continue
		}
		flush()
		parts = append(parts, replPart{group: group})
		i += width - 1
	}
	flush()
	return parts
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
		return toFixed(x, d), nil
	}
	return nil, wrong()
}

func (r *row) listMethod(l []any, name string, args []any, wrong func() error) (any, error) {
	has := func(v any) bool {
		want, isText := norm(v).(string)
		for _, e := range l {
			if t, ok := e.(Tag); ok && isText {
				if tagMatches(t, want) {
					return true
				}
				continue
			}
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
		n := 0
		for _, e := range l {
			if inner, ok := e.([]any); ok {
				n += len(inner)
			} else {
				n++
			}
		}
		if err := r.grow(n, true); err != nil {
			return nil, err
		}
		out := make([]any, 0, n)
		for _, e := range l {
			if inner, ok := e.([]any); ok {
				out = append(out, inner...)
			} else {
				out = append(out, e)
			}
		}
		return out, nil
	case "join":
		sep := ","
		if len(args) > 0 {
			var err error
			if sep, err = textOf(args[0]); err != nil {
				return nil, err
			}
		}
		if err := room(len(sep) * (len(l) - 1)); err != nil {
			return nil, err
		}
		var b strings.Builder
		for i, e := range l {
			if i > 0 {
				b.WriteString(sep)
			}
			text, err := textOf(e)
			if err == nil {
				err = room(b.Len() + len(text))
			}
			if err != nil {
				return nil, err
			}
			b.WriteString(text)
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
	case "mean", "median", "stddev":
		// Not in Functions.md, but added in 1.10 (release notes 1.10.3),
		// and Bases syntax's summary example (values.mean().round(3))
		// calls mean: over the list's numbers, as the summaries.
		summary := name
		if name == "mean" {
			summary = "average"
		}
		return defaultSummaries[summary](l), nil
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
		case string, Tag, float64, bool, nil, Date:
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
