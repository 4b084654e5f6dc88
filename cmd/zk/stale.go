package main

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/tending"
	"github.com/zk-claims/zk/view"
	"github.com/zk-claims/zk/workspace"
)

type staleOptions struct {
	root   *rootOptions
	within string
	format string
}

func newStaleCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &staleOptions{root: root}
	cmd := &cobra.Command{
		Use:   "stale",
		Short: "List notes past their maintenance date",
		Long: `List the notes past their maintenance date, most overdue first; notes
equally overdue are ordered by backlinks, the most linked first.

A note is due one interval after its Last tended date: "- Last tended:
YYYY-MM-DD" in its Maintenance section, else a frontmatter property
(last-tended, last_tended, lastTended, lastTendedAt, last-reviewed), else a
Dataview field "last-tended:: DATE", else a digital-garden footer. The
interval is the frontmatter property tend-every (30d, 6w, 3m, 1y), else
the tend-every of the note's type in .zk/config.toml, else the config's
tend-every, else 90 days. "Today" is the clock, --today or $ZK_TODAY.

Notes of a type (by default: under a folder named "Permanent Notes", or
with frontmatter type: permanent) with no date, or a date that is not real,
are listed separately: in a table of their own after a blank line (UNDATED,
WHY) for --format text, under "undated" in json, in a section of their own
in markdown.

--format text prints an aligned table (days overdue, last tended,
backlinks, note); json prints {"today","notes":[...],"undated":[...],
"problems":[...]}; markdown prints a list of [[wikilinks]] to paste into a
dashboard note.

EXIT STATUS
  0  listed (even when some notes are stale)
  2  a usage or runtime error`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStale(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.within, "within", "", "also list notes due within this `interval` (14d, 2w, 1m)")
	addFormatFlag(cmd, &opts.format, "output `format`", "text", "json", "markdown")
	return cmd
}

func runStale(ctx context.Context, opts *staleOptions, s *streams) error {
	tuneGC(streamHeapLimit)
	req := workspace.StaleRequest{Within: opts.within}
	if _, err := workspace.ParseStale(req, flagTerm); err != nil {
		return err // before the vault is opened
	}
	w, err := opts.root.open(ctx, s, workspace.Reading, "")
	if err != nil {
		return err
	}
	defer w.Close()
	r, err := w.Stale(ctx, req)
	if err != nil {
		return err
	}
	switch opts.format {
	case "json":
		return writeJSON(s.out, view.NewStale(w.Today, r.StaleReport))
	case "markdown":
		return writeStaleMarkdown(s, w.Today, r.StaleReport, r.Resolver())
	}
	return writeStaleText(s, r.StaleReport, opts.within, opts.root.outWidth(s))
}

// writeStaleText prints the table on stdout, then the table of notes of a
// type with no date zk can read; on stderr, what zk could not read of how
// a note states its cadence.
func writeStaleText(s *streams, r tending.StaleReport, within string, width int) error {
	if len(r.Notes) > 0 {
		t := table{header: []string{"DUE", "LAST TENDED", "BACKLINKS", "NOTE"}, right: map[int]bool{2: true}, keepLast: true,
			rows: make([][]string, 0, len(r.Notes))}
		cells := make([]string, 4*len(r.Notes)) // every row's in one array
		// The notes are ordered by how overdue they are: a row's due and
		// tended dates are mostly the row before's, not two strings made
		// again for each of 7,000 rows.
		var (
			lastOverdue       int
			lastTended        time.Time
			overdue, tendedOn string
		)
		for i, d := range r.Notes {
			if i == 0 || d.DaysOverdue != lastOverdue {
				lastOverdue, overdue = d.DaysOverdue, dueIn(d.DaysOverdue)
			}
			if i == 0 || !d.Tended.Date.Equal(lastTended) || d.Tended.Date.Location() != lastTended.Location() {
				lastTended, tendedOn = d.Tended.Date, d.Tended.Date.Format(time.DateOnly)
			}
			row := cells[4*i : 4*i+4 : 4*i+4]
			row[0], row[1], row[2], row[3] = overdue, tendedOn, strconv.Itoa(d.Backlinks), printable.Of(d.Path)
			t.add(row...)
		}
		if err := t.write(s.out, width); err != nil {
			return err
		}
	} else {
		soon := ""
		if within != "" {
			soon = " or due within " + within
		}
		fmt.Fprintf(s.err, "no notes past their date%s (%s read)\n", soon, quantity(r.Read, "note"))
	}
	if len(r.Undated) > 0 {
		// The undated notes are data, as in json and markdown: a table of
		// their own on stdout, after a blank line, not "zk:" lines on
		// stderr that read as errors of a command that succeeded.
		if len(r.Notes) > 0 {
			if _, err := fmt.Fprintln(s.out); err != nil {
				return err
			}
		}
		t := table{header: []string{"UNDATED", "WHY"}, rows: make([][]string, 0, len(r.Undated))}
		for _, u := range r.Undated {
			if u.Problem != "" {
				t.add(printable.Of(u.Path)+":"+strconv.Itoa(u.Line+1), "bad Last tended date: "+printable.Of(u.Problem))
			} else {
				t.add(printable.Of(u.Path), "no Last tended date"+unreadKeyHint(u.UnreadKey, " (", ")"))
			}
		}
		if err := t.write(s.out, width); err != nil {
			return err
		}
	}
	for _, p := range r.Problems {
		fmt.Fprintf(s.err, "zk: %s:%d: %s\n", printable.Of(p.Path), p.Line+1, printable.Of(p.Message))
	}
	return nil
}

func writeStaleMarkdown(s *streams, today time.Time, r tending.StaleReport, res *vault.Resolver) error {
	var b strings.Builder
	for _, d := range r.Notes {
		when := fmt.Sprintf("%s overdue", quantity(d.DaysOverdue, "day"))
		switch {
		case d.DaysOverdue == 0:
			when = "due today"
		case d.DaysOverdue < 0:
			when = "due in " + quantity(-d.DaysOverdue, "day")
		}
		fmt.Fprintf(&b, "- %s — %s (last tended %s)\n", printable.Of(wikilink(d.Path, res)), when, d.Tended.Date.Format(time.DateOnly))
	}
	if len(r.Undated) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("No Last tended date:\n\n")
		for _, u := range r.Undated {
			fmt.Fprintf(&b, "- %s", printable.Of(wikilink(u.Path, res)))
			if u.Problem != "" {
				fmt.Fprintf(&b, " — %s", printable.Of(u.Problem))
			}
			b.WriteString(unreadKeyHint(u.UnreadKey, " — ", ""))
			b.WriteString("\n")
		}
	}
	_, err := fmt.Fprint(s.out, b.String())
	return err
}

// unreadKeyHint says, between before and after, that the frontmatter
// property k looks like a Last tended date the config does not read, as
// zk check's maintenance/missing-date does; "" for no k.
func unreadKeyHint(k, before, after string) string {
	if k == "" {
		return ""
	}
	return before + fmt.Sprintf("frontmatter %q is not one of the config's tended-keys; add it there to read it", printable.Of(k)) + after
}

// wikilink is the shortest [[link]] that Obsidian resolves to p: the
// note's name when that is unique in the vault, else its path.
func wikilink(p string, res *vault.Resolver) string {
	name := strings.TrimSuffix(path.Base(p), path.Ext(p))
	if len(res.Candidates(name)) > 1 {
		return "[[" + strings.TrimSuffix(p, path.Ext(p)) + "|" + name + "]]"
	}
	return "[[" + name + "]]"
}

// dueIn says when a note is due, from its days overdue: "12d overdue",
// "today", or "in 30d" for one --within lists before its date (never a
// negative number of days overdue).
func dueIn(daysOverdue int) string {
	switch {
	case daysOverdue > 0:
		return strconv.Itoa(daysOverdue) + "d overdue"
	case daysOverdue == 0:
		return "today"
	}
	return "in " + strconv.Itoa(-daysOverdue) + "d"
}
