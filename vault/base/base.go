// Package base evaluates Obsidian Bases (.base files, and ```base blocks
// in notes) headless: it parses a base's YAML (filters, formulas,
// properties, views), evaluates its expressions against a snapshot of the
// vault, and returns a view's rows, sorted, limited and grouped as
// Obsidian's Bases documentation describes. It returns values and never
// prints. What it does not evaluate it says so: an unsupported function in
// a filter fails the view (a filter is never dropped), one in a formula is
// a warning and an error value in its column.
package base

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxSize bounds a base's YAML: parsing costs time and memory in
// proportion to it, and a hand-written base is a few kilobytes.
const MaxSize = 1 << 20

// maxFilterDepth bounds how deeply and/or/not groups nest.
const maxFilterDepth = 64

// Base is a parsed .base file.
type Base struct {
	Filters *Filter
	// Formulas are the formula sources by name; FormulaNames keeps their
	// order in the file.
	Formulas     map[string]string
	FormulaNames []string
	// Properties are the display names by property id ("status",
	// "formula.price", "file.ext").
	Properties map[string]string
	Summaries  map[string]string
	Views      []View
	// Warnings are parts of the file zk reads but does not act on.
	Warnings []string
}

// Filter is a filter statement (Expr) or a group of them (Op and, or,
// not). A not group matches when none of its children does.
type Filter struct {
	Op       string // "and", "or", "not", or "" for a statement
	Expr     string
	Children []*Filter
	Line     int
}

// View is one entry of views.
type View struct {
	Type      string
	Name      string
	Filters   *Filter
	Order     []string
	Sort      []Sort
	Limit     int
	GroupBy   *Sort
	Summaries map[string]string
	// Image is a cards view's image property (image:): a column of the
	// view, as the cards show it.
	Image string
	// Warnings are the view's keys zk reads but does not act on: said
	// only when this view is evaluated.
	Warnings []string
	Line     int
}

// Sort is a property and a direction, ASC or DESC.
type Sort struct {
	Property  string
	Direction string
}

// Desc says whether the sort is descending.
func (s Sort) Desc() bool { return strings.EqualFold(s.Direction, "DESC") }

// Parse reads a base's YAML.
func Parse(src []byte) (*Base, error) {
	if len(src) > MaxSize {
		return nil, fmt.Errorf("base is %d bytes, over the %d-byte limit", len(src), MaxSize)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	if err := uniqueKeys(&doc); err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	b := &Base{Formulas: map[string]string{}, Properties: map[string]string{}, Summaries: map[string]string{}}
	if len(doc.Content) == 0 {
		return b, nil // an empty base: every file, one default view
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("base: line %d: the top level must be a mapping", root.Line)
	}
	// display: is how Obsidian named columns before properties:
	// displayName; a displayName, where both name a column, wins.
	display := map[string]string{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		var err error
		switch k.Value {
		case "filters":
			b.Filters, err = parseFilter(v, 0)
		case "formulas":
			err = stringMap(v, "formulas", func(name, src string) {
				b.Formulas[name] = src
				b.FormulaNames = append(b.FormulaNames, name)
			})
		case "properties":
			err = parseProperties(v, b)
		case "display":
			err = stringMap(v, "display", func(id, name string) { display[id] = name })
		case "summaries":
			err = stringMap(v, "summaries", func(name, src string) { b.Summaries[name] = src })
		case "views":
			err = parseViews(v, b)
		default:
			b.Warnings = append(b.Warnings, fmt.Sprintf("line %d: unknown key %q ignored", k.Line, k.Value))
		}
		if err != nil {
			return nil, fmt.Errorf("base: %w", err)
		}
	}
	for id, name := range display {
		if _, ok := b.Properties[id]; !ok {
			b.Properties[id] = name
		}
	}
	return b, nil
}

// uniqueKeys refuses a key written twice in one mapping, anywhere in the
// file. Obsidian's YAML parser refuses such a file ("duplicated mapping
// key"); zk's keeps both keys in its tree, and the last would silently
// win (a second filters: widening the view unnoticed). An alias is not
// followed: the mapping it names is checked where it is written.
func uniqueKeys(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		seen := make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				continue
			}
			if first, ok := seen[k.Value]; ok {
				return fmt.Errorf("line %d: duplicate key %q (first on line %d)", k.Line, k.Value, first)
			}
			seen[k.Value] = k.Line
		}
	}
	if n.Kind == yaml.AliasNode {
		return nil
	}
	for _, c := range n.Content {
		if err := uniqueKeys(c); err != nil {
			return err
		}
	}
	return nil
}

func stringMap(n *yaml.Node, what string, f func(k, v string)) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: %s must be a mapping", n.Line, what)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: %s.%s must be a string", v.Line, what, k.Value)
		}
		f(k.Value, v.Value)
	}
	return nil
}

func parseProperties(n *yaml.Node, b *Base) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: properties must be a mapping", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			if v.Content[j].Value == "displayName" {
				b.Properties[k.Value] = v.Content[j+1].Value
			}
		}
	}
	return nil
}

// parseFilter reads a filter: a statement string, or a mapping with one of
// and, or, not holding a list of filters.
func parseFilter(n *yaml.Node, depth int) (*Filter, error) {
	if depth > maxFilterDepth {
		return nil, fmt.Errorf("line %d: filters nest more than %d deep", n.Line, maxFilterDepth)
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil, nil
		}
		return &Filter{Expr: n.Value, Line: n.Line}, nil
	case yaml.MappingNode:
		if len(n.Content) != 2 {
			return nil, fmt.Errorf("line %d: a filter group has exactly one of and, or, not", n.Line)
		}
		op := n.Content[0].Value
		if op != "and" && op != "or" && op != "not" {
			return nil, fmt.Errorf("line %d: unknown filter group %q (want and, or or not)", n.Line, op)
		}
		list := n.Content[1]
		f := &Filter{Op: op, Line: n.Line}
		var items []*yaml.Node
		switch list.Kind {
		case yaml.SequenceNode:
			items = list.Content
		case yaml.ScalarNode, yaml.MappingNode:
			if !(list.Kind == yaml.ScalarNode && list.Tag == "!!null") {
				items = []*yaml.Node{list}
			}
		default:
			return nil, fmt.Errorf("line %d: %s must hold a list of filters", list.Line, op)
		}
		for _, it := range items {
			c, err := parseFilter(it, depth+1)
			if err != nil {
				return nil, err
			}
			if c != nil {
				f.Children = append(f.Children, c)
			}
		}
		return f, nil
	case yaml.AliasNode:
		return nil, fmt.Errorf("line %d: YAML aliases are not supported in filters", n.Line)
	}
	return nil, fmt.Errorf("line %d: a filter must be a string or an and/or/not group", n.Line)
}

func parseViews(n *yaml.Node, b *Base) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return fmt.Errorf("line %d: views must be a list", n.Line)
	}
	for _, vn := range n.Content {
		if vn.Kind != yaml.MappingNode {
			return fmt.Errorf("line %d: a view must be a mapping", vn.Line)
		}
		v := View{Line: vn.Line, Summaries: map[string]string{}}
		var ignored []string
		for i := 0; i+1 < len(vn.Content); i += 2 {
			k, val := vn.Content[i], vn.Content[i+1]
			var err error
			switch k.Value {
			case "type":
				v.Type = val.Value
			case "name":
				v.Name = val.Value
			case "filters":
				v.Filters, err = parseFilter(val, 0)
			case "order":
				err = val.Decode(&v.Order)
			case "limit":
				err = val.Decode(&v.Limit)
				if err == nil && v.Limit < 0 {
					err = errors.New("limit must be 0 or more")
				}
			case "sort":
				v.Sort, err = parseSorts(val, &ignored)
			case "groupBy":
				var g Sort
				if g, err = parseSort(val, "groupBy", &ignored); err == nil && g.Property != "" {
					v.GroupBy = &g
				}
			case "summaries":
				err = stringMap(val, "summaries", func(p, s string) { v.Summaries[p] = s })
			case "image":
				if val.Kind == yaml.ScalarNode {
					v.Image = val.Value
				} else {
					ignored = append(ignored, k.Value)
				}
			default:
				// Layouts keep their settings here (layoutKeys); none
				// changes which rows a view has, but a misspelt key
				// (filter:) would, so any other is named.
				if !layoutKeys[k.Value] {
					ignored = append(ignored, k.Value)
				}
			}
			if err != nil {
				return fmt.Errorf("line %d: view %s: %w", k.Line, k.Value, err)
			}
		}
		for _, s := range append(append([]Sort(nil), v.Sort...), derefSort(v.GroupBy)...) {
			if d := strings.ToUpper(s.Direction); d != "" && d != "ASC" && d != "DESC" {
				return fmt.Errorf("line %d: sort direction %q (want ASC or DESC)", vn.Line, s.Direction)
			}
		}
		if len(ignored) > 0 {
			v.Warnings = append(v.Warnings, fmt.Sprintf("line %d: view %q: not read by zk: %s", vn.Line, v.Name, strings.Join(ignored, ", ")))
		}
		b.Views = append(b.Views, v)
	}
	return nil
}

// layoutKeys are the settings of a view's layout that Obsidian writes
// (table: columnSize, rowHeight; cards: cardSize, imageFit,
// imageAspectRatio) and Obsidian's Maps view does: where and how the rows
// are drawn, never which rows there are. zk draws no layout and says
// nothing of them; a warning on each would be on every base Obsidian
// saves.
var layoutKeys = map[string]bool{
	"columnSize": true, "rowHeight": true,
	"cardSize": true, "imageFit": true, "imageAspectRatio": true,
	"coordinates": true, "markerIcon": true, "markerColor": true, "defaultZoom": true, "center": true,
	"minZoom": true, "maxZoom": true, "mapHeight": true, "mapTiles": true, "mapTilesDark": true,
}

func derefSort(s *Sort) []Sort {
	if s == nil {
		return nil
	}
	return []Sort{*s}
}

// parseSorts reads a view's sort: a list of sort entries. An entry
// without a property (only keys zk does not read) sorts by nothing and is
// left out; its keys are named in ignored.
func parseSorts(n *yaml.Node, ignored *[]string) ([]Sort, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, errors.New("sort must be a list")
	}
	var out []Sort
	for _, e := range n.Content {
		s, err := parseSort(e, "sort", ignored)
		if err != nil {
			return nil, err
		}
		if s.Property != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// parseSort reads a sort entry or a groupBy: {property, direction}, or a
// bare property name. column: is read as property: Obsidian wrote a sort
// so before its Sort menu (1.9.3: "Views can now be sorted by properties
// not visible in the current view"), and such bases are still in use and
// still written (kepano/kepano-obsidian's Templates/Bases, TaskNotes'
// generated views). Any other key is named in ignored as what.key: a
// misspelt property: would otherwise leave the view unsorted unnoticed.
func parseSort(n *yaml.Node, what string, ignored *[]string) (Sort, error) {
	var s Sort
	switch n.Kind {
	case yaml.ScalarNode:
		s.Property = n.Value
		return s, nil
	case yaml.MappingNode:
	default:
		return s, fmt.Errorf("line %d: a %s entry must be a mapping or a property name", n.Line, what)
	}
	var column string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var dst *string
		switch k.Value {
		case "property":
			dst = &s.Property
		case "column":
			dst = &column
		case "direction":
			dst = &s.Direction
		default:
			*ignored = append(*ignored, what+"."+k.Value)
			continue
		}
		if v.Kind != yaml.ScalarNode {
			return s, fmt.Errorf("line %d: %s.%s must be a string", v.Line, what, k.Value)
		}
		*dst = v.Value
	}
	if s.Property == "" {
		s.Property = column
	}
	return s, nil
}

// Block is a ```base code block of a note: its source, and the line of
// its opening fence (1-based).
type Block struct {
	Source string
	Line   int
}

// Blocks returns the ```base code blocks of a note, in order: a base
// embedded in a note (Create a base.md, "Embed a base as a code block").
func Blocks(src []byte) []Block {
	var out []Block
	lines := bytes.SplitAfter(src, []byte("\n"))
	for i := 0; i < len(lines); i++ {
		fence, info, ok := openFence(lines[i])
		if !ok {
			continue
		}
		var body []byte
		j := i + 1
		for ; j < len(lines); j++ {
			if closesFence(lines[j], fence) {
				break
			}
			body = append(body, lines[j]...)
		}
		if info == "base" { // another block's text, even ```base in it, is not a base
			out = append(out, Block{Source: string(body), Line: i + 1})
		}
		i = j
	}
	return out
}

// openFence reads a fence opening line: up to three spaces, three or more
// backticks or tildes, an info string.
func openFence(line []byte) (fence string, info string, ok bool) {
	s := strings.TrimRight(string(line), "\r\n")
	t := strings.TrimLeft(s, " ")
	if len(s)-len(t) > 3 || len(t) < 3 {
		return "", "", false
	}
	c := t[0]
	if c != '`' && c != '~' {
		return "", "", false
	}
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 {
		return "", "", false
	}
	info = strings.TrimSpace(t[n:])
	if c == '`' && strings.Contains(info, "`") {
		return "", "", false
	}
	if f := strings.Fields(info); len(f) > 0 {
		info = f[0]
	}
	return t[:n], info, true
}

func closesFence(line []byte, fence string) bool {
	s := strings.TrimSpace(string(line))
	if len(strings.TrimLeft(string(line), " ")) < len(string(line))-3 {
		return false
	}
	return len(s) >= len(fence) && strings.Trim(s, fence[:1]) == "" && s[0] == fence[0]
}
