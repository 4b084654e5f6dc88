package lint

import (
	"strconv"

	"github.com/zk-claims/zk/vault/property"
)

// typeMismatch reports a frontmatter value that does not fit the type the
// vault declares for its property (.obsidian/types.json): Obsidian shows
// such a value with a warning, and Bases and Dataview read it as nothing
// or as text.
func (nc *noteCheck) typeMismatch() {
	fm := nc.n.Frontmatter
	if len(nc.c.opts.PropertyTypes) == 0 || fm == nil || fm.Values == nil {
		return
	}
	for i, k := range fm.Keys {
		want, ok := nc.c.opts.PropertyTypes[k]
		if !ok {
			continue
		}
		if v := fm.Values[k]; !property.Fits(want, v) {
			nc.atLine(RuleTypeMismatch, fm.KeyLines[i], "property %s is declared %s in %s, found %s",
				strconv.Quote(k), want, property.TypesFile, property.TypeOf(v))
		}
	}
}

// missingProperties reports each property the note's type's template
// writes in its frontmatter that the note does not have.
func (nc *noteCheck) missingProperties() {
	if nc.typ.Schema == nil || len(nc.typ.Schema.Properties) == 0 {
		return
	}
	var values map[string]any
	line := 0
	if fm := nc.n.Frontmatter; fm != nil {
		if fm.Err != nil {
			return // frontmatter/invalid says why none can be read
		}
		values, line = fm.Values, fm.Span.Start.Line
	}
	for _, k := range nc.typ.Schema.Properties {
		if _, ok := values[k]; !ok {
			nc.atLine(RuleMissingProperty, line, "missing property %s, which the %s template writes", strconv.Quote(k), nc.typ.Name)
		}
	}
}
