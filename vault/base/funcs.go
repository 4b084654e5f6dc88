package base

import (
	"errors"
	"fmt"
	"html"
	"math"
	"math/rand/v2"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// maxString bounds a string an expression builds (repeat(), join(), +):
// a formula must not turn a row into gigabytes.
const maxString = 1 << 20

// row is one evaluation: the file a filter or formula is evaluated for,
// and its formulas, computed once each on first use.
type row struct {
	ev      *evaluator
	file    *File
	results map[string]any
	errs    map[string]error
	active  map[string]bool
	// steps and bytes are what the row's expressions have cost so far:
	// function calls plus list elements walked, and bytes of strings
	// built. A base is untrusted input; these make its cost per file a
	// constant, whatever it nests.
	steps, bytes int
}

// Per-file budgets: far above any hand-written base (a formula over a
// list of thousands of links costs thousands of steps), far below what
// would stall zk or exhaust memory.
const (
	maxRowSteps = 2_000_000
	maxRowBytes = 32 << 20
	// maxFormulaDepth bounds formulas referring to formulas: each level
	// is a nested run of the VM.
	maxFormulaDepth = 64
)

// errBudget is an expression that costs more than a row's budget.
var errBudget = errors.New("expression too costly (over the per-file budget of steps or bytes)")

func (r *row) spend(steps, bytes int) error {
	r.steps += steps + 1
	r.bytes += bytes
	if r.steps > maxRowSteps || r.bytes > maxRowBytes {
		return errBudget
	}
	return nil
}

// weigh charges a value a function reads: a string by its bytes, a list
// by its elements (contains() or == walks them).
func (r *row) weigh(vs ...any) error {
	for _, v := range vs {
		var err error
		switch x := v.(type) {
		case string:
			err = r.spend(0, len(x))
		case []any:
			err = r.spend(len(x), 0)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// charged charges a function's result to the row: a string by its bytes,
// a list by its elements.
func (r *row) charged(v any, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case string:
		err = r.spend(0, len(x))
	case []any:
		err = r.spend(len(x), 0)
	default:
		err = r.spend(0, 0)
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// thisFile is the this object: the base's own file, or the note that
// embeds it. this.file is that file; this.x is its property x.
type thisFile struct{ f *File }

// formulaRef is the formula object: formula.x evaluates formula x.
type formulaRef struct{}

func (r *row) this() any {
	if r.ev.this == nil {
		return nil
	}
	return thisFile{r.ev.this}
}

// prop is a note property read by its bare name: note.x.
func (r *row) prop(name string) any {
	return lookup(r.file.Props, name)
}

// lookup reads a property, by its exact name or else ignoring case, as
// Obsidian's property names are.
func lookup(props map[string]any, name string) any {
	if v, ok := props[name]; ok {
		return v
	}
	for k, v := range props {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return nil
}

// formula evaluates formula name for this row, once.
func (r *row) formula(name string) (any, error) {
	if v, ok := r.results[name]; ok {
		return v, r.errs[name]
	}
	x, ok := r.ev.formulas[name]
	if !ok {
		if err, bad := r.ev.formulaErrs[name]; bad {
			return nil, fmt.Errorf("formula.%s: %w", name, err)
		}
		return nil, fmt.Errorf("formula.%s is not defined", name)
	}
	if r.results == nil { // most rows of most views read no formula
		r.results, r.errs, r.active = map[string]any{}, map[string]error{}, map[string]bool{}
	}
	if r.active[name] {
		return nil, fmt.Errorf("formula.%s refers to itself", name)
	}
	if len(r.active) >= maxFormulaDepth {
		return nil, fmt.Errorf("formula.%s: formulas refer to formulas more than %d deep", name, maxFormulaDepth)
	}
	r.active[name] = true
	v, err := r.run(x)
	delete(r.active, name)
	r.results[name], r.errs[name] = v, err
	return v, err
}

// get is member access: obj.key or obj[key].
func (r *row) get(obj, key any) (any, error) {
	if i, ok := key.(float64); ok {
		switch x := obj.(type) {
		case []any:
			n := int(i)
			if n < 0 {
				n += len(x)
			}
			if float64(int(i)) != i || n < 0 || n >= len(x) {
				return nil, nil
			}
			return x[n], nil
		case string:
			rs := []rune(x)
			if n := int(i); float64(n) == i && n >= 0 && n < len(rs) {
				return string(rs[n]), nil
			}
			return nil, nil
		}
		key = toString(i)
	}
	name, ok := key.(string)
	if !ok {
		return nil, fmt.Errorf("cannot index a %s with a %s", typeName(obj), typeName(key))
	}
	switch x := obj.(type) {
	case nil:
		return nil, nil
	case *File:
		return r.fileField(x, name)
	case thisFile:
		switch name {
		case "file":
			return x.f, nil
		case "note":
			return x.f.Props, nil
		}
		return lookup(x.f.Props, name), nil
	case formulaRef:
		return r.formula(name)
	case map[string]any:
		return x[name], nil
	case string:
		if name == "length" {
			return float64(utf8.RuneCountInString(x)), nil
		}
	case []any:
		if name == "length" {
			return float64(len(x)), nil
		}
	case Date:
		t := x.T
		switch name {
		case "year":
			return float64(t.Year()), nil
		case "month":
			return float64(t.Month()), nil
		case "day":
			return float64(t.Day()), nil
		case "hour":
			return float64(t.Hour()), nil
		case "minute":
			return float64(t.Minute()), nil
		case "second":
			return float64(t.Second()), nil
		case "millisecond":
			return float64(t.Nanosecond() / 1e6), nil
		}
	case Link:
		if f := r.ev.snap.File(x.Target); f != nil {
			return r.fileField(f, name)
		}
		return nil, nil
	}
	return nil, fmt.Errorf("a %s has no field %q", typeName(obj), name)
}

// fileField is file.name, file.size, ...: Bases syntax's file
// properties table and Functions.md's File fields.
func (r *row) fileField(f *File, name string) (any, error) {
	switch name {
	case "name":
		return f.Name(), nil
	case "basename":
		return f.Basename(), nil
	case "path":
		return f.Path, nil
	case "folder":
		return f.Folder(), nil
	case "ext":
		return f.Ext(), nil
	case "size":
		return float64(f.Size), nil
	case "ctime":
		return Date{T: f.CTime, HasTime: true}, nil
	case "mtime":
		return Date{T: f.MTime, HasTime: true}, nil
	case "properties":
		if f.Props == nil {
			return map[string]any{}, nil
		}
		return f.Props, nil
	case "tags":
		out := make([]any, len(f.Tags))
		for i, t := range f.Tags {
			out[i] = "#" + t
		}
		return out, nil
	case "links":
		return linkList(f.Links), nil
	case "embeds":
		return linkList(f.Embeds), nil
	case "backlinks":
		var out []any
		for _, p := range f.snap.backlinks[f.Path] {
			out = append(out, fileLink(f.snap.File(p), nil))
		}
		if out == nil {
			out = []any{}
		}
		return out, nil
	case "file":
		return f, nil
	}
	return nil, fmt.Errorf("file.%s is not a file property", name)
}

func linkList(ls []Link) []any {
	out := make([]any, len(ls))
	for i, l := range ls {
		out[i] = l
	}
	return out
}

// fileLink is a link to a file, as file.asLink() makes it.
func fileLink(f *File, display any) Link {
	text := f.Path
	if strings.EqualFold(path.Ext(text), ".md") {
		text = strings.TrimSuffix(text, path.Ext(text))
	}
	return Link{Text: text, Display: display, Target: f.Path}
}

// asFile is the file a value names: a file, this, a link that resolves,
// or a path.
func (r *row) asFile(v any) *File {
	switch x := v.(type) {
	case *File:
		return x
	case thisFile:
		return x.f
	case Link:
		return r.ev.snap.File(x.Target)
	case string:
		return r.ev.snap.resolve(strings.TrimSuffix(strings.TrimPrefix(x, "[["), "]]"), r.file.Path)
	}
	return nil
}

// global calls a global function (Functions.md, "Global").
func (r *row) global(name string, args []any) (any, error) {
	arg := func(i int) any {
		if i < len(args) {
			return args[i]
		}
		return nil
	}
	need := func(lo, hi int) error {
		if len(args) < lo || len(args) > hi {
			if lo == hi {
				return fmt.Errorf("%s() takes %d arguments, not %d", name, lo, len(args))
			}
			return fmt.Errorf("%s() takes %d to %d arguments, not %d", name, lo, hi, len(args))
		}
		return nil
	}
	loc := r.ev.snap.Loc
	switch name {
	case "now":
		return Date{T: r.ev.now, HasTime: true}, need(0, 0)
	case "today":
		t := r.ev.now
		return Date{T: time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())}, need(0, 0)
	case "date":
		if err := need(1, 1); err != nil {
			return nil, err
		}
		switch x := arg(0).(type) {
		case Date:
			return x, nil
		case string:
			if d, ok := parseDate(x, loc); ok {
				return d, nil
			}
			return nil, fmt.Errorf("date(): %q is not a date (YYYY-MM-DD HH:mm:ss)", x)
		case float64:
			return Date{T: time.UnixMilli(int64(x)).In(loc), HasTime: true}, nil
		}
		return nil, fmt.Errorf("date() takes a string, not a %s", typeName(arg(0)))
	case "duration":
		if err := need(1, 1); err != nil {
			return nil, err
		}
		switch x := arg(0).(type) {
		case Duration:
			return x, nil
		case string:
			return parseDuration(x)
		case float64:
			return Duration{Millis: x}, nil
		}
		return nil, fmt.Errorf("duration() takes a string, not a %s", typeName(arg(0)))
	case "escapeHTML":
		if err := need(1, 1); err != nil {
			return nil, err
		}
		return html.EscapeString(toString(arg(0))), nil
	case "html", "icon":
		if err := need(1, 1); err != nil {
			return nil, err
		}
		return Rendered{Kind: name, Value: toString(arg(0))}, nil
	case "image":
		if err := need(1, 1); err != nil {
			return nil, err
		}
		v := arg(0)
		if f := r.asFile(v); f != nil {
			return Rendered{Kind: "image", Value: f.Path}, nil
		}
		return Rendered{Kind: "image", Value: toString(v)}, nil
	case "file":
		if err := need(1, 1); err != nil {
			return nil, err
		}
		if f := r.asFile(arg(0)); f != nil {
			return f, nil
		}
		return nil, nil
	case "link":
		if err := need(1, 2); err != nil {
			return nil, err
		}
		switch x := arg(0).(type) {
		case *File, thisFile:
			return fileLink(r.asFile(x), arg(1)), nil
		case Link:
			if len(args) == 2 {
				x.Display = arg(1)
			}
			return x, nil
		}
		text := toString(arg(0))
		var display any
		if t := strings.TrimSpace(text); strings.HasPrefix(t, "[[") && strings.HasSuffix(t, "]]") {
			text = t[2 : len(t)-2]
			if p, d, ok := strings.Cut(text, "|"); ok { // [[path|display]]
				text, display = p, d
			}
		}
		if len(args) == 2 {
			display = arg(1)
		}
		l := Link{Text: text, Display: display}
		if !strings.Contains(text, "://") {
			p, _, _ := strings.Cut(text, "#")
			if f := r.ev.snap.resolve(p, r.file.Path); f != nil {
				l.Target = f.Path
			}
		}
		return l, nil
	case "list":
		if err := need(1, 1); err != nil {
			return nil, err
		}
		if l, ok := arg(0).([]any); ok {
			return l, nil
		}
		return []any{arg(0)}, nil
	case "max", "min":
		if len(args) == 0 {
			return nil, fmt.Errorf("%s() needs at least one value", name)
		}
		best := args[0]
		for _, a := range args[1:] {
			c, ok := compare(a, best)
			if !ok {
				return nil, fmt.Errorf("%s(): cannot compare a %s with a %s", name, typeName(a), typeName(best))
			}
			if (name == "max" && c > 0) || (name == "min" && c < 0) {
				best = a
			}
		}
		return best, nil
	case "number":
		if err := need(1, 1); err != nil {
			return nil, err
		}
		return toNumber(arg(0))
	case "random":
		return rand.Float64(), need(0, 0)
	case "__regexp":
		return compileRegexp(toString(arg(0)), toString(arg(1)))
	}
	return nil, &UnsupportedError{What: fmt.Sprintf("function %s()", name)}
}

func toNumber(v any) (any, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case bool:
		return b2f(x), nil
	case Date:
		return float64(x.T.UnixMilli()), nil
	case Duration:
		return x.ms(), nil
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			return f, nil
		}
		return nil, fmt.Errorf("number(): %q is not a number", x)
	}
	return nil, fmt.Errorf("number(): a %s is not a number", typeName(v))
}

// compileRegexp compiles a JavaScript regular expression literal for Go's
// RE2: the flags i, m and s carry over; g is kept for replace(); syntax
// RE2 lacks (lookaround, backreferences) is an error that says so.
func compileRegexp(src, flags string) (Regexp, error) {
	var prefix string
	global := false
	for _, f := range flags {
		switch f {
		case 'g':
			global = true
		case 'i', 'm', 's':
			prefix += string(f)
		case 'u':
		default:
			return Regexp{}, &UnsupportedError{What: fmt.Sprintf("regular expression flag %c", f)}
		}
	}
	expr := src
	if prefix != "" {
		expr = "(?" + prefix + ")" + src
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return Regexp{}, fmt.Errorf("regular expression /%s/: %w", src, err)
	}
	return Regexp{Re: re, Global: global, Source: "/" + src + "/" + flags}, nil
}

// jsDollar turns JavaScript's $1 in a replacement into Go's ${1}.
var jsDollar = regexp.MustCompile(`\$(\d+)`)

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
			return formatMoment(x.T, toString(args[0])), nil
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

func negate(v any) (any, error) {
	switch x := v.(type) {
	case float64:
		return -x, nil
	case Duration:
		return Duration{Months: -x.Months, Millis: -x.Millis}, nil
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
			return float64(d.T.Sub(e.T).Milliseconds()), nil
		}
		if dur, ok := asDuration(b); ok {
			sign := 1
			if op == "-" {
				sign = -1
			}
			return addDuration(d, dur, sign), nil
		}
		if n, ok := b.(float64); ok {
			sign := 1.0
			if op == "-" {
				sign = -1
			}
			return addDuration(d, Duration{Millis: sign * n}, 1), nil
		}
	}
	if d, ok := a.(Duration); ok {
		switch op {
		case "+", "-":
			if e, ok := asDuration(b); ok {
				if op == "-" {
					e = Duration{Months: -e.Months, Millis: -e.Millis}
				}
				return Duration{Months: d.Months + e.Months, Millis: d.Millis + e.Millis}, nil
			}
			if t, ok := b.(Date); ok && op == "+" {
				return addDuration(t, d, 1), nil
			}
		case "*", "/":
			if n, ok := b.(float64); ok {
				if op == "/" {
					return Duration{Millis: d.ms() / n}, nil
				}
				if n == math.Trunc(n) && math.Abs(n) < 1e6 {
					return Duration{Months: d.Months * int(n), Millis: d.Millis * n}, nil
				}
				return Duration{Millis: d.ms() * n}, nil
			}
		}
	}
	if op == "+" {
		_, as := a.(string)
		_, bs := b.(string)
		if as || bs || isListLike(a) || isListLike(b) {
			return limitString(toString(a) + toString(b))
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
