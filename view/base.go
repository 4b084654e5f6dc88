package view

import "github.com/zk-claims/zk/vault/base"

// Base is zk base --format json, and the MCP base tool's result.
type Base struct {
	// Where names the base: its .base file, or the note embedding it.
	Where      string          `json:"base"`
	View       string          `json:"view"`
	Type       string          `json:"type"`
	Columns    []base.Column   `json:"columns"`
	GroupBy    *base.Column    `json:"groupBy"`
	Total      int             `json:"total"`
	Groups     []BaseGroup     `json:"groups"`
	Summaries  []BaseSummary   `json:"summaries,omitempty"`
	Excluded   []BaseExcluded  `json:"excluded,omitempty"`
	CellErrors []BaseCellError `json:"cellErrors,omitempty"`
	Warnings   []string        `json:"warnings"`
}

// BaseGroup is one group of a view's rows (one, unnamed, when the view
// has no groupBy), its summaries.
type BaseGroup struct {
	Key       any           `json:"key"`
	Rows      []BaseRow     `json:"rows"`
	Summaries []BaseSummary `json:"summaries,omitempty"`
}

// BaseRow is a file of the view and its values, by column id.
type BaseRow struct {
	Path   string         `json:"path"`
	Values map[string]any `json:"values"`
}

// BaseSummary is a column's summary.
type BaseSummary struct {
	Property string `json:"property"`
	Summary  string `json:"summary"`
	Value    any    `json:"value"`
}

// BaseExcluded is a filter that failed on files, which Obsidian leaves
// out as zk does.
type BaseExcluded struct {
	Filter string `json:"filter"`
	Files  int    `json:"files"`
	Error  string `json:"error"`
}

// BaseCellError is a column whose value failed on rows.
type BaseCellError struct {
	Property string `json:"property"`
	Rows     int    `json:"rows"`
	Error    string `json:"error"`
}

func newSummaries(sums []base.Summary) []BaseSummary {
	var out []BaseSummary
	for _, sm := range sums {
		out = append(out, BaseSummary{sm.Property, sm.Name, base.JSON(sm.Value)})
	}
	return out
}

// NewBase is the view of a base's evaluated view; where names the base.
func NewBase(where string, res *base.Result) Base {
	groups := []BaseGroup{}
	for _, g := range res.Grouped() {
		out := BaseGroup{Key: base.JSON(g.Key), Rows: []BaseRow{}, Summaries: newSummaries(g.Summaries)}
		for _, r := range g.Rows {
			vals := map[string]any{}
			for i, c := range res.Columns {
				vals[c.ID] = base.JSON(r.Values[i])
			}
			out.Rows = append(out.Rows, BaseRow{Path: r.File.Path, Values: vals})
		}
		groups = append(groups, out)
	}
	warnings := res.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	var excluded []BaseExcluded
	for _, f := range res.Excluded {
		excluded = append(excluded, BaseExcluded{f.What, f.Files, f.Err})
	}
	var cellErrs []BaseCellError
	for _, f := range res.CellErrors {
		cellErrs = append(cellErrs, BaseCellError{f.What, f.Files, f.Err})
	}
	return Base{where, res.View, res.Type, res.Columns, res.GroupBy, res.Total, groups, newSummaries(res.Summaries), excluded, cellErrs, warnings}
}
