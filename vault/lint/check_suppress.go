package lint

import (
	"bytes"
	"slices"
	"strings"

	"github.com/zk-claims/zk/internal/lazyre"
	"github.com/zk-claims/zk/vault"
)

// IgnoreKey is the frontmatter property that silences rules for a whole
// note: "zk-ignore: [links/untyped]".
const IgnoreKey = "zk-ignore"

// ignoreRe matches an inline suppression, as an HTML comment or an
// Obsidian comment: <!-- zk-ignore RULE... --> or %% zk-ignore RULE... %%.
var ignoreRe = lazyre.New(`<!--[ \t]*zk-ignore\b([^>\n]*?)-->|%%[ \t]*zk-ignore\b([^%\n]*?)%%`)

// ignore is one suppression: the rules it names (none means every rule)
// over the 0-based lines [from, to].
type ignore struct {
	rules    []string
	from, to int
}

func (ig ignore) covers(f Finding) bool {
	line := f.Line - 1
	return line >= ig.from && line <= ig.to && ruleListed(ig.rules, f.Rule)
}

// ruleListed reports whether rule is named by a suppression's list: by
// id, by its group ("links" or "links/*"), or by "all"; an empty list
// names every rule.
func ruleListed(rules []string, rule string) bool {
	if len(rules) == 0 {
		return true
	}
	return slices.ContainsFunc(rules, func(r string) bool { return NameSpecificity(r, rule) > 0 })
}

// NameSpecificity says how name names rule, as zk-ignore and the config
// name rules: 3 by its id, 2 by its group ("links" or "links/*"), 1 as
// "all" (or "*"), 0 not at all. Of several names of one rule, the more
// specific wins.
func NameSpecificity(name, rule string) int {
	group, _, _ := strings.Cut(rule, "/")
	switch name {
	case rule:
		return 3
	case group, group + "/*":
		return 2
	case "all", "*":
		return 1
	}
	return 0
}

// RulesNamed are the ids of the rules name names (NameSpecificity), in
// Rules' order: none for a name that is no rule, group nor "all".
func RulesNamed(name string) []string {
	var out []string
	for _, r := range Rules() {
		if NameSpecificity(name, r.ID) > 0 {
			out = append(out, r.ID)
		}
	}
	return out
}

// ignores are a note's suppressions: frontmatter zk-ignore for the whole
// note, and each zk-ignore comment for the line or block after it (or,
// written after text on a line, for that line).
type ignores struct {
	whole []string
	lines []ignore
}

// ignoresOf reads a note's suppressions.
func ignoresOf(n *vault.Note, lines vault.Lines) ignores {
	var whole []string
	if fm := n.Frontmatter; fm != nil && fm.Values != nil {
		switch v := fm.Values[IgnoreKey].(type) {
		case string:
			whole = splitRules(v)
			if len(whole) == 0 {
				whole = []string{"all"}
			}
		case []any:
			for _, r := range v {
				if s, ok := r.(string); ok {
					whole = append(whole, splitRules(s)...)
				}
			}
		}
	}
	var igs []ignore
	var matches [][]int
	if bytes.Contains(n.Src, []byte("zk-ignore")) { // the regexp is costly on every note
		matches = ignoreRe().FindAllSubmatchIndex(n.Src, -1)
	}
	for _, m := range matches {
		list := m[2:4]
		if list[0] < 0 {
			list = m[4:6]
		}
		ig := ignore{rules: splitRules(string(n.Src[list[0]:list[1]]))}
		start, end := m[0], m[1]
		ig.from = lines.Line(start)
		if len(strings.TrimSpace(string(n.Src[lines.Start(start):start]))) > 0 {
			ig.to = ig.from // a trailing comment: this line only
		} else {
			ig.from, ig.to = nextBlockLines(n, lines, end)
		}
		igs = append(igs, ig)
	}
	return ignores{whole: whole, lines: igs}
}

// filter drops the findings the suppressions silence.
func (ig ignores) filter(fs []Finding) []Finding {
	if len(ig.whole) == 0 && len(ig.lines) == 0 {
		return fs
	}
	return slices.DeleteFunc(fs, func(f Finding) bool {
		if len(ig.whole) > 0 && ruleListed(ig.whole, f.Rule) {
			return true
		}
		return slices.ContainsFunc(ig.lines, func(l ignore) bool { return l.covers(f) })
	})
}

// nextBlockLines are the 0-based lines of the first block that starts
// after offset off, or of the next line when no block does.
func nextBlockLines(n *vault.Note, lines vault.Lines, off int) (int, int) {
	next := lines.Line(off) + 1
	for _, b := range n.Blocks {
		if b.Span.Start.Offset >= off && !isComment(n, b) {
			last := lines.Line(max(b.Span.Start.Offset, b.Span.End.Offset-1))
			return min(next, b.Span.Start.Line), last
		}
	}
	return next, next
}

func splitRules(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}
