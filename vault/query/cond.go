package query

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zk-claims/zk/vault/property"
)

// Op is a comparison of a property condition.
type Op string

// The comparisons, longest first, as ParseCond looks for them.
const (
	OpNe     Op = "!="
	OpLe     Op = "<="
	OpGe     Op = ">="
	OpEq     Op = "="
	OpLt     Op = "<"
	OpGt     Op = ">"
	OpExists Op = "exists"
	OpAbsent Op = "absent"
)

var ops = []Op{OpNe, OpLe, OpGe, OpEq, OpLt, OpGt}

// Cond is one property condition: "status = draft", "rating > 3",
// "created >= 2024-01-01", "tags = idea" (a list contains), "status"
// (the note has the property), "!status" (it has not).
type Cond struct {
	Key   string
	Op    Op
	Value string
}

// String is the condition as ParseCond reads it.
func (c Cond) String() string {
	switch c.Op {
	case OpExists:
		return c.Key
	case OpAbsent:
		return "!" + c.Key
	}
	return c.Key + " " + string(c.Op) + " " + c.Value
}

// ParseCond reads a condition: KEY OP VALUE with OP one of = != < <= >
// >=, or KEY alone, or !KEY. The key is everything before the first
// operator, so it may hold spaces and dashes as Obsidian's property names
// do; the value may be quoted with " or '. "==" is read as "=".
func ParseCond(s string) (Cond, error) {
	at, op := -1, Op("")
	for i := 0; i < len(s) && at < 0; i++ {
		for _, o := range ops {
			if strings.HasPrefix(s[i:], string(o)) {
				at, op = i, o
				break
			}
		}
	}
	if at < 0 {
		c := Cond{Key: strings.TrimSpace(s), Op: OpExists}
		if neg, ok := strings.CutPrefix(c.Key, "!"); ok {
			c = Cond{Key: strings.TrimSpace(neg), Op: OpAbsent}
		}
		if c.Key == "" {
			return Cond{}, fmt.Errorf("condition %q: want KEY, !KEY or KEY OP VALUE with OP one of = != < <= > >=", s)
		}
		if !knownKey(c.Key) {
			return Cond{}, fmt.Errorf("condition %q: %w", s, UnknownFileField(c.Key))
		}
		return c, nil
	}
	key := strings.TrimSpace(s[:at])
	val := s[at+len(op):]
	if op == OpEq && strings.HasPrefix(val, "=") { // "==", as expressions write it
		val = val[1:]
	}
	val = strings.TrimSpace(val)
	if key == "" {
		return Cond{}, fmt.Errorf("condition %q: no property name before %s", s, op)
	}
	if val != "" && strings.ContainsRune("<>=", rune(val[0])) {
		// "author => x", "n =< 3", "a <> b": a mistyped operator, which
		// would otherwise compare with the text "> x" and match nothing.
		return Cond{}, fmt.Errorf("condition %q: %q is not an operator (want one of = != < <= > >=; quote a value that starts with %c)",
			s, string(op)+val[:1], val[0])
	}
	if !knownKey(key) {
		return Cond{}, fmt.Errorf("condition %q: %w", s, UnknownFileField(key))
	}
	return Cond{Key: key, Op: op, Value: unquote(val)}, nil
}

// knownKey reports whether a condition's or a column's key names a
// property (any name) or a file.* attribute zk knows.
func knownKey(key string) bool {
	return !strings.HasPrefix(key, "file.") || slices.Contains(FileFields, key)
}

// CheckField is nil when name is a column zk can show: a property, or a
// file.* attribute it knows (--fields file.size is refused, not left
// blank).
func CheckField(name string) error {
	if !knownKey(name) {
		return UnknownFileField(name)
	}
	return nil
}

// UnknownFileField is the error for a file.* attribute zk does not know
// (file.size, file.ctime: Bases has them, zk's records do not), which
// would otherwise read as a property no note has and match nothing.
func UnknownFileField(key string) error {
	return fmt.Errorf("unknown attribute %s (zk knows %s)", key, strings.Join(FileFields, ", "))
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// Holds reports whether the condition holds for a note's properties. A
// note without the property (or with it empty) satisfies only != and
// !KEY. A list satisfies = when an item equals the value, != when none
// does, an order comparison when an item satisfies it. Values compare as
// numbers when both read as numbers, as dates when both read as dates (a
// date value against a date & time compares the date alone), as
// true/false for a checkbox, else as text ignoring case; a [[link]] value
// compares as the name it links to. An order comparison with a number or
// a date holds only for a value of that kind.
func (c Cond) Holds(props map[string]any) bool {
	v, ok := props[c.Key]
	return c.holds(v, ok)
}

// HoldsFor reports whether the condition holds for n, whose file.*
// attributes (file.name, file.mtime, file.tended…; Note.Field) it can
// name as well as its properties.
func (c Cond) HoldsFor(n Note) bool {
	v, ok := n.Field(c.Key)
	return c.holds(v, ok)
}

// holds is Holds for the value v found (ok) under the condition's key.
func (c Cond) holds(v any, ok bool) bool {
	if ok && v == nil {
		ok = false
	}
	if l, isList := v.([]any); isList && len(l) == 0 {
		ok = false
	}
	switch c.Op {
	case OpExists:
		return ok
	case OpAbsent:
		return !ok
	}
	if !ok {
		return c.Op == OpNe
	}
	if l, isList := v.([]any); isList {
		if c.Op == OpNe {
			for _, e := range l {
				if r, ok := compare(e, c.Value); ok && r == 0 {
					return false
				}
			}
			return true
		}
		for _, e := range l {
			if r, ok := c.compare(e); ok && c.Op.accepts(r) {
				return true
			}
		}
		return false
	}
	r, ok := c.compare(v)
	if !ok {
		return c.Op == OpNe
	}
	return c.Op.accepts(r)
}

// compare is compare(v, c.Value), but false where c orders by a number or
// a date and v is not one: "rating > 3" is no claim about a rating of
// "five", which as text sorts after "3".
func (c Cond) compare(v any) (int, bool) {
	switch c.Op {
	case OpLt, OpLe, OpGt, OpGe:
		if k := literalKind(c.Value); k != kindText && valueKind(v) != k {
			return 0, false
		}
	}
	return compare(v, c.Value)
}

// valueKind is the kind of a property value, as literalKind is of text.
func valueKind(v any) string {
	switch x := v.(type) {
	case int64, float64:
		return kindNumber
	case string:
		return literalKind(x)
	}
	return kindText
}

func (o Op) accepts(r int) bool {
	switch o {
	case OpEq:
		return r == 0
	case OpNe:
		return r != 0
	case OpLt:
		return r < 0
	case OpLe:
		return r <= 0
	case OpGt:
		return r > 0
	case OpGe:
		return r >= 0
	}
	return false
}

// compare compares a property value with a condition's literal; false
// when they cannot be compared (a nested mapping).
func compare(v any, lit string) (int, bool) {
	switch x := v.(type) {
	case nil:
		return 0, false
	case bool:
		b, err := strconv.ParseBool(strings.ToLower(lit))
		if err != nil {
			return strings.Compare(strconv.FormatBool(x), strings.ToLower(lit)), true
		}
		return cmpBool(x, b), true
	case int64:
		return compareNumber(float64(x), lit)
	case float64:
		return compareNumber(x, lit)
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			if r, ok := compareNumber(f, lit); ok {
				return r, true
			}
		}
		if t, ok := property.ParseDate(x); ok {
			if lt, ok := property.ParseDate(lit); ok {
				if property.TypeOf(lit) == property.Date { // the date alone
					t = t.UTC().Truncate(24 * 60 * 60 * 1e9)
				}
				return t.Compare(lt), true
			}
		}
		return strings.Compare(strings.ToLower(linkName(x)), strings.ToLower(linkName(lit))), true
	case []any, map[string]any:
		return 0, false
	}
	return strings.Compare(strings.ToLower(fmt.Sprint(v)), strings.ToLower(lit)), true
}

func compareNumber(f float64, lit string) (int, bool) {
	g, err := strconv.ParseFloat(strings.TrimSpace(lit), 64)
	if err != nil {
		return 0, false
	}
	return cmp.Compare(f, g), true
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// linkName is a "[[Target#Heading|Display]]" value's Target; any other
// text as it is.
func linkName(s string) string {
	t := strings.TrimSpace(s)
	inner, ok := strings.CutPrefix(t, "[[")
	if !ok {
		return s
	}
	inner, ok = strings.CutSuffix(inner, "]]")
	if !ok {
		return s
	}
	if i := strings.IndexAny(inner, "|#"); i >= 0 {
		inner = inner[:i]
	}
	return strings.TrimSpace(inner)
}
