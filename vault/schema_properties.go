package vault

import (
	"bytes"
	"strings"
)

// templateProperties are the properties a template's frontmatter writes:
// a note of its type is to have each. A template's values are often
// template variables ("created: {{date}}") that YAML reads as a flow
// mapping or not at all, so when the block does not parse, the top-level
// keys are read line by line.
func templateProperties(n *Note) []string {
	fm := n.Frontmatter
	if fm == nil {
		return nil
	}
	if fm.Err == nil {
		return fm.Keys
	}
	var keys []string
	for line := range bytes.Lines(fm.Raw) {
		s := string(bytes.TrimRight(line, "\r\n"))
		if s == "" || strings.ContainsRune(" \t-#", rune(s[0])) {
			continue // an indented value, a list item, a comment
		}
		k, _, ok := strings.Cut(s, ":")
		k = strings.Trim(strings.TrimSpace(k), `"'`)
		if ok && k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}
