package lint

import (
	"context"
	"slices"

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
	// Broken are its links that name nothing, folded (vault.FoldName),
	// each once: their message names the note that has the name as an
	// alias.
	Broken []string
}

// stateOf is the state of a note read.
func stateOf(r *noteResult) NoteState {
	st := NoteState{Path: r.path, Read: true, Checked: r.checked, Summary: Summary{Path: r.path, sum: r.summary}}
	for _, l := range r.links {
		switch {
		case l.Target == "":
			if k := vault.FoldName(l.Path); !slices.Contains(st.Broken, k) {
				st.Broken = append(st.Broken, k)
			}
		case l.Target != r.path && !slices.Contains(st.Targets, l.Target):
			st.Targets = append(st.Targets, l.Target)
		}
	}
	return st
}

// Previous is what a whole check of the vault left for Recheck: its
// findings, every note's state in the walk's order (Options.States) and
// the suggestion work it spent (Report.Spent).
type Previous struct {
	Findings []Finding
	States   []NoteState
	Spent    int
}

// Recheck is Check after some notes changed (changed: their paths), on a
// walk of the same files as prev's: it checks the changed notes and the
// notes whose findings they can change — those linking to one (whose
// headings, block ids or existence they check), those resting on one
// through a chain of Links entries (Session.Dependents), and, when a
// note's aliases changed, those with a broken link naming one — on a
// Session holding every other note's summary as prev left it, and keeps
// every other note's findings. Its findings are Check's. ok is false when
// it cannot answer so (another set of notes; the suggestion budget,
// vault-wide in Check, could run out): the caller checks the vault.
// each, when set, sees every note read, from several goroutines at once.
func Recheck(ctx context.Context, v *vault.Vault, files []vault.File, skips []vault.Skip, opts Options,
	prev Previous, changed []string, each func(*vault.Note)) (rep *Report, ok bool, err error) {
	paths, notes := vault.SplitFiles(files)
	if len(notes) != len(prev.States) || prev.Spent > suggestCells {
		return nil, false, nil
	}
	at := make(map[string]int, len(notes))
	for i, f := range notes {
		if prev.States[i].Path != f.Path {
			return nil, false, nil
		}
		at[f.Path] = i
	}
	// The session is this call's alone: its lock is not taken.
	s := OpenSession(vault.NewResolver(paths), opts)
	for i := range prev.States {
		if st := &prev.States[i]; st.Read {
			sum := st.Summary.sum
			s.setSummary(st.Path, &sum)
		}
	}
	states := slices.Clone(prev.States)
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
	changed = slices.DeleteFunc(slices.Clone(changed), func(p string) bool { _, ok := at[p]; return !ok })
	if err := check(changed, true); err != nil {
		return nil, false, err
	}

	// The notes the changed ones can change.
	was := map[string]bool{}
	wasRefuted := false
	aliases := map[string]bool{} // aliases added or removed, folded
	for _, p := range changed {
		was[p] = true
		old, cur := prev.States[at[p]].Summary.sum, states[at[p]].Summary.sum
		wasRefuted = wasRefuted || old.refuted != ""
		for _, a := range old.aliases {
			aliases[vault.FoldName(a)] = true
		}
		for _, a := range cur.aliases {
			k := vault.FoldName(a)
			aliases[k] = !aliases[k] // one in both is no change
		}
	}
	var affected []string
	for i := range prev.States {
		st := &prev.States[i]
		if was[st.Path] {
			continue
		}
		if slices.ContainsFunc(st.Targets, func(t string) bool { return was[t] }) ||
			slices.ContainsFunc(st.Broken, func(b string) bool { return aliases[b] }) {
			affected = append(affected, st.Path)
			was[st.Path] = true
		}
	}
	if s.refuted > 0 || wasRefuted { // else no note rests on a refuted one, before or after
		for _, q := range s.Dependents(changed...) {
			if !was[q] {
				affected = append(affected, q)
				was[q] = true
			}
		}
	}
	if err := check(affected, false); err != nil {
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
	for _, st := range states {
		if st.Checked {
			rep.Notes++
		}
	}
	return rep, true, nil
}
