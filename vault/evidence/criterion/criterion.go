// Package criterion compiles and evaluates the condition under which a
// falsifier's result refutes its claim ("refuted if: EXPR" in the note),
// written in expr (github.com/expr-lang/expr) against the values package
// measure reads from the command's output.
package criterion

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/types"
	"github.com/expr-lang/expr/vm"

	"github.com/zk-claims/zk/internal/lazyre"
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

// program compiles src, with level reading through lv (nil: only to
// check it); asBool asks for a boolean result.
func (c *Criterion) program(src string, lv func(int) (map[string]any, error), asBool bool) (*vm.Program, error) {
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
	if lv == nil {
		lv = func(c int) (map[string]any, error) { return measure.Level(nil, c) }
	}
	opts := []expr.Option{expr.Env(env), expr.Function("level", func(args ...any) (any, error) {
		return lv(args[0].(int))
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
	msg = posRe().ReplaceAllString(strings.TrimSpace(msg), "(column $1)")
	return errors.New(msg)
}

var posRe = lazyre.New(`\(1:(\d+)\)$`)

// runErr is an error met evaluating src, without expr's position (the
// expression is named instead), and without naming it twice when a helper
// already did: "level(16): the probe measured no level at concurrency 16".
func runErr(src string, err error) error {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	msg = strings.TrimSpace(posRe().ReplaceAllString(strings.TrimSpace(msg), ""))
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
// count a distribution stands on; and, when the value is a statistic of
// samples the output carries, its interval and what the samples are.
type Reading struct {
	Expr  string
	Value any
	Unit  string
	// Count is the count the output gives beside a distribution that
	// carries no samples (zk probe's "count").
	Count int
	// Of lists the sampled figures the value is computed from, each with
	// its sample count; empty when it is one reading.
	Of []Samples
	// Lo and Hi bound the value in Confidence of the resamples (the
	// percentile bootstrap interval), when Of is not empty.
	Lo, Hi float64
	// Runs is how many runs of a repeated command all gave this value,
	// one that no samples resample (a string, an array's number); 0 for
	// one run.
	Runs int
	// Computed says the value is a mean zk computed from samples (of a
	// repeated command's runs, of go test -bench -count), not a figure
	// the output wrote.
	Computed bool
}

// Samples is how many samples a figure stands on, and what they are.
type Samples struct {
	N  int
	Of string
}

// Options say how a criterion is judged on samples.
type Options struct {
	// Resamples is the number of bootstrap resamples; 0 judges the output
	// as one reading.
	Resamples int
	// Confidence is the share of resamples that must agree for a
	// verdict, and the coverage of each reading's interval.
	Confidence float64
	// Seed seeds the resampling (the run's id).
	Seed string
}

// Defaults of Options, as the config and the README state them.
const (
	DefaultResamples  = 2000
	DefaultConfidence = 0.95
)

// Result is an evaluated criterion.
type Result struct {
	// Refuted is the criterion on the output as it is.
	Refuted bool
	Read    []Reading
	// Resamples is how many resamples the criterion was judged on (0: the
	// values it reads carry no samples), Refuting on how many of them it
	// held, and Confidence the share asked for.
	Resamples  int
	Refuting   int
	Confidence float64
	// Unjudged says why the samples a value stands on cannot settle a
	// verdict at Confidence, however they fall ("" when they can): too
	// few of them (MinSamples), or more than zk resamples.
	Unjudged string
}

// MinSamples is the fewest samples a verdict at confidence can stand on.
// Of n samples, the widest interval they give, their least to their
// greatest, holds the middle of what they were drawn from with
// probability 1 − 2·0.5ⁿ whatever its shape; with fewer samples than make
// that confidence, no interval drawn from them alone can claim it, and
// their resamples' agreement is no evidence (two samples' 2,000 resamples
// take three values). At 95% that is 6, benchstat's "need >= 6 samples
// for confidence interval at level 0.95".
func MinSamples(confidence float64) int {
	n := 1
	for 1-2*math.Pow(0.5, float64(n)) < confidence {
		n++
	}
	return n
}

// Agree is the share of resamples that agree with the verdict the
// criterion gives on the output as it is.
func (r Result) Agree() float64 {
	if r.Resamples == 0 {
		return 1
	}
	f := float64(r.Refuting) / float64(r.Resamples)
	if !r.Refuted {
		f = 1 - f
	}
	return f
}

// Decided says the resamples settle the verdict: at least Confidence of
// them agree with it. A criterion whose values carry no samples is
// decided by its one reading.
func (r Result) Decided() bool {
	return r.Unjudged == "" && (r.Resamples == 0 || r.Agree() >= r.Confidence)
}

// Eval evaluates the criterion against the values read from an output.
// An error says why it could not be: a name the output does not have
// (and why), a missing field (which), a failed helper.
//
// When a value it reads is a statistic of samples the output carries
// (e.Sampled) and opt asks for resamples, the criterion is evaluated again
// on each bootstrap resample of those samples, seeded from opt.Seed, and
// the result says on how many it held; each reading gets its interval.
func (c *Criterion) Eval(e measure.Env, opt Options) (Result, error) {
	for _, n := range c.names {
		if n == "level" {
			n = measure.Probe // level(c) reads the probe's output
		}
		if why, ok := e.Absent[n]; ok {
			return Result{}, fmt.Errorf("%s is missing: %s", n, why)
		}
	}
	// level(c) is looked up once a judgement: the level's distributions
	// are the same objects resampling writes into.
	levels := map[int]map[string]any{}
	probeOut := e.Values[measure.Probe]
	lv := func(c int) (map[string]any, error) {
		if m, ok := levels[c]; ok {
			return m, nil
		}
		m, err := measure.Level(probeOut, c)
		if err == nil {
			levels[c] = m
		}
		return m, err
	}
	prog, err := c.program(c.Source, lv, true)
	if err != nil {
		return Result{}, err
	}
	res := Result{Confidence: opt.Confidence}
	for _, op := range c.operands {
		rd, err := c.read(op, e, lv)
		if err != nil {
			return Result{}, err
		}
		res.Read = append(res.Read, rd)
	}
	// A value that is no number (a benchmark's NaN ns/op, an overflow)
	// compares false against anything: it would support the claim.
	for _, rd := range res.Read {
		if f, ok := rd.Value.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return Result{}, fmt.Errorf("%s = %s, not a measurement", rd.Expr, FormatValue(f))
		}
	}
	out, err := expr.Run(prog, e.Values)
	if err != nil {
		return Result{}, runErr(c.Source, err)
	}
	res.Refuted = out.(bool)
	if err := c.alike(res.Read, e.Runs, false); err != nil {
		return Result{}, err
	}
	if opt.Resamples <= 0 {
		return res, nil
	}
	if len(e.Sampled) > 0 {
		if err := c.resample(e, opt, prog, lv, levels, &res); err != nil {
			return Result{}, err
		}
	}
	// A number the runs give but no samples resample (an element of an
	// array, a bare JSON number) is the runs' mean or the first run's:
	// like a string, it stands for them only if every run gave it.
	if err := c.alike(res.Read, e.Runs, true); err != nil {
		return Result{}, err
	}
	return res, nil
}

// alike checks the readings that are no number (numbers: those that
// are, but that no samples resample) against each of the runs a repeated
// command's output pools (runs; none for one run): such a value is the
// first run's (or their mean), and stands for all only when every run
// gave it, which its Reading then says (Runs). Runs that differ, or a run
// without it, leave the criterion unevaluated: no run's value is the
// measurement, and judging the first would state one reading as if it
// were the falsifier's N.
func (c *Criterion) alike(read []Reading, runs []measure.Env, numbers bool) error {
	if len(runs) < 2 {
		return nil
	}
	for i, rd := range read {
		number := false
		switch rd.Value.(type) {
		case float64, int:
			number = true
		}
		if number != numbers || len(rd.Of) > 0 || rd.Expr == measure.Exit {
			continue
		}
		if number {
			// Compared with the first run's, not with the mean.
			lv := func(c int) (map[string]any, error) { return measure.Level(runs[0].Values[measure.Probe], c) }
			prog, err := c.program(rd.Expr, lv, false)
			if err != nil {
				return err
			}
			if rd.Value, err = expr.Run(prog, runs[0].Values); err != nil || rd.Value == nil {
				return fmt.Errorf("%s is missing from run 1 of %d (repeat: %d)", rd.Expr, len(runs), len(runs))
			}
		}
		// Each value another run gave, at its first run (three at most:
		// a message stays short however many runs differ).
		var seen []string
		var values []any
		for k, run := range runs {
			lv := func(c int) (map[string]any, error) { return measure.Level(run.Values[measure.Probe], c) }
			prog, err := c.program(rd.Expr, lv, false)
			if err != nil {
				return err
			}
			v, err := expr.Run(prog, run.Values)
			if err != nil || v == nil {
				return fmt.Errorf("%s is missing from run %d of %d (repeat: %d)", rd.Expr, k+1, len(runs), len(runs))
			}
			if reflect.DeepEqual(v, rd.Value) || len(seen) >= 3 || slices.ContainsFunc(values, func(x any) bool { return reflect.DeepEqual(x, v) }) {
				continue
			}
			if len(seen) == 0 {
				seen = append(seen, FormatValue(rd.Value)+" in run 1")
			}
			seen = append(seen, fmt.Sprintf("%s in run %d", FormatValue(v), k+1))
			values = append(values, v)
		}
		if len(seen) > 0 {
			return fmt.Errorf("%s differs between the runs (repeat: %d): %s", rd.Expr, len(runs), strings.Join(seen, ", "))
		}
		read[i].Runs = len(runs)
	}
	return nil
}

// resample judges the criterion on opt.Resamples bootstrap resamples of
// the sampled figures its readings depend on.
func (c *Criterion) resample(e measure.Env, opt Options, prog *vm.Program, lv func(int) (map[string]any, error), levels map[int]map[string]any, res *Result) error {
	ops := make([]*vm.Program, len(res.Read))
	for i, rd := range res.Read {
		p, err := c.program(rd.Expr, lv, false)
		if err != nil {
			return err
		}
		ops[i] = p
	}
	refresh := func() {
		for _, m := range levels {
			measure.RefreshLevel(m)
		}
	}
	number := func(p *vm.Program) (float64, bool) {
		refresh()
		v, err := expr.Run(p, e.Values)
		if err != nil {
			return math.NaN(), true
		}
		switch x := v.(type) {
		case float64:
			return x, true
		case int:
			return float64(x), true
		}
		return 0, false
	}
	// Which figures each reading depends on: poison a figure (NaN in
	// place of its statistics) and see which readings turn NaN.
	// Field by field, so that resampling computes only what is read.
	var used []*measure.Sampled
	for _, s := range e.Sampled {
		var fields []string
		dep := make([]bool, len(ops))
		for _, f := range s.Fieldnames() {
			s.PoisonField(f)
			for i, p := range ops {
				if v, ok := number(p); ok && math.IsNaN(v) {
					dep[i] = true
					if !slices.Contains(fields, f) {
						fields = append(fields, f)
					}
				}
			}
			s.Restore()
		}
		for i, d := range dep {
			if d {
				res.Read[i].Of = append(res.Read[i].Of, Samples{N: len(s.Samples), Of: s.Of})
				res.Read[i].Computed = res.Read[i].Computed || s.Computed()
			}
		}
		if len(fields) > 0 {
			s.Only(fields)
			used = append(used, s)
		}
	}
	if len(used) == 0 {
		return nil // what the criterion reads is one reading
	}
	need := MinSamples(opt.Confidence)
	for _, s := range used {
		switch n := len(s.Samples); {
		case n < need:
			res.Unjudged = fmt.Sprintf("too few samples to judge at %s (%d needed)", Percent(opt.Confidence), need)
		case n > measure.MaxSamples:
			res.Unjudged = fmt.Sprintf("more samples than zk resamples (at most %s)", thousands(measure.MaxSamples))
		}
		if res.Unjudged != "" {
			return nil
		}
	}
	e.Seed(opt.Seed)
	defer func() {
		for _, s := range used {
			s.Restore()
		}
	}()
	vals := make([][]float64, len(ops))
	for b := 0; b < opt.Resamples; b++ {
		for _, s := range used {
			s.Resample()
		}
		refresh()
		out, err := expr.Run(prog, e.Values)
		if err != nil {
			return runErr(c.Source, err)
		}
		if out.(bool) {
			res.Refuting++
		}
		for i, p := range ops {
			if len(res.Read[i].Of) == 0 {
				continue
			}
			v, ok := number(p)
			if !ok {
				continue
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				// A resample's figure overflowed (samples near the
				// largest float): its comparison would count as either
				// side by chance.
				return fmt.Errorf("%s = %s in a resample, not a measurement", res.Read[i].Expr, FormatValue(v))
			}
			vals[i] = append(vals[i], v)
		}
	}
	res.Resamples = opt.Resamples
	tail := (1 - opt.Confidence) / 2 * 100
	for i, vs := range vals {
		if len(vs) == 0 {
			continue
		}
		slices.Sort(vs)
		res.Read[i].Lo, res.Read[i].Hi = measure.Percentile(vs, tail), measure.Percentile(vs, 100-tail)
	}
	return nil
}

// read evaluates one operand, naming the shortest part of a chain that is
// missing: "json.results[0].mean is missing".
func (c *Criterion) read(op string, e measure.Env, lv func(int) (map[string]any, error)) (Reading, error) {
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
		prog, err := c.program(src, lv, false)
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
	// "p50", ...}; measure.Level names the unit of its short names. The
	// unit is its numbers' but one: "count" is how many samples the
	// others stand on, of what "of" says when the output says it
	// ("requests completed in the window"), not a figure in the unit (a
	// count of 16 is not 16 tokens/sec/user). A string or a list read
	// (its "of", its "samples") is no figure in it either.
	if m, ok := parent.(map[string]any); ok && len(chain) > 1 {
		var prop string
		if p, ok := chain[len(chain)-1].(*ast.MemberNode).Property.(*ast.StringNode); ok {
			prop = p.Value
		}
		_, number := val.(float64)
		switch {
		case number && prop == "count":
			rd.Unit, _ = m["of"].(string)
		case number:
			rd.Unit, _ = m["unit"].(string)
			if cnt, ok := m["count"].(float64); ok {
				rd.Count = int(cnt)
			}
		}
		if units, ok := m["units"].(map[string]any); ok {
			if u, ok := units[prop].(string); ok && prop != "" {
				rd.Unit = u
			}
		}
	}
	return rd, nil
}

// Describe writes the values read and the criterion, as the record shows
// them: "level(1).per_stream.p50 = 66 tokens/sec/user (95% interval
// 64.1–67.9, n = 12: requests completed in the window at concurrency 1);
// refuted if `…`: not refuted, 100% of 2,000 resamples agree (95%
// needed)". Values are written as read, every digit (a mean zk computed
// without its float noise: FormatComputed); an interval to four
// significant figures, rounded outwards. Each value says what it stands
// on: its samples, or one reading (OneReading), so that a verdict on one
// printed figure does not read as one on resamples; the exit status is
// what the run did and says nothing more.
func (r Result) Describe(src string) string {
	var parts []string
	for _, rd := range r.Read {
		p := rd.Expr + " = " + FormatValue(rd.Value)
		if x, ok := rd.Value.(float64); ok && rd.Computed {
			// A statistic zk computed from the samples, not a figure
			// the output wrote: its float noise is no digit read.
			p = rd.Expr + " = " + FormatComputed(x, src)
		}
		if rd.Unit != "" {
			p += " " + rd.Unit
		}
		var of []string
		for _, s := range rd.Of {
			of = append(of, fmt.Sprintf("n = %d: %s", s.N, s.Of))
		}
		switch {
		case len(rd.Of) > 0 && r.Resamples > 0:
			p += fmt.Sprintf(" (%s interval %s–%s, %s)", Percent(r.Confidence), roundDown(rd.Lo), roundUp(rd.Hi), strings.Join(of, "; "))
		case len(rd.Of) > 0:
			p += " (" + strings.Join(of, "; ") + ")"
		case rd.Count > 0:
			// A count beside a distribution whose samples are not in the
			// output (zk probe's before it wrote them) gives no spread:
			// the verdict is its figure's threshold crossing, one reading,
			// however many samples the figure was computed from.
			p += fmt.Sprintf(" (%s: the output counts %d samples but does not carry them)", OneReading(rd.Value), rd.Count)
		case rd.Runs > 1:
			p += fmt.Sprintf(" (n = %d: runs (repeat: %d), all alike)", rd.Runs, rd.Runs)
		case rd.Expr == measure.Exit:
			// What the run did, not a measurement of what varies: a
			// test that fails now and then shows as falsifiers/flaky.
		default:
			p += " (" + OneReading(rd.Value) + ")"
		}
		parts = append(parts, p)
	}
	verdict := "not refuted"
	if r.Refuted {
		verdict = "refuted"
	}
	switch {
	case r.Unjudged != "":
		verdict = r.Unjudged
	case r.Resamples == 0:
	case r.Decided():
		verdict += fmt.Sprintf(", %s of %s resamples agree (%s needed)", percentFloor(r.Agree()), thousands(r.Resamples), Percent(r.Confidence))
	default:
		f := float64(r.Refuting) / float64(r.Resamples)
		verdict = fmt.Sprintf("within noise, %s of %s resamples refute, %s do not (%s needed either way)",
			percentFloor(f), thousands(r.Resamples), percentFloor(1-f), Percent(r.Confidence))
	}
	parts = append(parts, "refuted if "+src+": "+verdict)
	return strings.Join(parts, "; ")
}

// OneReading says what a value with no samples behind it stands on: one
// reading, whose verdict is its threshold crossing. Of a number it says
// the noise is unknown: the output gives no spread to judge it by (a
// capture, a JSON number, a probe's aggregate, printed once), so the
// statement must not read as one judged on resamples; a string or a
// truth value is read as it is.
func OneReading(v any) string {
	switch v.(type) {
	case float64, int:
		return "n = 1: one reading, noise unknown"
	}
	return "n = 1: one reading"
}

// FormatValue writes a value read exactly: every digit of a number as
// the output gave it, so that a record never contradicts itself (a value
// rounded to 1234 beside "refuted if rate > 1234.2").
func FormatValue(v any) string {
	switch x := v.(type) {
	case float64:
		if a := math.Abs(x); a != 0 && (a < 1e-6 || a >= 1e21) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int:
		return strconv.Itoa(x)
	case string:
		return strconv.Quote(x)
	case map[string]any, []any:
		return "(object)"
	}
	return fmt.Sprint(v)
}

// roundDown and roundUp write x to four significant figures, rounded
// away from the interval's inside, so the interval written holds the one
// computed.
func roundDown(x float64) string { return sig4(x, math.Floor) }
func roundUp(x float64) string   { return sig4(x, math.Ceil) }

func sig4(x float64, round func(float64) float64) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	scale := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(x))))
	r := round(x*scale) / scale
	return strconv.FormatFloat(r, 'g', 4, 64)
}

// Percent writes a share as a person reads it: 0.95 → "95%".
func Percent(f float64) string {
	return strconv.FormatFloat(math.Round(f*1e4)/100, 'f', -1, 64) + "%"
}

// percentFloor writes a share to at most two decimals of a percent,
// rounded down, so that it never overstates agreement: 0.9999 → "99.99%".
func percentFloor(f float64) string {
	return strconv.FormatFloat(math.Floor(f*1e4+1e-9)/100, 'f', -1, 64) + "%"
}

// thousands writes n with thousands separators: 2000 → "2,000".
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Same says criteria a and b are the same expression however each is
// spaced or parenthesised: `rate<100` is `rate < 100` and `(rate < 100)`.
// Their syntax trees are compared (ast.Dump holds no positions), so a
// spacing edit of a note's criterion judges as before and is no changed
// criterion, nor is a number compared with respelt by value (`rate <
// 100.0`: comparedByValue), while any other edit, `100 > rate` included,
// is one. A
// criterion that does not parse is the same only as its own text.
func Same(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == b {
		return true
	}
	if len(a) > MaxLen || len(b) > MaxLen {
		return false
	}
	ta, err := parser.Parse(a)
	if err != nil {
		return false
	}
	tb, err := parser.Parse(b)
	if err != nil {
		return false
	}
	ast.Walk(&ta.Node, comparedByValue{})
	ast.Walk(&tb.Node, comparedByValue{})
	return ast.Dump(ta.Node) == ast.Dump(tb.Node)
}

// comparedByValue writes an integer a comparison compares with as the
// float it equals, so that `rate > 50` and `rate > 50.0` (or `5e1`) are one
// criterion: expr compares an integer with a float by value, and a
// comparison's result is the same either way. Elsewhere the spelling
// is meaning (`x % 2` runs, `x % 2.0` does not; an index must be an
// integer), and so is an integer beyond 2⁵³, which no float holds.
type comparedByValue struct{}

func (comparedByValue) Visit(n *ast.Node) {
	b, ok := (*n).(*ast.BinaryNode)
	if !ok {
		return
	}
	switch b.Operator {
	case "==", "!=", "<", "<=", ">", ">=":
		asFloat(&b.Left)
		asFloat(&b.Right)
	}
}

func asFloat(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.IntegerNode:
		if x.Value <= 1<<53 && x.Value >= -(1<<53) {
			*n = &ast.FloatNode{Value: float64(x.Value)}
		}
	case *ast.UnaryNode:
		if x.Operator == "-" || x.Operator == "+" {
			asFloat(&x.Node)
		}
	}
}
