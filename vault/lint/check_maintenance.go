package lint

import (
	"fmt"
	"time"

	"github.com/zk-claims/zk/internal/english"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/tending"
)

// tendedDate is the note's Last tended date as the maintenance rules
// read it: found or not, and where to report it.
type tendedDate struct {
	tending.Tended
	ok         bool
	section    string
	start, end int
}

// lastTended reads the note's Last tended date once, in the section its
// type keeps it in.
func (nc *noteCheck) lastTended() *tendedDate {
	if nc.tended != nil {
		return nc.tended
	}
	d := &tendedDate{section: nc.typ.TendedSection()}
	d.Tended, d.ok = tending.LastTended(nc.n, d.section, nc.c.opts.TendedKeys)
	d.start, d.end = d.Start, d.End
	if d.start < 0 { // a frontmatter value zk could not place
		d.start, d.end = nc.lines.LineStart(d.Line), 0
	}
	nc.tended = d
	return d
}

// missingDate reports a note of a type that gives no Last tended date.
func (nc *noteCheck) missingDate() {
	n, d := nc.n, nc.lastTended()
	if d.ok {
		return
	}
	line := nc.lastLine()
	if sec, ok := n.Section(d.section, 0); ok {
		line = n.Headings[sec.Heading].Span.Start.Line
	}
	hint := ""
	if k := tending.UnreadTendedKey(nc.n, nc.c.opts.TendedKeys); k != "" {
		// A date the user did write, under a key zk does not read: say
		// so, or they would add a second date beside it.
		hint = fmt.Sprintf(" (frontmatter %q is not one of the config's tended-keys; add it there to read it)", k)
	}
	nc.atLine(RuleMissingDate, line, "no Last tended date; add \"- Last tended: YYYY-MM-DD\" under ## %s%s", d.section, hint)
}

// badDate reports a date that is not a real YYYY-MM-DD. A note of no type
// is checked only if it gives a date.
func (nc *noteCheck) badDate() {
	if d := nc.lastTended(); d.ok && d.Err != nil {
		nc.at(RuleBadDate, d.start, d.end, "Last tended: %v", d.Err)
	}
}

// futureDate reports a date after today.
func (nc *noteCheck) futureDate() {
	d, today := nc.lastTended(), tending.DateOf(nc.c.opts.Today)
	if d.ok && d.Err == nil && d.Date.After(today) {
		nc.at(RuleFutureDate, d.start, d.end, "Last tended %s is after today, %s", d.Raw, today.Format(time.DateOnly))
	}
}

// stale reports a note past its date plus its interval.
func (nc *noteCheck) stale() {
	d, today := nc.lastTended(), tending.DateOf(nc.c.opts.Today)
	if !d.ok || d.Err != nil || d.Date.After(today) {
		return
	}
	iv, src, _ := tending.IntervalOf(nc.n, nc.typ, nc.c.opts.Interval)
	due := iv.After(d.Date)
	if due.Before(today) {
		// Where the interval came from, in every case: a user who wants
		// another one has to know which tend-every to edit.
		// The config fills in 90d when it sets none, so a config's own
		// 90d reads as the default too, which it is.
		every := iv.String() + " (the default " + tending.TendEveryKey + ")"
		switch {
		case src == tending.IntervalFrontmatter:
			every = iv.String() + " (its " + tending.TendEveryKey + ")"
		case src == tending.IntervalType && nc.typ != nil:
			every = fmt.Sprintf("%s (type %s's %s)", iv, nc.typ.Name, tending.TendEveryKey)
		case iv != vault.DefaultInterval:
			every = iv.String() + " (the config's " + tending.TendEveryKey + ")"
		}
		nc.at(RuleStale, d.start, d.end, "last tended %s, to be tended every %s: due %s, %s overdue",
			d.Raw, every, due.Format(time.DateOnly), english.Plural(tending.DaysBetween(due, today), "day"))
	}
}
