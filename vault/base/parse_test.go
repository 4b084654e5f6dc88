package base

import (
	"strings"
	"testing"
)

// TestParseDuplicateKeys: a key written twice in one mapping is refused,
// naming both lines, as Obsidian's YAML parser refuses it ("duplicated
// mapping key"), at every level of the file: zk's YAML library keeps both
// in its tree, and the last silently won.
func TestParseDuplicateKeys(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"top-level filters", "filters: 'file.ext == \"md\"'\nviews:\n  - type: table\nfilters: 'file.ext == \"base\"'\n",
			`base: line 4: duplicate key "filters" (first on line 1)`},
		{"a formula", "formulas:\n  a: '1'\n  b: '2'\n  a: '3'\n",
			`base: line 4: duplicate key "a" (first on line 2)`},
		{"a view's key", "views:\n  - type: table\n    name: A\n    limit: 2\n    limit: 3\n",
			`base: line 5: duplicate key "limit" (first on line 4)`},
		{"a filter group", "filters:\n  and:\n    - 'a'\n  and:\n    - 'b'\n",
			`base: line 4: duplicate key "and" (first on line 2)`},
		{"a property", "properties:\n  note.x:\n    displayName: X\n    displayName: Y\n",
			`base: line 4: duplicate key "displayName" (first on line 3)`},
		{"quoted the same", "formulas:\n  a: '1'\n  \"a\": '2'\n",
			`base: line 3: duplicate key "a" (first on line 2)`},
	} {
		_, err := Parse([]byte(tc.src))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: err %v, want %s", tc.name, err, tc.want)
		}
	}
	// The same key in two mappings is no duplicate, nor is an alias's
	// key beside the mapping it is merged into.
	for _, src := range []string{
		"views:\n  - type: table\n    name: A\n  - type: table\n    name: B\n",
		"formulas:\n  a: '1'\n  A: '2'\n",
		"properties:\n  note.x: &p\n    displayName: X\n  note.y: *p\n",
	} {
		if _, err := Parse([]byte(src)); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
	if _, err := Parse([]byte("formulas:\n  a: '1'\n  a: '2'\n")); err == nil || !strings.HasPrefix(err.Error(), "base: ") {
		t.Errorf("err %v, want a base error", err)
	}
}
