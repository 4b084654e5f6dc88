package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/workspace"
)

// verdictView is one falsifier in zk runs --format json without a note.
type verdictView struct {
	Note      string `json:"note"`
	Falsifier int    `json:"falsifier"`
	Text      string `json:"text"`
	Criterion string `json:"criterion,omitempty"`
	Run       string `json:"run,omitempty"`
	Started   string `json:"started,omitempty"`
	// Verdict is the latest run's, or "never-run".
	Verdict   string `json:"verdict"`
	Statement string `json:"statement,omitempty"`
}

// runVerdicts lists the latest verdict of every falsifier in the vault.
func runVerdicts(ctx context.Context, opts *runsOptions, s *streams) error {
	w, err := opts.root.open(s, workspace.Reading, "")
	if err != nil {
		return err
	}
	defer w.Close()
	v := w.Vault
	files, _, err := v.Files(ctx)
	if err != nil {
		return err
	}
	_, notes := vault.SplitFiles(files)
	var (
		mu    sync.Mutex
		views []verdictView
	)
	v.Each(ctx, notes, func(_ int, n *vault.Note) {
		var mine []verdictView
		for _, l := range evidence.LatestRuns(n) {
			f, r := l.Falsifier, l.Run
			vv := verdictView{Note: n.Path, Falsifier: f.N, Text: f.Text, Criterion: f.Criterion, Verdict: "never-run"}
			if r.ID != "" {
				vv.Run, vv.Started, vv.Verdict, vv.Statement = r.ID, r.Started.UTC().Format(time.RFC3339), string(r.Verdict), r.Criterion
			}
			mine = append(mine, vv)
		}
		mu.Lock()
		views = append(views, mine...)
		mu.Unlock()
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	slices.SortFunc(views, func(a, b verdictView) int {
		if c := strings.Compare(a.Note, b.Note); c != 0 {
			return c
		}
		return a.Falsifier - b.Falsifier
	})
	if opts.format == "json" {
		if views == nil {
			views = []verdictView{}
		}
		return writeJSON(s.out, struct {
			Falsifiers []verdictView `json:"falsifiers"`
		}{views})
	}
	if len(views) == 0 {
		fmt.Fprintln(s.err, "no falsifiers in the vault")
		return nil
	}
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	if s.outTTY {
		fmt.Fprintln(tw, "NOTE\tN\tVERDICT\tSTARTED\tCRITERION")
	}
	for _, vv := range views {
		started, stated := vv.Started, vv.Statement
		if started == "" {
			started = "-"
		}
		if stated == "" && vv.Criterion != "" {
			stated = "refuted if " + vv.Criterion
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", printable.Of(vv.Note), vv.Falsifier, printable.Of(vv.Verdict), started, printable.Of(stated))
	}
	return tw.Flush()
}
