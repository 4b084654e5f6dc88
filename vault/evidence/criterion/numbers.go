package criterion

import (
	"cmp"
	"math"
	"strconv"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// thresholds are the numbers a criterion src writes (a unary minus
// applied), the values a computed mean is compared with; nil when src
// does not parse.
func thresholds(src string) []float64 {
	if len(src) > MaxLen {
		return nil
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return nil
	}
	var v numberCollector
	ast.Walk(&tree.Node, &v)
	return v.out
}

type numberCollector struct{ out []float64 }

func (v *numberCollector) Visit(n *ast.Node) {
	switch n := (*n).(type) {
	case *ast.IntegerNode:
		v.out = append(v.out, float64(n.Value), -float64(n.Value))
	case *ast.FloatNode:
		v.out = append(v.out, n.Value, -n.Value)
	}
}

// FormatComputed writes a value zk computed (a mean of samples) without
// the float noise of its arithmetic, 44.775 for 44.775000000000006: to
// 15 significant figures, which every float64 holds exactly, unless
// rounding would put it on another side of, or onto, a number its
// criterion src compares with (a mean of 50.00000000000001 beside
// "refuted if x > 50" is not written 50); then with more digits, up to
// every one. A value read from an output is written as it was read
// (FormatValue), never rounded.
func FormatComputed(x float64, src string) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return FormatValue(x)
	}
	ts := thresholds(src)
	for p := 15; p <= 17; p++ {
		y, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', p, 64), 64)
		if err != nil || math.IsInf(y, 0) {
			break
		}
		if sameSides(x, y, ts) {
			return FormatValue(y)
		}
	}
	return FormatValue(x)
}

// sameSides says x and y compare alike with every threshold.
func sameSides(x, y float64, ts []float64) bool {
	for _, t := range ts {
		if cmp.Compare(x, t) != cmp.Compare(y, t) {
			return false
		}
	}
	return true
}
