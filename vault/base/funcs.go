package base

import (
	"errors"
	"fmt"
	"html"
	"math/rand/v2"
	"path"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"time"
)

// row is one evaluation: the file a filter or formula is evaluated for,
// and its formulas, computed once each on first use. What its expressions
// cost is charged to the evaluator's one budget (budget.go).
type row struct {
	ev   *evaluator
	file *File
	// formulas are the row's formula values, by the formula's index
	// (evaluator.formula), a slice rather than maps of every row; active
	// counts the formulas being evaluated.
	formulas []formulaValue
	active   int
}

// formulaValue is a formula's value for a row, once evaluated.
type formulaValue struct {
	v     any
	err   error
	state uint8 // formulaNone, formulaActive or formulaDone
}

const (
	formulaNone = iota
	formulaActive
	formulaDone
)

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
	r.file.load()
	return lookup(r.file.Props, name)
}

// noteGet is note[key] with a key computed: the property read as note.x
// and a bare x read it.
func (r *row) noteGet(key any) (any, error) {
	switch k := key.(type) {
	case string:
		return r.prop(k), nil
	case float64:
		return r.prop(toString(k)), nil
	}
	return nil, fmt.Errorf("cannot index a object with a %s", typeName(key))
}

// thisNoteGet is this.note.x and this.note[key]: this's property read
// as note.x reads the row's, the exact name else ignoring case. Member
// access on this.note's map would be exact.
func (r *row) thisNoteGet(key any) (any, error) {
	if r.ev.this == nil {
		return nil, nil
	}
	switch k := key.(type) {
	case string:
	case float64:
		key = toString(k)
	default:
		return nil, fmt.Errorf("cannot index a object with a %s", typeName(key))
	}
	r.ev.this.load()
	return lookup(r.ev.this.Props, key.(string)), nil
}

// lookup reads a property, by its exact name or else ignoring case, as
// Obsidian's property names are. Of names that differ only in case
// (STATUS and Status in one note) it reads the first in byte order, the
// same one every time: the map's order would change from run to run.
// Which one Obsidian reads is not documented.
func lookup(props map[string]any, name string) any {
	if v, ok := props[name]; ok {
		return v
	}
	var key string
	found := false
	for k := range props {
		if strings.EqualFold(k, name) && (!found || k < key) {
			key, found = k, true
		}
	}
	if !found {
		return nil
	}
	return props[key]
}

// formula evaluates formula name for this row, once.
func (r *row) formula(name string) (any, error) {
	x, i, err := r.ev.formula(name)
	if err != nil {
		return nil, err
	}
	if i >= len(r.formulas) { // most rows of most views read no formula
		r.formulas = append(r.formulas, make([]formulaValue, len(r.ev.formulaExprs)-len(r.formulas))...)
	}
	switch fv := r.formulas[i]; fv.state {
	case formulaDone:
		return fv.v, fv.err
	case formulaActive:
		return nil, fmt.Errorf("formula.%s refers to itself", name)
	}
	if r.active >= maxFormulaDepth {
		return nil, fmt.Errorf("formula.%s: formulas refer to formulas more than %d deep", name, maxFormulaDepth)
	}
	r.formulas[i].state = formulaActive
	r.active++
	v, err := r.run(x)
	r.active--
	r.formulas[i] = formulaValue{v: v, err: err, state: formulaDone}
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
			if n := int(i); float64(n) == i {
				if c, ok := jsAt(x, n); ok {
					return c, nil
				}
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
		x.f.load()
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
			return float64(jsLength(x)), nil
		}
	case []any:
		if name == "length" {
			return float64(len(x)), nil
		}
	case Duration:
		if v, ok := x.field(name); ok {
			return v, nil
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
		// A note's name is shown without .md, as Obsidian lists notes
		// (docs/bases.md); any other file keeps its extension.
		if strings.EqualFold(f.Ext(), "md") {
			return f.Basename(), nil
		}
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
		if f.noBirth {
			r.ev.warn("file.ctime: the file system keeps no creation time for some files; zk uses their modification time")
		}
		return Date{T: f.CTime, HasTime: true}, nil
	case "mtime":
		return Date{T: f.MTime, HasTime: true}, nil
	case "properties":
		f.load()
		if f.Props == nil {
			return map[string]any{}, nil
		}
		return f.Props, nil
	case "tags":
		f.load()
		out := make([]any, len(f.Tags))
		for i, t := range f.Tags {
			out[i] = Tag("#" + t)
		}
		return out, nil
	case "links":
		f.load()
		return linkList(f.Links), nil
	case "embeds":
		f.load()
		return linkList(f.Embeds), nil
	case "backlinks":
		from := f.snap.backlinks()[f.Path]
		out := make([]any, len(from))
		for i, b := range from {
			out[i] = fileLink(b, nil)
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
		// A link's text names its note: [[Note#Heading|shown]] is Note
		// (release notes 1.9.3: hasLink() resolves links with subpaths).
		p := strings.TrimSuffix(strings.TrimPrefix(x, "[["), "]]")
		if f := r.ev.snap.File(p); f != nil {
			return f
		}
		p, _, _ = strings.Cut(p, "|")
		p, _, _ = strings.Cut(p, "#")
		return r.ev.snap.resolve(p, r.file.Path)
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
		// A property a note leaves empty has no date: null, an empty
		// cell, not an error in the column of every such note.
		switch x := arg(0).(type) {
		case nil:
			return nil, nil
		case Date:
			return x, nil
		case string:
			if strings.TrimSpace(x) == "" {
				return nil, nil
			}
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
		text, err := textOf(arg(0))
		if err != nil {
			return nil, err
		}
		// Each of & ' < > " becomes at most 5 bytes.
		if err := room(len(text) + 4*strings.Count(text, "&") + 4*strings.Count(text, "'") + 4*strings.Count(text, "<") + 4*strings.Count(text, ">") + 4*strings.Count(text, `"`)); err != nil {
			return nil, err
		}
		return html.EscapeString(text), nil
	case "html", "icon":
		if err := need(1, 1); err != nil {
			return nil, err
		}
		text, err := textOf(arg(0))
		return Rendered{Kind: name, Value: text}, err
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
		// A literal is the same in every file: compiled once.
		src, flags := toString(arg(0)), toString(arg(1))
		key := flags + "/" + src
		c, ok := r.ev.regexps[key]
		if !ok {
			c.re, c.err = compileRegexp(src, flags)
			r.ev.regexps[key] = c
		}
		return c.re, c.err
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
		// JavaScript's syntax that RE2 lacks (lookaround,
		// backreferences) is zk's limit, not the base's mistake.
		var se *syntax.Error
		if errors.As(err, &se) && (se.Code == syntax.ErrInvalidPerlOp || se.Code == syntax.ErrInvalidEscape || se.Code == syntax.ErrInvalidRepeatSize) {
			return Regexp{}, &UnsupportedError{What: fmt.Sprintf("regular expression /%s/ (%s, which RE2 does not have)", src, se.Code)}
		}
		return Regexp{}, fmt.Errorf("regular expression /%s/: %w", src, err)
	}
	return Regexp{Re: re, Global: global, Source: "/" + src + "/" + flags}, nil
}
