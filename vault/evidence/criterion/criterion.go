// Package criterion compiles and evaluates the condition under which a
// falsifier's result refutes its claim ("refuted if: EXPR" in the note),
// written in expr (github.com/expr-lang/expr) against the values package
// measure reads from the command's output.
package criterion

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/types"
	"github.com/expr-lang/expr/vm"

	"github.com/zk-claims/zk/vault/evidence/measure"
)

// MaxLen bounds a criterion's length: it is one line of a note.
const MaxLen = 1000

// Criterion is a compiled "refuted if" condition.
type Criterion struct {
	// Source is the expression as written.
	Source   string
	captures []measure.Capture
	operands []string
	names    []string
	usesExit bool
}

// Compile checks src against every name a criterion may read (exit, json,
// probe, hyperfine, bench, level(c) and the captures), so a typo or a
// type mismatch is reported before anything runs. The result must be a
// boolean.
func Compile(src string, captures []measure.Capture) (*Criterion, error) {
	src = strings.TrimSpace(src)
	if src == "" {
		return nil, errors.New("the criterion is empty")
	}
	if len(src) > MaxLen {
		return nil, fmt.Errorf("the criterion is %d bytes, over the %d-byte cap", len(src), MaxLen)
	}
	c := &Criterion{Source: src, captures: captures}
	if _, err := c.program(src, nil, true); err != nil {
		return nil, err
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, cleanErr(err)
	}
	v := &collector{c: c}
	ast.Walk(&tree.Node, v)
	return c, nil
}

// UsesExit says the criterion reads the exit code, so a command that
// exited non-zero is still judged by it (refuted if: exit != 0).
func (c *Criterion) UsesExit() bool { return c.usesExit }

// program compiles src, with level bound to probe output p (nil: only
// to check it); asBool asks for a boolean result.
func (c *Criterion) program(src string, p any, asBool bool) (*vm.Program, error) {
	env := types.Map{
		measure.Exit:      types.Int,
		measure.JSON:      types.Any,
		measure.Probe:     types.Any,
		measure.Hyperfine: types.Any,
		measure.Bench:     types.Any,
	}
	for _, cp := range c.captures {
		env[cp.Name] = types.Float64
	}
	opts := []expr.Option{expr.Env(env), expr.Function("level", func(args ...any) (any, error) {
		return measure.Level(p, args[0].(int))
	}, new(func(int) map[string]any))}
	if asBool {
		opts = append(opts, expr.AsBool())
	}
	prog, err := expr.Compile(src, opts...)
	if err != nil {
		return nil, cleanErr(err)
	}
	return prog, nil
}

// cleanErr keeps the first line of an expr error: the rest is a caret
// drawing that does not survive a one-line message.
// expr's "(line:column)" becomes "(column N)": a criterion is one line.
func cleanErr(err error) error {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	msg = posRe.ReplaceAllString(strings.TrimSpace(msg), "(column $1)")
	return errors.New(msg)
}

var posRe = regexp.MustCompile(`\(1:(\d+)\)$`)

// runErr is an error met evaluating src, without expr's position (the
// expression is named instead), and without naming it twice when a helper
// already did: "level(16): the probe measured no level at concurrency 16".
func runErr(src string, err error) error {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	msg = strings.TrimSpace(posRe.ReplaceAllString(strings.TrimSpace(msg), ""))
	if strings.HasPrefix(msg, src+":") {
		return errors.New(msg)
	}
	return fmt.Errorf("%s: %s", src, msg)
}

// collector gathers what the criterion reads: the operands of its
// comparisons (shown in the record with their values) and the names.
type collector struct{ c *Criterion }

func (v *collector) Visit(n *ast.Node) {
	switch n := (*n).(type) {
	case *ast.IdentifierNode:
		v.c.names = append(v.c.names, n.Value)
		if n.Value == measure.Exit {
			v.c.usesExit = true
		}
	case *ast.BinaryNode:
		switch n.Operator {
		case "==", "!=", "<", "<=", ">", ">=":
			for _, side := range []ast.Node{n.Left, n.Right} {
				if !literal(side) {
					v.c.operands = append(v.c.operands, side.String())
				}
			}
		}
	}
}

func literal(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.IntegerNode, *ast.FloatNode, *ast.StringNode, *ast.BoolNode, *ast.NilNode, *ast.ConstantNode:
		return true
	case *ast.UnaryNode:
		return literal(n.Node)
	}
	return false
}

// Reading is one value the criterion read, with its denominator when the
// output gives one: the unit of a probe figure ("tokens/sec/user") and the
// count a distribution stands on.
type Reading struct {
	Expr  string
	Value any
	Unit  string
	Count int
}

// Result is an evaluated criterion.
type Result struct {
	Refuted bool
	Read    []Reading
}

// Eval evaluates the criterion against the values read from an output.
// An error says why it could not be: a name the output does not have
// (and why), a missing field (which), a failed helper.
func (c *Criterion) Eval(e measure.Env) (Result, error) {
	for _, n := range c.names {
		if n == "level" {
			n = measure.Probe // level(c) reads the probe's output
		}
		if why, ok := e.Absent[n]; ok {
			return Result{}, fmt.Errorf("%s is missing: %s", n, why)
		}
	}
	prog, err := c.program(c.Source, e.Values[measure.Probe], true)
	if err != nil {
		return Result{}, err
	}
	var res Result
	for _, op := range c.operands {
		rd, err := c.read(op, e)
		if err != nil {
			return Result{}, err
		}
		res.Read = append(res.Read, rd)
	}
	out, err := expr.Run(prog, e.Values)
	if err != nil {
		return Result{}, runErr(c.Source, err)
	}
	res.Refuted = out.(bool)
	return res, nil
}

// read evaluates one operand, naming the shortest part of a chain that is
// missing: "json.results[0].mean is missing".
func (c *Criterion) read(op string, e measure.Env) (Reading, error) {
	tree, err := parser.Parse(op)
	if err != nil {
		return Reading{}, cleanErr(err)
	}
	var chain []ast.Node
	for n := tree.Node; ; {
		chain = append([]ast.Node{n}, chain...)
		m, ok := n.(*ast.MemberNode)
		if !ok {
			break
		}
		n = m.Node
	}
	var val, parent any
	for _, n := range chain {
		src := n.String()
		prog, err := c.program(src, e.Values[measure.Probe], false)
		if err != nil {
			return Reading{}, err
		}
		parent = val
		val, err = expr.Run(prog, e.Values)
		if err != nil {
			return Reading{}, runErr(src, err)
		}
		if val == nil {
			return Reading{}, fmt.Errorf("%s is missing from the output", src)
		}
	}
	rd := Reading{Expr: op, Value: val}
	// A figure's denominator is beside it: zk probe's {"unit", "count",
	// "p50", ...}; measure.Level names the unit of its short names.
	if m, ok := parent.(map[string]any); ok && len(chain) > 1 {
		if _, isMap := val.(map[string]any); !isMap {
			rd.Unit, _ = m["unit"].(string)
			if cnt, ok := m["count"].(float64); ok {
				rd.Count = int(cnt)
			}
			if prop, ok := chain[len(chain)-1].(*ast.MemberNode).Property.(*ast.StringNode); ok {
				if units, ok := m["units"].(map[string]any); ok {
					if u, ok := units[prop.Value].(string); ok {
						rd.Unit = u
					}
				}
			}
		}
	}
	return rd, nil
}

// Describe writes the values read and the criterion, as the record shows
// them: "level(1).per_stream.p50 = 66.0; refuted if `…`: not refuted".
func (r Result) Describe(src string) string {
	var parts []string
	for _, rd := range r.Read {
		p := rd.Expr + " = " + FormatValue(rd.Value)
		if rd.Unit != "" {
			p += " " + rd.Unit
		}
		if rd.Count > 0 {
			p += fmt.Sprintf(" (n = %d)", rd.Count)
		}
		parts = append(parts, p)
	}
	verdict := "not refuted"
	if r.Refuted {
		verdict = "refuted"
	}
	parts = append(parts, "refuted if "+src+": "+verdict)
	return strings.Join(parts, "; ")
}

// FormatValue writes a value read to four significant figures.
func FormatValue(v any) string {
	switch x := v.(type) {
	case float64:
		if math.Abs(x) >= 1e4 || x == math.Trunc(x) {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		return strconv.FormatFloat(x, 'g', 4, 64)
	case int:
		return strconv.Itoa(x)
	case string:
		return strconv.Quote(x)
	case map[string]any, []any:
		return "(object)"
	}
	return fmt.Sprint(v)
}
