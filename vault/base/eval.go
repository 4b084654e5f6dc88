package base

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/expr-lang/expr/vm"
)

// Options choose what Evaluate evaluates.
type Options struct {
	// View is the view's name; "" is the first view, as Obsidian opens a
	// base.
	View string
	// Now is now() (and today()'s date).
	Now time.Time
	// This is the file this refers to: the .base file itself, or the note
	// that embeds the base.
	This *File
}

// Column is one property a view shows.
type Column struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Row is one file of the result with its column values, in column order.
// A value that could not be computed is an *CellError.
type Row struct {
	File   *File
	Values []any
}

// CellError is a value that could not be computed, with the reason.
type CellError struct{ Msg string }

func (e *CellError) Error() string { return e.Msg }

// Group is the rows that share a groupBy value, and the view's summaries
// over them.
type Group struct {
	Key       any
	Rows      []Row
	Summaries []Summary
}

// Result is an evaluated view.
type Result struct {
	View    string
	Type    string
	Columns []Column
	// Rows are every row in order (all groups, one after another).
	Rows []Row
	// GroupBy is the grouping property; nil when the view has none.
	GroupBy *Column
	Groups  []Group
	// Total is how many files matched, before the view's limit.
	Total int
	// Summaries are the view's summaries over every row shown.
	Summaries []Summary
	Warnings  []string
}

// Views names a base's views (for a message listing them).
func (b *Base) ViewNames() []string {
	var out []string
	for _, v := range b.Views {
		out = append(out, v.Name)
	}
	return out
}

// ErrNoView is a --view that names no view of the base.
var ErrNoView = errors.New("no such view")

// FilterError is a filter that cannot be evaluated: the view it belongs to
// is not evaluated either, since dropping the filter would list files it
// excludes.
type FilterError struct {
	Filter string
	Err    error
}

func (e *FilterError) Error() string { return fmt.Sprintf("filter %q: %v", e.Filter, e.Err) }
func (e *FilterError) Unwrap() error { return e.Err }

type evaluator struct {
	snap        *Snapshot
	base        *Base
	formulas    map[string]*Expr
	formulaErrs map[string]error
	now         time.Time
	this        *File
}

// compiledFilter is a Filter with its statement compiled.
type compiledFilter struct {
	op       string
	expr     *Expr
	children []*compiledFilter
	errs     int
	firstErr error
}

// Evaluate evaluates one view of b over the snapshot.
func Evaluate(ctx context.Context, snap *Snapshot, b *Base, opts Options) (*Result, error) {
	view, err := pickView(b, opts.View)
	if err != nil {
		return nil, err
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	ev := &evaluator{snap: snap, base: b, formulas: map[string]*Expr{}, formulaErrs: map[string]error{},
		now: now.In(snap.Loc), this: opts.This}
	res := &Result{View: view.Name, Type: view.Type, Warnings: slices.Clone(b.Warnings)}

	// Filters: global and view, joined by and. Any that does not compile
	// fails the view.
	var errs []error
	global, err := compileFilter(b.Filters)
	errs = append(errs, err)
	local, err := compileFilter(view.Filters)
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for _, name := range b.FormulaNames {
		x, err := compileExpr(b.Formulas[name])
		if err != nil {
			ev.formulaErrs[name] = err
			res.Warnings = append(res.Warnings, fmt.Sprintf("formula.%s: %v", name, err))
			continue
		}
		ev.formulas[name] = x
	}
	if view.Type != "" && view.Type != "table" && view.Type != "list" && view.Type != "cards" {
		res.Warnings = append(res.Warnings, fmt.Sprintf("view type %q is shown as a table", view.Type))
	}

	order := view.Order
	if len(order) == 0 {
		order = []string{"file.name"}
	}
	for _, id := range order {
		res.Columns = append(res.Columns, Column{ID: id, Name: displayName(b, id)})
	}

	var rows []*row
	for _, f := range snap.Files {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r := ev.newRow(f)
		if !r.match(global) || !r.match(local) {
			continue
		}
		rows = append(rows, r)
	}
	for _, cf := range []*compiledFilter{global, local} {
		cf.warnings(&res.Warnings)
	}
	res.Total = len(rows)

	// Sort: each sort key in turn; ties keep path order.
	keys := make([][]any, len(rows))
	for i, r := range rows {
		for _, s := range view.Sort {
			v, _ := r.property(s.Property)
			keys[i] = append(keys[i], v)
		}
	}
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		for k, s := range view.Sort {
			c := sortCompare(keys[idx[a]][k], keys[idx[b]][k])
			if s.Desc() && keys[idx[a]][k] != nil && keys[idx[b]][k] != nil {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return false
	})
	if view.Limit > 0 && len(idx) > view.Limit {
		idx = idx[:view.Limit]
	}

	cellErrs := map[string]int{}
	cellFirst := map[string]string{}
	for _, i := range idx {
		r := rows[i]
		out := Row{File: r.file, Values: make([]any, len(order))}
		for c, id := range order {
			v, err := r.property(id)
			if err != nil {
				v = &CellError{Msg: err.Error()}
				if cellErrs[id] == 0 {
					cellFirst[id] = err.Error()
				}
				cellErrs[id]++
			}
			out.Values[c] = v
		}
		res.Rows = append(res.Rows, out)
	}
	for _, id := range order {
		if n := cellErrs[id]; n > 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %d of %s have no value: %s", id, n, plural(len(res.Rows), "row"), cellFirst[id]))
		}
	}

	if g := view.GroupBy; g != nil {
		res.GroupBy = &Column{ID: g.Property, Name: displayName(b, g.Property)}
		var groups []Group
		for k, i := range idx {
			key, err := rows[i].property(g.Property)
			if err != nil {
				key = nil
			}
			j := slices.IndexFunc(groups, func(gr Group) bool { return equal(gr.Key, key) })
			if j < 0 {
				groups = append(groups, Group{Key: key})
				j = len(groups) - 1
			}
			groups[j].Rows = append(groups[j].Rows, res.Rows[k])
		}
		sort.SliceStable(groups, func(a, b int) bool {
			c := sortCompare(groups[a].Key, groups[b].Key)
			if g.Desc() && groups[a].Key != nil && groups[b].Key != nil {
				c = -c
			}
			return c < 0
		})
		res.Groups = groups
		res.Rows = res.Rows[:0]
		for _, gr := range groups {
			res.Rows = append(res.Rows, gr.Rows...)
		}
	}
	if len(view.Summaries) > 0 {
		props := summaryOrder(view, res.Columns)
		var warns []string
		res.Summaries, warns = ev.summarise(view, res.Columns, res.Rows, props)
		res.Warnings = append(res.Warnings, warns...)
		for i := range res.Groups {
			res.Groups[i].Summaries, _ = ev.summarise(view, res.Columns, res.Groups[i].Rows, props)
		}
	}
	return res, nil
}

func pickView(b *Base, name string) (View, error) {
	if len(b.Views) == 0 {
		if name != "" {
			return View{}, fmt.Errorf("view %q: %w (the base has no views)", name, ErrNoView)
		}
		return View{Type: "table"}, nil
	}
	if name == "" {
		return b.Views[0], nil
	}
	for _, v := range b.Views {
		if v.Name == name {
			return v, nil
		}
	}
	for _, v := range b.Views {
		if strings.EqualFold(v.Name, name) {
			return v, nil
		}
	}
	return View{}, fmt.Errorf("view %q: %w (views: %s)", name, ErrNoView, strings.Join(quoteAll(b.ViewNames()), ", "))
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// displayName is a property's name in a view: its displayName from the
// properties section, else its id without the note. or formula.
// prefix.
func displayName(b *Base, id string) string {
	if n, ok := b.Properties[id]; ok && n != "" {
		return n
	}
	if n, ok := b.Properties["note."+id]; ok && n != "" {
		return n
	}
	if rest, ok := strings.CutPrefix(id, "note."); ok {
		if n, ok := b.Properties[rest]; ok && n != "" {
			return n
		}
		return rest
	}
	if rest, ok := strings.CutPrefix(id, "formula."); ok {
		return rest // a formula column is headed by the formula's name
	}
	return id
}

func compileFilter(f *Filter) (*compiledFilter, error) {
	if f == nil {
		return nil, nil
	}
	cf := &compiledFilter{op: f.Op}
	if f.Op == "" {
		x, err := compileExpr(f.Expr)
		if err != nil {
			return nil, &FilterError{Filter: f.Expr, Err: err}
		}
		cf.expr = x
		return cf, nil
	}
	var errs []error
	for _, c := range f.Children {
		cc, err := compileFilter(c)
		errs = append(errs, err)
		cf.children = append(cf.children, cc)
	}
	return cf, errors.Join(errs...)
}

// match evaluates a filter for the row. A statement that fails at run
// time (a method on a missing value, say) does not match, and is counted
// for a warning.
func (r *row) match(f *compiledFilter) bool {
	if f == nil {
		return true
	}
	switch f.op {
	case "":
		v, err := r.run(f.expr)
		if err != nil {
			if f.errs == 0 {
				f.firstErr = err
			}
			f.errs++
			return false
		}
		return truthy(v)
	case "and":
		for _, c := range f.children {
			if !r.match(c) {
				return false
			}
		}
		return true
	case "or":
		for _, c := range f.children {
			if r.match(c) {
				return true
			}
		}
		return false
	case "not":
		for _, c := range f.children {
			if r.match(c) {
				return false
			}
		}
		return true
	}
	return false
}

func (f *compiledFilter) warnings(out *[]string) {
	if f == nil {
		return
	}
	if f.errs > 0 {
		*out = append(*out, fmt.Sprintf("filter %q: %s did not match because it failed: %v", f.expr.Source, plural(f.errs, "file"), f.firstErr))
	}
	for _, c := range f.children {
		c.warnings(out)
	}
}

// run evaluates a compiled expression for the row.
func (r *row) run(x *Expr) (v any, err error) {
	out, err := vm.Run(x.program, map[string]any{"__ctx": r})
	if err != nil {
		return nil, cleanVMError(err)
	}
	return norm(out), nil
}

// cleanVMError keeps the message of an error a function returned, without
// the VM's source excerpt.
func cleanVMError(err error) error {
	var u *UnsupportedError
	if errors.As(err, &u) {
		return u
	}
	return errors.New(vmLocation.ReplaceAllString(firstLine(err.Error()), ""))
}

// vmLocation is the VM's " (line:column)": a place in the rewritten text,
// which the user never wrote.
var vmLocation = regexp.MustCompile(` \(\d+:\d+\)$`)

// property is a column or sort key's value: note.x (or x), file.x,
// formula.x.
func (r *row) property(id string) (any, error) {
	switch {
	case strings.HasPrefix(id, "file."):
		return r.fileField(r.file, strings.TrimPrefix(id, "file."))
	case strings.HasPrefix(id, "formula."):
		return r.formula(strings.TrimPrefix(id, "formula."))
	case strings.HasPrefix(id, "note."):
		return r.prop(strings.TrimPrefix(id, "note.")), nil
	}
	return r.prop(id), nil
}

// Value evaluates one expression for one file: the table tests' and the
// fuzzer's way in.
func Value(snap *Snapshot, b *Base, f *File, src string, opts Options) (any, error) {
	if b == nil {
		b = &Base{}
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	ev := &evaluator{snap: snap, base: b, formulas: map[string]*Expr{}, formulaErrs: map[string]error{}, now: now.In(snap.Loc), this: opts.This}
	for _, name := range b.FormulaNames {
		x, err := compileExpr(b.Formulas[name])
		if err != nil {
			ev.formulaErrs[name] = err
			continue
		}
		ev.formulas[name] = x
	}
	x, err := compileExpr(src)
	if err != nil {
		return nil, err
	}
	if f == nil {
		f = &File{snap: snap}
	}
	r := ev.newRow(f)
	return r.run(x)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
