package workspace

import (
	"context"
	"fmt"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/tending"
)

// TendRequest is zk tend's: the note, and the date (field "date",
// YYYY-MM-DD; "" for today).
type TendRequest struct {
	Note string
	Date string
}

// Tended is what a tend did.
type Tended struct {
	Path string
	Date string
	// Was is the date the note held (Had: it held one).
	Was string
	Had bool
	// Unchanged: the note already held Date.
	Unchanged bool
}

// CheckTend checks a tend request before a vault is opened.
func CheckTend(req TendRequest, term func(string) string) error {
	if req.Date == "" {
		return nil
	}
	if _, err := ParseDay(req.Date); err != nil {
		if term == nil {
			term = func(s string) string { return s }
		}
		return usage(fmt.Errorf("tend: %s: %w", term("date"), err))
	}
	return nil
}

// ParseDay reads a YYYY-MM-DD date as --today, --date and the MCP tools
// take it, telling a date the calendar lacks (2026-02-30) from text of
// another form.
func ParseDay(s string) (time.Time, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err == nil {
		return t, nil
	}
	var y, m, d int
	if n, _ := fmt.Sscanf(s, "%4d-%2d-%2d", &y, &m, &d); n == 3 && len(s) == len(time.DateOnly) {
		if m < 1 || m > 12 {
			return time.Time{}, fmt.Errorf("%s is an impossible date (there is no month %d)", s, m)
		}
		month := time.Date(y, time.Month(m), 1, 0, 0, 0, 0, time.UTC)
		days := month.AddDate(0, 1, -1).Day()
		return time.Time{}, fmt.Errorf("%s is an impossible date (%s has %d days)", s, month.Format("January 2006"), days)
	}
	return time.Time{}, fmt.Errorf("%q is not a date of the form YYYY-MM-DD", s)
}

// Tend sets the Last tended date of the note req names, changing only
// that date, through the vault's safe write path.
func (w *Workspace) Tend(ctx context.Context, req TendRequest) (Tended, error) {
	if err := CheckTend(req, w.term); err != nil {
		return Tended{}, err
	}
	v, cfg := w.Vault, w.Config
	date := req.Date
	if date == "" {
		date = w.Today.Format(time.DateOnly)
	}
	p, _, err := LocatePaths(ctx, v, req.Note)
	if err != nil {
		return Tended{}, err
	}
	n, err := v.ReadNote(p)
	if err != nil {
		return Tended{}, err
	}
	// The section of the type's template, decided once from the note as
	// read: an edit made meanwhile that changes the note's type is rare,
	// and SetLastTended reads the date back in that section either way.
	section := vault.TendedSection(w.Types, n)
	out := Tended{Path: p, Date: date}
	if t, ok := tending.LastTended(n, section, cfg.TendedKeys); ok {
		out.Was, out.Had = t.Raw, true
	}
	res, err := v.EditNote(p, func(src []byte) ([]byte, error) {
		return tending.SetLastTended(p, src, date, section, cfg.TendedKeys)
	}, vault.WriteOptions{Base: n.Src})
	if err != nil {
		return Tended{}, refused(err)
	}
	out.Path, out.Unchanged = res.Path, res.Unchanged
	return out, nil
}
