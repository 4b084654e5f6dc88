package vault

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// TendedSource tells where a note's Last tended date was found.
type TendedSource string

const (
	// TendedLine is "- Last tended: YYYY-MM-DD" in the Maintenance section.
	TendedLine TendedSource = "maintenance-line"
	// TendedFrontmatter is a frontmatter property such as last-tended.
	TendedFrontmatter TendedSource = "frontmatter"
	// TendedDataview is a Dataview inline field "last-tended:: DATE".
	TendedDataview TendedSource = "dataview"
	// TendedFooter is a digital-garden footer "Last tended: DATE" below a
	// thematic break, often in italics.
	TendedFooter TendedSource = "footer"
)

// DefaultTendedKeys are the frontmatter properties read as Last tended.
var DefaultTendedKeys = []string{"last-tended", "last_tended", "lastTended", "lastTendedAt", "last-reviewed"}

// Tended is where and when a note says it was last tended.
type Tended struct {
	Source TendedSource
	// Key is the frontmatter property, for TendedFrontmatter.
	Key string
	// Raw is the date exactly as written.
	Raw string
	// Date is Raw parsed; zero when Err is set.
	Date time.Time
	// Err says why Raw is not a real YYYY-MM-DD date.
	Err error
	// Start and End are the byte offsets of Raw in the note's source, so
	// that an edit can replace exactly those bytes.
	Start, End int
	// Line is the 0-based line of Raw.
	Line int
}

var (
	tendedLineRe = regexp.MustCompile(`(?i)^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__|\*|_)?last[ -]tended(?:\*\*|__|\*|_)?[ \t]*:(?:\*\*|__)?[ \t]*(\S*)`)
	dataviewRe   = regexp.MustCompile(`(?i)(?:^|[\s\[(])last[-_]?tended::[ \t]*([^\s\])]*)`)
	footerRe     = regexp.MustCompile(`(?i)last tended:?[ \t]*(?:\*\*|__|\*|_)?[ \t]*(\d{4}-\d{2}-\d{2}|[^\s*_]+)`)
)

// DefaultTendedSection is the section holding the Last tended line of a
// note whose type does not say otherwise (see TendedSection).
const DefaultTendedSection = "Maintenance"

// LastTended finds a note's Last tended date. In order: the line in the
// Maintenance section, a frontmatter property named in keys (nil means
// DefaultTendedKeys), a Dataview inline field, a digital-garden footer. The
// second result is false when the note gives no date at all.
func LastTended(n *Note, keys []string) (Tended, bool) {
	return LastTendedIn(n, DefaultTendedSection, keys)
}

// LastTendedIn is LastTended with the Last tended line read in the section
// titled section: the one a custom template puts it in (TendedSection).
func LastTendedIn(n *Note, section string, keys []string) (Tended, bool) {
	if keys == nil {
		keys = DefaultTendedKeys
	}
	if s, ok := n.Section(section, 0); ok {
		for off := s.Body; off < s.End; {
			end := s.End
			if i := bytes.IndexByte(n.Src[off:s.End], '\n'); i >= 0 {
				end = off + i
			}
			if m := tendedLineRe.FindSubmatchIndex(n.Src[off:end]); m != nil {
				return newTended(TendedLine, "", n.Src, off+m[2], off+m[3]), true
			}
			off = end + 1
		}
	}
	if fm := n.Frontmatter; fm != nil && fm.Values != nil {
		for _, k := range keys {
			v, ok := fm.Values[k]
			if !ok {
				continue
			}
			raw := fmt.Sprint(v)
			if v == nil {
				raw = ""
			}
			t := Tended{Source: TendedFrontmatter, Key: k, Raw: raw, Start: -1, End: -1}
			if start, end, ok := frontmatterValueSpan(n.Src, fm, k); ok {
				t.Start, t.End = start, end
				t.Line = lineOf(n.Src, start)
			}
			t.Date, t.Err = parseDate(raw)
			return t, true
		}
	}
	body := n.Src
	from := 0
	if n.Frontmatter != nil {
		from = n.Frontmatter.Span.End.Offset
	}
	if m := dataviewRe.FindSubmatchIndex(body[from:]); m != nil {
		return newTended(TendedDataview, "", n.Src, from+m[2], from+m[3]), true
	}
	// A footer follows the last thematic break of the note.
	if i := lastThematicBreak(body[from:]); i >= 0 {
		at := from + i
		if m := footerRe.FindSubmatchIndex(body[at:]); m != nil {
			return newTended(TendedFooter, "", n.Src, at+m[2], at+m[3]), true
		}
	}
	return Tended{}, false
}

// lineOf is the 0-based line of offset off. LastTended needs one line
// number, not a line index of the whole note.
func lineOf(b []byte, off int) int { return bytes.Count(b[:off], []byte{'\n'}) }

func newTended(src TendedSource, key string, b []byte, start, end int) Tended {
	raw := string(b[start:end])
	// "2026-08-31." or "2026-08-31*" : trailing punctuation is not the date.
	trimmed := strings.TrimRight(raw, ".,;*_)")
	end -= len(raw) - len(trimmed)
	t := Tended{Source: src, Key: key, Raw: trimmed, Start: start, End: end, Line: lineOf(b, start)}
	t.Date, t.Err = parseDate(trimmed)
	return t
}

func lastThematicBreak(b []byte) int {
	last := -1
	for off := 0; off < len(b); {
		end := bytes.IndexByte(b[off:], '\n')
		line := b[off:]
		if end >= 0 {
			line = b[off : off+end]
		}
		t := bytes.TrimSpace(line)
		if len(t) >= 3 && (bytes.Count(t, []byte("-")) == len(t) || bytes.Count(t, []byte("*")) == len(t) || bytes.Count(t, []byte("_")) == len(t)) {
			last = off
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return last
}

// frontmatterValueSpan finds the bytes of a top-level scalar property's
// value in the source, quotes excluded.
func frontmatterValueSpan(src []byte, fm *Frontmatter, key string) (int, int, bool) {
	start := fm.Span.Start.Offset
	raw := src[start:fm.Span.End.Offset]
	m := valueRe(key).FindSubmatchIndex(raw)
	if m == nil {
		return 0, 0, false
	}
	for g := 2; g < len(m); g += 2 {
		if m[g] >= 0 {
			return start + m[g], start + m[g+1], true
		}
	}
	return 0, 0, false
}

// valueRes caches, per property name, the expression that finds its
// value: a scan asks for the same few keys in every note.
var valueRes sync.Map // string → *regexp.Regexp

// valueRe matches a top-level "key: value" line, the value double-quoted,
// single-quoted or plain, before an optional comment.
func valueRe(key string) *regexp.Regexp {
	if re, ok := valueRes.Load(key); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(key) + `[ \t]*:[ \t]*(?:"([^"\r\n]*)"|'([^'\r\n]*)'|([^"'\r\n#]*?))[ \t]*(?:[ \t]#[^\r\n]*)?\r?$`)
	valueRes.Store(key, re)
	return re
}

// dateRe is the shape of a date: the rest is the calendar's business.
var dateRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

func parseDate(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, fmt.Errorf("no date given")
	}
	if !dateRe.MatchString(s) {
		return time.Time{}, fmt.Errorf("%q is not a date of the form YYYY-MM-DD", s)
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a real date", s)
	}
	return t, nil
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

// ErrBadDate is returned for a date that is not a real YYYY-MM-DD.
var ErrBadDate = errors.New("not a real YYYY-MM-DD date")

// SetLastTended returns src with its Last tended date set to date
// (YYYY-MM-DD), as one byte splice: the bytes of the date already written,
// wherever LastTended finds it, are replaced and nothing else changes; a
// note without a date gets the line "- Last tended: DATE" at the top of its
// Maintenance section, or a Maintenance section at its end, in the note's
// own line endings. keys are the frontmatter properties read as dates (nil
// means DefaultTendedKeys). It is meant as the edit of Vault.EditNote.
// Each parse has DefaultParseBudget, so a hostile note costs bounded time.
func SetLastTended(notePath string, src []byte, date string, keys []string) ([]byte, error) {
	return SetLastTendedIn(notePath, src, date, DefaultTendedSection, keys)
}

// SetLastTendedIn is SetLastTended with the Last tended line in the section
// titled section (TendedSection), which it adds when the note has none.
func SetLastTendedIn(notePath string, src []byte, date, section string, keys []string) ([]byte, error) {
	if _, err := parseDate(date); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadDate, err)
	}
	if bytes.IndexByte(src, '\r') >= 0 && bytes.IndexByte(src, '\n') < 0 {
		if t, ok := LastTendedIn(NewParser().ParseWithBudget(notePath, src, DefaultParseBudget), section, keys); !ok || t.Start < 0 {
			// Classic Mac line endings: whatever zk added would not be a line.
			return nil, fmt.Errorf("%w: the note ends its lines with CR alone; add \"Last tended: %s\" by hand", ErrSpliceGone, date)
		}
	}
	out := setLastTended(notePath, src, date, section, keys)
	// The edit must read back as the date set, or a second tend would add a
	// second line: a heading inside an unclosed code fence, for instance,
	// is not a heading.
	if t, ok := LastTendedIn(NewParser().ParseWithBudget(notePath, out, DefaultParseBudget), section, keys); !ok || t.Raw != date {
		return nil, fmt.Errorf("%w: a Last tended line added here would not read back (an unclosed code fence?); add \"- Last tended: %s\" under ## %s by hand", ErrSpliceGone, date, section)
	}
	return out, nil
}

func setLastTended(notePath string, src []byte, date, section string, keys []string) []byte {
	n := NewParser().ParseWithBudget(notePath, src, DefaultParseBudget)
	if t, ok := LastTendedIn(n, section, keys); ok && t.Start >= 0 && t.Start <= t.End {
		with := date
		if t.Start == t.End && t.Start > 0 && src[t.Start-1] == ':' {
			with = " " + date // "Last tended:" with nothing after it
		}
		return splice(src, t.Start, t.End, with)
	}
	if s, ok := n.Section(section, 0); ok {
		// Just after the heading's line, in its line ending.
		at := len(src)
		if i := bytes.IndexByte(src[s.Start:], '\n'); i >= 0 {
			at = s.Start + i + 1
		}
		nl := endingBefore(src, at)
		line := "- Last tended: " + date + nl
		if at >= len(src) && !hasFinalNewline(src) {
			line = nl + line
		}
		return splice(src, at, at, line)
	}
	nl := endingBefore(src, len(src))
	add := nl + "## " + section + nl + "- Last tended: " + date + nl
	if !hasFinalNewline(src) {
		add = nl + add
	}
	return splice(src, len(src), len(src), add)
}

// endingBefore is the line ending of the last line ending before at: a
// line zk adds takes the style of its neighbour, which matters in a note
// with mixed endings. A note with none at all gets "\n".
func endingBefore(src []byte, at int) string {
	i := bytes.LastIndexByte(src[:at], '\n')
	if i < 0 {
		return lineEnding(src)
	}
	if i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// splice returns a copy of src with src[from:to] replaced by with.
func splice(src []byte, from, to int, with string) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(with))
	out = append(out, src[:from]...)
	out = append(out, with...)
	return append(out, src[to:]...)
}
