package workspace

import (
	"context"
	"fmt"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/tending"
)

// StaleRequest is zk stale's: Within (the field "within") also lists the
// notes due within that interval ("14d", "2w"; "" for none).
type StaleRequest struct {
	Within string
}

// StaleResult is the notes past their maintenance date, and the vault's
// resolver, which a front end needs to write the shortest link to each.
type StaleResult struct {
	tending.StaleReport
	Resolver *vault.Resolver
}

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
	return StaleResult{StaleReport: r, Resolver: vault.ResolverOf(files)}, nil
}

// stale is tending.Stale under the workspace's config.
func (w *Workspace) stale(ctx context.Context, files []vault.File, within vault.Interval) (tending.StaleReport, error) {
	return tending.Stale(ctx, w.Vault, files, tending.StaleOptions{
		Today:    w.Today,
		Within:   within,
		Types:    w.Types,
		Interval: w.Config.Interval(),
		Keys:     w.Config.TendedKeys,
	})
}
