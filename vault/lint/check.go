package lint

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/property"
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
	// Message says what is wrong; Next, the step it proposes, is worded
	// by each front end in its own terms (Text).
	Message string
	Next    Next
}

// DefaultRelations is the relation vocabulary of docs/design.md.
var DefaultRelations = []string{"extends", "contrasts", "evidence-for", "evidence-against",
	"applies-in", "refines", "contradicts", "supports", "example-of", "part-of"}

// Options configure Check.
type Options struct {
	// Today is the date maintenance is measured against.
	Today time.Time
	// Types are the note types; a note is of the first type it matches,
	// and a note of no type gets only the rules every note gets.
	Types []*vault.NoteType
	// Relations is the Links vocabulary; nil means DefaultRelations.
	Relations []string
	// RestsOn are the relations by which a note rests on its target
	// (links/rests-on-refuted); nil means RestsOnRelations.
	RestsOn []string
	// Severity overrides rules' default severities; Off silences one.
	// Overrides win over it in the paths they match (SeverityAt).
	Severity  map[string]Severity
	Overrides []Override
	// TendedKeys are the frontmatter properties read as Last tended; nil
	// means DefaultTendedKeys.
	TendedKeys []string
	// Interval is the tending interval of a note whose frontmatter and
	// type set none; the zero Interval means DefaultInterval.
	Interval vault.Interval
	// Comments, when set, checks the links inside %% comments too: Obsidian
	// records them, but no reader sees them, so by default they are left
	// alone.
	Comments bool
	// Ledger is the run ledger (evidence.ReadLedger) by note path, for
	// evidence/run-vanished; nil skips the rule.
	Ledger map[string][]evidence.LedgerEntry
	// LedgerOrphans are the ledger's refutations whose note, block and
	// falsifier are gone from every note (evidence.Rehome): reported at
	// their ledger line, since no note is left to report them in.
	LedgerOrphans []evidence.LedgerEntry
	// Judging is the config's part of how a run is judged (evidence.
	// Settings), and ReadLog reads the log of run k of run id
	// (evidence.ReadLog): with them falsifiers/criterion-changed judges a
	// run again under a criterion changed since; nil ReadLog reports the
	// change without judging again. A check judges a run under a
	// criterion once, for every note naming it (evidence.Rejudger).
	Judging evidence.Settings
	ReadLog func(id string, k int) ([]byte, error)
	// HasLog says the log of run id is in the vault, a regular file:
	// a refutation only the ledger records names its log only when it is
	// there. Nil names it unlooked.
	HasLog func(id string) bool
	// PropertyTypes are the property types the vault declares
	// (.obsidian/types.json), for frontmatter/type-mismatch; nil skips it.
	PropertyTypes map[string]property.Type
	// Untrusted are files under .zk/ that zk will not act on, with why,
	// for file/untrusted.
	Untrusted []vault.Skip
	// Only, when set, limits the notes checked (links still resolve
	// against the whole vault).
	Only func(path string) bool
	// States, when set, has Check report every note's state
	// (Report.States), for a later Recheck.
	States bool
}

// Report is what Check found.
type Report struct {
	Findings []Finding
	// Notes is how many notes were checked; Read how many notes were
	// read (Recheck reads the notes an edit can change, Check every one).
	Notes, Read int
	// Files are the vault's files, as the check walked them.
	Files []vault.File
	// States are every note's state, in the walk's order, when the
	// options ask for them (Options.States), and Spent the edit-distance
	// work the check spent suggesting headings: what Recheck needs.
	States []NoteState
	Spent  int
	// Rechecked are the places among the notes of those Recheck checked
	// again, in order, and Again their states: what a cache saves anew.
	Rechecked []int
	Again     []NoteState
}

// Check checks the notes of a walk of the vault (Files) as Check
// does, but reads and parses them as it goes and keeps of each only what
// the link rules need (its headings, block ids and aliases), so that
// memory grows with the findings rather than with the vault's text. each,
// when set, sees every note parsed, from several goroutines at once.
func Check(ctx context.Context, v *vault.Vault, files []vault.File, skips []vault.Skip, opts Options, each func(*vault.Note)) (*Report, error) {
	skips = slices.Clone(skips) // notes that cannot be read are added
	paths, notes := vault.SplitFiles(files)
	c := newChecker(vault.NewResolver(paths), opts)
	results := make([]noteResult, len(notes))
	reasons := v.Each(ctx, notes, func(i int, n *vault.Note) {
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
			skips = append(skips, vault.Skip{Path: notes[i].Path, Reason: why})
		}
	}
	r := &Report{Findings: c.finish(skips, results), Files: files, Spent: suggestCells - c.targets.cells}
	for _, res := range results {
		if res.checked {
			r.Notes++
		}
		if res.path != "" {
			r.Read++
		}
	}
	if opts.States {
		r.States = make([]NoteState, len(notes))
		for i := range results {
			if results[i].path == "" {
				r.States[i] = NoteState{Path: notes[i].Path}
			} else {
				r.States[i] = stateOf(&results[i])
			}
		}
	}
	return r, nil
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
	// targets and broken are the note's link targets and the paths of
	// its links that name nothing, each once (NoteState).
	targets, broken []string
}

// noteSummary is what the link rules need of a note as a target.
type noteSummary struct {
	name     string
	headings []string
	blocks   []string
	aliases  []string
	// refuted says why the note is refuted (a falsifier's latest run
	// refutes it), or is empty; restsOn are its Links entries that rest
	// on another note. links/rests-on-refuted walks them.
	refuted string
	restsOn []restEdge
	// relations are the relations its Links entries name (a Session's
	// vocabulary of the vault).
	relations []string
}

// finish runs the link rules over every note's links, now that every
// note's summary is known, and returns all findings, sorted.
func (c *checker) finish(skips []vault.Skip, results []noteResult) []Finding {
	out := c.vaultFindings(skips)
	for i := range results {
		r := &results[i]
		if r.path == "" {
			continue // not read
		}
		c.summaries[r.path] = &r.summary
		for _, a := range r.summary.aliases {
			c.aliases[vault.FoldName(a)] = append(c.aliases[vault.FoldName(a)], r.summary.name)
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
	out = append(out, c.restsOnRefuted(results)...)
	SortFindings(out)
	return out
}

// vaultFindings are the findings of the vault rather than of a note
// read: the files skipped (as notes not read are), the files under .zk/
// zk will not act on, the names that collide.
func (c *checker) vaultFindings(skips []vault.Skip) []Finding {
	var out []Finding
	for _, sk := range skips {
		out = c.skipped(out, sk)
	}
	for _, u := range c.opts.Untrusted {
		out = c.add(out, Finding{Path: u.Path, Line: 1, Column: 1, Rule: RuleFileUntrusted, Message: u.Reason})
	}
	out = c.orphans(out)
	return c.collisions(out)
}

// orphans appends the findings of the ledger's refutations whose note is
// gone (Options.LedgerOrphans), at their ledger line: deleting a refuted
// note, its block and its falsifier with it, answers nothing either. A
// check of some notes reports those recorded in a note it covers.
func (c *checker) orphans(out []Finding) []Finding {
	for _, e := range c.opts.LedgerOrphans {
		if c.opts.Only != nil && !c.opts.Only(e.Note) {
			continue
		}
		fal := fmt.Sprint(e.Falsifier)
		if e.FalsifierID != "" {
			fal += ", " + e.FalsifierID
		}
		out = c.add(out, Finding{Path: evidence.LedgerFile, Line: e.Line, Column: 1, Rule: RuleRunVanished,
			Message: fmt.Sprintf("run %s refuted the claim of %s (falsifier %s), and the note, its block and its falsifier are gone from the vault; %s",
				e.ID, e.Note, fal, c.ledgerLog(e))})
	}
	return out
}

// ledgerLog says what else than e, a ledger line, is left of a refuting
// run whose block is gone: its log, or nothing. The ledger is a file of
// the vault, as anyone who had the vault wrote it; a line with no log
// beside it says so rather than name a log that is not there.
func (c *checker) ledgerLog(e evidence.LedgerEntry) string {
	p, _ := evidence.LogOf(e.ID, 1)
	if c.opts.HasLog == nil || c.opts.HasLog(e.ID) {
		return "its log is " + p
	}
	return fmt.Sprintf("no log of it is in %s: the ledger's line %d is all that records it", evidence.RunsDir, e.Line)
}

// skipped appends the finding of a file skipped, if it is a note or a
// folder the check covers.
func (c *checker) skipped(out []Finding, sk vault.Skip) []Finding {
	if (vault.IsNotePath(sk.Path) || sk.Folder) && (c.opts.Only == nil || c.opts.Only(sk.Path)) {
		out = c.add(out, Finding{Path: sk.Path, Line: 1, Column: 1, Rule: RuleFileSkipped,
			Message: "not checked: " + sk.Reason})
	}
	return out
}

// SortFindings orders findings by path, line, column, then rule.
func SortFindings(fs []Finding) {
	slices.SortStableFunc(fs, compareFindings)
}

// compareFindings is the order SortFindings sorts findings in.
func compareFindings(a, b Finding) int {
	if c := strings.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column), strings.Compare(a.Rule, b.Rule))
}

// appendMerged appends to out the findings of lists, each sorted
// (SortFindings), in order, an earlier list's first where they tie: the
// order SortFindings gives them together. A run of one list's findings
// before the others' next is found by a binary search and copied whole:
// a recheck merges a few findings into many.
func appendMerged(out []Finding, lists ...[]Finding) []Finding {
	for {
		k := -1
		for i, l := range lists {
			if len(l) > 0 && (k < 0 || compareFindings(l[0], lists[k][0]) < 0) {
				k = i
			}
		}
		if k < 0 {
			return out
		}
		run := lists[k]
		end := len(run) // run[:end] goes before every other list's next
		for j, l := range lists {
			if j == k || len(l) == 0 {
				continue
			}
			end = sort.Search(end, func(i int) bool {
				c := compareFindings(run[i], l[0])
				return c > 0 || c == 0 && j < k
			})
		}
		end = max(end, 1) // run[0] is the least of all: at least it
		out = append(out, run[:end]...)
		lists[k] = run[end:]
	}
}

type checker struct {
	resolver  *vault.Resolver
	opts      Options
	relations map[string]bool
	vocab     []string
	// restsOnVocab is Options.RestsOn, or its default.
	restsOnVocab []string
	// aliases maps a folded alias to the names of the notes declaring it,
	// and summaries a note's path to its summary; both are filled by
	// finish, once every note is read.
	aliases   map[string][]string
	summaries map[string]*noteSummary
	// severities are every rule's vault-wide severity under the options,
	// live the rules on in some path (vault-wide or by an override), and
	// rules the live rules with a note function.
	severities map[string]Severity
	live       map[string]bool
	// scoped memoizes each path's severities under the overrides, so a
	// path is matched against each override once, not once per rule
	// and finding: path to map[string]Severity.
	scoped sync.Map
	// typed is set when an override names note types; noteTypes then
	// holds, by path, the key of each note's severities in scoped: its
	// path, NUL and its type's name as its check decided it ("" for
	// none), made once per note rather than once per rule and finding.
	typed     bool
	noteTypes sync.Map
	rules     []Rule
	targets   *linkTargets
	// cached, when set, gives the summary of a note not in summaries, as
	// a recheck's cache holds it (nil: none), and the names of the notes
	// that may declare a folded alias besides those in aliases; absent
	// are the notes it has none of.
	cached *cachedSummaries
	// rejudge judges runs again for falsifiers/criterion-changed, each
	// run under each criterion once for a whole check (Check's,
	// Recheck's; an editor's check of one note has one of its own). An
	// atomic pointer: a session's check replaces it while its start
	// summarises notes unlocked, on other goroutines, which read it.
	rejudge atomic.Pointer[evidence.Rejudger]
}

// cachedSummaries are a whole check's summaries read note by note
// (Recheck on a Cached): summary(p) gives the note's summary before this
// recheck, ok false when it cannot be read; aliasOwners the notes that
// may declare an alias.
type cachedSummaries struct {
	summary     func(p string) (*noteSummary, bool)
	aliasOwners func(k string) []string
	absent      map[string]bool
	// replaced are the notes whose summary this recheck recorded anew.
	replaced map[string]bool
	bad      bool
}

// summary is the summary of the note at p: the one recorded, else the
// cached one, recorded once read (nil: no note, or none read).
func (c *checker) summary(p string) *noteSummary {
	if sum := c.summaries[p]; sum != nil || c.cached == nil || c.cached.absent[p] {
		return sum
	}
	sum, ok := c.cached.summary(p)
	if !ok {
		c.cached.bad = true
	}
	if sum == nil {
		c.cached.absent[p] = true
		return nil
	}
	c.summaries[p] = sum
	return sum
}

func newChecker(r *vault.Resolver, opts Options) *checker {
	c := &checker{resolver: r, opts: opts, relations: map[string]bool{},
		aliases: map[string][]string{}, summaries: map[string]*noteSummary{}, targets: newLinkTargets()}
	c.rejudge.Store(evidence.NewRejudger(opts.ReadLog, opts.Judging, evidence.RejudgeBudget))
	c.vocab = opts.Relations
	if c.vocab == nil {
		c.vocab = DefaultRelations
	}
	for _, r := range c.vocab {
		c.relations[strings.ToLower(r)] = true
	}
	c.restsOnVocab = RestsOnRelations
	if opts.RestsOn != nil {
		// Lower-case, as a Links entry's relation is read.
		c.restsOnVocab = make([]string, len(opts.RestsOn))
		for i, r := range opts.RestsOn {
			c.restsOnVocab[i] = strings.ToLower(r)
		}
	}
	c.typed = opts.byType()
	c.severities, c.live = map[string]Severity{}, map[string]bool{}
	for _, r := range Rules() {
		sev, ok := opts.Severity[r.ID]
		if !ok {
			sev = r.Default
		}
		c.severities[r.ID] = sev
		c.live[r.ID] = sev != Off || slices.ContainsFunc(opts.Overrides, func(o Override) bool {
			s, ok := o.Severity[r.ID]
			return ok && s != Off
		})
		if r.check != nil && c.live[r.ID] {
			c.rules = append(c.rules, r)
		}
	}
	return c
}

// Override sets rules' severities in the vault paths Match takes, for
// the notes of Types ([[claims.overrides]]): a vault adopting zk wants
// links/broken an error where its claims live and off in its inbox, and
// its literature notes spared the rules of claims. An override with
// Types applies to the notes of one of them (type names, case ignored),
// in Match's paths when Match is set too; one with neither applies
// nowhere.
type Override struct {
	Match    func(path string) bool
	Types    []string
	Severity map[string]Severity
}

// applies reports whether the override sets severities in the note or
// file at path, of type typ ("" for none).
func (ov Override) applies(path, typ string) bool {
	if ov.Match == nil && len(ov.Types) == 0 {
		return false
	}
	if ov.Match != nil && !ov.Match(path) {
		return false
	}
	return len(ov.Types) == 0 || typ != "" && slices.ContainsFunc(ov.Types, func(t string) bool { return strings.EqualFold(t, typ) })
}

// SeverityAt is the rule's severity in the note or file at path, of
// note type typ ("" for none): the last override that applies there
// and names the rule, else Severity's, else the rule's default. It is
// the one place a severity is decided, so check, its cache, the editors
// and SARIF agree.
func (o Options) SeverityAt(rule, path, typ string) Severity {
	if sev, ok := o.scopedSeverities(path, typ)[rule]; ok {
		return sev
	}
	if sev, ok := o.Severity[rule]; ok {
		return sev
	}
	if r, ok := RuleByID(rule); ok {
		return r.Default
	}
	return Off
}

// scopedSeverities are the severities the overrides applying at path,
// of type typ, set, the later winning; nil when none does.
func (o Options) scopedSeverities(path, typ string) map[string]Severity {
	var out map[string]Severity
	for _, ov := range o.Overrides {
		if ov.applies(path, typ) {
			if out == nil {
				out = map[string]Severity{}
			}
			maps.Copy(out, ov.Severity)
		}
	}
	return out
}

// byType reports whether an override names note types: only then does
// a finding's severity depend on its note's type.
func (o Options) byType() bool {
	return slices.ContainsFunc(o.Overrides, func(ov Override) bool { return len(ov.Types) > 0 })
}

// severityAt is Options.SeverityAt with the vault-wide severities read
// once (severities) and each path, with its note's type, matched against
// the overrides once. The type is the one the note's check decided
// (noteTypes): every finding of a note is made after its check.
func (c *checker) severityAt(rule, path string) Severity {
	if len(c.opts.Overrides) == 0 {
		return c.severities[rule]
	}
	key := path
	if c.typed {
		if k, ok := c.noteTypes.Load(path); ok {
			key = k.(string)
		}
	}
	m, ok := c.scoped.Load(key)
	if !ok {
		_, typ, _ := strings.Cut(key, "\x00")
		m, _ = c.scoped.LoadOrStore(key, c.opts.scopedSeverities(path, typ))
	}
	if sev, ok := m.(map[string]Severity)[rule]; ok {
		return sev
	}
	return c.severities[rule]
}

// on reports whether the rule is on anywhere: a rule off in every path
// costs nothing.
func (c *checker) on(rule string) bool { return c.live[rule] }

// add appends f unless its rule is off in f's path.
func (c *checker) add(out []Finding, f Finding) []Finding {
	if f.Severity = c.severityAt(f.Rule, f.Path); f.Severity == Off {
		return out
	}
	return append(out, f)
}

// noteCheck is the state of checking one note.
type noteCheck struct {
	c     *checker
	n     *vault.Note
	lines vault.Lines
	out   []Finding
	uses  []linkUse
	// targets and broken are noteResult's.
	targets, broken onceList
	// typ is the note's type (nil for none); flat is set when its headings
	// run inline (flattened); sections and tended are read once, for the
	// several rules that look at them.
	typ      *vault.NoteType
	flat     *flatness
	sections *sectionMatch
	tended   *tendedDate
	// keyLines maps a frontmatter property to its line, once needed.
	keyLines map[string]int
	standing *evidence.Standing
	hasRuns  int8 // ran's answer: 0 not asked yet, 1 no, 2 yes
	entries  *[]vault.LinkEntry
	fals     *[]evidence.Falsifier
}

// falsifierList is the note's falsifiers, read once.
func (nc *noteCheck) falsifierList() []evidence.Falsifier {
	if nc.fals == nil {
		f := evidence.Falsifiers(nc.n)
		nc.fals = &f
	}
	return *nc.fals
}

// linkEntries are the note's Links-section entries, read once for the
// rules that look at them.
func (nc *noteCheck) linkEntries() []vault.LinkEntry {
	if nc.entries == nil {
		e := vault.LinkEntries(nc.n)
		nc.entries = &e
	}
	return *nc.entries
}

// note checks one note, all but its links' targets, and summarises it.
func (c *checker) note(n *vault.Note) noteResult {
	r := noteResult{path: n.Path, summary: summarize(n)}
	nc := &noteCheck{c: c, n: n, lines: n.Lines(), typ: vault.TypeOf(c.opts.Types, n)}
	if c.typed {
		typ := ""
		if nc.typ != nil {
			typ = nc.typ.Name
		}
		c.noteTypes.Store(n.Path, n.Path+"\x00"+typ)
	}
	if c.on(RuleRestsOnRefuted) {
		r.summary.refuted, r.summary.restsOn = nc.refutedBy(), c.restsOn(n, nc.lines, nc.linkEntries())
	}
	if c.opts.Only != nil && !c.opts.Only(n.Path) {
		nc.restTargets(r.summary.restsOn)
		r.targets, r.broken = nc.targets.list, nc.broken.list
		return r
	}
	r.checked = true
	if nc.typ != nil {
		nc.flat = nc.flattened(nc.typ.Schema)
	}
	for _, rule := range c.rules {
		if (rule.typed && nc.typ == nil) || (rule.whole && nc.flat != nil) || c.severityAt(rule.ID, n.Path) == Off {
			continue
		}
		rule.check(nc)
	}
	nc.links() // for the link rules, once every note is read
	nc.restTargets(r.summary.restsOn)
	if len(nc.out) > 0 || len(nc.uses) > 0 || len(r.summary.restsOn) > 0 {
		r.ignores = ignoresOf(n, nc.lines)
	}
	r.findings, r.links = r.ignores.filter(nc.out), nc.uses
	r.targets, r.broken = nc.targets.list, nc.broken.list
	return r
}

// frontmatter reports YAML that does not parse.
// partlyRead says a note was read by the plain scanner (vault's
// fallback), whose findings are those of a part of the note: a check
// must say what it did not read, not pass over it in silence.
func (nc *noteCheck) partlyRead() {
	if nc.n.Fallback {
		nc.atLine(RuleFilePartlyRead, 0, "read by the plain scanner, the note being too costly to parse in full: only its frontmatter, headings and wikilinks were read")
	}
}

func (nc *noteCheck) frontmatter() {
	if fm := nc.n.Frontmatter; fm != nil && fm.Err != nil {
		nc.atLine(RuleFrontmatter, max(fm.ErrLine, 0), "%v", fm.Err)
	}
}

func summarize(n *vault.Note) noteSummary {
	s := noteSummary{name: n.Name, aliases: noteAliases(n)}
	if len(n.Headings) > 0 {
		s.headings = make([]string, len(n.Headings))
		for i, h := range n.Headings {
			s.headings[i] = h.Text
		}
	}
	if len(n.BlockIDs) > 0 {
		s.blocks = make([]string, len(n.BlockIDs))
		for i, b := range n.BlockIDs {
			s.blocks[i] = b.ID
		}
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
	off := nc.lines.LineStart(line)
	nc.at(rule, off, off, format, args...)
}

// atLineNext is atLine for a finding that proposes a next step.
func (nc *noteCheck) atLineNext(rule string, line int, next Next, format string, args ...any) {
	n := len(nc.out)
	nc.atLine(rule, line, format, args...)
	if len(nc.out) > n {
		nc.out[n].Next = next
	}
}

// lineCol is the 1-based line and rune column of a byte offset.
func (nc *noteCheck) lineCol(off int) (int, int) {
	off = max(0, min(off, len(nc.n.Src)))
	return nc.lines.Line(off) + 1, nc.lines.Col(off) + 1
}

// lastLine is the 0-based line of the note's last non-empty line.
func (nc *noteCheck) lastLine() int {
	l := nc.lines.Count() - 1
	if l > 0 && nc.lines.LineStart(l) == len(nc.n.Src) {
		l--
	}
	return l
}
