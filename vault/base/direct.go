package base

import (
	"fmt"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
)

// Direct evaluation. Most of what a base writes (file.ext == "md",
// file.hasTag("x"), price * 2, if(done, "yes")) rewrites to calls of the
// mapping layer's functions joined by &&, || and !, literals and if():
// such an expression is evaluated by walking its tree and calling those
// functions as expr's VM calls them, without the VM. The VM's run cost
// more than a cheap filter itself (a set-up, an environment, a slice of
// arguments allocated for every call: zk base over every note at 10,000
// notes spent 6% of its CPU there). An expression with anything else
// (a list or object literal, filter(), map(), reduce()) runs on the VM.
// The values, the budget's charges and the errors are the VM's: the same
// functions are called in the same order, short-circuits where the VM's
// do, and a function's error or panic is made the error the VM makes of
// it (errorAt).

// dop is what a direct node does.
type dop uint8

const (
	dConst dop = iota // val
	dCall             // fn(row, args...)
	dNot              // !args[0]
	dAnd              // args[0] && args[1]
	dOr               // args[0] || args[1]
	dCond             // args[0] ? args[1] : args[2]
)

// dnode is a node of an expression's tree for direct evaluation.
type dnode struct {
	op   dop
	val  any
	fn   func(...any) (any, error)
	args []dnode
}

// directOf is the tree of a compiled expression (rewritten, checked)
// for direct evaluation, and false when it holds a node the VM alone
// evaluates. fns are the mapping layer's functions by name.
func directOf(n ast.Node, fns func(name string) func(...any) (any, error)) (dnode, bool) {
	switch x := n.(type) {
	case *ast.NilNode:
		return dnode{op: dConst}, true
	case *ast.BoolNode:
		return dnode{op: dConst, val: x.Value}, true
	case *ast.StringNode:
		return dnode{op: dConst, val: x.Value}, true
	case *ast.FloatNode:
		return dnode{op: dConst, val: x.Value}, true
	case *ast.CallNode:
		callee, ok := x.Callee.(*ast.IdentifierNode)
		if !ok || len(x.Arguments) == 0 {
			return dnode{}, false
		}
		if ctx, ok := x.Arguments[0].(*ast.IdentifierNode); !ok || ctx.Value != "__ctx" {
			return dnode{}, false
		}
		fn := fns(callee.Value)
		if fn == nil {
			return dnode{}, false
		}
		d := dnode{op: dCall, fn: fn, args: make([]dnode, len(x.Arguments)-1)}
		for i, a := range x.Arguments[1:] {
			if d.args[i], ok = directOf(a, fns); !ok {
				return dnode{}, false
			}
		}
		return d, true
	case *ast.UnaryNode:
		if x.Operator != "!" {
			return dnode{}, false
		}
		return directOps(dNot, fns, x.Node)
	case *ast.BinaryNode:
		switch x.Operator {
		case "&&":
			return directOps(dAnd, fns, x.Left, x.Right)
		case "||":
			return directOps(dOr, fns, x.Left, x.Right)
		}
	case *ast.ConditionalNode:
		return directOps(dCond, fns, x.Cond, x.Exp1, x.Exp2)
	}
	return dnode{}, false
}

// directOps is an operator's node over its operands, which the rewrite
// made booleans (__truthy) where the VM reads them as booleans.
func directOps(op dop, fns func(string) func(...any) (any, error), operands ...ast.Node) (dnode, bool) {
	d := dnode{op: op, args: make([]dnode, len(operands))}
	for i, o := range operands {
		var ok bool
		if d.args[i], ok = directOf(o, fns); !ok {
			return dnode{}, false
		}
	}
	return d, true
}

// eval evaluates the node for the row. A call's arguments are on the
// evaluator's stack, the row first as the VM passes __ctx, for the call
// alone: no function keeps its arguments, and a call inside it (a
// formula's run) uses the stack above them.
func (d *dnode) eval(r *row) (any, error) {
	switch d.op {
	case dConst:
		return d.val, nil
	case dCall:
		ev := r.ev
		base := len(ev.stack)
		ev.stack = append(ev.stack, r)
		for i := range d.args {
			v, err := d.args[i].eval(r)
			if err != nil {
				clear(ev.stack[base:])
				ev.stack = ev.stack[:base]
				return nil, err
			}
			ev.stack = append(ev.stack, v)
		}
		v, err := d.fn(ev.stack[base:]...)
		clear(ev.stack[base:])
		ev.stack = ev.stack[:base]
		if err != nil {
			return nil, callError{err}
		}
		return v, nil
	case dNot:
		v, err := d.args[0].eval(r)
		if err != nil {
			return nil, err
		}
		return !v.(bool), nil
	case dAnd, dOr:
		v, err := d.args[0].eval(r)
		if err != nil || v.(bool) == (d.op == dOr) {
			return v, err
		}
		return d.args[1].eval(r)
	case dCond:
		v, err := d.args[0].eval(r)
		if err != nil {
			return nil, err
		}
		if v.(bool) {
			return d.args[1].eval(r)
		}
		return d.args[2].eval(r)
	}
	return nil, fmt.Errorf("direct evaluation: no operation %d", d.op)
}

// callError is an error a function returned, on its way out of eval to
// run, which makes it the VM's error (errorAt).
type callError struct{ err error }

func (e callError) Error() string { return e.err.Error() }

// runDirect evaluates x for the row as the VM runs it: a function's error,
// or a panic in one, the error the VM makes of it.
func (r *row) runDirect(x *Expr) (v any, err error) {
	ev, n := r.ev, len(r.ev.stack)
	defer func() {
		if p := recover(); p != nil {
			clear(ev.stack[n:]) // the calls the panic left
			ev.stack = ev.stack[:n]
			v, err = nil, vmError(x, p)
		}
	}()
	v, err = x.direct.eval(r)
	if ce, ok := err.(callError); ok {
		err = vmError(x, ce.err)
	}
	return v, err
}

// vmError is the error expr's VM makes of a function's error, or of a
// panic (p): its message, placed at the call's location in the source,
// (1:1) for every call the rewrite made, as the VM's Run recovers it.
func vmError(x *Expr, p any) error {
	f := &file.Error{Message: fmt.Sprintf("%v", p)}
	if err, ok := p.(error); ok {
		f.Wrap(err)
	}
	return f.Bind(x.program.Source())
}
