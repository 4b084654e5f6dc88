package vault

import "time"

// maintenance checks the Last tended date: present on a typed note, a
// real date, not in the future, and not past due. A note of no type is
// checked only if it gives a date.
func (nc *noteCheck) maintenance(t *NoteType) {
	n := nc.n
	section := t.TendedSection()
	tended, ok := LastTendedIn(n, section, nc.c.opts.TendedKeys)
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
		start, end = nc.lines.starts[min(tended.Line, len(nc.lines.starts)-1)], 0
	}
	if tended.Err != nil {
		nc.at(RuleBadDate, start, end, "Last tended: %v", tended.Err)
		return
	}
	today := dateOf(nc.c.opts.Today)
	if tended.Date.After(today) {
		nc.at(RuleFutureDate, start, end, "Last tended %s is after today, %s", tended.Raw, today.Format(time.DateOnly))
		return
	}
	iv, src, _ := intervalOf(n, func(n *Note) (Interval, bool) {
		switch {
		case t != nil && t.Interval.N > 0:
			return t.Interval, true
		case nc.c.opts.Interval.N > 0:
			return nc.c.opts.Interval, true
		}
		return Interval{}, false
	})
	due := iv.After(tended.Date)
	if due.Before(today) {
		every := iv.String()
		if src == IntervalFrontmatter {
			every += " (" + TendEveryKey + ")"
		}
		nc.at(RuleStale, start, end, "last tended %s, to be tended every %s: due %s, %s overdue",
			tended.Raw, every, due.Format(time.DateOnly), plural(daysBetween(due, today), "day"))
	}
}
