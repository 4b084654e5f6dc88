package main

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"strconv"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/view"
	"github.com/zk-claims/zk/workspace"
)

// changeSentence says the change of falsifier n of note as zk runs
// prints it: both criteria, both verdicts.
func changeSentence(c *view.Changed, note string, n int) string {
	was := "no criterion"
	if c.WasCriterion != "" {
		was = "`" + c.WasCriterion + "`"
	}
	out := fmt.Sprintf("criterion changed%s: run %s, judged by %s, %s", lint.ChangesPhrase(c.Changes), c.Run, was, lint.VerdictPhrase(evidence.Verdict(c.Was)))
	if c.Error != "" {
		return out + fmt.Sprintf("; by `%s` it cannot be judged again: %s; run it again", c.Criterion, c.Error)
	}
	return out + fmt.Sprintf("; judged again by `%s` it %s (%s); zk run --rejudge %s --falsifier %d records that",
		c.Criterion, lint.VerdictPhrase(evidence.Verdict(c.Verdict)), c.Statement, shellArg(note), n)
}

// runVerdicts lists the latest verdict of every falsifier in the vault.
func runVerdicts(ctx context.Context, opts *runsOptions, s *streams) error {
	w, err := opts.root.open(ctx, s, workspace.Reading, "")
	if err != nil {
		return err
	}
	defer w.Close()
	if opts.format == "json" {
		verdicts, err := w.Verdicts(ctx)
		if err != nil {
			return err
		}
		return writeJSON(s.out, view.NewVerdicts(verdicts))
	}
	// Each note's verdicts as they come, not every one gathered first;
	// each row's view made as it is added; every row's cells in one array.
	notes, total, err := w.VerdictNotes(ctx)
	if err != nil {
		return err
	}
	if total == 0 {
		fmt.Fprintln(s.err, "no falsifiers in the vault")
		return nil
	}
	t := table{header: []string{"NOTE", "N", "VERDICT", "STARTED", "CRITERION"}, right: map[int]bool{1: true},
		rows: make([][]string, 0, total)}
	cells := make([]string, 0, 5*total)
	add := func(note, n, verdict, started, stated string) {
		cells = append(cells, note, n, verdict, started, stated)
		t.add(cells[len(cells)-5 : len(cells) : len(cells)]...)
	}
	for v := range eachOf(notes) {
		vv := view.NewVerdict(v)
		started, stated := vv.Started, vv.Statement
		if started == "" {
			started = "-"
		}
		if stated == "" && vv.Criterion != "" {
			stated = "refuted if " + vv.Criterion
		}
		n := strconv.Itoa(vv.Falsifier)
		if vv.Deleted {
			n, stated = "-", stated+" (falsifier deleted: "+cmp.Or(vv.ID, strconv.Quote(vv.Text))+")"
		}
		verdict := vv.Verdict
		if vv.Flaky != nil {
			verdict += " (flaky)" // falsifiers/flaky: zk runs NOTE says how
		}
		add(printable.Of(vv.Note), n, printable.Of(verdict), started, printable.Of(stated))
		if c := vv.CriterionChanged; c != nil {
			now, stated := "now "+c.Verdict, c.Statement+lint.ChangesPhrase(c.Changes)+" (zk run --rejudge records it)"
			if c.Error != "" {
				now, stated = "now ?", "refuted if `"+c.Criterion+"`"+lint.ChangesPhrase(c.Changes)+": cannot be judged again: "+c.Error+"; run it again"
			}
			add(printable.Of(vv.Note), n, printable.Of(now), "criterion-changed", printable.Of(stated))
		}
	}
	return t.write(s.out, opts.root.outWidth(s))
}

// eachOf is every item of the slices seq yields, one after the other.
func eachOf[T any](seq iter.Seq[[]T]) iter.Seq[T] {
	return func(yield func(T) bool) {
		for s := range seq {
			for _, x := range s {
				if !yield(x) {
					return
				}
			}
		}
	}
}
