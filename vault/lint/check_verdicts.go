package lint

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/english"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/evidence/criterion"
	"github.com/zk-claims/zk/vault/tending"
)

// RestsOnRelations are the default relations by which a note rests on
// its target (the config's rests-on replaces them): if the target is
// refuted, the note's footing is gone too.
var RestsOnRelations = []string{"extends", "evidence-for", "supports", "refines", "applies-in"}

// runs is what the note's runs say, read once for the rules that need
// them.
func (nc *noteCheck) runs() *evidence.Standing {
	if nc.standing == nil {
		st := evidence.LatestRunsOf(nc.n, nc.falsifierList(), nc.c.opts.Ledger[nc.n.Path], nc.c.rejudge.Load())
		evidence.PlaceForeign(&st, nc.c.opts.Ledger)
		nc.standing = &st
	}
	return nc.standing
}

// ran reports whether the note holds a run block, or the ledger a
// refutation of it (whose block may be gone). Without one every
// falsifier's standing is the falsifier alone, and the rules that read
// runs have nothing to report: they return early rather than have
// LatestRunsOf make a record of a kilobyte for each falsifier of every
// note.
func (nc *noteCheck) ran() bool {
	if nc.hasRuns == 0 {
		nc.hasRuns = 1
		if bytes.Contains(nc.n.Src, []byte("<!-- zk:run")) || refutes(nc.c.opts.Ledger[nc.n.Path]) {
			nc.hasRuns = 2
		}
	}
	return nc.hasRuns == 2
}

// refutes says the ledger's entries for a note hold a refutation, which
// stands in the note when its block is gone from it too.
func refutes(entries []evidence.LedgerEntry) bool {
	for _, e := range entries {
		if e.Verdict == evidence.VerdictRefutes {
			return true
		}
	}
	return false
}

// refuted reports each falsifier whose refutation stands: its latest
// refuting run, not answered by a later judged run.
func (nc *noteCheck) refuted() {
	if !nc.ran() {
		return
	}
	for _, l := range nc.runs().Falsifiers {
		if l.Refuting.ID == "" {
			continue
		}
		r := l.Refuting
		var msg string
		switch {
		case r.Gone:
			msg = fmt.Sprintf("falsifier %d's run %s refutes the claim, as the ledger (%s) recorded it, and its block is gone from the note: deleting a refutation answers nothing",
				l.Falsifier.N, r.ID, evidence.LedgerFile)
		case r.Problem != "":
			msg = fmt.Sprintf("falsifier %d's run %s refutes the claim, as the ledger (%s) recorded it: an edit of its block answers nothing (%s)",
				l.Falsifier.N, r.ID, evidence.LedgerFile, r.Problem)
		case r.Rejudges != "":
			msg = fmt.Sprintf("falsifier %d's run %s, judged again (%s), refutes the claim", l.Falsifier.N, r.Rejudges, r.ID)
		case r.ID == l.Run.ID:
			msg = fmt.Sprintf("falsifier %d's latest run (%s) refutes the claim", l.Falsifier.N, r.ID)
		default:
			msg = fmt.Sprintf("falsifier %d's run %s refutes the claim", l.Falsifier.N, r.ID)
		}
		if r.ID != l.Run.ID && l.Unanswered.Run.ID == "" {
			msg += " (no later judged run answers it)"
		}
		if l.Refuting.Criterion != "" {
			msg += ": " + l.Refuting.Criterion
		}
		why, next := Unanswered(l)
		nc.atLineNext(RuleRefuted, l.Falsifier.Line, next, "%s", msg+why)
	}
}

// Unanswered says why the latest run since l's refutation that supported
// the claim does not answer it (evidence.Answer), as falsifiers/refuted
// and zk run say it after the refutation ("; run X supports it only
// under ..."), with the step it proposes, or is empty when there is none:
// it was judged by a criterion the refuting run's own output passes (or
// cannot be judged by), or it is a result older than the refuting run.
func Unanswered(l evidence.Latest) (string, Next) {
	a, f := l.Unanswered, l.Falsifier
	if a.Run.ID == "" {
		return "", Next{}
	}
	what := "run " + a.Run.ID
	if a.Run.Attached {
		what = "result " + a.Run.ID
	}
	switch {
	case a.Foreign && a.RecordedIn != "":
		return fmt.Sprintf("; %s supports it, but the ledger (%s) recorded it for %s, not this note: a run pasted from another note answers nothing here; run the falsifier in this note",
			what, evidence.LedgerFile, a.RecordedIn), Next{}
	case a.Foreign:
		return fmt.Sprintf("; %s supports it, but the ledger (%s), which recorded the refutation in this note, did not record it here: a run pasted from elsewhere answers nothing; run the falsifier in this note",
			what, evidence.LedgerFile), Next{}
	case l.Refuting.Gone:
		return fmt.Sprintf("; %s supports it, but the refuting run's block is gone from the note, and with it what judged that run: nothing can judge its output again, so put the block back (a zk write keeps the note's earlier version in .zk/backups/)",
			what), Next{}
	case !a.Early.IsZero():
		return fmt.Sprintf("; %s supports it, but its file was last modified %s, before the refuting run measured (%s): an older result answers no newer refutation",
			what, a.Run.Measured.UTC().Format(time.DateTime+" UTC"), a.Early.UTC().Format(time.DateTime+" UTC")), Next{}
	}
	// The expression alone may be the refutation's: what else judged the
	// run otherwise (a confidence, the config's too) is said beside it.
	under := "`" + a.Criterion + "`" + ChangesPhrase(a.Changes)
	switch {
	case errors.Is(a.Err, evidence.ErrRejudgeBudget):
		return fmt.Sprintf("; %s supports it only under %s, by which the refuting run's own output is not judged again here (%v)",
			what, under, a.Err), Next{Step: StepRejudgeUnjudged, Falsifier: f.N}
	case a.Err != nil:
		again := "under the criterion that refuted it"
		if c, ok := evidence.StatedCriterion(l.Refuting.Criterion); ok {
			again = "under `" + c + "`"
			if len(a.Changes) > 0 {
				again += " judged with " + cmp.Or(l.Refuting.JudgedWith, "the built-in defaults")
			}
		}
		return fmt.Sprintf("; %s supports it only under %s, by which the refuting run's own output cannot be judged again (%v): that needs its log, or run the falsifier again %s",
			what, under, a.Err, again), Next{}
	case a.Judged.Verdict == evidence.VerdictSupports:
		return fmt.Sprintf("; %s supports it only under %s, which the refuting run's own output passes (%s): a criterion moved past the data that refuted it answers nothing",
			what, under, clip(a.Judged.Statement, statementMax)), Next{Step: StepRevise, Falsifier: f.N}
	}
	return fmt.Sprintf("; %s supports it only under %s, by which the refuting run's own output %s (%s): a criterion that cannot judge the data that refuted it answers nothing",
		what, under, VerdictPhrase(a.Judged.Verdict), clip(a.Judged.Statement, statementMax)), Next{Step: StepRevise, Falsifier: f.N}
}

// UnansweredText is Unanswered's text with its step worded by word, for
// the note at path.
func UnansweredText(path string, l evidence.Latest, word Wording) string {
	text, next := Unanswered(l)
	return Finding{Path: path, Message: text, Next: next}.Text(word)
}

// refutedDeleted reports a refutation that stands whose falsifier is no
// longer in the note, at its block: deleting a falsifier answers nothing.
func (nc *noteCheck) refutedDeleted() {
	if !nc.ran() {
		return
	}
	for _, l := range nc.runs().Deleted {
		if l.Refuting.ID == "" || l.Refuting.Gone {
			continue // a block gone: evidence/run-vanished reports it
		}
		msg := fmt.Sprintf("run %s refuted the claim and its falsifier (%s) is no longer in the note", l.Refuting.ID, deletedName(l.Falsifier))
		if l.Refuting.Problem != "" {
			msg += fmt.Sprintf(", as the ledger (%s) recorded it: an edit of its block answers nothing (%s)",
				evidence.LedgerFile, l.Refuting.Problem)
		}
		if l.Refuting.Criterion != "" {
			msg += ": " + l.Refuting.Criterion
		}
		if l.Falsifier.ID == "" {
			// A block recorded before ids knows its falsifier by text only.
			msg += "; if the falsifier was reworded, put that text back and run it once: its runs then carry its id"
		}
		nc.atLine(RuleRefutedDeleted, l.Refuting.Line, "%s", msg)
	}
}

// deletedName names a falsifier no longer in the note by what its runs
// quote: its id and text.
func deletedName(f evidence.Falsifier) string {
	q := strconv.Quote(f.Text)
	if f.ID != "" {
		return f.ID + ": " + q
	}
	return q
}

// criterionChanged reports a falsifier whose criterion is not the one its
// latest record was judged by, with both criteria and both verdicts: the
// recorded output judged again under the criterion as written now.
func (nc *noteCheck) criterionChanged() {
	if !nc.ran() {
		return
	}
	for _, l := range nc.runs().Falsifiers {
		if !l.CriterionChanged() {
			continue
		}
		// The check's Rejudger: notes that share a run (a note copied
		// keeps its blocks) judge it once.
		rj := nc.c.rejudge.Load().Changed(l)
		f := l.Falsifier
		was := "no criterion"
		if rj.WasCriterion != "" {
			was = "`" + rj.WasCriterion + "`"
		}
		msg := fmt.Sprintf("falsifier %d's criterion is not the one its latest run (%s) was judged by%s: judged by %s it %s", f.N, rj.Of.ID, ChangesPhrase(rj.Changes), was, VerdictPhrase(rj.Was.Verdict))
		next := Next{Step: StepRejudge, Falsifier: f.N}
		switch {
		case errors.Is(rj.Err, evidence.ErrRejudgeBudget):
			msg += fmt.Sprintf("; by `%s` it is not judged again here (%v)", f.Criterion, rj.Err)
			next.Step = StepRejudgeUnjudged
		case rj.Err != nil:
			next.Step = NoStep
			msg += fmt.Sprintf("; by `%s` it cannot be judged again (%v): run it again", f.Criterion, rj.Err)
		default:
			// The statement is clipped: it quotes values of the output
			// (a string of it whole), and every note sharing the run
			// repeats it.
			msg += fmt.Sprintf("; judged again by `%s` on the same output it %s (%s)",
				f.Criterion, VerdictPhrase(rj.Now.Verdict), clip(rj.Now.Statement, statementMax))
		}
		nc.atLineNext(RuleCriterionChanged, f.CriterionLine, next, "%s", msg)
	}
}

// ChangesPhrase names what judged a run besides its criterion's
// expression that its falsifier judges by otherwise now (evidence.
// JudgingChanges), as " (its confidence was `90%`, now `99%`)", or is
// empty: changed alone, the two criteria a message quotes read the same.
// falsifiers/criterion-changed and zk runs both say it so.
func ChangesPhrase(changes []string) string {
	if len(changes) == 0 {
		return ""
	}
	return " (" + strings.Join(changes, "; ") + ")"
}

// flaky reports a falsifier whose verdict flipped twice or more over its
// latest judged runs under its criterion as judged now (evidence.Flips),
// at its item: the latest run still answers, and the finding says how
// little one reading of it tells.
func (nc *noteCheck) flaky() {
	if !nc.ran() {
		return
	}
	for _, l := range nc.runs().Falsifiers {
		if fl := l.Flips(); fl.Flaky() {
			nc.atLine(RuleFlaky, l.Falsifier.Line, "%s", FlakyMessage(l.Falsifier, fl))
		}
	}
}

// FlakyMessage says how falsifier f's verdict flipped over its latest
// runs (fl) and what settles it: falsifiers/flaky's message, which zk
// runs repeats.
func FlakyMessage(f evidence.Falsifier, fl evidence.Flips) string {
	msg := fmt.Sprintf("falsifier %d's verdict flipped %d times over its last %s under this criterion (%d refute, %d support)",
		f.N, fl.Flips, english.Plural(fl.Runs, "judged run"), fl.Refutes, fl.Supports)
	if f.Repeat == "" {
		// As many as its verdicts need at the confidence it asks: 6 at
		// 95%, 8 at 99%; fewer are too few to judge.
		c := f.ConfidenceAsked()
		return msg + fmt.Sprintf(": a single reading cannot tell the claim from noise; give the falsifier `- repeat: N` to judge its criterion over N runs' samples, %d or more at %s (docs/falsifiers.md#noise-judging-on-resamples)",
			criterion.MinSamples(c), criterion.Percent(c))
	}
	return msg + ": the samples of its repeats cannot tell the claim from noise either; raise `repeat:`, or measure what it reads more steadily"
}

// statementMax is how many characters of a judgement's statement
// falsifiers/criterion-changed quotes: those of a dozen readings.
const statementMax = 2000

// VerdictPhrase says what a record with verdict v does to the claim, as
// a message puts it: "refutes the claim", "is inconclusive".
func VerdictPhrase(v evidence.Verdict) string {
	switch v {
	case evidence.VerdictRefutes:
		return "refutes the claim"
	case evidence.VerdictSupports:
		return "supports the claim"
	case evidence.VerdictInconclusive:
		return "is inconclusive"
	case evidence.VerdictError:
		return "could not run"
	}
	return "has no verdict"
}

// neverRun reports a falsifier with a command and a criterion that has no
// recorded run.
func (nc *noteCheck) neverRun() {
	if !nc.ran() {
		for _, f := range nc.falsifierList() {
			nc.neverRunOne(f)
		}
		return
	}
	for _, l := range nc.runs().Falsifiers {
		if l.Run.ID == "" {
			nc.neverRunOne(l.Falsifier)
		}
	}
}

// neverRunOne reports f, a falsifier with no recorded run, if it has a
// command and a criterion. A run whose block was edited since is no
// record that counts (evidence/run-edited says so at the block), and yet
// "no recorded run" beside it reads as if zk lost it: the message says
// the falsifier's runs are there, edited.
func (nc *noteCheck) neverRunOne(f evidence.Falsifier) {
	if f.Command == "" || f.Criterion == "" {
		return
	}
	next := Next{Step: StepRun, Falsifier: f.N}
	var edited []evidence.Run
	if nc.ran() { // else the note holds no block: none to read
		edited = evidence.EditedRunsOf(nc.n.Src, f)
	}
	switch len(edited) {
	case 0:
		nc.atLineNext(RuleNeverRun, f.Line, next, "falsifier %d has a command and a criterion but no recorded run", f.N)
	case 1:
		nc.atLineNext(RuleNeverRun, f.Line, next,
			"falsifier %d has a command and a criterion, and its only run's block (run %s, line %d) was edited after it was recorded (%s): an edited block no longer counts",
			f.N, edited[0].ID, edited[0].Line, RuleRunEdited)
	default:
		nc.atLineNext(RuleNeverRun, f.Line, next,
			"falsifier %d has a command and a criterion, and the blocks of its %d runs were edited after they were recorded (%s): an edited block no longer counts",
			f.N, len(edited), RuleRunEdited)
	}
}

// staleRun reports a falsifier whose latest measurement is older than the
// note's tending interval: the evidence is due to be measured again.
func (nc *noteCheck) staleRun() {
	if !nc.ran() {
		return
	}
	today := tending.DateOf(nc.c.opts.Today)
	var iv vault.Interval
	for _, l := range nc.runs().Falsifiers {
		r := l.Measured
		if r.ID == "" || r.Started.IsZero() {
			continue
		}
		if iv.N == 0 {
			iv, _, _ = tending.IntervalOf(nc.n, nc.typ, nc.c.opts.Interval)
		}
		ran := tending.DateOf(r.Started)
		if due := iv.After(ran); due.Before(today) {
			nc.atLine(RuleStaleRun, r.Line, "falsifier %d was last run %s, to be run every %s: due %s, %s overdue",
				l.Falsifier.N, ran.Format(time.DateOnly), iv, due.Format(time.DateOnly), english.Plural(tending.DaysBetween(due, today), "day"))
		}
	}
}

// refutedBy says why a note is refuted ("falsifier 1, run ID"), or is
// empty: what links/rests-on-refuted needs of every note. Its parts are
// clipped (whyMax): the finding of every note that rests on this one
// repeats it, and a block's run id, a falsifier's id or text are as long
// as the note makes them.
func (nc *noteCheck) refutedBy() string {
	if !nc.ran() {
		return ""
	}
	l, ok := nc.runs().Refuted()
	run := clip(l.Refuting.ID, whyMax)
	switch {
	case !ok:
		return ""
	case l.Falsifier.N == 0:
		id := clip(l.Falsifier.ID, whyMax)
		if id == "" {
			id = strconv.Quote(clip(l.Falsifier.Text, whyMax))
		}
		return fmt.Sprintf("deleted falsifier %s, run %s", id, run)
	}
	return fmt.Sprintf("falsifier %d, run %s", l.Falsifier.N, run)
}

// whyMax is how many characters of a run id, a falsifier's id or its
// text refutedBy keeps: more than a run id zk writes (21) or a
// falsifier's sentence usually has.
const whyMax = 120

// clip is s cut to its first n characters (runes), "…" marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}

// restEdge is a Links entry by which a note may rest on another: link is
// its link path, resolved (into target) only when some note of the vault
// is refuted, which most checks never see.
type restEdge struct {
	link, target, relation           string
	line, column, endLine, endColumn int
}

// restsOn lists the note's Links entries whose relation rests on another
// note.
func (c *checker) restsOn(n *vault.Note, lines vault.Lines, entries []vault.LinkEntry) []restEdge {
	var out []restEdge
	for _, e := range entries {
		r := slices.Index(c.restsOnVocab, e.Relation)
		if r >= 0 && e.Link.Path != "" && out == nil {
			out = make([]restEdge, 0, len(entries)) // sized once, for every entry at most
		}
		if r < 0 || e.Link.Path == "" {
			continue
		}
		// The list's word, not the entry's: that is a slice of the
		// entry's whole line, justification and all, which every note's
		// edges would otherwise keep until the link rules run (127 MB of
		// a first check's 994 MB live at 300,000 notes).
		ed := restEdge{link: e.Link.Path, relation: c.restsOnVocab[r]}
		ed.line, ed.column = posOf(n, lines, e.Link.Span.Start.Offset)
		ed.endLine, ed.endColumn = posOf(n, lines, e.Link.Span.End.Offset)
		out = append(out, ed)
	}
	return out
}

func posOf(n *vault.Note, lines vault.Lines, off int) (int, int) {
	off = max(0, min(off, len(n.Src)))
	return lines.Line(off) + 1, lines.Col(off) + 1
}

// restsOnRefuted reports every Links entry that rests, directly or
// through a chain of such entries, on a refuted note, naming the chain.
// It walks the graph backwards from every refuted note at once (a
// breadth-first search), so each note is visited once, cycles included,
// and the chain named is a shortest one.
func (c *checker) restsOnRefuted(results []noteResult) []Finding {
	if !c.on(RuleRestsOnRefuted) {
		return nil
	}
	if !slices.ContainsFunc(results, func(r noteResult) bool { return r.summary.refuted != "" }) {
		return nil
	}
	rev := map[string][]string{}
	var queue []string
	dist := map[string]int{} // a note → its fewest rests-on entries to a refuted note
	for i := range results {
		r := &results[i]
		if r.path == "" {
			continue
		}
		edges := r.summary.restsOn[:0]
		for _, e := range r.summary.restsOn {
			t, ok := c.resolver.Resolve(e.link, r.path)
			if !ok || t == r.path {
				continue
			}
			e.target = t
			edges = append(edges, e)
			rev[t] = append(rev[t], r.path)
		}
		r.summary.restsOn = edges
		if r.summary.refuted != "" {
			dist[r.path] = 0
			queue = append(queue, r.path)
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range rev[p] {
			if _, seen := dist[q]; !seen {
				dist[q] = dist[p] + 1
				queue = append(queue, q)
			}
		}
	}
	chains := newChainWalk(dist, func(p string) []restEdge { return c.summaries[p].restsOn })
	var out []Finding
	for _, r := range results {
		if !r.checked {
			continue
		}
		var fs []Finding
		for _, e := range r.summary.restsOn {
			if _, ok := dist[e.target]; !ok {
				continue
			}
			fs = c.add(fs, c.restsOnFinding(r.path, e, chains.of(e.target)))
		}
		out = append(out, r.ignores.filter(fs)...)
	}
	return out
}

// chainHead is how many notes of a chain to a refuted note a message
// names from its start. A chain of up to one more is named whole, as the
// chains of a vault are (a hop or three); of a longer one the message
// names its first chainHead notes, the refuted note at its end and how
// many notes it has. Every note on a chain has such a message, and
// naming the whole chain in each made zk check's output grow with the
// square of its length (734 MB for a chain of 3,000 notes).
const chainHead = 3

// chain is a chain of rests-on entries to a refuted note, as a message
// names it: its first notes (head, chainHead at most, from the entry's
// target on), its refuted note (end) and how many notes it has (n, both
// ends included).
type chain struct {
	head []string
	end  string
	n    int
}

// chainWalk finds, from any note, the chain of rests-on entries to a
// refuted note that a message names, given each note's distance to the
// nearest refuted one (dist): of the shortest chains, the one whose paths
// come first in order, step by step. Check and a Session compute dist
// over different parts of the vault, and name the same chain. Each note's
// next step and the refuted note its chain ends at are kept once found,
// so that the chains of every note of the vault cost a walk of its
// entries, not of every chain from its start.
type chainWalk struct {
	dist  map[string]int
	rests func(string) []restEdge
	next  map[string]string
	end   map[string]string
}

func newChainWalk(dist map[string]int, rests func(string) []restEdge) *chainWalk {
	return &chainWalk{dist: dist, rests: rests, next: map[string]string{}, end: map[string]string{}}
}

// step is the note after p on p's chain, or "" for a refuted note.
func (w *chainWalk) step(p string) string {
	if w.dist[p] == 0 {
		return ""
	}
	if q, ok := w.next[p]; ok {
		return q
	}
	best := ""
	for _, e := range w.rests(p) {
		if d, ok := w.dist[e.target]; ok && e.target != "" && d == w.dist[p]-1 && (best == "" || e.target < best) {
			best = e.target
		}
	}
	w.next[p] = best // "" cannot happen: dist is a distance
	return best
}

// of is the chain from start (whose distance is known) to a refuted note.
func (w *chainWalk) of(start string) chain {
	ch := chain{n: w.dist[start] + 1}
	for p := start; p != "" && len(ch.head) < chainHead; p = w.step(p) {
		ch.head = append(ch.head, p)
	}
	// The refuted note: walked to once from any note, and kept for every
	// note walked through.
	var walked []string
	p := start
	for {
		if e, ok := w.end[p]; ok {
			p = e
			break
		}
		walked = append(walked, p)
		q := w.step(p)
		if q == "" {
			break
		}
		p = q
	}
	for _, q := range walked {
		w.end[q] = p
	}
	ch.end = p
	return ch
}

// restsOnFinding is the finding of the entry e of the note at path,
// which rests on a refuted note through ch, from e's target on.
func (c *checker) restsOnFinding(path string, e restEdge, ch chain) Finding {
	name := func(p string) string { return c.summary(p).name }
	why := c.summary(ch.end).refuted
	msg := fmt.Sprintf("%s [[%s]], which is refuted (%s)", e.relation, name(ch.head[0]), why)
	switch {
	case ch.n <= 1:
	case ch.n <= chainHead+1: // every note named
		names := make([]string, 0, ch.n)
		for _, p := range ch.head {
			names = append(names, name(p))
		}
		if len(ch.head) < ch.n {
			names = append(names, name(ch.end))
		}
		msg = fmt.Sprintf("%s [[%s]], which rests on a refuted note: %s (refuted: %s)", e.relation, name(ch.head[0]),
			quoteNames(names), why)
	default:
		names := make([]string, 0, chainHead+2)
		for _, p := range ch.head {
			names = append(names, name(p))
		}
		msg = fmt.Sprintf("%s [[%s]], which rests on a refuted note through a chain of %s: %s → … → [[%s]] (refuted: %s)",
			e.relation, name(ch.head[0]), english.Plural(ch.n, "note"), quoteNames(names), name(ch.end), why)
	}
	return Finding{Path: path, Line: e.line, Column: e.column, EndLine: e.endLine, EndColumn: e.endColumn,
		Rule: RuleRestsOnRefuted, Message: msg}
}

func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "[[" + n + "]]"
	}
	return strings.Join(q, " → ")
}

// runVanished reports a refuting run the ledger recorded for this note
// whose block is no longer in it, at the Evidence heading.
func (nc *noteCheck) runVanished() {
	entries := nc.c.opts.Ledger[nc.n.Path]
	if len(entries) == 0 {
		return
	}
	line := 0
	if s, ok := nc.n.Section(evidence.EvidenceSection, 0); ok {
		line = nc.n.Headings[s.Heading].Span.Start.Line
	}
	for _, e := range evidence.Vanished(nc.n.Src, entries) {
		if e.Note != nc.n.Path {
			// Placed here by its falsifier id (evidence.Rehome): its own
			// note was renamed outside zk, or merged into this one.
			nc.atLine(RuleRunVanished, line, "run %s refuted the claim of %s (falsifier %d), whose falsifier %s is in this note, and its block is gone; %s",
				e.ID, e.Note, e.Falsifier, e.FalsifierID, nc.c.ledgerLog(e))
			continue
		}
		nc.atLine(RuleRunVanished, line, "run %s refuted the claim (falsifier %d) and its block is gone from the note; %s",
			e.ID, e.Falsifier, nc.c.ledgerLog(e))
	}
}

// bareCaptures reports each capture whose pattern finds its number by
// nothing (measure.Capture.Bare): `failing = ([0-9]+)` reads the first
// number of the output, whatever it counts, and a run records it as the
// failures. A capture that does not parse is zk run's to refuse.
func (nc *noteCheck) bareCaptures() {
	for _, f := range nc.falsifierList() {
		caps, at := f.BareCaptures()
		for k, c := range caps {
			pat := c.Re.String()
			nc.atLine(RuleBareCapture, f.CaptureLines[at[k]],
				"falsifier %d's capture %s reads the first number anywhere in the output: its pattern %s has no text around the number (the name before = is not looked for); write the text the output prints before the number after the =, as in `%s = %s = %s`",
				f.N, c.Name, pat, c.Name, c.Name, pat)
		}
	}
}
