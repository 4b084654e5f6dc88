package vault

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Finding is one problem zk check reports. Line and Column are 1-based;
// Column counts characters (runes) from the start of the line. EndLine and
// EndColumn, when set, are where the problem's text ends (exclusive).
type Finding struct {
	Path               string
	Line, Column       int
	EndLine, EndColumn int
	Rule               string
	Severity           Severity
	Message            string
}

// DefaultRelations is the relation vocabulary of DESIGN.md §3.
var DefaultRelations = []string{"extends", "contrasts", "evidence-for", "evidence-against",
	"applies-in", "refines", "contradicts", "supports", "example-of", "part-of"}

// CheckOptions configure Check.
type CheckOptions struct {
	// Today is the date maintenance is measured against.
	Today time.Time
	// Types are the note types; a note is of the first type it matches,
	// and a note of no type gets only the rules every note gets.
	Types []*NoteType
	// Relations is the Links vocabulary; nil means DefaultRelations.
	Relations []string
	// Severity overrides rules' default severities; Off silences one.
	Severity map[string]Severity
	// TendedKeys are the frontmatter properties read as Last tended; nil
	// means DefaultTendedKeys.
	TendedKeys []string
	// Interval is the tending interval of a note whose frontmatter and
	// type set none; the zero Interval means DefaultInterval.
	Interval Interval
	// Only, when set, limits the notes checked (links still resolve
	// against the whole vault).
	Only func(path string) bool
}

// Check lints every note of a scan and returns the findings sorted by
// path, line, column and rule. It is pure: the scan and the options in,
// findings out.
func Check(s *Scan, opts CheckOptions) []Finding {
	c := newChecker(s, opts)
	var out []Finding
	for _, sk := range s.Skipped {
		if isNotePath(sk.Path) && (opts.Only == nil || opts.Only(sk.Path)) {
			out = c.add(out, Finding{Path: sk.Path, Line: 1, Column: 1, Rule: RuleFileSkipped,
				Message: "not checked: " + sk.Reason})
		}
	}
	var notes []*Note
	for _, n := range s.Notes {
		if opts.Only == nil || opts.Only(n.Path) {
			notes = append(notes, n)
		}
	}
	per := make([][]Finding, len(notes))
	var wg sync.WaitGroup
	workers := min(scanWorkers(), max(1, len(notes)))
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				per[i] = c.note(notes[i])
			}
		})
	}
	for i := range notes {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, fs := range per {
		out = append(out, fs...)
	}
	SortFindings(out)
	return out
}

// SortFindings orders findings by path, line, column, then rule.
func SortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Column, b.Column), strings.Compare(a.Rule, b.Rule))
	})
}

type checker struct {
	scan      *Scan
	opts      CheckOptions
	relations map[string]bool
	vocab     []string
	// aliases maps a folded alias to the notes that declare it.
	aliases map[string][]*Note
}

func newChecker(s *Scan, opts CheckOptions) *checker {
	c := &checker{scan: s, opts: opts, relations: map[string]bool{}, aliases: map[string][]*Note{}}
	c.vocab = opts.Relations
	if c.vocab == nil {
		c.vocab = DefaultRelations
	}
	for _, r := range c.vocab {
		c.relations[strings.ToLower(r)] = true
	}
	for _, n := range s.Notes {
		for _, a := range noteAliases(n) {
			c.aliases[fold(a)] = append(c.aliases[fold(a)], n)
		}
	}
	return c
}

// severity is the rule's severity under the options.
func (c *checker) severity(rule string) Severity {
	if s, ok := c.opts.Severity[rule]; ok {
		return s
	}
	r, _ := RuleByID(rule)
	return r.Default
}

// add appends f unless its rule is off.
func (c *checker) add(out []Finding, f Finding) []Finding {
	if f.Severity = c.severity(f.Rule); f.Severity == Off {
		return out
	}
	return append(out, f)
}

func (c *checker) typeOf(n *Note) *NoteType {
	for _, t := range c.opts.Types {
		if t.Matches(n) {
			return t
		}
	}
	return nil
}

// noteCheck is the state of checking one note.
type noteCheck struct {
	c     *checker
	n     *Note
	lines *lineIndex
	out   []Finding
}

func (c *checker) note(n *Note) []Finding {
	nc := &noteCheck{c: c, n: n, lines: newLineIndex(n.Src)}
	if fm := n.Frontmatter; fm != nil && fm.Err != nil {
		nc.atLine(RuleFrontmatter, max(fm.ErrLine, 0), "%v", fm.Err)
	}
	typ := c.typeOf(n)
	flat := false
	if typ != nil {
		flat = nc.flattened(typ.Schema)
		if !flat {
			nc.structure(typ)
			nc.claim()
			nc.falsifiers()
			nc.linkEntries()
		}
	}
	nc.links()
	if !flat {
		nc.maintenance(typ)
	}
	nc.runEdited()
	return suppress(n, nc.lines, nc.out)
}

// at reports a finding spanning the byte offsets [start, end) of the note.
func (nc *noteCheck) at(rule string, start, end int, format string, args ...any) {
	f := Finding{Path: nc.n.Path, Rule: rule, Message: fmt.Sprintf(format, args...)}
	f.Line, f.Column = nc.lineCol(start)
	if end > start {
		f.EndLine, f.EndColumn = nc.lineCol(end)
	}
	nc.out = nc.c.add(nc.out, f)
}

// atLine reports a finding at the start of a 0-based line.
func (nc *noteCheck) atLine(rule string, line int, format string, args ...any) {
	line = max(0, min(line, len(nc.lines.starts)-1))
	off := nc.lines.starts[line]
	nc.at(rule, off, off, format, args...)
}

// lineCol is the 1-based line and rune column of a byte offset.
func (nc *noteCheck) lineCol(off int) (int, int) {
	p := nc.lines.pos(off)
	return p.Line + 1, utf8.RuneCount(nc.n.Src[off-p.Col:off]) + 1
}

// lastLine is the 0-based line of the note's last non-empty line.
func (nc *noteCheck) lastLine() int {
	l := len(nc.lines.starts) - 1
	if l > 0 && nc.lines.starts[l] == len(nc.n.Src) {
		l--
	}
	return l
}
