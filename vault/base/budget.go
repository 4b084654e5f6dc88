package base

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// Budgets. A base is untrusted input (it may come with a shared vault),
// so what evaluating it may cost is bounded, and every bound is checked
// before the memory is allocated, by the size of the input: a string's
// bytes, a list's elements, the nesting of a value, the text of the view.
// The steps and bytes are one budget for the whole base, every file and
// every expression together: a per-file budget would let a cheap
// expression cost its budget times the files of the vault.
const (
	// maxString bounds a string an expression builds (repeat(), join(),
	// replace(), +).
	maxString = 1 << 20
	// maxList bounds a list an expression builds (split(), flat(), +).
	maxList = 1 << 18
	// maxValueDepth bounds how deeply lists and objects nest, in a
	// literal or in a value an expression builds: each level is a level
	// of indentation in JSON.
	maxValueDepth = 64
	// maxFormulaDepth bounds formulas referring to formulas: each level
	// is a nested run of the VM.
	maxFormulaDepth = 64

	// The whole base's steps (function calls plus list elements walked)
	// and bytes (of strings built or scanned): a constant, and a little
	// more for each file of the vault, so that a base costs at most a
	// few seconds whatever it nests, and a hand-written base over a large
	// vault (some tens of steps a file) never comes near it.
	baseSteps    = 2_000_000
	stepsPerFile = 300
	baseBytes    = 128 << 20
	bytesPerFile = 8 << 10
	// runSteps is what running an expression costs (the VM's set-up), a
	// filter or formula however short.
	runSteps = 20
	// elementBytes is what an element of a list built costs of the bytes
	// budget: its slot, and the value boxed in it.
	elementBytes = 32

	// maxCell bounds one value of the result as it is printed (its JSON,
	// indentation included), maxOutput all of them, and maxCells how many
	// values a view has (columns times rows): checked before the rows are
	// built.
	maxCell   = 1 << 20
	maxOutput = 64 << 20
	maxCells  = 4 << 20
)

// ErrBudget is a base that costs more than zk evaluates: the view is not
// evaluated, since a view missing what its budget cut would be wrong.
var ErrBudget = errors.New("the base costs more than zk evaluates (over its budget of steps or bytes for the whole base; docs/bases.md, Limits)")

// LimitError is a value over one of zk's bounds: Obsidian would compute
// it, zk does not, so it is said (a warning naming the function), never
// passed over as an error of the base's own.
type LimitError struct{ Msg string }

func (e *LimitError) Error() string { return e.Msg }

// budget is what is left of the whole base's steps and bytes.
type budget struct {
	steps, bytes int
	over         bool
}

func newBudget(files int) *budget {
	return &budget{steps: baseSteps + stepsPerFile*files, bytes: baseBytes + bytesPerFile*files}
}

func (r *row) spend(steps, bytes int) error {
	b := r.ev.budget
	b.steps -= steps + 1
	b.bytes -= bytes
	if b.steps < 0 || b.bytes < 0 {
		b.over = true
		return ErrBudget
	}
	return nil
}

// grow charges a list of n elements about to be built, its memory and
// (unless the caller has) a step for each, and refuses it over maxList
// before it is.
func (r *row) grow(n int, steps bool) error {
	if n > maxList {
		return &LimitError{fmt.Sprintf("the list would have %d elements, over the %d-element limit", n, maxList)}
	}
	if !steps {
		return r.spend(0, n*elementBytes)
	}
	return r.spend(n, n*elementBytes)
}

// room refuses a string of n bytes about to be built over maxString,
// before it is.
func room(n int) error {
	if n > maxString || n < 0 {
		return &LimitError{fmt.Sprintf("the result would be over %d bytes", maxString)}
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

// checkDepth refuses a value that nests deeper than maxValueDepth (a
// reduce() that wraps its accumulator in a list each time builds one),
// charging the nested elements it walks.
func (r *row) checkDepth(v any) error {
	switch v.(type) {
	case []any, map[string]any:
	default:
		return nil // most values: no closure made to walk them
	}
	var walk func(v any, depth int) error
	walk = func(v any, depth int) error {
		var n int
		var elems iter.Seq[any]
		switch x := v.(type) {
		case []any:
			n, elems = len(x), slices.Values(x)
		case map[string]any:
			n, elems = len(x), maps.Values(x)
		default:
			return nil
		}
		if depth >= maxValueDepth {
			return &LimitError{fmt.Sprintf("the value nests more than %d deep", maxValueDepth)}
		}
		if depth > 0 { // the value itself was charged when it was built
			if err := r.spend(n, 0); err != nil {
				return err
			}
		}
		for e := range elems {
			switch e.(type) {
			case []any, map[string]any:
				if err := walk(e, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(v, 0)
}

// printedSize is at least how many bytes v takes printed as indented JSON
// at depth, or limit+1 once it is over limit: the walk stops there, so a
// list holding the same large list a thousand times costs no more than
// the limit to measure.
func printedSize(v any, depth, limit int) int {
	indent := 2*depth + 4 // indentation, a comma, a newline, quotes
	switch x := v.(type) {
	case nil, bool, float64, Date, Duration:
		return indent + 24
	case string:
		return indent + len(x)
	case Tag:
		return indent + len(x)
	case Link:
		n := indent + len(x.Text) + 4
		if d, ok := x.Display.(string); ok {
			n += len(d) + 1
		}
		return n
	case *File:
		if x == nil {
			return indent
		}
		return indent + len(x.Path)
	case Rendered:
		return indent + len(x.Value)
	case Regexp:
		return indent + len(x.Source)
	case *CellError:
		return indent + len(x.Msg) + 16
	case []any:
		n := indent + 2
		for _, e := range x {
			if n += printedSize(e, depth+1, limit-n); n > limit {
				return limit + 1
			}
		}
		return n
	case map[string]any:
		n := indent + 2
		for k, e := range x {
			n += len(k) + 4
			if n += printedSize(e, depth+1, limit-n); n > limit {
				return limit + 1
			}
		}
		return n
	}
	return indent + 24
}

// textOf is toString(v) when it is at most maxString bytes, else an error:
// a list's text grows with its elements, and a list may hold the same
// large list many times.
func textOf(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	if printedSize(v, 0, maxString) > maxString {
		return "", room(maxString + 1)
	}
	s := toString(v)
	return s, room(len(s))
}

// replacedSize is the length of strings.ReplaceAll(s, old, repl), without
// building it.
func replacedSize(s, old, repl string) int {
	n := strings.Count(s, old)
	if old == "" {
		n = utf8.RuneCountInString(s) + 1
	}
	return len(s) + n*(len(repl)-len(old))
}
