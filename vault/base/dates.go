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
			d.Months += int(n * 12)
		case "M", "month", "months":
			d.Months += int(n)
		case "w", "week", "weeks":
			d.Millis += n * 7 * 864e5
		case "d", "day", "days":
			d.Millis += n * 864e5
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

// addDuration moves a date by d (sign -1 subtracts). Adding a time span
// to a plain date keeps it a date unless the span has a time part.
func addDuration(t Date, d Duration, sign int) Date {
	out := t.T.AddDate(0, sign*d.Months, 0)
	out = out.Add(time.Duration(float64(sign) * d.Millis * float64(time.Millisecond)))
	hasTime := t.HasTime || math.Mod(d.Millis, 864e5) != 0
	return Date{T: out, HasTime: hasTime}
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
