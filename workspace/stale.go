package workspace

import (
	"context"
	"fmt"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/query"
	"github.com/zk-claims/zk/vault/tending"
)

// StaleRequest is zk stale's: Within (the field "within") also lists the
// notes due within that interval ("14d", "2w"; "" for none).
type StaleRequest struct {
	Within string
}

// StaleResult is the notes past their maintenance date, and the vault's
// files, over which a front end resolves the shortest link to each
// (Resolver).
type StaleResult struct {
	tending.StaleReport
	Files []vault.File
}

// Resolver indexes the vault's files, for the shortest link to each note
// of the report: made when asked, since a listing without links does not
// need it.
func (r StaleResult) Resolver() *vault.Resolver { return vault.ResolverOf(r.Files) }

// ParseStale checks a stale request before a vault is opened.
func ParseStale(req StaleRequest, term func(string) string) (vault.Interval, error) {
	if req.Within == "" {
		return vault.Interval{}, nil
	}
	iv, err := vault.ParseInterval(req.Within)
	if err != nil {
		if term == nil {
			term = func(s string) string { return s }
		}
		return iv, usage(fmt.Errorf("stale: %s: %w", term("within"), err))
	}
	return iv, nil
}

// Stale lists the notes past their maintenance date, most overdue first,
// and those of a type with no date.
func (w *Workspace) Stale(ctx context.Context, req StaleRequest) (StaleResult, error) {
	within, err := ParseStale(req, w.term)
	if err != nil {
		return StaleResult{}, err
	}
	files, _, err := w.Vault.Files(ctx)
	if err != nil {
		return StaleResult{}, err
	}
	r, err := w.stale(ctx, files, within)
	if err != nil {
		return StaleResult{}, err
	}
	return StaleResult{StaleReport: r, Files: files}, nil
}

// stalePurpose names zk stale's section of the model file in its key.
const stalePurpose = "zk note tending v1"

// staleInputs: a note's cadence is read under the config's types, keys
// and interval, its type matched by the templates' (as a record's is);
// its links are indexes into the files, which the stamps hold.
const staleInputs = InBuild | InConfig | InTemplates

// stale is zk stale's report over the vault's files, answered from what
// it keeps of every note, templates too (query.Tending: its cadence and
// the files it links to), in a section of its own of the model file:
// only the notes changed since they were cached are read. It is the
// report tending.Stale makes by reading every note.
func (w *Workspace) stale(ctx context.Context, files []vault.File, within vault.Interval) (tending.StaleReport, error) {
	sopts := tending.StaleOptions{
		Today:    w.Today,
		Within:   within,
		Types:    w.Types,
		Interval: w.Config.Interval(),
		Keys:     w.Config.TendedKeys,
		Only:     w.SkipTemplates(nil),
	}
	qopts := w.tendingOptions()
	notes, err := cachedNotes(w, ctx, files, w.tendingNote(ctx, files))
	if err != nil {
		return tending.StaleReport{}, err
	}
	if r, ok := staleOf(notes, files, sopts); ok {
		return r, nil
	}
	// An entry damaged in the cache: every note read as it is.
	if notes, err = query.ReadTending(ctx, w.Vault, files, qopts, nil, nil); err != nil {
		return tending.StaleReport{}, err
	}
	r, _ := staleOf(notes, files, sopts)
	return r, nil
}

// tendingOptions are the options zk stale reads a note's cadence under.
func (w *Workspace) tendingOptions() query.Options {
	return query.Options{Types: w.Types, TendedKeys: w.Config.TendedKeys, Interval: w.Config.Interval()}
}

// tendingNote is how zk stale's entries are cached.
func (w *Workspace) tendingNote(ctx context.Context, files []vault.File) perNote[query.Tending] {
	qopts := w.tendingOptions()
	return perNote[query.Tending]{
		folder: "stale", purpose: stalePurpose, inputs: staleInputs,
		read: func(reuse func(string) (query.Tending, bool), hashed func(*vault.Note)) ([]query.Tending, error) {
			return query.ReadTending(ctx, w.Vault, files, qopts, reuse, hashed)
		},
		one: func(n *vault.Note, r func() *vault.Resolver) query.Tending {
			return query.ReadTendingOf(n, r(), files, qopts)
		},
		encode:     func(ts []query.Tending) ([]byte, error) { return query.EncodeTending(ts), nil },
		decode:     query.DecodeTending,
		decodeText: query.DecodeTendingText,
		path:       func(t query.Tending) string { return t.Path },
		keeps:      everyNote,
		names:      true, // the files it links to, by index: remapped
		remap:      query.Tending.Remap,
	}
}

// staleOf is the report from what zk stale keeps of every note (in walk
// order); false when an entry does not decode.
func staleOf(notes []query.Tending, files []vault.File, sopts tending.StaleOptions) (tending.StaleReport, bool) {
	// Backlinks counted by file index, and each note's index found as the
	// notes come, in walk order.
	backlinks := make([]int32, len(files))
	for _, n := range notes {
		if !n.EachLink(len(files), func(i int) { backlinks[i]++ }) {
			return tending.StaleReport{}, false
		}
	}
	index, damaged := indexOf(files), false
	cadences := func(yield func(tending.Cadence, int) bool) {
		for _, n := range notes {
			c, ok := n.Cadence()
			if !ok {
				damaged = true
				return
			}
			bl := 0
			if i := index(n.Path); i >= 0 {
				bl = int(backlinks[i])
			}
			if !yield(c, bl) {
				return
			}
		}
	}
	read := 0
	for _, n := range notes {
		if sopts.Listed(n.Path) {
			read++
		}
	}
	r := tending.StaleFrom(cadences, read, sopts)
	return r, !damaged
}
