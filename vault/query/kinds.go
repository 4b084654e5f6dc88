package query

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zk-claims/zk/vault/property"
)

// A KindError is a condition that orders a key's values by a literal of
// another kind: "published > yesterday" where published holds dates,
// "rating >= high" where rating holds numbers. Such a condition holds for
// no note, and "no notes match" would hide the mistake.
type KindError struct {
	Cond Cond
	// Kind is what most of the key's values are: "date" or "number".
	Kind string
}

func (e *KindError) Error() string {
	want := "a number"
	if e.Kind == kindDate {
		want = "a date (YYYY-MM-DD, or YYYY-MM-DDTHH:MM)"
	}
	return fmt.Sprintf("condition %q: %s holds %ss, and %q is not %s", e.Cond.String(), e.Cond.Key, e.Kind, e.Cond.Value, want)
}

const (
	kindDate   = "date"
	kindNumber = "number"
	kindText   = "text"
)

// literalKind is the kind of a value or a condition's literal: a date, a
// number, or text.
func literalKind(s string) string {
	if _, ok := property.ParseDate(s); ok {
		return kindDate
	}
	if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		return kindNumber
	}
	return kindText
}

// kindTally counts, for each order condition (< <= > >=), the kinds of
// its key's values over the notes seen, to find a KindError: the kind of
// a key is the one most of its values have, as zk properties infers a
// property's type.
type kindTally struct {
	conds []Cond
	count []map[string]int
}

func newKindTally(where []Cond) *kindTally {
	t := &kindTally{}
	for _, c := range where {
		switch c.Op {
		case OpLt, OpLe, OpGt, OpGe:
			t.conds = append(t.conds, c)
			t.count = append(t.count, map[string]int{})
		}
	}
	return t
}

// add counts n's values.
func (t *kindTally) add(n Note) {
	for i, c := range t.conds {
		v, ok := n.Field(c.Key)
		if !ok {
			continue
		}
		items, isList := v.([]any)
		if !isList {
			items = []any{v}
		}
		for _, e := range items {
			switch x := e.(type) {
			case int64, float64:
				t.count[i][kindNumber]++
			case string:
				if strings.TrimSpace(x) != "" {
					t.count[i][literalKind(x)]++
				}
			case nil:
			default:
				t.count[i][kindText]++
			}
		}
	}
}

// err is the first condition whose literal is not of its key's kind.
func (t *kindTally) err() error {
	for i, c := range t.conds {
		n := t.count[i]
		kind := kindText
		switch {
		case n[kindDate] > n[kindNumber] && n[kindDate] > n[kindText]:
			kind = kindDate
		case n[kindNumber] > n[kindDate] && n[kindNumber] > n[kindText]:
			kind = kindNumber
		}
		if kind != kindText && literalKind(c.Value) != kind {
			return &KindError{Cond: c, Kind: kind}
		}
	}
	return nil
}
