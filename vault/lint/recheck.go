package lint

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/zk-claims/zk/vault"
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
// spent (Report.Spent).
type Previous struct {
	Files    []string
	Findings []Finding
	States   []NoteState
	Spent    int
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
// budget, vault-wide in Check, could run out): the caller checks the
// vault. each, when set, sees every note read, from several goroutines at
// once.
func Recheck(ctx context.Context, v *vault.Vault, files []vault.File, skips []vault.Skip, opts Options,
	prev Previous, changed []string, each func(*vault.Note)) (rep *Report, ok bool, err error) {
	paths, notes := vault.SplitFiles(files)
	if prev.Spent > suggestCells {
		return nil, false, nil
	}
	at := make(map[string]int, len(notes)) // a note's place in notes and states
	for i, f := range notes {
		at[f.Path] = i
	}
	was := make(map[string]int, len(prev.States)) // a note's place in prev.States
	for i, st := range prev.States {
		was[st.Path] = i
	}
	// The files that came and went, and the names they had.
	fileSet := !slices.Equal(paths, prev.Files)
	var gone []string
	names := map[string]bool{} // the folded names of the files that came or went
	if fileSet {
		now := make(map[string]bool, len(paths))
		for _, p := range paths {
			now[p] = true
		}
		before := make(map[string]bool, len(prev.Files))
		for _, p := range prev.Files {
			before[p] = true
			if !now[p] {
				gone = append(gone, p)
				names[baseName(p)] = true
			}
		}
		for _, p := range paths {
			if !before[p] {
				names[baseName(p)] = true
			}
		}
	}
	resolver := vault.NewResolver(paths)
	// The session is this call's alone: its lock is not taken.
	s := OpenSession(resolver, opts)
	states := make([]NoteState, len(notes))
	for i, f := range notes {
		if j, ok := was[f.Path]; ok {
			states[i] = prev.States[j]
			if states[i].Read {
				sum := states[i].Summary.sum
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
			batch = append(batch, notes[at[p]])
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
			if parsed[k] == nil {
				s.setSummary(p, nil)
				states[at[p]] = NoteState{Path: p}
				own[p] = s.c.skipped(nil, vault.Skip{Path: p, Reason: reasons[k]})
				continue
			}
			read++
			r, fs := s.check(parsed[k])
			spent += suggestCells - s.c.targets.cells
			states[at[p]] = stateOf(&r)
			own[p] = fs
		}
		return nil
	}
	again := map[string]bool{} // the notes checked again, or to be
	var first []string         // the notes changed or added
	for _, p := range changed {
		if _, ok := at[p]; ok && !again[p] {
			again[p] = true
			first = append(first, p)
		}
	}
	for _, f := range notes {
		if _, ok := was[f.Path]; !ok && !again[f.Path] {
			again[f.Path] = true
			first = append(first, f.Path)
		}
	}
	slices.Sort(first)
	if err := check(first, true); err != nil {
		return nil, false, err
	}

	// The notes whose own summary changed (changed, added, removed) and
	// the aliases added or removed.
	touched := map[string]bool{}
	wasRefuted := false
	aliases := map[string]bool{}
	diffAliases := func(old, cur []string) {
		for _, a := range old {
			aliases[vault.FoldName(a)] = true
		}
		for _, a := range cur {
			k := vault.FoldName(a)
			aliases[k] = !aliases[k] // one in both is no change
		}
	}
	for _, p := range first {
		touched[p] = true
		var old noteSummary
		if j, ok := was[p]; ok {
			old = prev.States[j].Summary.sum
		}
		wasRefuted = wasRefuted || old.refuted != ""
		diffAliases(old.aliases, states[at[p]].Summary.sum.aliases)
	}
	for _, p := range gone {
		if j, ok := was[p]; ok {
			touched[p] = true
			old := prev.States[j].Summary.sum
			wasRefuted = wasRefuted || old.refuted != ""
			diffAliases(old.aliases, nil)
		}
	}
	// The notes an edit can change: linking to a note touched or a file
	// gone, naming an alias changed, or with a link that may resolve
	// elsewhere now (second: their links, not their summaries, change).
	var second []string
	for i := range states {
		st := &states[i]
		if again[st.Path] {
			continue
		}
		if slices.ContainsFunc(st.Targets, func(t string) bool { return touched[t] || fileSet && names[baseName(t)] }) ||
			slices.ContainsFunc(st.Broken, func(b string) bool {
				if aliases[vault.FoldName(b)] {
					return true
				}
				_, now := resolver.Resolve(b, st.Path)
				return fileSet && now
			}) ||
			fileSet && slices.ContainsFunc(st.Summary.sum.restsOn, func(e restEdge) bool { return names[baseName(e.link)] }) {
			second = append(second, st.Path)
			again[st.Path] = true
		}
	}
	if s.refuted > 0 || wasRefuted { // else no note rests on a refuted one, before or after
		for _, q := range s.Dependents(append(append(slices.Clone(first), second...), gone...)...) {
			if _, ok := at[q]; ok && !again[q] {
				second = append(second, q)
				again[q] = true
			}
		}
	}
	slices.Sort(second)
	if err := check(second, false); err != nil {
		return nil, false, err
	}
	if spent > suggestCells {
		return nil, false, nil // Check would have run out of suggestions where these did not
	}

	out := s.c.vaultFindings(skips)
	for _, f := range prev.Findings {
		if _, again := own[f.Path]; again || f.Rule == RuleNameCollision || f.Rule == RuleFileUntrusted {
			continue
		}
		if _, note := at[f.Path]; note {
			out = append(out, f)
		}
	}
	for _, fs := range own {
		out = append(out, fs...)
	}
	SortFindings(out)
	rep = &Report{Findings: out, Files: files, States: states, Spent: spent, Read: read}
	for p := range own {
		rep.Rechecked = append(rep.Rechecked, at[p])
	}
	slices.Sort(rep.Rechecked)
	for _, st := range states {
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
	paths, _ := vault.SplitFiles(r.Files)
	return Previous{Files: paths, Findings: r.Findings, States: r.States, Spent: r.Spent}
}
