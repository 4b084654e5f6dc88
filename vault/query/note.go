// Package query selects notes of a vault by what Obsidian knows of them
// (type, folder, tags, properties, links) and by what zk knows (when a
// note is due, the verdict of its falsifiers' latest runs): the domain of
// zk list. It returns values; the command prints them.
package query

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/tending"
)

// Need says what a query reads of each note beyond its frontmatter, tags
// and type: each costs work per note that a plain property filter skips.
type Need int

// What Read may compute.
const (
	// NeedLinks resolves the note's links (links-to, linked-from,
	// orphans, dead ends, file.links).
	NeedLinks Need = 1 << iota
	// NeedTending reads the Last tended date and the due date.
	NeedTending
	// NeedVerdicts reads the note's falsifiers and recorded runs.
	NeedVerdicts
)

// Options are what Read needs of the vault's configuration.
type Options struct {
	Types []*vault.NoteType
	// TendedKeys are the frontmatter properties read as Last tended; nil
	// means tending.DefaultTendedKeys.
	TendedKeys []string
	// Interval is the default tending interval (the config's).
	Interval vault.Interval
	Need     Need
	// Skip, when set, leaves out the notes it returns true for (a
	// template is not a note of its type); their links still resolve.
	Skip func(path string) bool
	// Ledger is the run ledger by note path (evidence.ReadLedger), which
	// ties run blocks recorded before falsifier ids by number, as zk
	// check does (NeedVerdicts); nil ties them by text only.
	Ledger map[string][]evidence.LedgerEntry
	// Rejudge judges a refuting run's output under the criterion of a
	// later run that supported the claim under another (evidence.Answer):
	// whether that run answers the refutation; nil reads no log, and
	// such a run answers nothing.
	Rejudge *evidence.Rejudger
}

// Note is what a query keeps of one note: small, so that a vault of
// 100,000 notes is held as records rather than as text.
type Note struct {
	Path    string
	Name    string
	ModTime time.Time
	// Type is the name of the note's type, or "" for a note of none.
	Type string
	// Properties are the frontmatter values (vault.Frontmatter.Values).
	Properties map[string]any
	// Tags are the note's tags, frontmatter and inline, lower-case and
	// without '#', each once.
	Tags []string
	// Links are the distinct files the note's links, embeds and
	// frontmatter links resolve to, itself excluded (NeedLinks).
	Links []string
	// Tended is the Last tended date and Due the date the note is due;
	// both zero when the note gives no (real) date (NeedTending).
	Tended, Due time.Time
	// cadence is what the note says of its tending (NeedTending),
	// encoded (encodeCadence): only zk stale reads it (Cadence), so a
	// listing neither decodes it nor copies it about.
	cadence string
	// Verdicts are the verdicts of the latest run of each falsifier, in
	// falsifier order, "never-run" for one never run (NeedVerdicts).
	Verdicts []string

	// linkOnly marks a note kept only for the graph: it failed the
	// query's own filters, so Select dropped its properties.
	linkOnly bool
	// raw is the record's encoding when it was read in place
	// (DecodeTextBrief): its path and type alone decoded.
	raw string
}

// NeverRun is the verdict of a falsifier with no recorded run, as zk runs
// writes it.
const NeverRun = "never-run"

// Read is what a query keeps of n; r resolves its links (NeedLinks).
func Read(n *vault.Note, r *vault.Resolver, opts Options) Note {
	out := Note{Path: n.Path, Name: n.Name, ModTime: n.ModTime}
	typ := vault.TypeOf(opts.Types, n)
	if typ != nil {
		out.Type = typ.Name
	}
	if fm := n.Frontmatter; fm != nil && fm.Values != nil {
		out.Properties = fm.Values
	}
	out.Tags = tagsOf(n)
	if opts.Need&NeedLinks != 0 && r != nil {
		out.Links = vault.LinkedFiles(n, r)
	}
	if opts.Need&NeedTending != 0 {
		c := tending.CadenceOf(n, tending.StaleOptions{Types: opts.Types, Interval: opts.Interval, Keys: opts.TendedKeys})
		if c.Dated && c.Tended.Err == nil {
			out.Tended, out.Due = c.Tended.Date, c.Interval.After(c.Tended.Date)
		}
		out.cadence = encodeCadence(c)
	}
	if opts.Need&NeedVerdicts != 0 {
		st := evidence.LatestRuns(n, opts.Ledger[n.Path], opts.Rejudge)
		for _, l := range st.Falsifiers {
			v := NeverRun
			if l.Run.ID != "" {
				v = string(l.Verdict())
			}
			out.Verdicts = append(out.Verdicts, v)
		}
		// A refutation whose falsifier was deleted still refutes.
		for _, l := range st.Deleted {
			if l.Refuting.ID != "" {
				out.Verdicts = append(out.Verdicts, string(evidence.VerdictRefutes))
			}
		}
	}
	return out
}

// tagsOf is n's tags as Obsidian counts them (vault's AllTags), in
// lower case: tags ignore case.
func tagsOf(n *vault.Note) []string {
	out := n.AllTags()
	for i, t := range out {
		out[i] = strings.ToLower(t)
	}
	return out
}

// Result is what Select found.
type Result struct {
	// Notes are the notes selected, sorted and limited.
	Notes []Note
	// Matched is how many notes matched before the limit.
	Matched int
	// Read is how many notes were read.
	Read int
	// Unwritten is the name Query.LinksTo gave when it names a note not
	// written yet (Query.Linkers), else "".
	Unwritten string
}

// Select reads the notes of a walk of the vault (Files) as it goes,
// keeping of each note that fails q's own filters only its links (or
// nothing, when q follows no links), and returns the notes q selects.
// Notes that cannot be read are left out. A condition that orders a key's
// values by a literal of another kind is a *KindError.
func Select(ctx context.Context, v *vault.Vault, files []vault.File, q Query, opts Options) (Result, error) {
	if q.needsGraph() {
		opts.Need |= NeedLinks
	}
	if q.Stale || q.DueWithin.N > 0 {
		opts.Need |= NeedTending
	}
	if len(q.Verdicts) > 0 {
		opts.Need |= NeedVerdicts
	}
	for _, c := range q.Where {
		opts.Need |= FieldNeeds([]string{c.Key}) // --where file.due <= …
	}
	paths, notes := vault.SplitFiles(files)
	if opts.Skip != nil {
		notes = slices.DeleteFunc(notes, func(f vault.File) bool { return opts.Skip(f.Path) })
	}
	var r *vault.Resolver
	if opts.Need&NeedLinks != 0 {
		r = vault.NewResolver(paths)
	}
	today := tending.DateOf(q.Today)
	kept := make([]*Note, len(notes))
	var (
		mu   sync.Mutex
		read int
	)
	kinds := newKindTally(q.Where)
	v.Each(ctx, notes, func(i int, n *vault.Note) {
		rec := Read(n, r, opts)
		switch {
		case q.own(rec, today):
			kept[i] = &rec
		case q.needsGraph():
			kept[i] = &Note{Path: rec.Path, Links: rec.Links, linkOnly: true}
		}
		mu.Lock()
		read++
		kinds.add(rec)
		mu.Unlock()
	})
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if err := kinds.err(); err != nil {
		return Result{}, err
	}
	all := make([]Note, 0, len(kept))
	for _, n := range kept {
		if n != nil {
			all = append(all, *n)
		}
	}
	res := q.selectFrom(all, today, true, true)
	res.Read = read
	return res, nil
}
