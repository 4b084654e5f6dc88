package vault

import (
	"reflect"
	"strings"
	"testing"
)

// samePlainAsYAML reports whether plainFrontmatter takes raw, and fails
// t when it does but yaml.v3's path (decodeYAML) reads raw otherwise.
func samePlainAsYAML(t *testing.T, raw string) bool {
	t.Helper()
	keys, keyLines, values, ok := plainFrontmatter([]byte(raw), 1)
	if !ok {
		return false
	}
	want := Frontmatter{Raw: []byte(raw), ErrLine: -1}
	decodeYAML(&want, 1)
	got := Frontmatter{Raw: []byte(raw), ErrLine: -1, Keys: keys, KeyLines: keyLines, Values: values}
	if want.Err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("frontmatter %q:\nplain  %#v\nyaml.v3 %#v (err %v)", raw, got, want, want.Err)
	}
	return true
}

// TestPlainFrontmatter: the blocks notes carry most are read without
// yaml.v3, as yaml.v3 reads them; any other goes to yaml.v3.
func TestPlainFrontmatter(t *testing.T) {
	for raw, plain := range map[string]bool{
		"aliases:\n- Ilya Paripsa\ntags:\n- \npublish: true\n":                         true,
		"plugin-id: time-bullet\naliases:\n- Time Bullet\ntags: \n- \npublish: true\n": true,
		"aliases: \n- Topia\ntags:\npublish: true\n":                                   true,
		"aliases:\n  - How to/Embed files\ncssclasses:\n  - soft-embed\ndescription: Learn how to embed files, from your vault (in notes).\npermalink: embeds\nmobile: TRUE\n": true,
		"title: Über café\nx: null\ny: False\n\nz: see [[Note]] and a#tag\n":                                                                                                   true,
		"a: 1\n": false, // a number
		"a: '[[x]]'\nb: \"1.10\"\nc:\n- \"x: y # z\"\nd: ''\n": true,
		"date: 2025-10-01\nlist:\n  - 2025-10-21\n":            true,
		"a: 'it''s'\n":          false, // an escape
		"a: \"x\\ty\"\n":        false,
		"a: \"x\" y\n":          false,
		"a: 2025-1-01\n":        false,
		"a: 2025-10-01 10:00\n": false,
		"a: [x, y]\n":           false, // a flow list
		"a: b # c\n":            false, // a comment
		"a: b\n  c\n":           false, // a value's second line
		"a: b: c\n":             false, // a mapping in a value
		"a: b\na: c\n":          false, // a key twice: yaml.v3's path says so
		"a:\n - x\n  - y\n":     false, // items indented unlike
		"a: b\n- x\n":           false, // an item under a value
		"a:\tb\n":               false, // a tab
		"a: ~\n":                false,
		"a: \u2028b\n":          false,
		"a: b\r\n":              false,
		"- a\n":                 false, // a list, not a mapping
		"'a': b\n":              false,
		"<<: b\n":               false,
		"a:b\n":                 false,
		"a: yes\n":              true, // a string in yaml.v3 (YAML 1.2)
		"a: b:c d#e f'g \"h\n":  true,
	} {
		if got := samePlainAsYAML(t, raw); got != plain {
			t.Errorf("plainFrontmatter takes %q: %v, want %v", raw, got, plain)
		}
	}
}

// FuzzPlainFrontmatter holds plainFrontmatter to yaml.v3's path on any
// block it takes.
func FuzzPlainFrontmatter(f *testing.F) {
	for _, s := range []string{
		"aliases:\n- Ilya Paripsa\ntags:\n- \npublish: true\n",
		"aliases:\n  - How to/Embed files\ndescription: Learn, how (to).\n",
		"a: b\nc:\nd: e\n", "a:\n-\n- x\n", "a: Über\n", "k.x y: v\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) { samePlainAsYAML(t, raw) })
}

// plainTokens are the pieces FuzzPlainFrontmatterTokens makes blocks of:
// what plainFrontmatter reads and the bytes that make YAML read it
// otherwise.
var plainTokens = []string{
	"\n", "a", "B", "key", "k-2", "x_y", "z.w", "2025-10-01", "\"x\"", "'y'", " ", "  ", ": ", ":", "- ", "-", "true", "False", "NULL", "null", "yes", "~",
	"é", "\u00a0", "\u0085", "\u2028", "\ufeff", "😀", "#", " #", "'", "\"", "[", "]", "{", "}", ",", "&", "*", "!", "|", ">",
	"%", "@", "`", "?", "\t", "\r", "1", "0x", ".", "---", "...", "<<", "\\", "a: b\n", "c:\n", "- d\n", "  - e\n", "\x00", "\x7f",
}

// FuzzPlainFrontmatterTokens holds plainFrontmatter to yaml.v3's path on
// blocks of plainTokens: each input byte picks one.
func FuzzPlainFrontmatterTokens(f *testing.F) {
	f.Add([]byte{1, 18, 2, 0, 3, 16, 0, 14, 4, 0})
	f.Add([]byte{53, 54, 55, 56, 53, 0})
	f.Fuzz(func(t *testing.T, picks []byte) {
		var b strings.Builder
		for _, p := range picks {
			b.WriteString(plainTokens[int(p)%len(plainTokens)])
		}
		samePlainAsYAML(t, b.String())
	})
}
