package vault

import (
	"bytes"
	"unicode/utf8"
)

// plainFrontmatter decodes raw as yaml.v3 and yamlConverter do when raw
// is the YAML most notes carry: at the margin, "key: value" and "key:"
// lines, the latter followed by "- item" lines (at the margin or all
// indented alike), each value on one line: a plain scalar that opens
// with a letter (a string, or true, false or null), a date, or a string
// in quotes with no quote or backslash inside. ok is false for any other
// block, which goes to yaml.v3 as before: a flow list, a number, an
// escape, a comment, a tab, a second line of a value, a key twice. A
// cold check of obsidian-hub spent a seventh of its time in yaml.v3's
// scanner and parser on blocks like these.
func plainFrontmatter(raw []byte, firstLine int) (keys []string, keyLines []int, values map[string]any, ok bool) {
	values = map[string]any{}
	key := ""      // the key whose value is the list below it, or null
	open := false  // key had no value on its line
	var list []any // key's items
	indent := -1   // the indent of key's items, -1 before the first
	closeKey := func() {
		if !open {
			return
		}
		if list == nil {
			values[key] = nil
		} else {
			values[key] = list
		}
		open, list, indent = false, nil, -1
	}
	for lineNo := 1; len(raw) > 0; lineNo++ {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		line = bytes.TrimRight(line, " ")
		if len(line) == 0 {
			continue
		}
		n := 0
		for line[n] == ' ' {
			n++
		}
		body := line[n:]
		if body[0] == '-' && (len(body) == 1 || body[1] == ' ') {
			if !open || indent >= 0 && n != indent {
				return nil, nil, nil, false
			}
			indent = n
			v := bytes.TrimLeft(body[1:], " ")
			if len(v) == 0 {
				list = append(list, nil)
				continue
			}
			val, ok := plainScalar(v)
			if !ok {
				return nil, nil, nil, false
			}
			list = append(list, val)
			continue
		}
		if n > 0 {
			return nil, nil, nil, false // a value's next line, or a nested mapping
		}
		closeKey()
		colon := bytes.IndexByte(body, ':')
		if colon <= 0 || colon > 200 || colon+1 < len(body) && body[colon+1] != ' ' || !plainKey(body[:colon]) {
			return nil, nil, nil, false
		}
		k := string(body[:colon])
		if _, dup := values[k]; dup || len(keys) == maxFrontmatterKeys {
			return nil, nil, nil, false // yaml.v3's path says why
		}
		keys = append(keys, k)
		keyLines = append(keyLines, firstLine+lineNo-1)
		v := bytes.TrimLeft(body[colon+1:], " ")
		if len(v) == 0 {
			key, open = k, true
			continue
		}
		val, ok := plainScalar(v)
		if !ok {
			return nil, nil, nil, false
		}
		values[k] = val
	}
	closeKey()
	return keys, keyLines, values, len(keys) > 0
}

// plainKey reports whether k is a key plainFrontmatter reads: letters,
// digits, spaces inside, '-', '_' and '.', opening with a letter, a digit
// or '_'.
func plainKey(k []byte) bool {
	if k[0] == '-' || k[0] == '.' || k[len(k)-1] == ' ' {
		return false
	}
	for i := 0; i < len(k); {
		c := k[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-', c == '.', c == ' ' && i > 0:
			i++
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(k[i:])
			if !plainRune(r) {
				return false
			}
			i += size
		default:
			return false
		}
	}
	return true
}

// plainScalar is the value of v as yamlConverter gives it, when v is a
// date (a timestamp to yaml.v3, its text to yamlConverter), a string in
// quotes with no escape, or a plain scalar yaml.v3 reads as a string,
// true, false or null: one that opens with a letter, and holds no ": " or
// " #" (a mapping or a comment), no ':' at its end and no control
// character. ok is false for any other v.
func plainScalar(v []byte) (any, bool) {
	switch c := v[0]; {
	case isDate(v):
		return string(v), true
	case (c == '"' || c == '\'') && len(v) > 1 && v[len(v)-1] == c:
		// Quoted, with no quote or backslash inside: no escape to read,
		// and a string whatever it holds.
		in := v[1 : len(v)-1]
		if bytes.IndexByte(in, c) >= 0 || bytes.IndexByte(in, '\\') >= 0 || !printable(in) {
			return nil, false
		}
		return string(in), true
	case !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= utf8.RuneSelf) || v[len(v)-1] == ':':
		return nil, false
	}
	if !printable(v) || bytes.Contains(v, []byte(": ")) || bytes.Contains(v, []byte(" #")) {
		return nil, false
	}
	switch s := string(v); s {
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	case "null", "Null", "NULL":
		return nil, true
	default:
		return s, true
	}
}

// isDate reports whether v is a date, "2006-01-02".
func isDate(v []byte) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for i, c := range v {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// printable reports whether v holds no control character and, past
// ASCII, only runes plainRune takes.
func printable(v []byte) bool {
	for i := 0; i < len(v); {
		c := v[i]
		switch {
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(v[i:])
			if !plainRune(r) {
				return false
			}
			i += size
			continue
		case c < ' ' || c == 0x7f:
			return false
		}
		i++
	}
	return true
}

// plainRune reports whether r, a rune past ASCII, is a character yaml.v3
// reads inside a plain scalar as itself: printable, and neither a line
// break of YAML 1.1 (U+0085, U+2028, U+2029) nor a byte order mark.
func plainRune(r rune) bool {
	switch {
	case r == utf8.RuneError, r == 0x2028, r == 0x2029, r == 0xfeff:
		return false
	case 0xa0 <= r && r <= 0xd7ff, 0xe000 <= r && r <= 0xfffd, r >= 0x10000:
		return true
	}
	return false
}
