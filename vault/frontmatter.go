package vault

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/zk-claims/zk/internal/lazyre"
)

// Frontmatter limits. yaml.v3 checks duplicate keys pairwise, so a block of
// thousands of keys costs seconds and hundreds of megabytes
// (research/reliability.md §5, case 19); past these caps the block is
// reported as invalid and not decoded.
const (
	maxFrontmatterBytes = 64 << 10
	maxFrontmatterKeys  = 1000
)

// parseFrontmatter finds a YAML block that opens with "---" on the very
// first line and closes with a "---" line. Without a closing fence there is
// no frontmatter, and the first line is ordinary markdown (a thematic
// break), as in Obsidian. It returns the block and the offset just past the
// closing fence line.
func parseFrontmatter(src []byte, lines *lineIndex) (*Frontmatter, int) {
	first := src
	if i := bytes.IndexByte(src, '\n'); i >= 0 {
		first = src[:i]
	} else {
		return nil, 0
	}
	if string(bytes.TrimRight(first, " \t\r")) != "---" {
		return nil, 0
	}
	bodyStart := len(first) + 1
	closeStart := -1
	for off := bodyStart; off < len(src); {
		end := bytes.IndexByte(src[off:], '\n')
		lineEnd := len(src)
		if end >= 0 {
			lineEnd = off + end
		}
		if string(bytes.TrimRight(src[off:lineEnd], " \t\r")) == "---" {
			closeStart = off
			break
		}
		if end < 0 {
			break
		}
		off = lineEnd + 1
	}
	if closeStart < 0 {
		return nil, 0
	}
	closeEnd := closeStart + 3
	after := lines.lineEnd(closeStart)
	raw := src[bodyStart:closeStart]
	end := after
	if end < len(src) {
		end++
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		// "---\n---": Obsidian records no frontmatter at all.
		return nil, end
	}
	fm := &Frontmatter{Raw: raw, Span: Span{Start: lines.pos(0), End: lines.pos(closeEnd)}, ErrLine: -1}
	if len(raw) > maxFrontmatterBytes {
		fm.Err = fmt.Errorf("frontmatter is %d bytes, over the %d byte limit", len(raw), maxFrontmatterBytes)
		fm.ErrLine = 0
		return fm, end
	}
	decodeFrontmatter(fm, 1)
	return fm, end
}

var yamlLine = lazyre.New(`line (\d+)`)

func decodeFrontmatter(fm *Frontmatter, firstLine int) {
	if keys, keyLines, values, ok := plainFrontmatter(fm.Raw, firstLine); ok {
		fm.Keys, fm.KeyLines, fm.Values = keys, keyLines, values
		return
	}
	decodeYAML(fm, firstLine)
}

// decodeYAML is decodeFrontmatter through yaml.v3, for any block.
func decodeYAML(fm *Frontmatter, firstLine int) {
	var doc yaml.Node
	if err := yaml.Unmarshal(fm.Raw, &doc); err != nil {
		msg := err.Error()
		fm.ErrLine = 0
		if m := yamlLine().FindStringSubmatchIndex(msg); m != nil {
			n, _ := strconv.Atoi(msg[m[2]:m[3]])
			fm.ErrLine = firstLine + n - 1
			// The line of the note, which the finding is at, not the
			// line within the block (a finding at 3:1 said "line 2").
			msg = msg[:m[2]] + strconv.Itoa(fm.ErrLine+1) + msg[m[3]:]
		}
		if strings.Contains(msg, "cannot start any token") {
			// YAML's reserved indicators: obsidian-hub has 15 notes of
			// "aliases: - @name", which Obsidian cannot read either.
			msg += " (a value starting with @ or ` must be quoted: \"@name\")"
		}
		fm.Err = fmt.Errorf("frontmatter: %s", msg)
		return
	}
	if len(doc.Content) == 0 {
		// An empty block: Obsidian records no properties.
		return
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
			return
		}
		fm.Err = fmt.Errorf("frontmatter is not a mapping of properties")
		fm.ErrLine = firstLine + root.Line - 1
		return
	}
	if len(root.Content)/2 > maxFrontmatterKeys {
		fm.Err = fmt.Errorf("frontmatter has %d properties, over the limit of %d", len(root.Content)/2, maxFrontmatterKeys)
		fm.ErrLine = 0
		return
	}
	values := map[string]any{}
	conv := yamlConverter{budget: expansionBudget(len(fm.Raw))}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i].Value
		if _, dup := values[k]; dup {
			fm.Err = fmt.Errorf("frontmatter: property %q is defined twice", k)
			fm.ErrLine = firstLine + root.Content[i].Line - 1
			fm.Keys, fm.KeyLines = nil, nil
			return
		}
		fm.Keys = append(fm.Keys, k)
		fm.KeyLines = append(fm.KeyLines, firstLine+root.Content[i].Line-1)
		values[k] = conv.value(root.Content[i+1], 0)
		if conv.over != nil {
			fm.Err = fmt.Errorf("frontmatter: aliases expand property %q past %d values and characters, %d times the block's size (an alias bomb?)",
				k, conv.budget, expansionFactor)
			fm.ErrLine = firstLine + conv.over.Line - 1
			fm.Keys, fm.KeyLines = nil, nil
			return
		}
	}
	fm.Values = values
}

// expansionFactor bounds what YAML aliases may expand a frontmatter block
// to: its values (nodes plus the characters of their strings, every link
// of a string being one frontmatter link) at most this many times its
// bytes. A 444-byte block of nine anchors, each a list of nine references
// to the previous, expands to 9^9 nodes; a string of N links repeated N
// times by aliases to N^2 links. yaml.v3's own decoder counts expanded
// nodes the same way, but decoding into a yaml.Node keeps aliases as they
// are and leaves the expansion to us.
const expansionFactor = 16

// expansionBudget is what a block of size bytes may expand to: with a
// floor, so that a small block may still repeat a list or two.
func expansionBudget(size int) int {
	return max(size, 4096) * expansionFactor
}

// yamlConverter converts YAML nodes to property values, counting what
// aliases expand to against a budget.
type yamlConverter struct {
	budget, spent int
	// over is the alias that took the conversion past its budget.
	over  *yaml.Node
	alias *yaml.Node
}

// value converts a YAML node to what Obsidian's properties hold: dates
// and times stay the strings the note wrote, numbers become numbers. Once
// the budget is spent it returns nil and sets c.over.
func (c *yamlConverter) value(n *yaml.Node, depth int) any {
	if depth > 100 || c.over != nil {
		return nil
	}
	// Every node costs one, and a string its length: the links in it, and
	// the check's work on them, grow with its characters.
	c.spent += 1 + len(n.Value)
	if c.spent > c.budget {
		c.over = cmp.Or(c.alias, n)
		return nil
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil
		}
		if c.alias == nil {
			c.alias = n // the outermost alias is the one the note wrote here
			defer func() { c.alias = nil }()
		}
		return c.value(n.Alias, depth+1)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			out = append(out, c.value(e, depth+1))
		}
		return out
	case yaml.MappingNode:
		out := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			out[n.Content[i].Value] = c.value(n.Content[i+1], depth+1)
		}
		return out
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil
		case "!!bool":
			var b bool
			if n.Decode(&b) == nil {
				return b
			}
		case "!!int":
			var i int64
			if n.Decode(&i) == nil {
				return i
			}
		case "!!float":
			var f float64
			if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				return f
			}
		}
		return n.Value
	}
	return nil
}

// frontmatterLinks finds [[wikilinks]] in frontmatter string values. Keys
// of list items are "key.index", as Obsidian writes them.
func frontmatterLinks(values map[string]any, keys []string) []FrontmatterLink {
	var out []FrontmatterLink
	var visit func(key string, v any)
	visit = func(key string, v any) {
		switch x := v.(type) {
		case string:
			for _, m := range wikiInString(x) {
				inner := m[2 : len(m)-2]
				target, display, has := splitWikiInner(inner)
				p, sub := splitSubpath(target)
				if !has {
					display = defaultDisplay(p, sub)
				}
				out = append(out, FrontmatterLink{Key: key, Link: target, Path: p, Subpath: sub, Original: m, DisplayText: display})
			}
		case []any:
			for i, e := range x {
				visit(key+"."+strconv.Itoa(i), e)
			}
		case map[string]any:
			// Obsidian does not look for links in nested objects.
		}
	}
	for _, k := range keys {
		visit(k, values[k])
	}
	return out
}

// FrontmatterLinkOffsets are the offsets in n.Src of the "[[" of each of
// n.FrontmatterLinks, in order, each found after the one before, or -1
// where its text is not in the frontmatter as parsed (a YAML escape in a
// double-quoted string, a folded line). FrontmatterLinks carry no place
// of their own: they are read from the YAML's values, not its text.
func (n *Note) FrontmatterLinkOffsets() []int {
	out := make([]int, len(n.FrontmatterLinks))
	f := n.newFMLinkFinder()
	for i, l := range n.FrontmatterLinks {
		out[i] = f.next(l.Original)
	}
	return out
}

// fmLinkFinder finds a note's frontmatter links in its frontmatter's
// text, each after the last found, and the lines they are on. A value on
// the stack, and a search that converts no link to bytes: the graph's
// edges of every note are made through it (GraphLinks).
type fmLinkFinder struct {
	src       []byte
	fm        *Frontmatter
	from, end int // where the next search starts and the frontmatter ends
	line, at  int // the line of offset at, counted on from the last place asked for
}

func (n *Note) newFMLinkFinder() fmLinkFinder {
	f := fmLinkFinder{src: n.Src, fm: n.Frontmatter}
	if fm := n.Frontmatter; fm != nil {
		f.from, f.end = fm.Span.Start.Offset, min(fm.Span.End.Offset, len(n.Src))
		f.line, f.at = fm.Span.Start.Line, fm.Span.Start.Offset
	}
	return f
}

// next is the offset of the link text original after the last found, or
// -1.
func (f *fmLinkFinder) next(original string) int {
	if f.fm == nil || !strings.HasPrefix(original, "[[") {
		return -1
	}
	for at := f.from; at < f.end; {
		j := bytes.Index(f.src[at:f.end], []byte("[["))
		if j < 0 {
			return -1
		}
		off := at + j
		if off+len(original) <= f.end && string(f.src[off:off+len(original)]) == original {
			f.from = off + len(original)
			return off
		}
		at = off + 1
	}
	return -1
}

// pos is the place of off, at or after the last asked for: its line
// counted on from there, not searched for from the top.
func (f *fmLinkFinder) pos(off int) Pos {
	if off < f.at { // not in order: counted from the frontmatter's start
		f.line, f.at = f.fm.Span.Start.Line, f.fm.Span.Start.Offset
	}
	f.line += bytes.Count(f.src[f.at:off], []byte{'\n'})
	f.at = off
	start := bytes.LastIndexByte(f.src[:off], '\n') + 1
	return Pos{Line: f.line, Col: off - start, Offset: off}
}

// keyLine is the start of the line of the property key names ("cast.0"
// is the list "cast"'s), or of the frontmatter when none is found: where
// zk check reports a frontmatter link.
func (f *fmLinkFinder) keyLine(key string) Pos {
	fm := f.fm
	if fm == nil {
		return Pos{}
	}
	line := fm.Span.Start.Line
	for k := key; ; {
		if i := slices.Index(fm.Keys, k); i >= 0 && i < len(fm.KeyLines) {
			line = fm.KeyLines[i]
			break
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	off := fm.Span.Start.Offset
	for ln := fm.Span.Start.Line; ln < line && off < len(f.src); ln++ {
		i := bytes.IndexByte(f.src[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	return Pos{Line: line, Offset: off}
}

// wikiInString returns each [[...]] in s.
func wikiInString(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "[[")
		if i < 0 {
			return out
		}
		j := strings.Index(s[i+2:], "]]")
		if j < 0 {
			return out
		}
		if j > 0 {
			out = append(out, s[i:i+2+j+2])
		}
		s = s[i+2+j+2:]
	}
}
