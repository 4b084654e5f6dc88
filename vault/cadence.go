package vault

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/lazyre"
)

// A note type says how often its notes want tending and where they say
// when they were last tended; the tending package reads and writes the
// date itself.

// DefaultTendedSection is the section holding the Last tended line of a
// note whose type does not say otherwise (see TendedSection).
const DefaultTendedSection = "Maintenance"

// tendedLineRe is a "- Last tended: DATE" line, in any of the emphasis
// styles real vaults write it in; group 1 is the date as written.
var tendedLineRe = lazyre.New(`(?i)^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__|\*|_)?last[ -]tended(?:\*\*|__|\*|_)?[ \t]*:(?:\*\*|__)?[ \t]*(\S*)`)

// TendedLineDate finds the date of a "Last tended:" line: the byte span of
// the date as written within line, and whether line is such a line.
func TendedLineDate(line []byte) (start, end int, ok bool) {
	// The house format, as zk writes it, read by hand: the expression
	// took a tenth of zk check's maintenance rules. From the colon on it
	// matches as the expression does, whose choices there are greedy and
	// never undone (TestTendedLineDateAsExpression).
	if rest, found := bytes.CutPrefix(line, []byte("- Last tended:")); found {
		i := len(line) - len(rest)
		if bytes.HasPrefix(rest, []byte("**")) || bytes.HasPrefix(rest, []byte("__")) {
			i += 2
		}
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		start = i
		for i < len(line) && !isRESpace(line[i]) {
			i++
		}
		return start, i, true
	}
	m := tendedLineRe().FindSubmatchIndex(line)
	if m == nil {
		return 0, 0, false
	}
	return m[2], m[3], true
}

// isRESpace reports whether c is what RE2's \s matches.
func isRESpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// Interval is a tending cadence: a number of days, weeks, months or years.
type Interval struct {
	N    int
	Unit byte // 'd', 'w', 'm' or 'y'
}

// DefaultInterval is how often a note is due when nothing says otherwise.
var DefaultInterval = Interval{N: 90, Unit: 'd'}

// ParseInterval reads "30d", "6w", "3m" or "1y" (a bare number is days).
func ParseInterval(s string) (Interval, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "" {
		return Interval{}, fmt.Errorf("empty interval")
	}
	unit := s[len(s)-1]
	num := s[:len(s)-1]
	if unit >= '0' && unit <= '9' {
		unit, num = 'd', s
	}
	if !strings.ContainsRune("dwmy", rune(unit)) {
		return Interval{}, fmt.Errorf("interval %q: want a number and d, w, m or y (30d, 6w, 3m, 1y)", s)
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 {
		return Interval{}, fmt.Errorf("interval %q: want a positive number and d, w, m or y (30d, 6w, 3m, 1y)", s)
	}
	return Interval{N: n, Unit: unit}, nil
}

// After returns the date one interval after t.
func (iv Interval) After(t time.Time) time.Time {
	switch iv.Unit {
	case 'w':
		return t.AddDate(0, 0, 7*iv.N)
	case 'm':
		return addMonths(t, iv.N)
	case 'y':
		return addMonths(t, 12*iv.N)
	}
	return t.AddDate(0, 0, iv.N)
}

// addMonths adds n calendar months to t, keeping the day of the month but
// clamping it to the month's last day: three months after August 31 is
// November 30, not December 1 as time.AddDate would normalise it, and a
// year after February 29 is February 28.
func addMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	first := time.Date(y, m+time.Month(n), 1, 0, 0, 0, 0, t.Location())
	last := first.AddDate(0, 1, -1).Day()
	return time.Date(first.Year(), first.Month(), min(d, last), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
}

// String is the interval as ParseInterval reads it.
func (iv Interval) String() string { return strconv.Itoa(iv.N) + string(iv.Unit) }
