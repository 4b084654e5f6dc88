package vault

import (
	"cmp"
	"context"
	"fmt"
	"os"
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
	c := newChecker(s.Resolver, opts)
	results := make([]noteResult, len(s.Notes))
	forEach(len(s.Notes), func(i int) { results[i] = c.note(s.Notes[i]) })
	return c.finish(s.Skipped, results)
}

// CheckReport is what CheckVault found.
type CheckReport struct {
	Findings []Finding
	// Notes is how many notes were checked.
	Notes int
	// Files are the vault's files, as the check walked them.
	Files []File
}

// CheckVault checks the notes of a walk of the vault (Files) as Check
// does, but reads and parses them as it goes and keeps of each only what
// the link rules need (its headings, block ids and aliases), so that
// memory grows with the findings rather than with the vault's text. each,
// when set, sees every note parsed, from several goroutines at once.
func CheckVault(ctx context.Context, v *Vault, files []File, skips []Skip, opts CheckOptions, each func(*Note)) (*CheckReport, error) {
	skips = slices.Clone(skips) // notes that cannot be read are added
	paths, notes := splitFiles(files)
	c := newChecker(NewResolver(paths), opts)
	results := make([]noteResult, len(notes))
	reasons := v.loadEach(ctx, notes, func(i int, n *Note) {
		if each != nil {
			each(n)
		}
		results[i] = c.note(n)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, why := range reasons {
		if why != "" {
			skips = append(skips, Skip{Path: notes[i].Path, Reason: why})
		}
	}
	r := &CheckReport{Findings: c.finish(skips, results), Files: files}
	for _, res := range results {
		if res.checked {
			r.Notes++
		}
	}
	return r, nil
}

// splitFiles is every path of a walk, for the resolver, and its notes.
func splitFiles(files []File) (paths []string, notes []File) {
	paths = make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
		if f.IsNote() {
			notes = append(notes, f)
		}
	}
	return paths, notes
}

// loadEach reads and parses notes on the scan's workers and calls f with
// each one parsed, from several goroutines at once. It returns, by index,
// why a note that could not be read was skipped ("" for one read). It
// stops starting notes once ctx is done.
func (v *Vault) loadEach(ctx context.Context, notes []File, f func(i int, n *Note)) []string {
	reasons := make([]string, len(notes))
	dirs := &dirRoots{v: v, m: map[string]*os.Root{}}
	defer dirs.close()
	parsers := sync.Pool{New: func() any { return NewParser() }}
	forEach(len(notes), func(i int) {
		if ctx.Err() != nil {
			return
		}
		p := parsers.Get().(*Parser)
		n, why := v.load(p, notes[i], dirs)
		parsers.Put(p)
		if n == nil {
			reasons[i] = why
			return
		}
		f(i, n)
	})
	return reasons
}

// forEach runs f(0)...f(n-1) on as many workers as a scan uses.
func forEach(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(scanWorkers(), max(1, n)) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// noteResult is what checking one note leaves: its findings but those of
// links, which wait for every note's summary, and the summary itself.
type noteResult struct {
	path     string
	checked  bool
	findings []Finding
	links    []linkUse
	ignores  ignores
	summary  noteSummary
}

// noteSummary is what the link rules need of a note as a target.
type noteSummary struct {
	name     string
	headings []string
	blocks   []string
	aliases  []string
}

// finish runs the link rules over every note's links, now that every
// note's summary is known, and returns all findings, sorted.
func (c *checker) finish(skips []Skip, results []noteResult) []Finding {
	var out []Finding
	for _, sk := range skips {
		if (isNotePath(sk.Path) || sk.Folder) && (c.opts.Only == nil || c.opts.Only(sk.Path)) {
			out = c.add(out, Finding{Path: sk.Path, Line: 1, Column: 1, Rule: RuleFileSkipped,
				Message: "not checked: " + sk.Reason})
		}
	}
	for i := range results {
		r := &results[i]
		if r.path == "" {
			continue // not read
		}
		c.summaries[r.path] = &r.summary
		for _, a := range r.summary.aliases {
			c.aliases[fold(a)] = append(c.aliases[fold(a)], r.summary.name)
		}
	}
	for _, r := range results {
		out = append(out, r.findings...)
		var links []Finding
		for _, l := range r.links {
			links = c.linkFindings(links, r.path, l)
		}
		out = append(out, r.ignores.filter(links)...)
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
	resolver  *Resolver
	opts      CheckOptions
	relations map[string]bool
	vocab     []string
	// aliases maps a folded alias to the names of the notes declaring it,
	// and summaries a note's path to its summary; both are filled by
	// finish, once every note is read.
	aliases   map[string][]string
	summaries map[string]*noteSummary
}

func newChecker(r *Resolver, opts CheckOptions) *checker {
	c := &checker{resolver: r, opts: opts, relations: map[string]bool{},
		aliases: map[string][]string{}, summaries: map[string]*noteSummary{}}
	c.vocab = opts.Relations
	if c.vocab == nil {
		c.vocab = DefaultRelations
	}
	for _, r := range c.vocab {
		c.relations[strings.ToLower(r)] = true
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

// noteCheck is the state of checking one note.
type noteCheck struct {
	c     *checker
	n     *Note
	lines *lineIndex
	out   []Finding
	uses  []linkUse
}

// note checks one note, all but its links' targets, and summarises it.
func (c *checker) note(n *Note) noteResult {
	r := noteResult{path: n.Path, summary: summarize(n)}
	if c.opts.Only != nil && !c.opts.Only(n.Path) {
		return r
	}
	r.checked = true
	nc := &noteCheck{c: c, n: n, lines: newLineIndex(n.Src)}
	if fm := n.Frontmatter; fm != nil && fm.Err != nil {
		nc.atLine(RuleFrontmatter, max(fm.ErrLine, 0), "%v", fm.Err)
	}
	typ := typeOf(c.opts.Types, n)
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
	if len(nc.out) > 0 || len(nc.uses) > 0 {
		r.ignores = ignoresOf(n, nc.lines)
	}
	r.findings, r.links = r.ignores.filter(nc.out), nc.uses
	return r
}

func summarize(n *Note) noteSummary {
	s := noteSummary{name: n.Name, aliases: noteAliases(n)}
	for _, h := range n.Headings {
		s.headings = append(s.headings, h.Text)
	}
	for _, b := range n.BlockIDs {
		s.blocks = append(s.blocks, b.ID)
	}
	return s
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
