package lint

import (
	"time"

	"github.com/zk-claims/zk/internal/english"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/tending"
)

// maintenance checks the Last tended date: present on a typed note, a
// real date, not in the future, and not past due. A note of no type is
// checked only if it gives a date.
func (nc *noteCheck) maintenance(t *vault.NoteType) {
	n := nc.n
	section := t.TendedSection()
	tended, ok := tending.LastTended(n, section, nc.c.opts.TendedKeys)
	if !ok {
		if t == nil {
			return
		}
		line := nc.lastLine()
		if sec, ok := n.Section(section, 0); ok {
			line = n.Headings[sec.Heading].Span.Start.Line
		}
		nc.atLine(RuleMissingDate, line, "no Last tended date; add \"- Last tended: YYYY-MM-DD\" under ## %s", section)
		return
	}
	start, end := tended.Start, tended.End
	if start < 0 { // a frontmatter value zk could not place
		start, end = nc.lines.LineStart(tended.Line), 0
	}
	if tended.Err != nil {
		nc.at(RuleBadDate, start, end, "Last tended: %v", tended.Err)
		return
	}
	today := tending.DateOf(nc.c.opts.Today)
	if tended.Date.After(today) {
		nc.at(RuleFutureDate, start, end, "Last tended %s is after today, %s", tended.Raw, today.Format(time.DateOnly))
		return
	}
	iv, src, _ := tending.IntervalOf(n, t, nc.c.opts.Interval)
	due := iv.After(tended.Date)
	if due.Before(today) {
		every := iv.String()
		if src == tending.IntervalFrontmatter {
			every += " (" + tending.TendEveryKey + ")"
		}
		nc.at(RuleStale, start, end, "last tended %s, to be tended every %s: due %s, %s overdue",
			tended.Raw, every, due.Format(time.DateOnly), english.Plural(tending.DaysBetween(due, today), "day"))
	}
}
