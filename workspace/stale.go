package workspace

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/zk-claims/zk/vault"
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

// stale is zk stale's report over the vault's files, answered from the
// notes' records (listRecords: only the notes changed since they were
// cached are read) and the notes the records leave out, the templates,
// read as they are: the same report tending.Stale makes by reading every
// note.
func (w *Workspace) stale(ctx context.Context, files []vault.File, within vault.Interval) (tending.StaleReport, error) {
	sopts := tending.StaleOptions{
		Today:    w.Today,
		Within:   within,
		Types:    w.Types,
		Interval: w.Config.Interval(),
		Keys:     w.Config.TendedKeys,
	}
	ropts := w.recordOptions(0, true)
	notes, err := w.listRecords(ctx, files, ropts)
	if err != nil {
		return tending.StaleReport{}, err
	}
	var (
		mu       sync.Mutex
		cadences = make([]tending.Cadence, 0, len(notes))
		links    = make(map[string]int, len(notes)) // path -> distinct other notes linking to it
	)
	for _, n := range notes {
		cadences = append(cadences, n.Cadence())
		for _, t := range n.Links {
			links[t]++
		}
	}
	paths, all := vault.SplitFiles(files)
	templates := slices.DeleteFunc(all, func(f vault.File) bool { return !ropts.Skip(f.Path) })
	if len(templates) > 0 {
		res := vault.NewResolver(paths)
		w.Vault.Each(ctx, templates, func(_ int, n *vault.Note) {
			c, targets := tending.CadenceOf(n, sopts), vault.LinkedFiles(n, res)
			mu.Lock()
			defer mu.Unlock()
			cadences = append(cadences, c)
			for _, t := range targets {
				links[t]++
			}
		})
		if err := ctx.Err(); err != nil {
			return tending.StaleReport{}, err
		}
	}
	return tending.StaleFrom(cadences, len(cadences), func(p string) int { return links[p] }, sopts), nil
}
