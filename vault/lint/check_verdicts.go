package lint

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/english"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/tending"
)

// RestsOnRelations are the Links relations by which a note rests on its
// target: if the target is refuted, the note's footing is gone too.
var RestsOnRelations = []string{"extends", "evidence-for", "supports", "refines", "applies-in"}

// latestRun is the latest recorded run of one falsifier.
type latestRun struct {
	f evidence.Falsifier
	r evidence.Run
}

// latestRuns pairs each falsifier of n with its latest run, read from the
// Evidence section's blocks by the falsifier's text. A block edited since
// it was recorded is not counted (evidence/run-edited reports it): its
// verdict is no longer the record's. The result has one entry per
// falsifier; r.ID is empty when it was never recorded.
func latestRuns(n *vault.Note) []latestRun {
	fs := evidence.Falsifiers(n)
	if len(fs) == 0 {
		return nil
	}
	out := make([]latestRun, len(fs))
	for i, f := range fs {
		out[i].f = f
	}
	for _, r := range evidence.ParseRuns(n.Src) {
		if r.Problem != "" || r.Falsifier == "" {
			continue
		}
		for i := range out {
			if sameText(out[i].f.Text, r.Falsifier) && !r.Started.Before(out[i].r.Started) {
				out[i].r = r
			}
		}
	}
	return out
}

// sameText compares a falsifier's text with the one a record quotes (on
// one line, blanks collapsed).
func sameText(a, b string) bool {
	return strings.Join(strings.Fields(a), " ") == strings.Join(strings.Fields(b), " ")
}

// runs is the note's latest runs, read once for the rules that need them.
func (nc *noteCheck) runs() []latestRun {
	if nc.latest == nil {
		nc.latest = latestRuns(nc.n)
		if nc.latest == nil {
			nc.latest = []latestRun{}
		}
	}
	return nc.latest
}

// refuted reports each falsifier whose latest run refutes the claim.
func (nc *noteCheck) refuted() {
	for _, l := range nc.runs() {
		if l.r.Verdict == evidence.VerdictRefutes {
			msg := fmt.Sprintf("falsifier %d's latest run (%s) refutes the claim", l.f.N, l.r.ID)
			if l.r.Criterion != "" {
				msg += ": " + l.r.Criterion
			}
			nc.atLine(RuleRefuted, l.f.Line, "%s", msg)
		}
	}
}

// neverRun reports a falsifier with a command and a criterion that has no
// recorded run.
func (nc *noteCheck) neverRun() {
	for _, l := range nc.runs() {
		if l.r.ID == "" && l.f.Command != "" && l.f.Criterion != "" {
			nc.atLine(RuleNeverRun, l.f.Line, "falsifier %d has a command and a criterion but no recorded run; zk run %s --falsifier %d",
				l.f.N, shellWord(nc.n.Path), l.f.N)
		}
	}
}

// staleRun reports a falsifier whose latest run is older than the note's
// tending interval: the evidence is due to be measured again.
func (nc *noteCheck) staleRun() {
	today := tending.DateOf(nc.c.opts.Today)
	var iv vault.Interval
	for _, l := range nc.runs() {
		if l.r.ID == "" || l.r.Started.IsZero() {
			continue
		}
		if iv.N == 0 {
			iv, _, _ = tending.IntervalOf(nc.n, nc.typ, nc.c.opts.Interval)
		}
		ran := tending.DateOf(l.r.Started)
		if due := iv.After(ran); due.Before(today) {
			nc.atLine(RuleStaleRun, l.r.Line, "falsifier %d was last run %s, to be run every %s: due %s, %s overdue",
				l.f.N, ran.Format(time.DateOnly), iv, due.Format(time.DateOnly), english.Plural(tending.DaysBetween(due, today), "day"))
		}
	}
}

// shellWord quotes a note path for a command line the message suggests.
func shellWord(s string) string {
	if strings.ContainsAny(s, " '\"$`\\&;|<>()*?[]#~!") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

// refutedBy says why a note is refuted ("falsifier 1, run ID"), or is
// empty: what links/rests-on-refuted needs of every note.
func refutedBy(n *vault.Note) string {
	if !strings.Contains(string(n.Src), "<!-- zk:run") {
		return ""
	}
	for _, l := range latestRuns(n) {
		if l.r.Verdict == evidence.VerdictRefutes {
			return fmt.Sprintf("falsifier %d, run %s", l.f.N, l.r.ID)
		}
	}
	return ""
}

// restEdge is a Links entry by which a note rests on another.
type restEdge struct {
	target, relation                 string
	line, column, endLine, endColumn int
}

// restsOn lists the note's Links entries that rest on another note.
func (c *checker) restsOn(n *vault.Note, lines vault.Lines) []restEdge {
	var out []restEdge
	for _, e := range vault.LinkEntries(n) {
		if !slices.Contains(RestsOnRelations, e.Relation) || e.Link.Path == "" {
			continue
		}
		t, ok := c.resolver.Resolve(e.Link.Path, n.Path)
		if !ok || t == n.Path {
			continue
		}
		ed := restEdge{target: t, relation: e.Relation}
		ed.line, ed.column = posOf(n, lines, e.Link.Span.Start.Offset)
		ed.endLine, ed.endColumn = posOf(n, lines, e.Link.Span.End.Offset)
		out = append(out, ed)
	}
	return out
}

func posOf(n *vault.Note, lines vault.Lines, off int) (int, int) {
	p := lines.Pos(off)
	return p.Line + 1, len([]rune(string(n.Src[off-p.Col:off]))) + 1
}

// restsOnRefuted reports every Links entry that rests, directly or
// through a chain of such entries, on a refuted note, naming the chain.
// It walks the graph backwards from every refuted note at once (a
// breadth-first search), so each note is visited once, cycles included,
// and the chain named is a shortest one.
func (c *checker) restsOnRefuted(results []noteResult) []Finding {
	if c.severity(RuleRestsOnRefuted) == Off {
		return nil
	}
	rev := map[string][]string{}
	var queue []string
	next := map[string]string{} // a note → the next note toward a refuted one
	for i := range results {
		r := &results[i]
		if r.path == "" {
			continue
		}
		for _, e := range r.summary.restsOn {
			rev[e.target] = append(rev[e.target], r.path)
		}
		if r.summary.refuted != "" {
			next[r.path] = ""
			queue = append(queue, r.path)
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range rev[p] {
			if _, seen := next[q]; !seen {
				next[q] = p
				queue = append(queue, q)
			}
		}
	}
	var out []Finding
	for _, r := range results {
		if !r.checked {
			continue
		}
		var fs []Finding
		for _, e := range r.summary.restsOn {
			if _, ok := next[e.target]; !ok {
				continue
			}
			var chain []string
			end := e.target
			for p := e.target; ; p = next[p] {
				chain = append(chain, c.summaries[p].name)
				if next[p] == "" || len(chain) > len(next) {
					end = p
					break
				}
			}
			msg := fmt.Sprintf("%s %s, which is refuted (%s)", e.relation, quoteNames(chain[:1]), c.summaries[end].refuted)
			if len(chain) > 1 {
				msg = fmt.Sprintf("%s %s, which rests on a refuted note: %s (refuted: %s)", e.relation, quoteNames(chain[:1]),
					quoteNames(chain), c.summaries[end].refuted)
			}
			fs = c.add(fs, Finding{Path: r.path, Line: e.line, Column: e.column, EndLine: e.endLine, EndColumn: e.endColumn,
				Rule: RuleRestsOnRefuted, Message: msg})
		}
		out = append(out, r.ignores.filter(fs)...)
	}
	return out
}

func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "[[" + n + "]]"
	}
	return strings.Join(q, " → ")
}
