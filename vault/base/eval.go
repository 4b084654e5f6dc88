package base

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/expr-lang/expr/vm"

	"github.com/zk-claims/zk/internal/hugepage"
	"github.com/zk-claims/zk/internal/lazyre"
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
	// Warnings are what zk could not compute as Obsidian would, and parts
	// of the base (of this view) it does not read.
	Warnings []string
	// Excluded are the files a filter left out because it failed on them
	// (contains() on a missing value), as Obsidian leaves them out,
	// silently: counted here, by filter.
	Excluded []Failure
	// CellErrors are the values that failed (#error in their column), by
	// column.
	CellErrors []Failure
}

// Failure is an expression that failed on some files: Files of them, the
// first with Err.
type Failure struct {
	What  string
	Files int
	Err   string
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
	snap *Snapshot
	base *Base
	// formulas are the formulas compiled, by name: the index of each
	// in formulaExprs, and of its value in a row's.
	formulas     map[string]int
	formulaExprs []*Expr
	formulaErrs  map[string]error
	now          time.Time
	this         *File
	budget       *budget
	// regexps are the regular expression literals compiled so far, by
	// flags and source: a literal is compiled once, not once a file.
	regexps map[string]regexpResult
	// compiled are the expressions compiled so far, by source, and nodes
	// the syntax nodes compiling them cost: an expression is compiled
	// once however often the base writes it, and all of them together
	// are bounded.
	compiled map[string]compiledExpr
	nodes    int
	// warnings are what could not be computed as Obsidian computes it,
	// each said once.
	warnings []string
	warned   map[string]bool
	// machines are the idle VMs, for run.
	machines []*machine
	// stack holds the arguments of the calls being evaluated directly
	// (dnode.eval).
	stack []any
	// vmOnly runs every expression on the VM, none directly: the tests
	// hold direct evaluation to the VM's.
	vmOnly bool
}

type compiledExpr struct {
	x   *Expr
	err error
}

// maxBaseNodes bounds the syntax nodes of every expression of a base
// together: compiling costs time and memory in proportion, and a
// hand-written base has a few hundred.
const maxBaseNodes = 50_000

// compile compiles an expression of the base, once.
func (ev *evaluator) compile(src string) (*Expr, error) {
	if c, ok := ev.compiled[src]; ok {
		return c.x, c.err
	}
	if ev.nodes > maxBaseNodes {
		return nil, fmt.Errorf("the base's expressions are over %d syntax nodes together", maxBaseNodes)
	}
	x, n, err := compileExpr(src)
	ev.nodes += n
	ev.compiled[src] = compiledExpr{x, err}
	return x, err
}

type regexpResult struct {
	re  Regexp
	err error
}

func newEvaluator(snap *Snapshot, b *Base, opts Options) *evaluator {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	return &evaluator{snap: snap, base: b, formulas: map[string]int{}, formulaErrs: map[string]error{},
		now: now.In(snap.Loc), this: opts.This, budget: newBudget(len(snap.Files)),
		regexps: map[string]regexpResult{}, warned: map[string]bool{}, compiled: map[string]compiledExpr{}}
}

// warn records a warning once.
func (ev *evaluator) warn(msg string) {
	if !ev.warned[msg] {
		ev.warned[msg] = true
		ev.warnings = append(ev.warnings, msg)
	}
}

// formula is formula name compiled, on first use, and its slot in a
// row's formula values: a formula the view does not use is neither
// compiled nor warned about.
func (ev *evaluator) formula(name string) (*Expr, int, error) {
	if i, ok := ev.formulas[name]; ok {
		return ev.formulaExprs[i], i, nil
	}
	if err, ok := ev.formulaErrs[name]; ok {
		return nil, 0, err
	}
	src, ok := ev.base.Formulas[name]
	if !ok {
		return nil, 0, fmt.Errorf("formula.%s is not defined", name)
	}
	x, err := ev.compile(src)
	if err != nil {
		err = fmt.Errorf("formula.%s: %w", name, err)
		ev.formulaErrs[name] = err
		ev.warn(err.Error())
		return nil, 0, err
	}
	ev.formulas[name] = len(ev.formulaExprs)
	ev.formulaExprs = append(ev.formulaExprs, x)
	return x, len(ev.formulaExprs) - 1, nil
}

// zkLimit says an error is zk's, not the base's: a value Obsidian
// computes and zk does not (an unsupported function, token or regular
// expression syntax).
func zkLimit(err error) bool {
	var u *UnsupportedError
	var l *LimitError
	return errors.As(err, &u) || errors.As(err, &l)
}

// compiledFilter is a Filter with its statement compiled.
type compiledFilter struct {
	op       string
	expr     *Expr
	children []*compiledFilter
	errs     int
	firstErr error
	// limits are the failures that were zk's (zkLimit), said as warnings.
	limits   int
	firstLim error
}

// Evaluate evaluates one view of b over the snapshot.
func Evaluate(ctx context.Context, snap *Snapshot, b *Base, opts Options) (*Result, error) {
	view, err := pickView(b, opts.View)
	if err != nil {
		return nil, err
	}
	ev := newEvaluator(snap, b, opts)
	res := &Result{View: view.Name, Type: view.Type, Warnings: slices.Concat(b.Warnings, view.Warnings)}

	// Filters: global and view, joined by and. Any that does not compile
	// fails the view.
	global, err1 := ev.compileFilter(b.Filters)
	local, err2 := ev.compileFilter(view.Filters)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	if view.Type != "" && view.Type != "table" && view.Type != "list" && view.Type != "cards" {
		res.Warnings = append(res.Warnings, fmt.Sprintf("view type %q is shown as a table", view.Type))
	}

	order := view.Order
	if len(order) == 0 {
		order = []string{"file.name"}
	}
	if view.Image != "" && !slices.Contains(order, view.Image) {
		order = append(slices.Clip(order), view.Image) // a card's image is one of its values
	}
	for _, id := range order {
		res.Columns = append(res.Columns, Column{ID: id, Name: displayName(b, id)})
	}

	// The rows matched, in an array with room for every file's, never
	// grown (a row's address is held), in huge pages: a table of every
	// note is 4.8 MB of rows at 100,000 notes. Each file is matched in
	// the first free slot, kept by moving past it: the formulas a filter
	// computed stay with the row.
	rows := hugepage.Make[row](len(snap.Files))[:0]
	for _, f := range snap.Files {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rows = append(rows, row{ev: ev, file: f})
		r := &rows[len(rows)-1]
		ok := r.match(global) && r.match(local)
		if ev.budget.over {
			return nil, ErrBudget
		}
		if !ok {
			rows = rows[:len(rows)-1]
		}
	}
	for _, cf := range []*compiledFilter{global, local} {
		cf.report(res)
	}
	res.Total = len(rows)

	// Sort: each sort key in turn; ties keep path order. A key whose
	// values are booleans sorts a missing one as false (release notes
	// 1.10.3: "indeterminate checkboxes ... sorted with false values").
	var keys [][]any // none without a sort: 2.4 MB at 100,000 rows
	if len(view.Sort) > 0 {
		keys = make([][]any, len(rows))
	}
	for k, s := range view.Sort {
		bools := true
		for i := range rows {
			v, _ := rows[i].property(s.Property)
			if _, ok := v.(bool); !ok && v != nil {
				bools = false
			}
			keys[i] = append(keys[i], v)
		}
		if ev.budget.over {
			return nil, ErrBudget
		}
		if bools {
			for i := range keys {
				if keys[i][k] == nil {
					keys[i][k] = false
				}
			}
		}
	}
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	if len(view.Sort) > 0 {
		sortRows(idx, keys, view.Sort)
	}
	if view.Limit > 0 && len(idx) > view.Limit {
		idx = idx[:view.Limit]
	}
	if n := len(idx) * len(order); n > maxCells {
		return nil, fmt.Errorf("the view has %d values (%s × %d columns), over the %d-value limit: narrow it with a filter or a limit", n, plural(len(idx), "row"), len(order), maxCells)
	}

	cellErrs := map[string]*Failure{}
	output := 0
	if len(idx) > 0 {
		res.Rows = hugepage.Make[Row](len(idx))[:0]
	}
	values := hugepage.Make[any](len(idx) * len(order)) // every row's, one allocation
	for k, i := range idx {
		r := &rows[i]
		out := Row{File: r.file, Values: values[k*len(order) : (k+1)*len(order) : (k+1)*len(order)]}
		for c, id := range order {
			v, err := r.property(id)
			if ev.budget.over {
				return nil, ErrBudget
			}
			if err == nil {
				size := printedSize(v, 3, maxCell)
				if size > maxCell {
					err = &LimitError{fmt.Sprintf("the value is over %d bytes printed", maxCell)}
				} else if output += size; output > maxOutput {
					return nil, fmt.Errorf("the view's values are over %d bytes printed: narrow it with a filter or a limit, or show fewer columns", maxOutput)
				}
			}
			if err != nil {
				v = &CellError{Msg: err.Error()}
				f := cellErrs[id]
				if f == nil {
					f = &Failure{What: id, Err: err.Error()}
					cellErrs[id] = f
				}
				f.Files++
				if zkLimit(err) {
					// A formula that does not compile said so, named,
					// when it was compiled: the same warning, once.
					msg := err.Error()
					if !strings.HasPrefix(msg, id+": ") {
						msg = id + ": " + msg
					}
					ev.warn(msg)
				}
			}
			out.Values[c] = v
		}
		res.Rows = append(res.Rows, out)
	}
	for _, id := range order {
		if f := cellErrs[id]; f != nil {
			res.CellErrors = append(res.CellErrors, *f)
		}
	}

	if g := view.GroupBy; g != nil {
		res.GroupBy = &Column{ID: g.Property, Name: displayName(b, g.Property)}
		var groups []Group
		byKey := map[string]int{} // scalar keys: one lookup, not a scan of the groups
		for k, i := range idx {
			key, err := rows[i].property(g.Property)
			if err != nil {
				key = nil
			}
			j, scalar := -1, scalarKey(key)
			if scalar != "" {
				if n, ok := byKey[scalar]; ok {
					j = n
				}
			} else {
				j = slices.IndexFunc(groups, func(gr Group) bool { return equal(gr.Key, key) })
			}
			if j < 0 {
				groups = append(groups, Group{Key: key})
				j = len(groups) - 1
				if scalar != "" {
					byKey[scalar] = j
				}
			}
			groups[j].Rows = append(groups[j].Rows, res.Rows[k])
		}
		if ev.budget.over {
			return nil, ErrBudget
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
		if ev.budget.over {
			return nil, ErrBudget
		}
	}
	res.Warnings = append(res.Warnings, ev.warnings...)
	return res, nil
}

// scalarKey is a group key's identity when equal compares it by value
// (text, numbers, booleans, dates, null), else "".
func scalarKey(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string, float64, bool:
		return typeName(v) + ":" + toString(v)
	case Date:
		return "date:" + x.T.UTC().Format(time.RFC3339Nano)
	}
	return ""
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

func (ev *evaluator) compileFilter(f *Filter) (*compiledFilter, error) {
	if f == nil {
		return nil, nil
	}
	cf := &compiledFilter{op: f.Op}
	if f.Op == "" {
		x, err := ev.compile(f.Expr)
		if err != nil {
			return nil, &FilterError{Filter: f.Expr, Err: err}
		}
		cf.expr = x
		return cf, nil
	}
	var errs []error
	for _, c := range f.Children {
		cc, err := ev.compileFilter(c)
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
			if zkLimit(err) {
				if f.limits == 0 {
					f.firstLim = err
				}
				f.limits++
			} else {
				if f.errs == 0 {
					f.firstErr = err
				}
				f.errs++
			}
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

// report adds the filter's failures to the result: the files it failed
// on as Obsidian's filters fail (a method on a missing value) are left
// out silently, as in Obsidian, and counted; those zk could not evaluate
// as Obsidian would are a warning.
func (f *compiledFilter) report(res *Result) {
	if f == nil {
		return
	}
	if f.errs > 0 {
		res.Excluded = append(res.Excluded, Failure{What: f.expr.Source, Files: f.errs, Err: f.firstErr.Error()})
	}
	if f.limits > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("filter %q: %s left out, which Obsidian may show: %v", f.expr.Source, plural(f.limits, "file"), f.firstLim))
	}
	for _, c := range f.children {
		c.report(res)
	}
}

// run evaluates a compiled expression for the row.
func (r *row) run(x *Expr) (v any, err error) {
	if err := r.spend(runSteps, 0); err != nil {
		return nil, err
	}
	var out any
	if x.direct != nil && !r.ev.vmOnly {
		out, err = r.runDirect(x)
	} else {
		ev := r.ev
		m := ev.machine()
		m.env["__ctx"] = r
		out, err = m.vm.Run(x.program, m.env)
		ev.machines = append(ev.machines, m)
	}
	if r.ev.budget.over {
		return nil, ErrBudget
	}
	if err != nil {
		return nil, cleanVMError(err)
	}
	v = norm(out)
	if err := r.checkDepth(v); err != nil {
		return nil, err
	}
	return v, nil
}

// machine is a VM and its environment, to run an expression: one is
// made for each expression running at once (a formula runs inside
// another's run), not one for each row and expression run.
type machine struct {
	vm  vm.VM
	env map[string]any
}

// machine takes an idle machine, or makes one; run gives it back.
func (ev *evaluator) machine() *machine {
	if n := len(ev.machines); n > 0 {
		m := ev.machines[n-1]
		ev.machines = ev.machines[:n-1]
		return m
	}
	return &machine{env: map[string]any{}}
}

// cleanVMError keeps the message of an error a function returned, without
// the VM's source excerpt.
func cleanVMError(err error) error {
	var u *UnsupportedError
	if errors.As(err, &u) {
		return u
	}
	if errors.Is(err, ErrBudget) {
		return ErrBudget
	}
	var fl *FuncLimitError
	if errors.As(err, &fl) {
		return fl
	}
	var l *LimitError
	if errors.As(err, &l) {
		return l
	}
	return errors.New(vmLocation().ReplaceAllString(firstLine(err.Error()), ""))
}

// vmLocation is the VM's " (line:column)": a place in the rewritten text,
// which the user never wrote.
var vmLocation = lazyre.New(` \(\d+:\d+\)$`)

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
	ev := newEvaluator(snap, b, opts)
	x, err := ev.compile(src)
	if err != nil {
		return nil, err
	}
	if f == nil {
		f = &File{snap: snap}
	}
	return ev.newRow(f).run(x)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Grouped is the result as groups: one unnamed group when the view has
// no groupBy.
func (r *Result) Grouped() []Group {
	if r.GroupBy == nil {
		return []Group{{Rows: r.Rows}}
	}
	return r.Groups
}

// sortRows sorts the rows' indexes by their keys, each sort key in turn;
// ties keep the order they had (path order).
func sortRows(idx []int, keys [][]any, by []Sort) {
	sort.SliceStable(idx, func(a, b int) bool {
		for k, s := range by {
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
}
