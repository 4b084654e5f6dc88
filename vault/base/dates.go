package base

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
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
var durationPart = regexp.MustCompile(`^\s*([+-]?\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*`)

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
		m := durationPart.FindStringSubmatch(rest)
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

// formatMoment formats t with a Moment.js format string (the tokens a
// note's date format uses; text in [brackets] is literal).
func formatMoment(t time.Time, f string) string {
	var b strings.Builder
	for i := 0; i < len(f); {
		if f[i] == '[' {
			if j := strings.IndexByte(f[i:], ']'); j > 0 {
				b.WriteString(f[i+1 : i+j])
				i += j + 1
				continue
			}
		}
		tok := momentToken(f[i:])
		if tok == "" {
			b.WriteByte(f[i])
			i++
			continue
		}
		b.WriteString(momentValue(t, tok))
		i += len(tok)
	}
	return b.String()
}

// momentTokens, longest first so that "YYYY" wins over "YY".
var momentTokens = []string{"YYYY", "MMMM", "dddd", "SSS", "MMM", "ddd", "Do", "YY", "MM", "DD", "HH", "hh", "mm", "ss", "M", "D", "H", "h", "m", "s", "A", "a", "Z", "X", "x"}

func momentToken(s string) string {
	for _, t := range momentTokens {
		if strings.HasPrefix(s, t) {
			return t
		}
	}
	return ""
}

func momentValue(t time.Time, tok string) string {
	h12 := t.Hour() % 12
	if h12 == 0 {
		h12 = 12
	}
	switch tok {
	case "YYYY":
		return fmt.Sprintf("%04d", t.Year())
	case "YY":
		return fmt.Sprintf("%02d", t.Year()%100)
	case "MMMM":
		return t.Month().String()
	case "MMM":
		return t.Month().String()[:3]
	case "MM":
		return fmt.Sprintf("%02d", int(t.Month()))
	case "M":
		return strconv.Itoa(int(t.Month()))
	case "DD":
		return fmt.Sprintf("%02d", t.Day())
	case "D":
		return strconv.Itoa(t.Day())
	case "Do":
		return strconv.Itoa(t.Day()) + ordinal(t.Day())
	case "dddd":
		return t.Weekday().String()
	case "ddd":
		return t.Weekday().String()[:3]
	case "HH":
		return fmt.Sprintf("%02d", t.Hour())
	case "H":
		return strconv.Itoa(t.Hour())
	case "hh":
		return fmt.Sprintf("%02d", h12)
	case "h":
		return strconv.Itoa(h12)
	case "mm":
		return fmt.Sprintf("%02d", t.Minute())
	case "m":
		return strconv.Itoa(t.Minute())
	case "ss":
		return fmt.Sprintf("%02d", t.Second())
	case "s":
		return strconv.Itoa(t.Second())
	case "SSS":
		return fmt.Sprintf("%03d", t.Nanosecond()/1e6)
	case "A":
		if t.Hour() < 12 {
			return "AM"
		}
		return "PM"
	case "a":
		if t.Hour() < 12 {
			return "am"
		}
		return "pm"
	case "Z":
		return t.Format("-07:00")
	case "X":
		return strconv.FormatInt(t.Unix(), 10)
	case "x":
		return strconv.FormatInt(t.UnixMilli(), 10)
	}
	return tok
}

func ordinal(n int) string {
	if n%100 >= 11 && n%100 <= 13 {
		return "th"
	}
	switch n % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
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
