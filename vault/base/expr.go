package base

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// Expressions. Bases' grammar is JavaScript's expression subset, and
// github.com/expr-lang/expr parses nearly all of it as it is: member
// access, method calls, indexing, list and object literals, the
// arithmetic, comparison and boolean operators with JavaScript's
// precedence, strings in either quote. zk therefore leaves parsing,
// short-circuiting, closures and the bytecode VM to expr and keeps only a
// mapping layer:
//
//   - prelex fixes the few spots where the two grammars differ before expr
//     sees the text: regular expression literals (/a/g), if( (an expr
//     keyword), null, and a method called on a number or boolean literal
//     (1.isTruthy(), which expr's lexer reads as a bad number).
//   - rewrite turns the parsed tree into calls of zk's own functions, so
//     that every value follows Bases' types rather than Go's: each
//     operator becomes __op (JavaScript's + on strings, dates plus
//     durations, == between a link and a file), each member access __get,
//     each method __method, each name (and note.x, note["x"]) __prop, and
//     a list's filter(), map() and reduce() become expr's own predicate
//     builtins, with Bases' value, index and acc as expr's #, #index and
//     #acc.
//   - anything else is refused by name (UnsupportedError), never guessed.

// UnsupportedError names a function or construct zk does not evaluate.
type UnsupportedError struct {
	What string
}

func (e *UnsupportedError) Error() string { return "not supported: " + e.What }

// maxExprLen bounds one expression's text: parse time and memory grow
// with it, and no hand-written formula comes near it.
const maxExprLen = 16 << 10

// Expr is a compiled expression.
type Expr struct {
	Source  string
	program *vm.Program
	// formulas are the formula names it reads (formula.x), for the cycle
	// check.
	formulas []string
	// direct is its tree for direct evaluation (direct.go), nil when the
	// VM runs it.
	direct *dnode
}

// compileExpr compiles one Bases expression.
func compileExpr(src string) (x *Expr, nodes int, err error) {
	if len(src) > maxExprLen {
		return nil, 0, fmt.Errorf("expression is %d bytes, over the %d-byte limit", len(src), maxExprLen)
	}
	text, err := prelex(src)
	if err != nil {
		return nil, 0, err
	}
	pc, cc := exprConfigs()
	tree, err := parser.ParseWithConfig(text, pc)
	if err != nil {
		return nil, len(src), fmt.Errorf("syntax: %s", firstLine(err.Error()))
	}
	rw := &rewriter{}
	node, err := rw.node(tree.Node, 0)
	if err != nil {
		return nil, rw.nodes, err
	}
	tree.Node = node
	if _, err := checker.Check(tree, cc); err != nil {
		return nil, rw.nodes, fmt.Errorf("syntax: %s", firstLine(err.Error()))
	}
	prog, err := compiler.Compile(tree, cc)
	if err != nil {
		return nil, rw.nodes, fmt.Errorf("syntax: %s", firstLine(err.Error()))
	}
	x = &Expr{Source: src, program: prog, formulas: rw.formulas}
	if d, ok := directOf(tree.Node, func(name string) func(...any) (any, error) {
		if f := cc.Functions[name]; f != nil {
			return f.Func
		}
		return nil
	}); ok {
		x.direct = &d
	}
	return x, rw.nodes, nil
}

// exprConfigs are the parser's configuration (every expr builtin off:
// each name is Bases') and the compiler's (the mapping layer's
// functions), built once: building them is most of what compiling a
// short expression costs. Neither is written to after it is built. (A
// function, not a sync.OnceValues variable: the options' functions
// compile formulas, which reads the configurations, and a variable's
// initializer may not refer to itself.)
func exprConfigs() (parse, compile *conf.Config) {
	exprConfigsOnce.Do(func() {
		parseConf = conf.CreateNew()
		for _, b := range builtin.Builtins {
			parseConf.Disabled[b.Name] = true
		}
		compileConf = conf.CreateNew()
		for _, op := range exprOptions() {
			op(compileConf)
		}
		compileConf.Check()
	})
	return parseConf, compileConf
}

var (
	exprConfigsOnce        sync.Once
	parseConf, compileConf *conf.Config
)

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// exprOptions bind the mapping layer's functions. Each takes the row
// being evaluated first (__ctx in the environment).
func exprOptions() []expr.Option {
	return []expr.Option{
		expr.Env(map[string]any{"__ctx": (*row)(nil)}),
		expr.Function("__op", func(p ...any) (any, error) {
			r := p[0].(*row)
			a, b := norm(p[2]), norm(p[3])
			if err := r.weigh(a, b); err != nil {
				return nil, err
			}
			return r.charged(binaryOp(r, p[1].(string), a, b))
		}),
		expr.Function("__neg", func(p ...any) (any, error) { return p[0].(*row).charged(negate(norm(p[1]))) }),
		expr.Function("__truthy", func(p ...any) (any, error) { return truthy(p[1]), nil }, new(func(*row, any) bool)),
		expr.Function("__get", func(p ...any) (any, error) {
			r := p[0].(*row)
			return r.charged(r.get(norm(p[1]), norm(p[2])))
		}),
		expr.Function("__prop", func(p ...any) (any, error) { return p[0].(*row).charged(p[0].(*row).prop(p[1].(string)), nil) }),
		expr.Function("__noteget", func(p ...any) (any, error) {
			r := p[0].(*row)
			return r.charged(r.noteGet(norm(p[1])))
		}),
		expr.Function("__thisnoteget", func(p ...any) (any, error) {
			r := p[0].(*row)
			return r.charged(r.thisNoteGet(norm(p[1])))
		}),
		expr.Function("__file", func(p ...any) (any, error) { return p[0].(*row).file, p[0].(*row).spend(0, 0) }),
		expr.Function("__note", func(p ...any) (any, error) {
			r := p[0].(*row)
			r.file.load()
			return r.file.Props, r.spend(0, 0)
		}),
		expr.Function("__formula", func(p ...any) (any, error) { return formulaRef{}, nil }),
		expr.Function("__this", func(p ...any) (any, error) { return p[0].(*row).this(), p[0].(*row).spend(0, 0) }),
		expr.Function("__list", func(p ...any) (any, error) {
			// filter(), map() and reduce() iterate the list inside the VM:
			// charge each element up front.
			r := p[0].(*row)
			l, err := asList(norm(p[1]))
			if err == nil {
				err = r.spend(len(l), len(l)*elementBytes) // map() builds a list as long
			}
			return l, err
		}, new(func(*row, any) []any)),
		expr.Function("__global", func(p ...any) (any, error) {
			r := p[0].(*row)
			name := p[1].(string)
			v, err := r.global(name, normAll(p[2:]))
			return r.charged(named(name, v, err))
		}),
		expr.Function("__method", func(p ...any) (any, error) {
			r := p[0].(*row)
			name := p[2].(string)
			v, err := r.method(norm(p[1]), name, normAll(p[3:]))
			return r.charged(named(name, v, err))
		}),
	}
}

// FuncLimitError is a function's value over one of zk's bounds, naming
// the function: "replace(): the result would be over 1048576 bytes".
type FuncLimitError struct {
	Func string
	Err  *LimitError
}

func (e *FuncLimitError) Error() string { return e.Func + "(): " + e.Err.Msg }
func (e *FuncLimitError) Unwrap() error { return e.Err }

// named names the function whose value is over a bound of zk's.
func named(name string, v any, err error) (any, error) {
	var l *LimitError
	if errors.As(err, &l) && !errors.As(err, new(*FuncLimitError)) {
		return nil, &FuncLimitError{Func: strings.TrimPrefix(name, "__"), Err: l}
	}
	return v, err
}

func normAll(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = norm(a)
	}
	return out
}

func asList(v any) ([]any, error) {
	if l, ok := v.([]any); ok {
		return l, nil
	}
	return nil, fmt.Errorf("filter(), map() and reduce() take a list, not a %s", typeName(v))
}

// rewriter maps expr's tree onto the mapping layer; closure is how many
// filter/map/reduce bodies enclose the node (value, index and acc mean
// the element there).
type rewriter struct {
	formulas []string
	nodes    int
	// literals is how many list and object literals enclose the node.
	literals int
}

// maxNodes bounds the rewritten tree (expr bounds the parsed one too).
const maxNodes = 20000

func ctxNode() ast.Node { return &ast.IdentifierNode{Value: "__ctx"} }

func call(name string, args ...ast.Node) ast.Node {
	return &ast.CallNode{Callee: &ast.IdentifierNode{Value: name}, Arguments: append([]ast.Node{ctxNode()}, args...)}
}

func str(s string) ast.Node { return &ast.StringNode{Value: s} }

func (rw *rewriter) node(n ast.Node, closure int) (ast.Node, error) {
	rw.nodes++
	if rw.nodes > maxNodes {
		return nil, errors.New("expression too large")
	}
	switch x := n.(type) {
	case *ast.NilNode, *ast.BoolNode, *ast.StringNode:
		return n, nil
	case *ast.IntegerNode:
		return &ast.FloatNode{Value: float64(x.Value)}, nil
	case *ast.FloatNode:
		return n, nil
	case *ast.IdentifierNode:
		return rw.ident(x.Value, closure)
	case *ast.UnaryNode:
		inner, err := rw.node(x.Node, closure)
		if err != nil {
			return nil, err
		}
		switch x.Operator {
		case "!", "not":
			return &ast.UnaryNode{Operator: "!", Node: call("__truthy", inner)}, nil
		case "-":
			return call("__neg", inner), nil
		case "+":
			return call("__op", str("+"), &ast.FloatNode{Value: 0}, inner), nil
		}
		return nil, &UnsupportedError{What: fmt.Sprintf("operator %s", x.Operator)}
	case *ast.BinaryNode:
		l, err := rw.node(x.Left, closure)
		if err != nil {
			return nil, err
		}
		r, err := rw.node(x.Right, closure)
		if err != nil {
			return nil, err
		}
		switch x.Operator {
		case "&&", "and":
			return &ast.BinaryNode{Operator: "&&", Left: call("__truthy", l), Right: call("__truthy", r)}, nil
		case "||", "or":
			return &ast.BinaryNode{Operator: "||", Left: call("__truthy", l), Right: call("__truthy", r)}, nil
		case "+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=":
			return call("__op", str(x.Operator), l, r), nil
		}
		return nil, &UnsupportedError{What: fmt.Sprintf("operator %s", x.Operator)}
	case *ast.MemberNode:
		if x.Optional {
			return nil, &UnsupportedError{What: "optional chaining ?."}
		}
		if id, ok := x.Node.(*ast.IdentifierNode); ok && id.Value == "formula" && closure == 0 {
			if s, ok := x.Property.(*ast.StringNode); ok {
				rw.formulas = append(rw.formulas, s.Value)
			}
		}
		if m, ok := x.Node.(*ast.MemberNode); ok && !m.Optional {
			// this.note.x and this.note["x"] read this's property as
			// note.x reads the row's.
			id, isIdent := m.Node.(*ast.IdentifierNode)
			if s, ok := m.Property.(*ast.StringNode); ok && isIdent && id.Value == "this" && s.Value == "note" {
				prop, err := rw.node(x.Property, closure)
				if err != nil {
					return nil, err
				}
				return call("__thisnoteget", prop), nil
			}
		}
		if id, ok := x.Node.(*ast.IdentifierNode); ok && id.Value == "note" {
			// note.x and note["x"] read a property as a bare x does:
			// the exact name, else ignoring case (docs/bases.md). Member
			// access on the note's map would be exact.
			if s, ok := x.Property.(*ast.StringNode); ok {
				return call("__prop", str(s.Value)), nil
			}
			prop, err := rw.node(x.Property, closure)
			if err != nil {
				return nil, err
			}
			return call("__noteget", prop), nil
		}
		obj, err := rw.node(x.Node, closure)
		if err != nil {
			return nil, err
		}
		prop, err := rw.node(x.Property, closure)
		if err != nil {
			return nil, err
		}
		return call("__get", obj, prop), nil
	case *ast.CallNode:
		return rw.call(x, closure)
	case *ast.ArrayNode, *ast.MapNode:
		rw.literals++
		defer func() { rw.literals-- }()
		if rw.literals > maxValueDepth {
			return nil, fmt.Errorf("list and object literals nest more than %d deep", maxValueDepth)
		}
		return rw.literal(n, closure)
	case *ast.ConditionalNode:
		return nil, &UnsupportedError{What: "the ?: operator (use if())"}
	case *ast.SliceNode:
		return nil, &UnsupportedError{What: "slice syntax [a:b] (use slice())"}
	case *ast.PointerNode:
		return nil, &UnsupportedError{What: "#"}
	}
	return nil, &UnsupportedError{What: fmt.Sprintf("syntax %q", n.String())}
}

// literal rewrites a list or object literal's elements.
func (rw *rewriter) literal(n ast.Node, closure int) (ast.Node, error) {
	switch x := n.(type) {
	case *ast.ArrayNode:
		out := &ast.ArrayNode{}
		for _, e := range x.Nodes {
			m, err := rw.node(e, closure)
			if err != nil {
				return nil, err
			}
			out.Nodes = append(out.Nodes, m)
		}
		return out, nil
	case *ast.MapNode:
		out := &ast.MapNode{}
		for _, p := range x.Pairs {
			pair := p.(*ast.PairNode)
			v, err := rw.node(pair.Value, closure)
			if err != nil {
				return nil, err
			}
			key := pair.Key
			if id, ok := key.(*ast.IdentifierNode); ok {
				key = str(id.Value)
			}
			if _, ok := key.(*ast.StringNode); !ok {
				return nil, &UnsupportedError{What: "a computed object key"}
			}
			out.Pairs = append(out.Pairs, &ast.PairNode{Key: key, Value: v})
		}
		return out, nil
	}
	return n, nil
}

func (rw *rewriter) ident(name string, closure int) (ast.Node, error) {
	if strings.HasPrefix(name, "__") {
		return nil, &UnsupportedError{What: "name " + name}
	}
	if closure > 0 {
		switch name {
		case "value":
			return &ast.PointerNode{}, nil
		case "index":
			return &ast.PointerNode{Name: "index"}, nil
		case "acc":
			return &ast.PointerNode{Name: "acc"}, nil
		}
	}
	switch name {
	case "file":
		return call("__file"), nil
	case "note":
		return call("__note"), nil
	case "formula":
		return call("__formula"), nil
	case "this":
		return call("__this"), nil
	}
	return call("__prop", str(name)), nil
}

func (rw *rewriter) call(x *ast.CallNode, closure int) (ast.Node, error) {
	args := func(from []ast.Node, closure int) ([]ast.Node, error) {
		out := make([]ast.Node, 0, len(from))
		for _, a := range from {
			m, err := rw.node(a, closure)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		return out, nil
	}
	switch callee := x.Callee.(type) {
	case *ast.IdentifierNode:
		name := callee.Value
		if name == "__if" {
			if len(x.Arguments) < 2 || len(x.Arguments) > 3 {
				return nil, fmt.Errorf("if() takes 2 or 3 arguments, not %d", len(x.Arguments))
			}
			as, err := args(x.Arguments, closure)
			if err != nil {
				return nil, err
			}
			var els ast.Node = &ast.NilNode{}
			if len(as) == 3 {
				els = as[2]
			}
			return &ast.ConditionalNode{Ternary: true, Cond: call("__truthy", as[0]), Exp1: as[1], Exp2: els}, nil
		}
		if name == "__regexp" {
			as, err := args(x.Arguments, closure)
			if err != nil {
				return nil, err
			}
			return call("__global", append([]ast.Node{str("__regexp")}, as...)...), nil
		}
		if !funcs().globals[name] {
			return nil, &UnsupportedError{What: fmt.Sprintf("function %s()", name)}
		}
		as, err := args(x.Arguments, closure)
		if err != nil {
			return nil, err
		}
		return call("__global", append([]ast.Node{str(name)}, as...)...), nil
	case *ast.MemberNode:
		prop, ok := callee.Property.(*ast.StringNode)
		if !ok || callee.Optional {
			return nil, &UnsupportedError{What: "a computed method call"}
		}
		recv, err := rw.node(callee.Node, closure)
		if err != nil {
			return nil, err
		}
		switch prop.Value {
		case "filter", "map":
			if len(x.Arguments) != 1 {
				return nil, fmt.Errorf("%s() takes 1 argument, not %d", prop.Value, len(x.Arguments))
			}
			body, err := rw.node(x.Arguments[0], closure+1)
			if err != nil {
				return nil, err
			}
			if prop.Value == "filter" {
				body = call("__truthy", body)
			}
			return &ast.BuiltinNode{Name: prop.Value, Arguments: []ast.Node{call("__list", recv), &ast.PredicateNode{Node: body}}}, nil
		case "reduce":
			if len(x.Arguments) != 2 {
				return nil, fmt.Errorf("reduce() takes 2 arguments, not %d", len(x.Arguments))
			}
			body, err := rw.node(x.Arguments[0], closure+1)
			if err != nil {
				return nil, err
			}
			init, err := rw.node(x.Arguments[1], closure)
			if err != nil {
				return nil, err
			}
			return &ast.BuiltinNode{Name: "reduce", Arguments: []ast.Node{call("__list", recv), &ast.PredicateNode{Node: body}, init}}, nil
		}
		if !funcs().methods[prop.Value] {
			return nil, &UnsupportedError{What: fmt.Sprintf("function %s()", prop.Value)}
		}
		as, err := args(x.Arguments, closure)
		if err != nil {
			return nil, err
		}
		return call("__method", append([]ast.Node{recv, str(prop.Value)}, as...)...), nil
	}
	return nil, &UnsupportedError{What: "calling a computed value"}
}

// prelex rewrites the spots where Bases' grammar and expr's differ (see
// the package comment above) and leaves the rest of the text as it is.
// It is one pass over the bytes.
func prelex(src string) (string, error) {
	var b strings.Builder
	b.Grow(len(src) + 16)
	operand := false // the previous token ends an operand: / divides
	var last byte    // the last byte written that is not a space
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			b.WriteByte(c)
			i++
			continue
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) {
				return "", errors.New("syntax: unterminated string")
			}
			b.WriteString(src[i : j+1])
			i = j + 1
			operand = true
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && src[j] >= '0' && src[j] <= '9' {
				j++
			}
			method := false
			if j+1 < len(src) && src[j] == '.' {
				if d := src[j+1]; d >= '0' && d <= '9' {
					j++
					for j < len(src) && (src[j] >= '0' && src[j] <= '9') {
						j++
					}
				} else if isIdentStart(d) {
					method = true
				}
			}
			if j < len(src) && (src[j] == 'e' || src[j] == 'E') && !method {
				k := j + 1
				if k < len(src) && (src[k] == '+' || src[k] == '-') {
					k++
				}
				if k < len(src) && src[k] >= '0' && src[k] <= '9' {
					for k < len(src) && src[k] >= '0' && src[k] <= '9' {
						k++
					}
					j = k
				}
			}
			if j < len(src) && src[j] == '.' && j+1 < len(src) && isIdentStart(src[j+1]) {
				method = true
			}
			if method {
				b.WriteString("(" + src[i:j] + ")")
			} else {
				b.WriteString(src[i:j])
			}
			i = j
			operand = true
		case isIdentStart(c):
			j := i
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			word := src[i:j]
			k := j
			for k < len(src) && (src[k] == ' ' || src[k] == '\t') {
				k++
			}
			next := byte(0)
			if k < len(src) {
				next = src[k]
			}
			switch {
			case last == '.':
				b.WriteString(word)
			case word == "if" && next == '(':
				b.WriteString("__if")
			case word == "null":
				b.WriteString("(nil)")
			case (word == "true" || word == "false") && next == '.':
				b.WriteString("(" + word + ")")
			case exprWords[word] && !operand:
				// An operator word of expr's where a value goes: in Bases
				// it can only be a property's name.
				b.WriteString("note[" + strconv.Quote(word) + "]")
			default:
				b.WriteString(word)
			}
			i = j
			operand = true
		case c == '/' && !operand:
			src, flags, n, err := regexLiteral(src[i:])
			if err != nil {
				return "", err
			}
			b.WriteString("__regexp(" + strconv.Quote(src) + ", " + strconv.Quote(flags) + ")")
			i += n
			operand = true
		case c == ')' || c == ']' || c == '}':
			b.WriteByte(c)
			i++
			operand = true
		default:
			b.WriteByte(c)
			i++
			operand = false
			last = c
			continue
		}
		last = 0
	}
	return b.String(), nil
}

// exprWords are words expr's grammar reserves that Bases does not: a
// property may be named so.
var exprWords = map[string]bool{"in": true, "not": true, "and": true, "or": true, "matches": true,
	"contains": true, "startsWith": true, "endsWith": true, "let": true}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

// regexLiteral reads /source/flags at the start of s and returns its
// length in bytes.
func regexLiteral(s string) (source, flags string, n int, err error) {
	inClass := false
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			inClass = true
		case ']':
			inClass = false
		case '\n':
			return "", "", 0, errors.New("syntax: unterminated regular expression")
		case '/':
			if inClass {
				continue
			}
			j := i + 1
			for j < len(s) && s[j] >= 'a' && s[j] <= 'z' {
				j++
			}
			return s[1:i], s[i+1 : j], j, nil
		}
	}
	return "", "", 0, errors.New("syntax: unterminated regular expression")
}
