// Package property is a note's frontmatter read as Obsidian's properties:
// the type a value has (text, list, number, checkbox, date, date & time),
// the types a vault declares in .obsidian/types.json, and whether a value
// fits the type declared for its name.
package property

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/lazyre"
)

// Type is an Obsidian property type, as zk names it.
type Type string

// The property types of Obsidian's Properties documentation. Empty is a
// property with no value (`key:`), which fits every type; Object is a
// nested mapping, which Obsidian does not support as a property.
const (
	Text     Type = "text"
	List     Type = "list"
	Number   Type = "number"
	Checkbox Type = "checkbox"
	Date     Type = "date"
	DateTime Type = "datetime"
	Tags     Type = "tags"
	Aliases  Type = "aliases"
	Empty    Type = "empty"
	Object   Type = "object"
)

// Types are the types zk reports, in the order it lists them.
var Types = []Type{Text, List, Number, Checkbox, Date, DateTime, Tags, Aliases, Object, Empty}

var (
	dateRe     = lazyre.New(`^\d{4}-\d{2}-\d{2}$`)
	dateTimeRe = lazyre.New(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$`)
)

// TypeOf is the type of a frontmatter value as the vault package decodes
// it (vault.Frontmatter.Values): dates stay strings, so a string is a date
// or a date & time when it is one Obsidian would show in its picker (a
// real calendar date in ISO form), else text.
func TypeOf(v any) Type {
	switch x := v.(type) {
	case nil:
		return Empty
	case bool:
		return Checkbox
	case int64, float64, int:
		return Number
	case []any:
		return List
	case map[string]any:
		return Object
	case string:
		if _, ok := ParseDate(x); ok {
			if dateRe().MatchString(strings.TrimSpace(x)) {
				return Date
			}
			return DateTime
		}
		return Text
	}
	return Text
}

// ParseDate reads a date (2020-08-21) or a date & time
// (2020-08-21T10:30:00, with optional seconds, fraction and zone) that is
// real on the calendar. A time without a zone is read as UTC, so that two
// values compare as they read.
func ParseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	switch {
	case dateRe().MatchString(s):
		t, err := time.Parse(time.DateOnly, s)
		return t, err == nil
	case dateTimeRe().MatchString(s):
		for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02T15:04:05.999999999",
			time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05Z0700", "2006-01-02T15:04Z0700"} {
			if t, err := time.Parse(layout, s); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// Fits reports whether a value fits the type declared for its property.
// An empty value fits every type, as Obsidian shows it as an empty field.
// Text takes numbers and checkboxes too (Obsidian shows them as their
// text); a date & time takes a date (midnight); tags and aliases take one
// string as well as a list, as Obsidian reads `tags: single` as one tag.
func Fits(declared Type, v any) bool {
	found := TypeOf(v)
	if found == Empty || found == declared {
		return true
	}
	switch declared {
	case Text:
		return found == Number || found == Checkbox || found == Date || found == DateTime
	case DateTime:
		return found == Date
	case Tags, Aliases:
		return found == List || found == Text
	}
	return false
}

// Form is the type TypeOf gives a value of type t as Obsidian writes it:
// a list for tags and aliases, which TypeOf never gives; t itself for
// the others. zk properties counts a value of another form as of
// another type.
func (t Type) Form() Type {
	if t == Tags || t == Aliases {
		return List
	}
	return t
}

// Declared reads .obsidian/types.json, where Obsidian keeps the type
// assigned to each property name: {"types": {"rating": "number", ...}}.
// Obsidian's names are mapped to zk's ("multitext" is list); a type zk
// does not know is an error naming it, so that nothing is checked against
// a type misread.
func Declared(data []byte) (map[string]Type, error) {
	var doc struct {
		Types map[string]string `json:"types"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("types.json: %w", err)
	}
	out := make(map[string]Type, len(doc.Types))
	for k, name := range doc.Types {
		t, ok := obsidianTypes[strings.ToLower(name)]
		if !ok {
			return nil, fmt.Errorf("types.json: property %s: unknown type %s", strconv.Quote(k), strconv.Quote(name))
		}
		out[k] = t
	}
	return out, nil
}

// obsidianTypes maps the type names Obsidian writes in types.json to zk's.
var obsidianTypes = map[string]Type{
	"text":      Text,
	"multitext": List,
	"number":    Number,
	"checkbox":  Checkbox,
	"date":      Date,
	"datetime":  DateTime,
	"tags":      Tags,
	"aliases":   Aliases,
}

// TypesFile is where a vault declares its property types.
const TypesFile = ".obsidian/types.json"

// Census counts the properties of a vault's notes: for each name, how many
// notes have it and the types of their values. Add is not safe for
// concurrent use.
type Census struct {
	m map[string]*Summary
}

// Summary is one property of a vault.
type Summary struct {
	Name string
	// Type is the declared type, else the type most of the values have
	// (Empty when every value is empty).
	Type Type
	// Declared says Type comes from .obsidian/types.json.
	Declared bool
	// Notes is how many notes have the property.
	Notes int
	// Types counts the notes by the type of their value.
	Types map[Type]int
}

// Add counts one note's frontmatter values.
func (c *Census) Add(values map[string]any) {
	if c.m == nil {
		c.m = map[string]*Summary{}
	}
	for k, v := range values {
		s := c.m[k]
		if s == nil {
			s = &Summary{Name: k, Types: map[Type]int{}}
			c.m[k] = s
		}
		s.Notes++
		s.Types[TypeOf(v)]++
	}
}

// Summaries are the properties counted, by name, each typed by declared
// (nil: none declared) or else by its values.
func (c *Census) Summaries(declared map[string]Type) []Summary {
	out := make([]Summary, 0, len(c.m))
	for _, s := range c.m {
		sum := *s
		if t, ok := declared[s.Name]; ok {
			sum.Type, sum.Declared = t, true
		} else {
			sum.Type = mostCommon(s.Types)
		}
		out = append(out, sum)
	}
	slices.SortFunc(out, func(a, b Summary) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// mostCommon is the type most values have, empty values aside; ties go
// to the type listed first in Types.
func mostCommon(types map[Type]int) Type {
	best, n := Empty, 0
	for _, t := range Types {
		if t != Empty && types[t] > n {
			best, n = t, types[t]
		}
	}
	return best
}
