package lint

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
)

// Session checks one note at a time against the rest of the vault, for an
// editor: the vault is read once, keeping of each note what the link rules
// need (as Check does), and then a note's text, saved or not, is checked
// in the time one note takes, with the same rules and findings as Check.
// A Session is safe for use from several goroutines.
type Session struct {
	mu sync.Mutex
	c  *checker
	// refuted counts the notes refuted: while none is, no note rests on
	// one and links/rests-on-refuted walks nothing.
	refuted int
	// relations counts the notes using each Links relation.
	relations map[string]int
	// resolved is set once the targets of every summary's rests-on
	// entries are resolved: not at the first scan, for the first note
	// refuted or the first Dependents. From then on every summary
	// recorded is resolved as it comes.
	resolved bool
	// today, when set, is asked for the day at each Check (SetToday).
	today func() time.Time
	// deferRests, when set, has a check leave links/rests-on-refuted to
	// restsOnDeferred, keeping in deferred what it needs of each note: a
	// Recheck's, which checks many notes at once.
	deferRests bool
	deferred   []noteResult
}

// walkedHook, when set (by a test), is told how many notes each walk of
// links/rests-on-refuted looks at: what its cost is counted in.
var walkedHook func(n int)

// NewSession reads every note of a walk of the vault (Files) for their
// headings, block ids and aliases. each, when set, sees every note parsed,
// from several goroutines at once.
func NewSession(ctx context.Context, v *vault.Vault, files []vault.File, opts Options, each func(*vault.Note)) (*Session, error) {
	s := OpenSession(vault.ResolverOf(files), opts)
	if err := s.Load(ctx, v, files, each); err != nil {
		return nil, err
	}
	return s, nil
}

// OpenSession is a session that has read no note yet: links resolve with
// r (vault.ResolverOf a walk of the vault), and a link into a note it has
// not read is taken as sound (Learn and Load read them). An editor checks
// the note it opens on it at once, and the whole vault after Load.
func OpenSession(r *vault.Resolver, opts Options) *Session {
	return &Session{c: newChecker(r, opts), relations: map[string]int{}}
}

// Load reads the notes of files (in parallel, keeping of each only its
// summary) and records each one the session has not recorded since it
// was opened: a note checked, learnt or updated meanwhile is newer than,
// or the same as, what Load read. each, when set, sees every note parsed,
// from several goroutines at once.
func (s *Session) Load(ctx context.Context, v *vault.Vault, files []vault.File, each func(*vault.Note)) error {
	_, notes := vault.SplitFiles(files)
	sums := make([]*noteSummary, len(notes))
	v.Each(ctx, notes, func(i int, n *vault.Note) {
		if each != nil {
			each(n)
		}
		sum := s.c.graphSummary(n)
		sums[i] = &sum
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, sum := range sums {
		if sum != nil && s.c.summaries[notes[i].Path] == nil {
			s.setSummary(notes[i].Path, sum)
		}
	}
	return nil
}

// Learn records n's summary, read from disk, unless the session has one
// for it already: the target of a link from the note being checked,
// before Load has read it.
func (s *Session) Learn(n *vault.Note) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c.summaries[n.Path] == nil {
		sum := s.c.graphSummary(n)
		s.setSummary(n.Path, &sum)
	}
}

// Knows reports whether the session has a summary of the note at p.
func (s *Session) Knows(p string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.summaries[p] != nil
}

// setSummary records a note's summary in place of the one it had, and
// its aliases in place of its old ones. The caller holds mu.
func (s *Session) setSummary(p string, sum *noteSummary) {
	c := s.c
	if c.cached != nil {
		c.summary(p) // the cached one, to be replaced as a recorded one is
		c.cached.replaced[p] = true
	}
	if old := c.summaries[p]; old != nil {
		for _, a := range old.aliases {
			k := vault.FoldName(a)
			if i := slices.Index(c.aliases[k], old.name); i >= 0 {
				c.aliases[k] = slices.Delete(slices.Clone(c.aliases[k]), i, i+1)
			}
		}
	}
	if old := c.summaries[p]; old != nil {
		c.targets.forget(old)
		if old.refuted != "" {
			s.refuted--
		}
		for _, r := range old.relations {
			if s.relations[r]--; s.relations[r] <= 0 {
				delete(s.relations, r)
			}
		}
	}
	if sum == nil {
		delete(c.summaries, p)
		return
	}
	s.addSummary(p, sum)
}

// addSummary records the summary of a note that has none (setSummary's
// second half). The caller holds mu.
func (s *Session) addSummary(p string, sum *noteSummary) {
	c := s.c
	if sum.refuted != "" {
		s.refuted++
	}
	for _, r := range sum.relations {
		s.relations[r]++
	}
	if s.resolved {
		s.resolveRests(p, sum)
	}
	c.summaries[p] = sum
	for _, a := range sum.aliases {
		k := vault.FoldName(a)
		c.aliases[k] = append(c.aliases[k], sum.name)
	}
}

// Check checks n, the note's text as the editor holds it, and from now on
// resolves links to n against this text. Its findings are sorted; a note
// the options' Only leaves out has none.
func (s *Session) Check(n *vault.Note) []Finding {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The runs it judges again are judged for this check alone: a
	// session lives for days, and its logs are read as they are now, its
	// budget of them (evidence.RejudgeBudget) spent on this note only.
	s.c.rejudge.Store(evidence.NewRejudger(s.c.opts.ReadLog, s.c.opts.Judging, evidence.RejudgeBudget))
	_, out := s.check(n)
	return out
}

// CheckNotes is Check of each of ns (read from disk: an editor's
// recheck of the notes not open that a save may change), in order, with
// links/rests-on-refuted found for them all at once at the end
// (restsOnDeferred), as zk check's recheck does: checked one by one, each
// note of a chain walked the rest of it to its refuted note, so that a
// save of the refuted note at the end of a chain of N had the editor
// walk N²/2 notes (TestCheckNotesChainLinear). One budget of logs read
// to judge runs again serves them all, as it does a command.
func (s *Session) CheckNotes(ns []*vault.Note) [][]Finding {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.c.rejudge.Store(evidence.NewRejudger(s.c.opts.ReadLog, s.c.opts.Judging, evidence.RejudgeBudget))
	s.deferRests = true
	defer func() { s.deferRests = false }()
	out := make([][]Finding, len(ns))
	at := make(map[string]int, len(ns))
	for i, n := range ns {
		_, out[i] = s.check(n)
		at[n.Path] = i
	}
	for p, fs := range s.restsOnDeferred() {
		if i, ok := at[p]; ok {
			out[i] = append(out[i], fs...)
			SortFindings(out[i])
		}
	}
	return out
}

// check is Check's work, returning also the note's result (its links
// resolved, its summary). The caller holds mu.
func (s *Session) check(n *vault.Note) (noteResult, []Finding) {
	if s.today != nil {
		s.c.opts.Today = s.today()
	}
	s.c.targets.cells = suggestCells // the budget is per check, as Check's
	r := s.c.note(n)
	r.summary.relations = relationWords(vault.LinkEntries(n))
	s.setSummary(n.Path, &r.summary)
	if !r.checked {
		return r, nil
	}
	out := r.findings
	var links []Finding
	for _, l := range r.links {
		links = s.c.linkFindings(links, r.path, l)
	}
	out = append(out, r.ignores.filter(links)...)
	if s.deferRests {
		s.deferred = append(s.deferred, noteResult{path: r.path, ignores: r.ignores, summary: noteSummary{restsOn: r.summary.restsOn}})
	} else {
		out = append(out, s.restsOnRefuted(r)...)
	}
	SortFindings(out)
	return r, out
}

// SetToday has each Check from now on measure maintenance against the
// day today gives, asked each time, instead of Options.Today: a session
// lives for days, an editor's, and its today moves on at midnight.
func (s *Session) SetToday(today func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.today = today
}

// graphSummary is summarize's, with what links/rests-on-refuted needs of
// the note (whether it is refuted, and the entries by which it rests on
// others) and the relations its Links entries name.
func (c *checker) graphSummary(n *vault.Note) noteSummary {
	s := summarize(n)
	entries := vault.LinkEntries(n)
	s.relations = relationWords(entries)
	if !c.on(RuleRestsOnRefuted) {
		return s
	}
	nc := &noteCheck{c: c, n: n, lines: n.Lines(), entries: &entries}
	s.refuted, s.restsOn = nc.refutedBy(), c.restsOn(n, nc.lines, entries)
	return s
}

// relationWords are the relations entries name, each once.
func relationWords(entries []vault.LinkEntry) []string {
	var out []string
	for _, e := range entries {
		if e.Relation != "" && !slices.Contains(out, e.Relation) {
			// A copy: the relation is a slice of the entry's whole line,
			// which the session would keep for every note it knows.
			out = append(out, strings.Clone(e.Relation))
		}
	}
	return out
}

// Relations are the Links relations the vault's notes name, the most
// used first, then by name: the vocabulary a vault has beyond the
// configured one.
func (s *Session) Relations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.relations))
	for r := range s.relations {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(s.relations[b], s.relations[a]), strings.Compare(a, b))
	})
	return out
}

// resolveRests resolves the targets of a summary's rests-on entries, as
// the links of the note at p. The caller holds mu.
func (s *Session) resolveRests(p string, sum *noteSummary) {
	for i := range sum.restsOn {
		e := &sum.restsOn[i]
		if t, ok := s.c.resolver.Resolve(e.link, p); ok && t != p {
			e.target = t
		} else {
			e.target = ""
		}
	}
}

// resolveAll resolves every summary's rests-on entries, once. The caller
// holds mu.
func (s *Session) resolveAll() {
	if s.resolved {
		return
	}
	s.resolved = true
	for p, sum := range s.c.summaries {
		s.resolveRests(p, sum)
	}
}

// restsOnRefuted reports the entries of the checked note r that rest on
// a refuted note, as Check does for the whole vault, but walking forward
// from this note's entries only: the chain named is the one Check names
// (chainWalk). The caller holds mu.
func (s *Session) restsOnRefuted(r noteResult) []Finding {
	if s.refuted == 0 || !s.c.on(RuleRestsOnRefuted) {
		return nil
	}
	s.resolveAll()
	var fs []Finding
	for _, e := range r.summary.restsOn {
		if e.target == "" {
			continue
		}
		if ch, ok := s.chainToRefuted(e.target); ok {
			fs = s.c.add(fs, s.c.restsOnFinding(r.path, e, ch))
		}
	}
	return r.ignores.filter(fs)
}

// walkEachMax is how many notes restsOnDeferred walks forward from one by
// one, as an editor's check of one note does; past it, it walks the
// notes they reach once, for them all.
var walkEachMax = 8

// restsOnDeferred is the findings of links/rests-on-refuted of the notes
// whose checks deferred them (deferRests), by path, with every note the
// recheck read recorded. A few notes each walk forward to their nearest
// refuted note (restsOnRefuted), which visits only the notes within
// that many entries; more walk once every note their entries reach, and
// back from the refuted ones among them, as Check does: each walking on
// its own, the notes of one long chain each walked the rest of it (a
// recheck of a 3,000-note chain edited in its middle took 7 s, its time
// the square of the chain's length). The caller holds mu.
func (s *Session) restsOnDeferred() map[string][]Finding {
	rs := s.deferred
	s.deferred = nil
	out := map[string][]Finding{}
	if s.refuted == 0 || !s.c.on(RuleRestsOnRefuted) {
		return out
	}
	if len(rs) <= walkEachMax {
		for _, r := range rs {
			if fs := s.restsOnRefuted(r); len(fs) > 0 {
				out[r.path] = fs
			}
		}
		return out
	}
	s.resolveAll()
	// Every note the entries reach, each once: whatever is refuted among
	// them is at its true distance from each, none being left out.
	seen := map[string]bool{}
	var reach []string
	add := func(edges []restEdge) {
		for _, e := range edges {
			if e.target != "" && !seen[e.target] {
				seen[e.target] = true
				reach = append(reach, e.target)
			}
		}
	}
	for _, r := range rs {
		add(r.summary.restsOn)
	}
	for i := 0; i < len(reach); i++ {
		if sum := s.c.summary(reach[i]); sum != nil {
			add(sum.restsOn)
		}
	}
	if walkedHook != nil {
		walkedHook(len(reach))
	}
	rev := map[string][]string{}
	dist := map[string]int{}
	var queue []string
	for _, q := range reach {
		sum := s.c.summary(q)
		if sum == nil {
			continue
		}
		if sum.refuted != "" {
			dist[q] = 0
			queue = append(queue, q)
		}
		for _, e := range sum.restsOn {
			if e.target != "" {
				rev[e.target] = append(rev[e.target], q)
			}
		}
	}
	for ; len(queue) > 0; queue = queue[1:] {
		p := queue[0]
		for _, q := range rev[p] {
			if _, ok := dist[q]; !ok {
				dist[q] = dist[p] + 1
				queue = append(queue, q)
			}
		}
	}
	walk := newChainWalk(dist, func(p string) []restEdge { return s.c.summary(p).restsOn })
	for _, r := range rs {
		var fs []Finding
		for _, e := range r.summary.restsOn {
			if _, ok := dist[e.target]; ok && e.target != "" {
				fs = s.c.add(fs, s.c.restsOnFinding(r.path, e, walk.of(e.target)))
			}
		}
		if fs = r.ignores.filter(fs); len(fs) > 0 {
			out[r.path] = fs
		}
	}
	return out
}

// chainToRefuted is the chain of rests-on entries from the note at start
// to a refuted note that Check names (chainWalk), or false when there is
// none. It visits the notes within the shortest chain's length of
// start, level by level, and measures their distance to a refuted note
// among themselves: every note of a shortest chain is among them, at its
// true distance. The caller holds mu.
func (s *Session) chainToRefuted(start string) (chain, bool) {
	seen := map[string]bool{start: true}
	visited := []string{start}
	var found []string
	for level := []string{start}; len(level) > 0 && found == nil; {
		var next []string
		for _, q := range level {
			if sum := s.c.summary(q); sum != nil && sum.refuted != "" {
				found = append(found, q)
			}
		}
		if found != nil {
			break
		}
		for _, q := range level {
			sum := s.c.summary(q)
			if sum == nil {
				continue
			}
			for _, e := range sum.restsOn {
				if e.target != "" && !seen[e.target] {
					seen[e.target] = true
					next = append(next, e.target)
				}
			}
		}
		visited = append(visited, next...)
		level = next
	}
	if walkedHook != nil {
		walkedHook(len(visited))
	}
	if found == nil {
		return chain{}, false
	}
	rev := map[string][]string{}
	for _, q := range visited {
		if sum := s.c.summary(q); sum != nil {
			for _, e := range sum.restsOn {
				if seen[e.target] {
					rev[e.target] = append(rev[e.target], q)
				}
			}
		}
	}
	dist := make(map[string]int, len(visited))
	for _, q := range found {
		dist[q] = 0
	}
	for queue := found; len(queue) > 0; queue = queue[1:] {
		p := queue[0]
		for _, q := range rev[p] {
			if _, ok := dist[q]; !ok {
				dist[q] = dist[p] + 1
				queue = append(queue, q)
			}
		}
	}
	return newChainWalk(dist, func(p string) []restEdge { return s.c.summary(p).restsOn }).of(start), true
}

// Dependents are the notes whose findings of links/rests-on-refuted may
// change when the notes at ps do: those that rest on one of them,
// directly or through a chain of rests-on entries, sorted, ps left out.
// (A note's other link findings depend only on the notes it links to:
// its backlinks are the caller's to know.)
func (s *Session) Dependents(ps ...string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.c.on(RuleRestsOnRefuted) {
		return nil
	}
	s.resolveAll()
	rev := map[string][]string{}
	for q, sum := range s.c.summaries {
		for _, e := range sum.restsOn {
			if e.target != "" {
				rev[e.target] = append(rev[e.target], q)
			}
		}
	}
	seen := map[string]bool{}
	for _, p := range ps {
		seen[p] = true
	}
	var out []string
	for queue := slices.Clone(ps); len(queue) > 0; queue = queue[1:] {
		for _, q := range rev[queue[0]] {
			if !seen[q] {
				seen[q] = true
				out = append(out, q)
				queue = append(queue, q)
			}
		}
	}
	slices.Sort(out)
	return out
}

// dependentsVia is Dependents on a session whose summaries are read as
// needed (a Recheck on a Cached): the notes that may rest on a note are
// those linking may give (every note linking to it, perhaps more), kept
// if one of their rests-on entries reaches it. The caller holds mu.
func (s *Session) dependentsVia(linking func(p string) []string, ps ...string) []string {
	if !s.c.on(RuleRestsOnRefuted) {
		return nil
	}
	s.resolveAll()
	seen := map[string]bool{}
	for _, p := range ps {
		seen[p] = true
	}
	var out []string
	for queue := slices.Clone(ps); len(queue) > 0; queue = queue[1:] {
		p := queue[0]
		for _, q := range linking(p) {
			if seen[q] {
				continue
			}
			sum := s.c.summary(q)
			if sum == nil || !slices.ContainsFunc(sum.restsOn, func(e restEdge) bool { return e.target == p }) {
				continue
			}
			seen[q] = true
			out = append(out, q)
			queue = append(queue, q)
		}
	}
	slices.Sort(out)
	return out
}

// Update records n's headings, block ids and aliases (a note changed
// outside the editor) without checking it.
func (s *Session) Update(n *vault.Note) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sum := s.c.graphSummary(n)
	s.setSummary(n.Path, &sum)
}

// SetFiles takes a new walk of the vault (a note created, deleted or
// renamed): links resolve against its files from now on, and the notes no
// longer in it are forgotten.
func (s *Session) SetFiles(files []vault.File) {
	s.SetWalk(files, vault.ResolverOf(files))
}

// SetWalk is SetFiles with the walk's resolver made already
// (vault.ResolverOf files), which the caller shares.
func (s *Session) SetWalk(files []vault.File, r *vault.Resolver) {
	s.mu.Lock()
	defer s.mu.Unlock()
	paths, _ := vault.SplitFiles(files)
	s.c.resolver = r
	keep := map[string]bool{}
	for _, p := range paths {
		keep[p] = true
	}
	for p, sum := range s.c.summaries {
		if !keep[p] {
			s.setSummary(p, nil)
		} else if s.resolved {
			s.resolveRests(p, sum) // a new note may take a link's target
		}
	}
}
