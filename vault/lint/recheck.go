package lint

import (
	"bytes"
	"context"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
)

// NoteState is what a whole check keeps of a note so that a later one
// checks again only the notes an edit can change (Recheck): the note's
// summary as a link target, and what its own findings depend on in other
// notes.
type NoteState struct {
	Path string
	// Read is false for a note that could not be read (its findings say
	// why); Checked for a note the options' Only kept.
	Read, Checked bool
	Summary       Summary
	// Targets are the files its links resolve to, each once, itself left
	// out: its link findings change when one of them does.
	Targets []string
	// Broken are the paths of its links that name nothing, each once:
	// their message names the note that has the name as an alias, and a
	// file added may take the name.
	Broken []string
}

// stateOf is the state of a note read.
func stateOf(r *noteResult) NoteState {
	return NoteState{Path: r.path, Read: true, Checked: r.checked, Summary: Summary{Path: r.path, sum: r.summary},
		Targets: r.targets, Broken: r.broken}
}

// Previous is what a whole check of the vault left for Recheck: the
// files it walked (their paths, in order), its findings, every note's
// state in the walk's order (Options.States) and the suggestion work it
// spent (Report.Spent). A cache gives the states as Cached instead, read
// note by note, with the number of notes checked (Notes).
type Previous struct {
	Files []string
	// Same says the walk's files are Files, the caller having compared
	// them (a cache's stamps with the walk): Recheck does not compare
	// them again, and Files may be nil.
	Same     bool
	Findings []Finding
	States   []NoteState
	Spent    int
	Cached   Cached
	Notes    int
}

// Cached are a whole check's states as a cache holds them, read note by
// note, by their place among the walk's notes: after an edit, a recheck
// reads the states of the notes it can change, not every note's. Each
// lookup may give more notes than it names (Recheck reads their states
// to tell); ok false is a cache that cannot be read, and Recheck then
// answers not.
type Cached interface {
	State(i int) (st NoteState, ok bool)
	// Linking are the notes whose Targets may hold the file at path p.
	Linking(p string) ([]int, bool)
	// AliasOwners are the notes that may declare the folded alias k.
	AliasOwners(k string) ([]int, bool)
	// BrokenNaming are the notes that may have a broken link whose path,
	// folded, is k.
	BrokenNaming(k string) ([]int, bool)
	// BrokenWhere are the notes that may have a broken link whose path,
	// folded, keep keeps: after files came or went, those whose broken
	// links may now resolve.
	BrokenWhere(keep func(k string) bool) ([]int, bool)
	// Named are the walk's files whose name is k (vault.NameKey), perhaps
	// among others: the recheck's links resolve by them
	// (vault.LazyResolver).
	Named(k string) ([]string, bool)
	// Refuted is how many notes are refuted.
	Refuted() int
}

// Recheck is Check after some notes changed (changed: their paths) or
// files came or went since prev: it checks the changed and added notes
// and the notes whose findings they can change, on a Session holding
// every other note's summary as prev left it, and keeps every other
// note's findings. Those checked again are the notes linking to a note
// changed or removed (whose headings, block ids or existence they check),
// those resting on one through a chain of Links entries
// (Session.Dependents), those with a broken link naming an alias added or
// removed, and, when files came or went, those whose links may now
// resolve elsewhere: a link to a file gone, a broken link that now
// resolves, a link to a file of the same name as one added. Its findings
// are Check's. ok is false when it cannot answer so (the suggestion
// budget, vault-wide in Check, could run out; a cache that cannot be
// read): the caller checks the vault. each, when set, sees every note
// read, from several goroutines at once.
//
// With prev.Cached, it reads only the states of the notes it looks at,
// and its report holds the states of the notes checked again (Again) but
// not every note's (States). When files came or went, prev.Cached's
// places are those of prev.Files' notes, and the notes it may have to
// check again are found by the names that came or went (Named, Linking,
// BrokenWhere), not by reading every state.
func Recheck(ctx context.Context, v *vault.Vault, files []vault.File, skips []vault.Skip, opts Options,
	prev Previous, changed []string, each func(*vault.Note)) (rep *Report, ok bool, err error) {
	if prev.Spent > suggestCells {
		return nil, false, nil
	}
	var paths []string
	notes := make([]vault.File, 0, len(files))
	for _, f := range files {
		if f.IsNote() {
			notes = append(notes, f)
		}
	}
	if !prev.Same || prev.Cached == nil { // else no path is compared or indexed
		paths = vault.Paths(files)
	}
	fileSet := !prev.Same && !slices.Equal(paths, prev.Files)
	lazy := prev.Cached != nil
	// place is a note's place in notes (and, lazily with the same files,
	// in prev's states).
	place := func(p string) (int, bool) {
		return slices.BinarySearchFunc(notes, p, func(f vault.File, p string) int { return strings.Compare(f.Path, p) })
	}
	// prevNotes are prev's notes by their place in prev.Cached, when files
	// came or went (else they are notes'); prevAt is the note at place i
	// among them, when it is still a note of the walk.
	var prevNotes []string
	if lazy && fileSet {
		prevNotes = make([]string, 0, len(prev.Files))
		for _, p := range prev.Files {
			if vault.IsNotePath(p) {
				prevNotes = append(prevNotes, p)
			}
		}
	}
	prevPlace := func(p string) (int, bool) {
		if prevNotes == nil {
			return place(p)
		}
		return slices.BinarySearch(prevNotes, p)
	}
	prevAt := func(i int) (string, bool) {
		if prevNotes == nil {
			if i < 0 || i >= len(notes) {
				return "", false
			}
			return notes[i].Path, true
		}
		if i < 0 || i >= len(prevNotes) {
			return "", false
		}
		_, ok := place(prevNotes[i])
		return prevNotes[i], ok
	}
	var was map[string]int // a note's place in prev.States
	if !lazy {
		was = make(map[string]int, len(prev.States))
		for i, st := range prev.States {
			was[st.Path] = i
		}
	}
	// prevState is the state prev left of the note at p.
	bad := false
	prevState := func(p string) (NoteState, bool) {
		if !lazy {
			j, ok := was[p]
			if !ok {
				return NoteState{}, false
			}
			return prev.States[j], true
		}
		i, ok := prevPlace(p)
		if !ok {
			return NoteState{}, false
		}
		st, ok := prev.Cached.State(i)
		if !ok || st.Path != p {
			bad = true
			return NoteState{}, false
		}
		return st, true
	}
	// The files that came and went (both lists are sorted by path), the
	// names they had (baseName), and their name keys (vault.NameKey).
	var gone, came []string
	names := map[string]bool{} // the folded names of the files that came or went
	var goneSet map[string]bool
	cameNamed := map[string][]string{} // the files that came, by name key
	nameKeys := map[string]bool{}
	if fileSet {
		for i, j := 0, 0; i < len(paths) || j < len(prev.Files); {
			switch {
			case j == len(prev.Files) || i < len(paths) && paths[i] < prev.Files[j]:
				came = append(came, paths[i])
				i++
			case i == len(paths) || prev.Files[j] < paths[i]:
				gone = append(gone, prev.Files[j])
				j++
			default:
				i, j = i+1, j+1
			}
		}
		goneSet = make(map[string]bool, len(gone))
		for _, p := range gone {
			goneSet[p] = true
		}
		for _, p := range append(slices.Clip(gone), came...) {
			names[baseName(p)] = true
			nameKeys[vault.NameKey(p)] = true
		}
		for _, p := range came {
			cameNamed[vault.NameKey(p)] = append(cameNamed[vault.NameKey(p)], p)
		}
	}
	// The resolver: with the cached states, one asking for the files of
	// the names the links checked again and the rests-on entries read
	// name, by the cache's name table, as they are met (which notes a
	// chain of rests-on entries reaches is known only as their summaries
	// are read); else one over every path.
	var resolver *vault.Resolver
	if lazy {
		resolver = vault.LazyResolver(func(k string) []string {
			ps, ok := prev.Cached.Named(k)
			if !ok {
				bad = true
			}
			if fileSet { // prev's files of the name, but those gone, and those come
				kept := make([]string, 0, len(ps)+len(cameNamed[k]))
				for _, p := range ps {
					if !goneSet[p] {
						kept = append(kept, p)
					}
				}
				ps = append(kept, cameNamed[k]...)
			}
			return ps
		})
	} else {
		resolver = vault.NewResolver(paths)
	}
	// The session is this call's alone: its lock is not taken. Its
	// checks leave links/rests-on-refuted to the end, for every note
	// checked again at once (restsOnDeferred).
	s := OpenSession(resolver, opts)
	s.deferRests = true
	states := map[int]NoteState{} // the states of the notes checked again, by place
	if lazy {
		s.refuted = prev.Cached.Refuted()
		s.c.cached = &cachedSummaries{absent: map[string]bool{}, replaced: map[string]bool{},
			summary: func(p string) (*noteSummary, bool) {
				if _, now := place(p); !now {
					return nil, true // a note gone, or never one
				}
				st, ok := prevState(p)
				if !ok || !st.Read {
					return nil, !bad
				}
				sum := st.Summary.sum
				if s.resolved {
					s.resolveRests(p, &sum)
				}
				return &sum, true
			},
			aliasOwners: func(k string) []string {
				is, ok := prev.Cached.AliasOwners(k)
				if !ok {
					bad = true
				}
				var out []string
				for _, i := range is {
					q, ok := prevAt(i)
					if !ok || s.c.cached.replaced[q] {
						continue
					}
					if st, ok := prevState(q); ok && st.Read &&
						slices.ContainsFunc(st.Summary.sum.aliases, func(a string) bool { return vault.FoldName(a) == k }) {
						out = append(out, st.Summary.sum.name)
					}
				}
				return out
			}}
	} else {
		for _, f := range notes {
			if st, ok := prevState(f.Path); ok && st.Read {
				sum := st.Summary.sum
				s.setSummary(f.Path, &sum)
			}
		}
	}
	own := map[string][]Finding{} // the findings of the notes checked again
	spent, read := prev.Spent, 0
	// check checks the notes at ps again; learn first records the
	// summaries of them all, changed notes each of which may be the
	// target of another.
	check := func(ps []string, learn bool) error {
		batch := make([]vault.File, 0, len(ps))
		for _, p := range ps {
			i, _ := place(p)
			batch = append(batch, notes[i])
		}
		parsed := make([]*vault.Note, len(batch))
		reasons := v.Each(ctx, batch, func(k int, n *vault.Note) {
			if each != nil {
				each(n)
			}
			parsed[k] = n
		})
		if err := ctx.Err(); err != nil {
			return err
		}
		for k, n := range parsed {
			switch {
			case !learn || len(ps) == 1:
			case n == nil:
				s.setSummary(ps[k], nil)
			default:
				sum := s.c.graphSummary(n)
				s.setSummary(n.Path, &sum)
			}
		}
		for k, p := range ps {
			i, _ := place(p)
			if parsed[k] == nil {
				s.setSummary(p, nil)
				states[i] = NoteState{Path: p}
				own[p] = s.c.skipped(nil, vault.Skip{Path: p, Reason: reasons[k]})
				continue
			}
			read++
			r, fs := s.check(parsed[k])
			spent += suggestCells - s.c.targets.cells
			states[i] = stateOf(&r)
			own[p] = fs
		}
		return nil
	}
	again := map[string]bool{} // the notes checked again, or to be
	var first []string         // the notes changed or added
	for _, p := range changed {
		if _, ok := place(p); ok && !again[p] {
			again[p] = true
			first = append(first, p)
		}
	}
	if !lazy {
		for _, f := range notes {
			if _, ok := was[f.Path]; !ok && !again[f.Path] {
				again[f.Path] = true
				first = append(first, f.Path)
			}
		}
	} else {
		for _, p := range came {
			if _, ok := place(p); ok && !again[p] {
				again[p] = true
				first = append(first, p)
			}
		}
	}
	slices.Sort(first)
	if err := check(first, true); err != nil {
		return nil, false, err
	}

	// The notes whose own summary changed (changed, added, removed) and
	// the aliases added or removed. A note changed whose summary is the
	// one it had (its text edited, not its headings, block ids, aliases,
	// Links entries or verdict) changes nothing another note finds: every
	// other note sees it by its summary alone, as the cache keeps it. Not
	// when files came or went: its Links entries may resolve elsewhere
	// now, which the summary's bytes do not say (they hold the links, not
	// the files they resolve to), and those resting on it through a file
	// gone are found through it.
	touched := map[string]bool{}
	var touchedFirst []string
	wasRefuted := false
	// An alias one note drops and another takes changed: the notes
	// naming it name another note as its owner.
	aliases := map[string]bool{}
	diffAliases := func(old, cur []string) {
		was, now := map[string]bool{}, map[string]bool{}
		for _, a := range old {
			was[vault.FoldName(a)] = true
		}
		for _, a := range cur {
			now[vault.FoldName(a)] = true
		}
		for k := range was {
			aliases[k] = aliases[k] || !now[k] // one in both is no change
		}
		for k := range now {
			aliases[k] = aliases[k] || !was[k]
		}
	}
	for _, p := range first {
		var old noteSummary
		i, _ := place(p)
		st, had := prevState(p)
		if had {
			old = st.Summary.sum
			if cur := states[i]; !fileSet && st.Read == cur.Read &&
				(!cur.Read || bytes.Equal(AppendSummary(nil, st.Summary), AppendSummary(nil, cur.Summary))) {
				continue
			}
		}
		touched[p] = true
		touchedFirst = append(touchedFirst, p)
		wasRefuted = wasRefuted || old.refuted != ""
		diffAliases(old.aliases, states[i].Summary.sum.aliases)
	}
	goneChecked := 0 // the notes gone that prev counted checked
	for _, p := range gone {
		if st, ok := prevState(p); ok {
			touched[p] = true
			old := st.Summary.sum
			wasRefuted = wasRefuted || old.refuted != ""
			if lazy && st.Read && old.refuted != "" {
				s.refuted-- // prev's count, which held it
			}
			if st.Checked {
				goneChecked++
			}
			diffAliases(old.aliases, nil)
		}
	}
	// The notes an edit can change: linking to a note touched or a file
	// gone, naming an alias changed, or with a link that may resolve
	// elsewhere now (second: their links, not their summaries, change).
	var second []string
	affected := func(st *NoteState) bool {
		return slices.ContainsFunc(st.Targets, func(t string) bool { return touched[t] || fileSet && names[baseName(t)] }) ||
			slices.ContainsFunc(st.Broken, func(b string) bool {
				if aliases[vault.FoldName(b)] {
					return true
				}
				if !fileSet {
					return false
				}
				_, now := resolver.Resolve(b, st.Path)
				return now
			}) ||
			fileSet && slices.ContainsFunc(st.Summary.sum.restsOn, func(e restEdge) bool { return names[baseName(e.link)] })
	}
	if lazy { // the notes that may link to a note touched or name an alias changed, read
		var cands []int
		for p := range touched {
			is, ok := prev.Cached.Linking(p)
			bad = bad || !ok
			cands = append(cands, is...)
		}
		for k, changed := range aliases {
			if changed {
				is, ok := prev.Cached.BrokenNaming(k)
				bad = bad || !ok
				cands = append(cands, is...)
			}
		}
		if fileSet {
			// Those linking to a file of a name that came or went (a
			// link may now resolve to another file of it; a Links
			// entry's target is among its note's Targets, and its path
			// among Broken when it names nothing, stateOf), and those
			// with a broken link of such a name (it may now resolve).
			for b := range names {
				for _, k := range []string{b, b + ".md"} {
					ps, ok := prev.Cached.Named(k)
					bad = bad || !ok
					for _, p := range ps {
						if baseName(p) == b {
							is, ok := prev.Cached.Linking(p)
							bad = bad || !ok
							cands = append(cands, is...)
						}
					}
				}
			}
			is, ok := prev.Cached.BrokenWhere(func(k string) bool { return names[baseName(k)] })
			bad = bad || !ok
			cands = append(cands, is...)
		}
		slices.Sort(cands)
		for _, i := range slices.Compact(cands) {
			q, ok := prevAt(i)
			if !ok || again[q] {
				continue
			}
			if st, ok := prevState(q); ok && affected(&st) {
				second = append(second, st.Path)
				again[st.Path] = true
			}
		}
	} else {
		for i := range prev.States {
			st := &prev.States[i]
			if _, now := place(st.Path); !now || again[st.Path] {
				continue
			}
			if affected(st) {
				second = append(second, st.Path)
				again[st.Path] = true
			}
		}
	}
	if s.refuted > 0 || wasRefuted { // else no note rests on a refuted one, before or after
		ps := append(append(touchedFirst, second...), gone...)
		var deps []string
		if lazy {
			deps = s.dependentsVia(func(p string) []string {
				is, ok := prev.Cached.Linking(p)
				bad = bad || !ok
				out := make([]string, 0, len(is))
				for _, i := range is {
					if q, ok := prevAt(i); ok {
						out = append(out, q)
					}
				}
				return out
			}, ps...)
		} else {
			deps = s.Dependents(ps...)
		}
		for _, q := range deps {
			if _, ok := place(q); ok && !again[q] {
				second = append(second, q)
				again[q] = true
			}
		}
	}
	slices.Sort(second)
	if err := check(second, false); err != nil {
		return nil, false, err
	}
	for p, fs := range s.restsOnDeferred() {
		own[p] = append(own[p], fs...)
	}
	if spent > suggestCells || bad || s.c.cached != nil && s.c.cached.bad {
		return nil, false, nil // Check would have run out of suggestions where these did not; or the cache is damaged
	}

	// The findings: the vault's (head), those of prev's kept (kept) and
	// those of the notes checked again (tail), each sorted, merged: the
	// order SortFindings gives them together.
	var head []Finding
	if lazy { // the same collisions but those of the names that came or went
		for _, sk := range skips {
			head = s.c.skipped(head, sk)
		}
		for _, u := range s.c.opts.Untrusted {
			head = s.c.add(head, Finding{Path: u.Path, Line: 1, Column: 1, Rule: RuleFileUntrusted, Message: u.Reason})
		}
		head = s.c.orphans(head) // prev's, at the ledger (no note), are left out below
		if fileSet {
			for _, p := range append(slices.Clip(gone), came...) {
				resolver.Resolve(p, "") // asks for the files of its name: a lazy resolver's collisions are those asked for
			}
			for _, f := range s.c.collisions(nil) {
				if nameKeys[vault.NameKey(f.Path)] {
					head = append(head, f)
				}
			}
			if bad {
				return nil, false, nil
			}
		}
	} else {
		head = s.c.vaultFindings(skips)
	}
	// prev's kept, as runs of prev.Findings between those left out: a
	// recheck leaves out a few paths' findings, and the runs are merged
	// with head and tail into one slice, not copied into another first
	// (some 700 KB of findings to fault in at 10,000 notes).
	var runs [][]Finding
	start, next := 0, 0 // prev.Findings and notes are both sorted by path
	for i, f := range prev.Findings {
		keep := false
		switch _, again := own[f.Path]; {
		case f.Rule == RuleFileUntrusted, f.Rule == RuleRunVanished && f.Path == evidence.LedgerFile,
			f.Rule == RuleNameCollision && (!lazy || nameKeys[vault.NameKey(f.Path)]):
			// vaultFindings' again, or the collisions of the names that came or went
		case again && f.Rule != RuleNameCollision:
			// the note's own again
		default:
			for next < len(notes) && notes[next].Path < f.Path {
				next++
			}
			if keep = next < len(notes) && notes[next].Path == f.Path; !keep {
				_, keep = place(f.Path) // findings out of order: a cache's
			}
		}
		if !keep {
			if i > start {
				runs = append(runs, prev.Findings[start:i])
			}
			start = i + 1
		}
	}
	if start < len(prev.Findings) {
		runs = append(runs, prev.Findings[start:])
	}
	n := 0
	for _, r := range runs {
		n += len(r)
	}
	if len(runs) > 64 || !slices.IsSortedFunc(prev.Findings, compareFindings) {
		// Many runs (appendMerged looks at each list's next at every
		// step), or a cache's findings out of order: one list, sorted.
		kept := make([]Finding, 0, n)
		for _, r := range runs {
			kept = append(kept, r...)
		}
		if !slices.IsSortedFunc(kept, compareFindings) {
			SortFindings(kept)
		}
		runs = [][]Finding{kept}
	}
	var tail []Finding
	for _, fs := range own {
		tail = append(tail, fs...)
	}
	SortFindings(head)
	SortFindings(tail)
	out := appendMerged(make([]Finding, 0, len(head)+n+len(tail)), append(append([][]Finding{head}, runs...), tail)...)
	rep = &Report{Findings: out, Files: files, Spent: spent, Read: read}
	for _, i := range slices.Sorted(maps.Keys(states)) {
		rep.Rechecked = append(rep.Rechecked, i)
		rep.Again = append(rep.Again, states[i])
	}
	if lazy {
		rep.Notes = prev.Notes - goneChecked
		for _, st := range rep.Again {
			if old, ok := prevState(st.Path); ok && old.Checked {
				rep.Notes--
			}
			if st.Checked {
				rep.Notes++
			}
		}
		return rep, true, nil
	}
	rep.States = make([]NoteState, len(notes))
	for i, f := range notes {
		if st, ok := states[i]; ok {
			rep.States[i] = st
		} else if st, ok := prevState(f.Path); ok {
			rep.States[i] = st
		} else {
			rep.States[i] = NoteState{Path: f.Path}
		}
	}
	for _, st := range rep.States {
		if st.Checked {
			rep.Notes++
		}
	}
	return rep, true, nil
}

// baseName is the folded name of the file a path or link names, without
// its folder and its .md: the name by which links may find it.
func baseName(p string) string {
	b := vault.FoldName(path.Base(strings.ReplaceAll(p, `\`, "/")))
	return strings.TrimSuffix(b, ".md")
}

// Previous is what the report leaves for a later Recheck (its States
// asked for by Options.States).
func (r *Report) Previous() Previous {
	paths := vault.Paths(r.Files)
	return Previous{Files: paths, Findings: r.Findings, States: r.States, Spent: r.Spent}
}
