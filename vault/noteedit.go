package vault

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Edits an agent asks for (zk mcp's append_section and set_property):
// each returns the note's new text and keeps every other byte, so that
// EditNote can write it; neither knows files.

// ErrNoSection is AppendToSection's answer for a heading the note lacks.
var ErrNoSection = errors.New("no such section")

// AppendToSection adds text at the end of the section under the heading
// title (any level, case ignored, the first of that title): after the
// section's last line that is not blank, a blank line between, and a
// blank line kept before the next heading. Text is written in the note's
// line endings.
func AppendToSection(n *Note, title, text string) ([]byte, error) {
	sec, ok := n.Section(title, 0)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrNoSection, title)
	}
	text = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
	if text == "" {
		return nil, errors.New("nothing to append")
	}
	src := n.Src
	nl := EndingBefore(src, max(sec.Body, 1))
	// The end of the section's last line with text (the heading's, for an
	// empty section).
	at := sec.End
	for at > sec.Body && (src[at-1] == '\n' || src[at-1] == '\r' || src[at-1] == ' ' || src[at-1] == '\t') {
		at--
	}
	if at < sec.Body { // a heading line without its newline, at the end
		at = sec.Body
	}
	if at == sec.Body && sec.Body > 0 && src[sec.Body-1] != '\n' {
		at = sec.Body // the heading is the note's last line, unterminated
	}
	var b strings.Builder
	if at > 0 && src[at-1] != '\n' {
		b.WriteString(nl) // end the last line
	}
	b.WriteString(nl)
	b.WriteString(strings.ReplaceAll(text, "\n", nl))
	b.WriteString(nl)
	if sec.End < len(src) { // a heading follows: a blank line before it
		b.WriteString(nl)
	}
	return SpliceBytes(src, at, sec.End, b.String()), nil
}

// SetProperty sets the top-level frontmatter property key to value (a
// string, number, bool, or a list of them; nil clears it to an empty
// value) in the note's YAML, adding the property, or the frontmatter,
// when the note has none. The other properties keep their text. The
// result is read back: the edit is refused when the note's properties
// would then differ from what was asked (another property changed, or
// the YAML no longer parses).
func SetProperty(n *Note, key string, value any) ([]byte, error) {
	if key == "" || strings.ContainsAny(key, ":\n\r#") || strings.TrimSpace(key) != key || strings.HasPrefix(key, "-") {
		return nil, fmt.Errorf("%q is not a property name zk writes (no ':', '#', line break, or space at its ends)", key)
	}
	fm := n.Frontmatter
	if fm != nil && fm.Err != nil {
		return nil, fmt.Errorf("the frontmatter does not parse (%v); fix it first", fm.Err)
	}
	entry, err := yamlEntry(key, value)
	if err != nil {
		return nil, err
	}
	src := n.Src
	nl := LineEnding(src)
	entry = strings.ReplaceAll(entry, "\n", nl)
	var out []byte
	switch {
	case fm == nil:
		out = append([]byte("---"+nl+entry+"---"+nl), src...)
	default:
		closing := bytes.LastIndex(src[:fm.Span.End.Offset], []byte("---"))
		if closing < fm.Span.Start.Offset+3 || (closing > 0 && src[closing-1] != '\n') {
			return nil, errors.New("the frontmatter has no closing fence zk can find")
		}
		from, to, ok := propertySpan(src, fm, key, closing)
		if !ok { // a new property, last before the closing fence
			from, to = closing, closing
		}
		out = SpliceBytes(src, from, to, entry)
	}
	// Read back: the property as asked, every other one as it was.
	got := NewParser().Parse(n.Path, out)
	if got.Frontmatter == nil || got.Frontmatter.Err != nil || got.Frontmatter.Values == nil {
		return nil, errors.New("the edit would leave frontmatter that does not parse; nothing written")
	}
	want := map[string]any{}
	if fm != nil {
		for k, v := range fm.Values {
			want[k] = v
		}
	}
	back := NewParser().Parse(n.Path, []byte("---\n"+strings.ReplaceAll(entry, nl, "\n")+"---\n"))
	if back.Frontmatter != nil && back.Frontmatter.Values != nil {
		want[key] = back.Frontmatter.Values[key]
	}
	if !reflect.DeepEqual(got.Frontmatter.Values, want) {
		return nil, fmt.Errorf("setting %q would change other properties too (a key written twice, or YAML zk cannot edit in place); nothing written", key)
	}
	return out, nil
}

// yamlEntry is "key: value\n" as YAML writes it, lists as a block list.
func yamlEntry(key string, value any) (string, error) {
	switch v := value.(type) {
	case nil, string, bool, int, int64, float64:
	case []any:
		for _, e := range v {
			switch e.(type) {
			case string, bool, int, int64, float64:
			default:
				return "", fmt.Errorf("a list property holds strings, numbers or booleans, not %T", e)
			}
		}
	case []string:
	default:
		return "", fmt.Errorf("a property is a string, number, boolean or list, not %T", value)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	node := &yaml.Node{Kind: yaml.MappingNode}
	var k, val yaml.Node
	if err := k.Encode(key); err != nil {
		return "", err
	}
	if value == nil {
		val = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: ""}
	} else if err := val.Encode(value); err != nil {
		return "", err
	}
	node.Content = []*yaml.Node{&k, &val}
	if err := enc.Encode(node); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return b.String(), nil
}

// propertySpan is where the top-level property key is written in the
// frontmatter, whose closing fence starts at closing: from its line's
// start to the start of the next top-level line (its list items and
// continuation lines included).
func propertySpan(src []byte, fm *Frontmatter, key string, closing int) (int, int, bool) {
	line := -1
	for i, k := range fm.Keys {
		if k == key && i < len(fm.KeyLines) {
			line = fm.KeyLines[i]
		}
	}
	if line < 0 {
		return 0, 0, false
	}
	off := 0
	for l := 0; l < line; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return 0, 0, false
		}
		off += i + 1
	}
	from := off
	for {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 || off+i+1 >= closing {
			return from, closing, true
		}
		off += i + 1
		if c := src[off]; c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '-' {
			return from, off, true
		}
	}
}
