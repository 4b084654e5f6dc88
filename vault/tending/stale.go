package tending

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zk-claims/zk/vault"
)

// TendEveryKey is the frontmatter property that sets a note's own interval.
const TendEveryKey = "tend-every"

// IntervalSource tells where a note's interval came from.
type IntervalSource string

// Where an interval comes from, in order of precedence.
const (
	IntervalFrontmatter IntervalSource = "frontmatter"
	IntervalType        IntervalSource = "type"
	IntervalDefault     IntervalSource = "default"
)

// StaleOptions tune Stale.
type StaleOptions struct {
	// Today is the date staleness is measured against; only its date counts.
	Today time.Time
	// Within also lists notes due within this interval after Today; the
	// zero Interval lists only notes past due.
	Within vault.Interval
	// Types are the note types; a note is of the first type it matches. A
	// note of a type is expected to carry a Last tended date and is listed
	// as undated without one; a note of no type is listed only when it
	// gives a date. Its type's Interval, when set, is its interval.
	Types []*vault.NoteType
	// Interval is the interval of a note whose frontmatter and type set
	// none (the config's default); the zero Interval means DefaultInterval.
	Interval vault.Interval
	// Keys are the frontmatter properties read as Last tended; nil means
	// DefaultTendedKeys.
	Keys []string
	// Only, when set, says which notes are listed and counted as read:
	// a template's "{{date}}" is no date to tend. Every note's links
	// still count as backlinks.
	Only func(path string) bool
}

// Due is a note past, or near, its maintenance date.
type Due struct {
	Path     string
	Tended   Tended
	Interval vault.Interval
	// IntervalSource says where Interval came from.
	IntervalSource IntervalSource
	Due            time.Time
	// DaysOverdue is Today minus Due in days: negative for a note not yet
	// due, listed because of Within.
	DaysOverdue int
	Backlinks   int
}

// Undated is a note of a type, or one giving a date that is not real,
// with no usable Last tended date.
type Undated struct {
	Path string
	// Line is the 0-based line of a date that is not a real date, or -1.
	Line int
	// Problem says what is wrong with the date written, or is "" when the
	// note gives none.
	Problem string
	// UnreadKey is the frontmatter property that looks like a date the
	// config's tended-keys does not name, for a note that gives none
	// (UnreadTendedKey), or "".
	UnreadKey string
}

// StaleProblem is something wrong in how a note states its cadence that
// did not stop zk from computing it (a tend-every it cannot read).
type StaleProblem struct {
	Path string
	// Line is 0-based, or -1 when not known.
	Line    int
	Message string
}

// StaleReport is what Stale found.
type StaleReport struct {
	// Notes are due, most overdue first, then most linked, then by path.
	Notes []Due
	// Undated are the notes without a usable date, by path.
	Undated  []Undated
	Problems []StaleProblem
	// Read is how many notes were read.
	Read int
}

// Stale lists the notes past their maintenance date (or due within
// opts.Within). A note's due date is its Last tended date (LastTended) plus
// its interval: frontmatter tend-every, else its type's interval, else
// opts.Interval, else DefaultInterval. It never fails: what it cannot read
// it reports.
//
// It reads and parses the notes of a walk of the vault (Files) as it goes
// and keeps of each only its entry and the notes it links to, so that
// memory grows with the report rather than with the vault's text (a whole
// parsed vault held 2.1 GB at 100,000 notes). Backlinks are counted from
// the notes' links, as Graph.Backlinks counts them. Notes that cannot be
// read are left out.
func Stale(ctx context.Context, v *vault.Vault, files []vault.File, opts StaleOptions) (StaleReport, error) {
	paths, notes := vault.SplitFiles(files)
	res := vault.NewResolver(paths)
	var (
		mu    sync.Mutex
		r     StaleReport
		links = map[string]int{} // path -> distinct other notes linking to it
	)
	days := daysOf(opts)
	v.Each(ctx, notes, func(_ int, n *vault.Note) {
		e := CadenceOf(n, opts).entry(opts, days)
		targets := vault.LinkedFiles(n, res)
		mu.Lock()
		defer mu.Unlock()
		if opts.Listed(n.Path) {
			r.Read++
			r.add(e)
		}
		for _, t := range targets {
			links[t]++
		}
	})
	if err := ctx.Err(); err != nil {
		return StaleReport{}, err
	}
	return r.finish(func(p string) int { return links[p] }), nil
}

// Listed says whether the note at p is listed and counted (Only).
func (o StaleOptions) Listed(p string) bool { return o.Only == nil || o.Only(p) }

// Cadence is what a note says of its own tending, whatever today is: its
// Last tended date (or why it has none), its interval and where that came
// from, and what is wrong with how it states them. It is all Stale needs
// of a note besides its links, so a cache can keep it (vault/query's
// records do) and answer Stale again without reading the note (StaleFrom).
type Cadence struct {
	Path string
	// Typed says the note is of a type: without a date it is undated.
	Typed bool
	// Dated says the note gives a Last tended date; Tended is it, with
	// Tended.Err set when it is not a real date.
	Dated  bool
	Tended Tended
	// Interval and Source are the note's interval, for a note with a real
	// date; Problem is a tend-every that could not be read, or nil.
	Interval vault.Interval
	Source   IntervalSource
	Problem  *StaleProblem
	// UnreadKey is, for a note of a type with no date, the frontmatter
	// property that looks like one and keys does not name
	// (UnreadTendedKey), or "".
	UnreadKey string
}

// UnreadTendedKey is the first frontmatter property of n, by name, whose
// name says tended or reviewed and which keys (nil: DefaultTendedKeys)
// does not name, or "": a date the user did write, under a key zk does
// not read. zk check and zk stale say so, or the user would add a second
// date beside it.
func UnreadTendedKey(n *vault.Note, keys []string) string {
	fm := n.Frontmatter
	if fm == nil || fm.Values == nil {
		return ""
	}
	if keys == nil {
		keys = DefaultTendedKeys
	}
	var found string
	for k := range fm.Values {
		l := strings.ToLower(k)
		if (strings.Contains(l, "tended") || strings.Contains(l, "reviewed")) && !slices.ContainsFunc(keys, func(t string) bool { return strings.EqualFold(t, k) }) {
			if found == "" || k < found { // the map's order is not the note's: the same one each run
				found = k
			}
		}
	}
	return found
}

// CadenceOf is n's Cadence under opts' types, keys and default interval.
func CadenceOf(n *vault.Note, opts StaleOptions) Cadence {
	typ := vault.TypeOf(opts.Types, n)
	c := Cadence{Path: n.Path, Typed: typ != nil}
	c.Tended, c.Dated = LastTended(n, typ.TendedSection(), opts.Keys)
	if !c.Dated && c.Typed {
		c.UnreadKey = UnreadTendedKey(n, opts.Keys)
	}
	if c.Dated && c.Tended.Err == nil {
		c.Interval, c.Source, c.Problem = IntervalOf(n, typ, opts.Interval)
	}
	return c
}

// StaleFrom is Stale's report from the notes' cadences, without reading a
// note: notes gives each note's cadence and how many other notes link to
// it, as Stale counts them, and read is how many notes there are (those
// opts.Only lists, as Stale counts them). The
// cadences come one at a time, not as a slice of every note's: a report
// keeps only the notes due.
func StaleFrom(notes iter.Seq2[Cadence, int], read int, opts StaleOptions) StaleReport {
	// Room for every note, which a vault mostly stale fills: a Due is
	// some 200 bytes, and growing by doubling copied them about twice.
	r := StaleReport{Read: read, Notes: make([]Due, 0, read)}
	days := daysOf(opts)
	for c, backlinks := range notes {
		if !opts.Listed(c.Path) {
			continue
		}
		e := c.entry(opts, days)
		e.due.Backlinks = backlinks
		r.add(e)
	}
	if len(r.Notes) == 0 {
		r.Notes = nil
	}
	return r.finish(nil)
}

// staleEntry is what one note adds to a StaleReport: at most one of due
// and undated, and a problem with its cadence.
type staleEntry struct {
	due     Due
	isDue   bool // a value, not a pointer: one allocation less per note due
	undated *Undated
	problem *StaleProblem
}

// staleDays are the days a report is of: today, and the last day a note
// may be due on to be listed.
type staleDays struct{ today, horizon time.Time }

func daysOf(opts StaleOptions) staleDays {
	today := DateOf(opts.Today)
	horizon := today
	if opts.Within.N > 0 {
		horizon = opts.Within.After(today)
	}
	return staleDays{today, horizon}
}

// entry is what the note adds to a report of days (daysOf(opts)).
func (c Cadence) entry(opts StaleOptions, days staleDays) staleEntry {
	today, horizon := days.today, days.horizon
	t := c.Tended
	if !c.Dated || t.Err != nil {
		if !c.Dated && !c.Typed {
			return staleEntry{}
		}
		u := Undated{Path: c.Path, Line: -1, UnreadKey: c.UnreadKey}
		if c.Dated {
			u.Line, u.Problem = t.Line, t.Err.Error()
		}
		return staleEntry{undated: &u}
	}
	e := staleEntry{problem: c.Problem}
	iv := c.Interval
	due := iv.After(t.Date)
	if due.After(horizon) || (opts.Within.N == 0 && !due.Before(today)) {
		return e
	}
	e.due, e.isDue = Due{Path: c.Path, Tended: t, Interval: iv, IntervalSource: c.Source, Due: due, DaysOverdue: DaysBetween(due, today)}, true
	return e
}

func (r *StaleReport) add(e staleEntry) {
	if e.isDue {
		r.Notes = append(r.Notes, e.due)
	}
	if e.undated != nil {
		r.Undated = append(r.Undated, *e.undated)
	}
	if e.problem != nil {
		r.Problems = append(r.Problems, *e.problem)
	}
}

// finish counts the due notes' backlinks (nil counts none) and orders the
// report: most overdue first, then most linked, then by path; undated
// notes and problems by path.
func (r StaleReport) finish(backlinks func(string) int) StaleReport {
	if backlinks != nil {
		for i := range r.Notes {
			r.Notes[i].Backlinks = backlinks(r.Notes[i].Path)
		}
	}
	// Sorted by index, then put in that order: a Due is some 200 bytes,
	// and sorting 10,000 of them in place moved each several times.
	order := make([]int32, len(r.Notes))
	for i := range order {
		order[i] = int32(i)
	}
	if !r.sortByKeys(order) {
		slices.SortFunc(order, func(i, j int32) int {
			a, b := &r.Notes[i], &r.Notes[j]
			return cmp.Or(cmp.Compare(b.DaysOverdue, a.DaysOverdue), cmp.Compare(b.Backlinks, a.Backlinks), strings.Compare(a.Path, b.Path))
		})
	}
	permute(r.Notes, order)
	slices.SortFunc(r.Undated, func(a, b Undated) int { return strings.Compare(a.Path, b.Path) })
	slices.SortStableFunc(r.Problems, func(a, b StaleProblem) int { return strings.Compare(a.Path, b.Path) })
	return r
}

// sortByKeys sorts order (indexes into r.Notes) as finish orders the
// notes, when they came in path order (from a walk: StaleFrom): by one
// number per note, its days overdue, backlinks (both descending) and
// index (which stands for its path) packed together, without reading a
// note's 200 bytes or comparing paths in the sort (most of its time when
// many notes tie). False, order untouched, when the notes are not in
// path order or the three do not fit 64 bits.
func (r StaleReport) sortByKeys(order []int32) bool {
	if len(r.Notes) == 0 {
		return true
	}
	minDays, maxDays, maxLinks := r.Notes[0].DaysOverdue, r.Notes[0].DaysOverdue, 0
	for i := range r.Notes {
		d := &r.Notes[i]
		if i > 0 && r.Notes[i-1].Path >= d.Path || d.Backlinks < 0 {
			return false
		}
		minDays, maxDays, maxLinks = min(minDays, d.DaysOverdue), max(maxDays, d.DaysOverdue), max(maxLinks, d.Backlinks)
	}
	daySpan := uint64(maxDays) - uint64(minDays) // wraps to the span's size
	dayBits, linkBits, indexBits := bits.Len64(daySpan), bits.Len64(uint64(maxLinks)), bits.Len64(uint64(len(r.Notes)))
	if maxDays < minDays || daySpan > math.MaxInt64 || dayBits+linkBits+indexBits > 64 {
		return false
	}
	keys := make([]uint64, len(r.Notes))
	for i := range r.Notes {
		d := &r.Notes[i]
		// The most overdue smallest, then the most linked.
		days, links := uint64(maxDays-d.DaysOverdue), uint64(maxLinks-d.Backlinks)
		keys[i] = days<<(linkBits+indexBits) | links<<indexBits | uint64(i)
	}
	slices.Sort(keys)
	mask := uint64(1)<<indexBits - 1
	for k, key := range keys {
		order[k] = int32(key & mask)
	}
	return true
}

// permute puts s in the order of order (s[k] becomes the s[order[k]] of
// before), in place, each element moved once: cycle by cycle, order
// marked as it is followed (a copy of a stale vault's notes was 1.5 MB
// more to fault in at 10,000 notes).
func permute[T any](s []T, order []int32) {
	for start := range order {
		if order[start] < 0 {
			continue
		}
		tmp := s[start]
		k := start
		for {
			next := int(order[k])
			order[k] = -1
			if next == start {
				s[k] = tmp
				break
			}
			s[k] = s[next]
			k = next
		}
	}
}

// IntervalOf is the interval of a note of type typ (nil for none):
// frontmatter tend-every, else the type's, else def, else DefaultInterval.
func IntervalOf(n *vault.Note, typ *vault.NoteType, def vault.Interval) (vault.Interval, IntervalSource, *StaleProblem) {
	iv, src, prob := intervalFrom(n, func(*vault.Note) (vault.Interval, bool) {
		if typ == nil || typ.Interval.N == 0 {
			return vault.Interval{}, false
		}
		return typ.Interval, true
	})
	if src == IntervalDefault && def.N > 0 {
		iv = def
	}
	return iv, src, prob
}

// intervalFrom is the note's interval and where it came from; a tend-every
// that does not parse is reported and the next source used.
func intervalFrom(n *vault.Note, typeInterval func(*vault.Note) (vault.Interval, bool)) (vault.Interval, IntervalSource, *StaleProblem) {
	var prob *StaleProblem
	if fm := n.Frontmatter; fm != nil && fm.Values != nil {
		if v, ok := fm.Values[TendEveryKey]; ok {
			iv, err := vault.ParseInterval(fmt.Sprint(v))
			if err == nil {
				return iv, IntervalFrontmatter, nil
			}
			line := -1
			if start, _, ok := frontmatterValueSpan(n.Src, fm, TendEveryKey); ok {
				line = vault.NewLines(n.Src).Pos(start).Line
			}
			prob = &StaleProblem{Path: n.Path, Line: line, Message: fmt.Sprintf("%s: %v", TendEveryKey, err)}
		}
	}
	if typeInterval != nil {
		if iv, ok := typeInterval(n); ok {
			return iv, IntervalType, prob
		}
	}
	return vault.DefaultInterval, IntervalDefault, prob
}

// DateOf is t's calendar date, at midnight UTC, so that day arithmetic is
// free of time zones and daylight saving.
func DateOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// DaysBetween is the number of calendar days from a to b.
func DaysBetween(a, b time.Time) int {
	return int(DateOf(b).Sub(DateOf(a)).Hours() / 24)
}
