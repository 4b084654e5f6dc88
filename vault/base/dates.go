package base

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/lazyre"
)

// dateLayouts are the forms date() and a date property accept, the ISO
// forms Obsidian's date and datetime properties write.
var dateLayouts = []struct {
	layout  string
	hasTime bool
}{
	{"2006-01-02", false},
	{"2006-01-02 15:04:05", true},
	{"2006-01-02T15:04:05", true},
	{"2006-01-02 15:04", true},
	{"2006-01-02T15:04", true},
	{"2006-01-02T15:04:05.000", true},
	{"2006-01-02 15:04:05.000", true},
}

// parseDate reads a date or datetime string in loc; a string carrying
// its own offset (RFC 3339) keeps it.
func parseDate(s string, loc *time.Location) (Date, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 10 || len(s) > 40 || s[4] != '-' {
		return Date{}, false
	}
	for _, l := range dateLayouts {
		if t, err := time.ParseInLocation(l.layout, s, loc); err == nil {
			return Date{T: t, HasTime: l.hasTime}, true
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return Date{T: t.In(loc), HasTime: true}, true
	}
	return Date{}, false
}

// durationPart is one "<n> <unit>" of a duration string.
var durationPart = lazyre.New(`^\s*([+-]?\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*`)

// parseDuration reads a duration as Bases writes it: one or more
// "<number><unit>" parts ("1M", "2 weeks", "1d 4h"), units as in Bases
// syntax's Date arithmetic table; "m" is minutes and "M" months.
func parseDuration(s string) (Duration, error) {
	rest := strings.TrimSpace(s)
	if rest == "" || len(rest) > 200 {
		return Duration{}, fmt.Errorf("%q is not a duration", s)
	}
	var d Duration
	for rest != "" {
		m := durationPart().FindStringSubmatch(rest)
		if m == nil {
			return Duration{}, fmt.Errorf("%q is not a duration", s)
		}
		n, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return Duration{}, fmt.Errorf("%q is not a duration", s)
		}
		unit := m[2]
		if unit != "M" && unit != "m" {
			unit = strings.ToLower(unit)
		}
		switch unit {
		case "y", "year", "years":
			d.Months += n * 12
		case "M", "month", "months":
			d.Months += n
		case "w", "week", "weeks":
			d.Days += n * 7
		case "d", "day", "days":
			d.Days += n
		case "h", "hour", "hours":
			d.Millis += n * 36e5
		case "m", "minute", "minutes":
			d.Millis += n * 6e4
		case "s", "second", "seconds":
			d.Millis += n * 1e3
		case "ms", "millisecond", "milliseconds":
			d.Millis += n
		default:
			return Duration{}, fmt.Errorf("%q is not a duration: unknown unit %q", s, m[2])
		}
		rest = rest[len(m[0]):]
	}
	return d, nil
}

// addDuration moves a date by d (sign -1 subtracts) as Moment.js's add()
// and subtract() do, whatever order the duration was written in: the
// months first, the day of the month kept unless the target month is
// shorter, then its last day (2025-01-31 + 1M is 2025-02-28, where Go's
// AddDate gives 2025-03-03); then the days, on the calendar (the time
// of day kept); then the milliseconds. Months and days are whole, a
// fraction rounded half away from zero, as Moment rounds them. Adding a
// time span to a plain date keeps it a date unless the span has a time
// part.
func addDuration(t Date, d Duration, sign int) (Date, error) {
	m, n := math.Round(d.Months)*float64(sign), math.Round(d.Days)*float64(sign)
	ms := float64(sign) * d.Millis
	if math.Abs(m) > maxMonths || math.Abs(n) > maxMonths*31 || math.Abs(ms) > maxMillis || math.IsNaN(m+n+ms) {
		return Date{}, fmt.Errorf("a date moved by %s is out of range", toString(d))
	}
	out := t.T
	if m != 0 {
		out = addMonths(out, int(m))
	}
	if n != 0 {
		out = out.AddDate(0, 0, int(n))
	}
	out = out.Add(time.Duration(ms * float64(time.Millisecond)))
	hasTime := t.HasTime || math.Mod(d.Millis, 864e5) != 0
	return Date{T: out, HasTime: hasTime}, nil
}

// maxMonths and maxMillis bound how far a date moves: JavaScript's dates
// end 100,000,000 days either side of 1970 (an Invalid Date past them),
// a Go time.Duration at 292 years; a count past them would also overflow
// an int where it is 32 bits.
const (
	maxMonths = 100_000_000 / 28
	maxMillis = float64(math.MaxInt64 / int64(time.Millisecond))
)

// addMonths is t moved by n calendar months, the day of the month clamped
// to the target month's last day (Moment.js's setMonth).
func addMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	months := int(m) - 1 + n
	y += months / 12
	if months %= 12; months < 0 {
		months += 12
		y--
	}
	target := time.Month(months + 1)
	// Day 0 of the next month is the target month's last day.
	if last := time.Date(y, target+1, 0, 0, 0, 0, 0, time.UTC).Day(); d > last {
		d = last
	}
	hh, mm, ss := t.Clock()
	return time.Date(y, target, d, hh, mm, ss, t.Nanosecond(), t.Location())
}

// relative is Moment.js's fromNow(): "3 days ago", "in 2 hours", with
// Moment's thresholds.
func relative(t, now time.Time) string {
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	s := d.Seconds()
	var text string
	switch {
	case s < 45:
		text = "a few seconds"
	case s < 90:
		text = "a minute"
	case s < 45*60:
		text = fmt.Sprintf("%d minutes", int(math.Round(s/60)))
	case s < 90*60:
		text = "an hour"
	case s < 22*3600:
		text = fmt.Sprintf("%d hours", int(math.Round(s/3600)))
	case s < 36*3600:
		text = "a day"
	case s < 26*86400:
		text = fmt.Sprintf("%d days", int(math.Round(s/86400)))
	case s < 45*86400:
		text = "a month"
	case s < 320*86400:
		text = fmt.Sprintf("%d months", int(math.Round(s/86400/30.4)))
	case s < 548*86400:
		text = "a year"
	default:
		text = fmt.Sprintf("%d years", int(math.Round(s/86400/365)))
	}
	if future {
		return "in " + text
	}
	return text + " ago"
}
