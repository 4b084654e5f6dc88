package query

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/property"
	"github.com/zk-claims/zk/vault/tending"
)

// Query is a selection of notes: every filter set must hold (a filter
// left at its zero value selects every note). Within one filter, Types,
// Folders and Verdicts are alternatives (any one), Tags and Where all
// must hold.
type Query struct {
	// Types are note type names; "none" selects notes of no type.
	Types []string
	// Folders are vault folders; a note under any of them (at any depth)
	// is selected. Case is ignored, as the vault's links ignore it.
	Folders []string
	// Tags are tags, with or without '#'; a note must carry each, or a
	// tag nested under it (#a/b carries #a), ignoring case.
	Tags []string
	// Where are property conditions (ParseCond).
	Where []Cond
	// LinksTo selects the notes linking to this vault path, LinkedFrom
	// the notes it links to; Transitive follows chains of links.
	LinksTo, LinkedFrom string
	// Linkers are the notes linking to LinksTo when no file has that
	// path (a note not written yet): no note's Links name it.
	Linkers    []string
	Transitive bool
	// Orphans selects notes no other note links to; DeadEnds notes that
	// link to no other file (as Obsidian's CLI orphans and deadends).
	Orphans, DeadEnds bool
	// Stale selects notes past their due date; DueWithin, when set, also
	// those due within it. Today is the date they are measured against.
	Stale     bool
	DueWithin vault.Interval
	Today     time.Time
	// Verdicts selects notes where a falsifier's latest run has one of
	// these verdicts (NeverRun for a falsifier never run).
	Verdicts []string
	// Sort is "path" (the default), "name", "mtime", "tended", "due", or
	// a property name; Reverse reverses it. Notes missing the key sort
	// last either way, then by path.
	Sort    string
	Reverse bool
	// Limit keeps the first Limit notes; 0 keeps all.
	Limit int
}

// Sort keys that are not properties.
var sortKeys = []string{"path", "name", "mtime", "tended", "due"}

// SortKeys are the sort keys that name a file's attribute; any other key
// is a property.
func SortKeys() []string { return slices.Clone(sortKeys) }

func (q Query) needsGraph() bool {
	return q.LinksTo != "" || q.LinkedFrom != "" || q.Orphans || q.DeadEnds
}

// own reports whether n passes the filters that need nothing but n.
func (q Query) own(n Note, today time.Time) bool {
	if len(q.Types) > 0 && !slices.ContainsFunc(q.Types, func(t string) bool {
		return strings.EqualFold(t, n.Type) || (n.Type == "" && strings.EqualFold(t, "none"))
	}) {
		return false
	}
	if len(q.Folders) > 0 && !slices.ContainsFunc(q.Folders, func(f string) bool { return InFolder(n.Path, f) }) {
		return false
	}
	for _, t := range q.Tags {
		if !HasTag(n.Tags, t) {
			return false
		}
	}
	for _, c := range q.Where {
		if !c.HoldsFor(n) {
			return false
		}
	}
	if q.Stale || q.DueWithin.N > 0 {
		if n.Due.IsZero() {
			return false
		}
		horizon := today
		if q.DueWithin.N > 0 {
			horizon = q.DueWithin.After(today)
		}
		if n.Due.After(horizon) || (q.DueWithin.N == 0 && !n.Due.Before(today)) {
			return false
		}
	}
	if len(q.Verdicts) > 0 && !slices.ContainsFunc(n.Verdicts, func(v string) bool {
		return slices.ContainsFunc(q.Verdicts, func(w string) bool { return strings.EqualFold(v, w) })
	}) {
		return false
	}
	return true
}

// Brief reports whether q reads nothing of a record but its path and
// type (own, selectFrom, sort): a record read in place
// (DecodeTextBrief) answers it.
func (q Query) Brief() bool {
	return len(q.Tags) == 0 && len(q.Where) == 0 && !q.Stale && q.DueWithin.N == 0 && len(q.Verdicts) == 0 &&
		q.LinksTo == "" && q.LinkedFrom == "" && !q.Orphans && !q.DeadEnds && (q.Sort == "" || q.Sort == "path")
}

// InFolder reports whether vault path p is under folder dir, at any
// depth, ignoring case.
func InFolder(p, dir string) bool {
	dir = strings.Trim(strings.ReplaceAll(dir, "\\", "/"), "/")
	if dir == "" || dir == "." {
		return true
	}
	return len(p) > len(dir) && p[len(dir)] == '/' && strings.EqualFold(p[:len(dir)], dir)
}

// HasTag reports whether tags (lower-case, without '#') carry tag or a
// tag nested under it.
func HasTag(tags []string, tag string) bool {
	tag = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(tag), "#"))
	for _, t := range tags {
		if t == tag || (strings.HasPrefix(t, tag) && len(t) > len(tag) && t[len(tag)] == '/') {
			return true
		}
	}
	return false
}

// Filter is Select over notes read already (Read): the notes q selects,
// sorted and limited. A condition that orders a key's values by a literal of another kind
// (published > yesterday) is a *KindError.
func (q Query) Filter(notes []Note) (Result, error) { return q.filter(notes, false) }

// FilterOwned is Filter in notes' own room: the caller gives notes up
// (10,000 records copied were 2 MB of an unchanged zk list's memory).
func (q Query) FilterOwned(notes []Note) (Result, error) { return q.filter(notes, true) }

func (q Query) filter(notes []Note, owned bool) (Result, error) {
	kinds := newKindTally(q.Where)
	for _, n := range notes {
		kinds.add(n)
	}
	if err := kinds.err(); err != nil {
		return Result{}, err
	}
	return q.selectFrom(notes, tending.DateOf(q.Today), false, owned), nil
}

// selectFrom applies q to notes; checked says the notes not marked
// linkOnly passed q's own filters already; owned that the result may
// take notes' room.
func (q Query) selectFrom(notes []Note, today time.Time, checked, owned bool) Result {
	var reach map[string]bool
	if q.LinksTo != "" || q.LinkedFrom != "" {
		reach = q.reachable(notes)
	}
	var incoming map[string]bool
	if q.Orphans {
		incoming = map[string]bool{}
		for _, n := range notes {
			for _, l := range n.Links {
				incoming[l] = true
			}
		}
	}
	var out []Note
	if owned {
		out = notes[:0] // written at or before where it is read
	} else {
		out = make([]Note, 0, len(notes))
	}
	for _, n := range notes {
		if n.linkOnly || (!checked && !q.own(n, today)) {
			continue
		}
		if reach != nil && !reach[n.Path] {
			continue
		}
		if q.Orphans && incoming[n.Path] {
			continue
		}
		if q.DeadEnds && len(n.Links) > 0 {
			continue
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		out = nil // none, as before the room was made
	}
	q.sort(out)
	res := Result{Matched: len(out), Read: len(notes)}
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	res.Notes = out
	return res
}

// reachable is the set of notes that link to q.LinksTo and that
// q.LinkedFrom links to (both, when both are set), directly or, with
// Transitive, through a chain of links; the note itself is left out.
func (q Query) reachable(notes []Note) map[string]bool {
	var sets []map[string]bool
	if q.LinkedFrom != "" {
		out := map[string][]string{}
		for _, n := range notes {
			out[n.Path] = n.Links
		}
		sets = append(sets, walk(q.LinkedFrom, out, q.Transitive))
	}
	if q.LinksTo != "" {
		in := map[string][]string{q.LinksTo: q.Linkers}
		for _, n := range notes {
			for _, l := range n.Links {
				in[l] = append(in[l], n.Path)
			}
		}
		sets = append(sets, walk(q.LinksTo, in, q.Transitive))
	}
	got := sets[0]
	for _, s := range sets[1:] {
		for p := range got {
			if !s[p] {
				delete(got, p)
			}
		}
	}
	return got
}

// walk is every node next leads to from start (one step, or all with
// deep), start excluded.
func walk(start string, next map[string][]string, deep bool) map[string]bool {
	seen := map[string]bool{start: true}
	frontier := []string{start}
	for len(frontier) > 0 {
		var more []string
		for _, p := range frontier {
			for _, q := range next[p] {
				if !seen[q] {
					seen[q] = true
					more = append(more, q)
				}
			}
		}
		if !deep {
			break
		}
		frontier = more
	}
	delete(seen, start)
	return seen
}

// sort orders notes by q.Sort, missing values last, then by path.
func (q Query) sort(notes []Note) {
	key := q.Sort
	if key == "" {
		key = "path"
	}
	if key == "path" { // paths are unique: no tie for stability to keep
		byPath := func(a, b Note) int { return strings.Compare(a.Path, b.Path) }
		if q.Reverse {
			byPath = func(a, b Note) int { return strings.Compare(b.Path, a.Path) }
		}
		// Records come in the walk's order, sorted by path already: a
		// check, not a sort of 10,000 records of 200 bytes each.
		if !slices.IsSortedFunc(notes, byPath) {
			slices.SortStableFunc(notes, byPath)
		}
		return
	}
	slices.SortStableFunc(notes, func(a, b Note) int {
		av, aok := sortValue(a, key)
		bv, bok := sortValue(b, key)
		switch {
		case aok && !bok:
			return -1
		case !aok && bok:
			return 1
		}
		c := 0
		switch {
		case key == "path": // as zk check and zk stale order paths
			c = strings.Compare(a.Path, b.Path)
		case aok:
			c = order(av, bv)
		}
		if q.Reverse {
			c = -c
		}
		if c == 0 && key != "path" {
			c = strings.Compare(a.Path, b.Path)
		}
		return c
	})
}

func sortValue(n Note, key string) (any, bool) {
	switch key {
	case "path":
		return n.Path, true
	case "name":
		return strings.ToLower(n.Name), true
	case "mtime":
		return n.ModTime, true
	case "tended":
		return n.Tended, !n.Tended.IsZero()
	case "due":
		return n.Due, !n.Due.IsZero()
	}
	v, ok := n.Properties[key]
	if l, isList := v.([]any); isList {
		if len(l) == 0 {
			return nil, false
		}
		v = l[0]
	}
	return v, ok && v != nil
}

// order compares two values of a sort: numbers as numbers, dates as
// dates, text ignoring case; values of different kinds by kind.
func order(a, b any) int {
	ka, kb := kindOf(a), kindOf(b)
	if ka.rank != kb.rank {
		return cmp.Compare(ka.rank, kb.rank)
	}
	switch ka.rank {
	case rankNumber:
		return cmp.Compare(ka.num, kb.num)
	case rankTime:
		return ka.t.Compare(kb.t)
	}
	if c := strings.Compare(strings.ToLower(ka.s), strings.ToLower(kb.s)); c != 0 {
		return c
	}
	return strings.Compare(ka.s, kb.s)
}

const (
	rankNumber = iota
	rankTime
	rankText
)

type kind struct {
	rank int
	num  float64
	t    time.Time
	s    string
}

func kindOf(v any) kind {
	switch x := v.(type) {
	case int64:
		return kind{rank: rankNumber, num: float64(x)}
	case float64:
		return kind{rank: rankNumber, num: x}
	case time.Time:
		return kind{rank: rankTime, t: x}
	case string:
		if t, ok := property.ParseDate(x); ok {
			return kind{rank: rankTime, t: t}
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			return kind{rank: rankNumber, num: f}
		}
		return kind{rank: rankText, s: x}
	}
	return kind{rank: rankText, s: fmt.Sprint(v)}
}

// Field is a note's value for an output column: a property by name, or
// one of the note's attributes named file.name, file.folder, file.mtime,
// file.tags, file.links, file.tended, file.due, file.verdicts (Bases'
// file.* spelling). The second result is false when the note has none.
func (n Note) Field(name string) (any, bool) {
	switch name {
	case "file.path":
		return n.Path, true
	case "file.name":
		return n.Name, true
	case "file.folder":
		if i := strings.LastIndexByte(n.Path, '/'); i >= 0 {
			return n.Path[:i], true
		}
		return "", true
	case "file.mtime":
		return n.ModTime.UTC().Format(time.RFC3339), true
	case "file.tags":
		return stringsAny(n.Tags), true
	case "file.links":
		return stringsAny(n.Links), true
	case "file.tended":
		return dateOrNone(n.Tended)
	case "file.due":
		return dateOrNone(n.Due)
	case "file.verdicts":
		return stringsAny(n.Verdicts), true
	}
	v, ok := n.Properties[name]
	return v, ok
}

// FileFields are the note attributes Field knows, for usage and
// completion.
var FileFields = []string{"file.path", "file.name", "file.folder", "file.mtime", "file.tags", "file.links", "file.tended", "file.due", "file.verdicts"}

// FieldNeeds is what Read must compute for the fields named.
func FieldNeeds(fields []string) Need {
	var n Need
	for _, f := range fields {
		switch f {
		case "file.links":
			n |= NeedLinks
		case "file.tended", "file.due":
			n |= NeedTending
		case "file.verdicts":
			n |= NeedVerdicts
		}
	}
	return n
}

// SortNeeds is what Read must compute to sort by key.
func SortNeeds(key string) Need {
	if key == "tended" || key == "due" {
		return NeedTending
	}
	return 0
}

func dateOrNone(t time.Time) (any, bool) {
	if t.IsZero() {
		return nil, false
	}
	return t.Format(time.DateOnly), true
}

func stringsAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
