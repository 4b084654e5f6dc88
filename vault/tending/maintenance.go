package tending

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/zk-claims/zk/internal/lazyre"
	"github.com/zk-claims/zk/vault"
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
	dataviewRe = lazyre.New(`(?i)(?:^|[\s\[(])last[-_]?tended::[ \t]*([^\s\])]*)`)
	footerRe   = lazyre.New(`(?i)last tended:?[ \t]*(?:\*\*|__|\*|_)?[ \t]*(\d{4}-\d{2}-\d{2}|[^\s*_]+)`)
)

// LastTended finds a note's Last tended date. In order: the line in the
// section titled section (the one the note's type keeps it in,
// NoteType.TendedSection; "" means DefaultTendedSection), a frontmatter property named in keys (nil means
// DefaultTendedKeys), a Dataview inline field, a digital-garden footer. The
// second result is false when the note gives no date at all.
func LastTended(n *vault.Note, section string, keys []string) (Tended, bool) {
	if section == "" {
		section = vault.DefaultTendedSection
	}
	if keys == nil {
		keys = DefaultTendedKeys
	}
	if s, ok := n.Section(section, 0); ok {
		for off := s.Body; off < s.End; {
			end := s.End
			if i := bytes.IndexByte(n.Src[off:s.End], '\n'); i >= 0 {
				end = off + i
			}
			if ds, de, ok := vault.TendedLineDate(n.Src[off:end]); ok {
				return newTended(TendedLine, "", n.Src, off+ds, off+de), true
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
	// The expression is case-insensitive and scans the whole note; every
	// field it finds holds "tended::" (zk index on Obsidian's help vault
	// spent 5% of its time here).
	if hasTendedField(body[from:]) {
		if m := dataviewRe().FindSubmatchIndex(body[from:]); m != nil {
			return newTended(TendedDataview, "", n.Src, from+m[2], from+m[3]), true
		}
	}
	// A footer follows the last thematic break of the note.
	if i := lastThematicBreak(body[from:]); i >= 0 {
		at := from + i
		if !hasTended(body[at:]) {
			return Tended{}, false
		}
		if m := footerRe().FindSubmatchIndex(body[at:]); m != nil {
			return newTended(TendedFooter, "", n.Src, at+m[2], at+m[3]), true
		}
	}
	return Tended{}, false
}

// hasTendedField reports whether b holds "tended::" in any case, as
// each of dataviewRe's matches does (hasTended): the "::" are found at
// memory speed, and the six bytes before each compared. A note that says
// "extended" and holds a "::" anywhere (obsidian-hub's plugin notes) went
// through the expression, 1.6% of its cold check.
func hasTendedField(b []byte) bool {
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte("::"))
		if i < 0 {
			return false
		}
		if i += off; i >= len("tended") && hasTended(b[i-len("tended"):i]) {
			return true
		}
		off = i + 1
	}
}

// hasTended reports whether b holds "tended" in any case, as each of
// dataviewRe's and footerRe's matches does: neither letter of it has a
// case outside ASCII to match, as 's' and 'k' have (U+017F, U+212A).
// The expressions, case-insensitive, try every byte from the last
// thematic break of the note on; this reads each once (a cold check of
// obsidian-hub spent 2.4% of its time in footerRe).
func hasTended(b []byte) bool {
	for i := 0; i+len("tended") <= len(b); i++ {
		// c|0x20 is the lower case of an ASCII letter, and no other
		// byte's |0x20 is a lower-case letter of "tended".
		if b[i]|0x20 == 't' && b[i+1]|0x20 == 'e' && b[i+2]|0x20 == 'n' &&
			b[i+3]|0x20 == 'd' && b[i+4]|0x20 == 'e' && b[i+5]|0x20 == 'd' {
			return true
		}
	}
	return false
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

// lastThematicBreak is the offset of the start of the last line of b
// that is, trimmed, three or more of one of '-', '*' and '_', or -1. Such
// a line holds "---", "***" or "___": those are searched for (at memory
// speed) and their lines alone read, not every line of every note, which
// was 1.6% of a cold check of the help vault.
func lastThematicBreak(b []byte) int {
	last := -1
	for _, run := range [][]byte{[]byte("---"), []byte("***"), []byte("___")} {
		for off := 0; off < len(b); {
			i := bytes.Index(b[off:], run)
			if i < 0 {
				break
			}
			i += off
			start, end := bytes.LastIndexByte(b[:i], '\n')+1, len(b)
			if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
				end = i + j
			}
			if t := bytes.TrimSpace(b[start:end]); bytes.Count(t, run[:1]) == len(t) {
				last = max(last, start)
			}
			off = end + 1
		}
	}
	return last
}

// frontmatterValueSpan finds the bytes of a top-level scalar property's
// value in the source, quotes excluded.
func frontmatterValueSpan(src []byte, fm *vault.Frontmatter, key string) (int, int, bool) {
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

// isDateShape reports whether s has the shape of a date, YYYY-MM-DD in
// ASCII digits: the rest is the calendar's business.
func isDateShape(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i != 4 && i != 7 && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

func parseDate(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, fmt.Errorf("no date given")
	}
	if !isDateShape(s) {
		return time.Time{}, fmt.Errorf("%q is not a date of the form YYYY-MM-DD", s)
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a real date", s)
	}
	return t, nil
}

// ErrBadDate is returned for a date that is not a real YYYY-MM-DD.
var ErrBadDate = errors.New("not a real YYYY-MM-DD date")

// SetLastTended returns src with its Last tended date set to date
// (YYYY-MM-DD), as one byte splice: the bytes of the date already written,
// wherever LastTended finds it, are replaced and nothing else changes; a
// note without a date gets the line "- Last tended: DATE" at the top of its
// section titled section ("" means DefaultTendedSection), or that section
// at its end, in the note's
// own line endings. keys are the frontmatter properties read as dates (nil
// means DefaultTendedKeys). It is meant as the edit of Vault.EditNote.
// Each parse has DefaultParseBudget, so a hostile note costs bounded time.
func SetLastTended(notePath string, src []byte, date, section string, keys []string) ([]byte, error) {
	if section == "" {
		section = vault.DefaultTendedSection
	}
	if _, err := parseDate(date); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadDate, err)
	}
	if bytes.IndexByte(src, '\r') >= 0 && bytes.IndexByte(src, '\n') < 0 {
		if t, ok := LastTended(vault.NewParser().ParseWithBudget(notePath, src, vault.DefaultParseBudget), section, keys); !ok || t.Start < 0 {
			// Classic Mac line endings: whatever zk added would not be a line.
			return nil, fmt.Errorf("%w: the note ends its lines with CR alone; add \"Last tended: %s\" by hand", vault.ErrSpliceGone, date)
		}
	}
	out := setLastTended(notePath, src, date, section, keys)
	// The edit must read back as the date set, or a second tend would add a
	// second line: a heading inside an unclosed code fence, for instance,
	// is not a heading.
	if t, ok := LastTended(vault.NewParser().ParseWithBudget(notePath, out, vault.DefaultParseBudget), section, keys); !ok || t.Raw != date {
		return nil, fmt.Errorf("%w: a Last tended line added here would not read back (an unclosed code fence?); add \"- Last tended: %s\" under ## %s by hand", vault.ErrSpliceGone, date, section)
	}
	return out, nil
}

func setLastTended(notePath string, src []byte, date, section string, keys []string) []byte {
	n := vault.NewParser().ParseWithBudget(notePath, src, vault.DefaultParseBudget)
	if t, ok := LastTended(n, section, keys); ok && t.Start >= 0 && t.Start <= t.End {
		with := date
		if t.Start == t.End && t.Start > 0 && src[t.Start-1] == ':' {
			with = " " + date // "Last tended:" with nothing after it
		}
		return vault.SpliceBytes(src, t.Start, t.End, with)
	}
	if s, ok := n.Section(section, 0); ok {
		// Just after the heading's line, in its line ending.
		at := len(src)
		if i := bytes.IndexByte(src[s.Start:], '\n'); i >= 0 {
			at = s.Start + i + 1
		}
		nl := vault.EndingBefore(src, at)
		line := "- Last tended: " + date + nl
		if at >= len(src) && !vault.HasFinalNewline(src) {
			line = nl + line
		}
		return vault.SpliceBytes(src, at, at, line)
	}
	nl := vault.EndingBefore(src, len(src))
	add := nl + "## " + section + nl + "- Last tended: " + date + nl
	if !vault.HasFinalNewline(src) {
		add = nl + add
	}
	return vault.SpliceBytes(src, len(src), len(src), add)
}
