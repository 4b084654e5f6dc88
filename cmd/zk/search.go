package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/index"
	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/view"
	"github.com/zk-claims/zk/workspace"
)

type searchOptions struct {
	root     *rootOptions
	query    string
	limit    int
	format   string
	wait     time.Duration
	noUpdate bool
}

func newSearchCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &searchOptions{root: root}
	cmd := &cobra.Command{
		Use:   "search <query>...",
		Short: "Search the vault",
		Long: `Search the vault's notes, best match first, with the section and a
fragment of each. The words of the query are joined by spaces, in bleve's
query-string syntax:

  word  "a phrase"  +must  -mustnot  prefix*  fuzzy~1  /regexp/  word^2
  claim:word  scope:word  evidence:word  body:word  title:word
  tag:project (or tag:#project; a nested tag also matches its parents)
  links:"Note name"   notes that link to Note name (or to a vault path)
  path:"Folder/Note.md"   tended:<"2026-06-01"   tended:>="2026-01-01"

A word is optional unless +must; there are no parentheses, AND or OR (a
query using them is refused, as is a word of punctuation alone).

Put -- before a query that starts with -: zk search -- -draft claim:rate

A word without a field searches the title, claim, scope, evidence and the
rest of the text. Words are matched case-insensitively with accents folded
and English plurals folded (falsifier finds falsifiers), and so are
prefixes and wildcards (Obsidian* finds obsidian); common words are kept,
so phrases are exact.

The index is brought up to date first when few notes changed (built, the
first time); otherwise zk says how many notes it may be missing. zk index
updates it in full. A search compares the vault's folders with the index
(a note added, removed or renamed moves its folder's time) and, up to
5,000 notes, every note too; in a larger vault an edit written into an
existing note is not seen until zk index, and zk says so.

--format json prints {"query","total","hits":[{"path","title","section",
"score","fragment"}],"stale","checked","unchecked"}; a fragment marks each
match <mark>like this</mark>; stale counts notes changed since the index
was updated that this search did not index, and is null when the search
did not compare every note: unchecked says why.

With no hits, stdout stays empty and stderr says so.

EXIT STATUS
  0  searched (with or without hits)
  2  a bad query, the index is busy, or an error`,
		Args: nArgs(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.query = strings.Join(args, " ")
			return runSearch(cmd.Context(), opts, s)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&opts.limit, "limit", "n", 10, "show at most `N` notes")
	addFormatFlag(cmd, &opts.format, "output `format`", "text", "json")
	f.DurationVar(&opts.wait, "wait", index.DefaultWait, "how long to wait for another zk holding the index")
	f.BoolVar(&opts.noUpdate, "no-update", false, "answer from the index as it is, without checking the vault for changes")
	return cmd
}

func runSearch(ctx context.Context, opts *searchOptions, s *streams) error {
	tuneGC(streamHeapLimit)
	if opts.limit < 1 {
		return usageError{fmt.Errorf("search: --limit must be at least 1")}
	}
	w, err := opts.root.open(ctx, s, workspace.Writing, "")
	if err != nil {
		return err
	}
	defer w.Close()
	bar := newProgress(s)
	res, err := w.Search(ctx, workspace.SearchRequest{Query: opts.query, Limit: opts.limit, NoUpdate: opts.noUpdate,
		Index: workspace.IndexOptions{Dir: opts.root.getenv("ZK_INDEX_DIR"), Wait: opts.wait, Progress: bar.update}})
	bar.done()
	if err != nil {
		return err
	}
	if st := res.Updated; st != nil && st.Built {
		if st.Rebuilt != "" {
			fmt.Fprintf(s.err, "zk: rebuilt the index: %s\n", st.Rebuilt)
		} else {
			fmt.Fprintf(s.err, "zk: built the index first: %s\n", notesCount(st.Notes))
		}
	}
	if !res.Checked {
		fmt.Fprintf(s.err, "zk: the index may be stale: %s; zk index brings it up to date\n", res.Unchecked)
	}
	if res.Stale > 0 {
		fmt.Fprintf(s.err, "zk: the index may be stale: %d notes changed since it was updated; run zk index\n", res.Stale)
	}
	if res.Total == 0 {
		// Said on stderr, so that a script reading stdout sees no hits.
		fmt.Fprintf(s.err, "zk: no notes match %q (%s searched)\n", res.Query, notesCount(res.Notes))
	}
	if opts.format == "json" {
		return writeSearchJSON(s.out, res)
	}
	writeSearchText(s, res, opts.root.color(s.outTTY), opts.root.outWidth(s))
	return nil
}

func writeSearchJSON(w io.Writer, res *index.Result) error {
	return writeJSON(w, view.NewSearch(res))
}

// writeSearchText prints each hit as its path and section, then the
// fragment indented. Matches are shown in reverse video on a colour
// terminal, else between == as Obsidian writes a highlight.
func writeSearchText(s *streams, res *index.Result, color bool, width int) {
	// The marks are placeholders while the snippet is wrapped: a colour's
	// escape takes no column, == two.
	const openMark, closeMark = "\x00", "\x01"
	open, close := "==", "=="
	if color {
		open, close = ansiReverse, ansiReset
	}
	bold := func(s string) string {
		if color {
			return ansiBold + s + ansiReset
		}
		return s
	}
	for _, h := range res.Hits {
		where := printable.Of(h.Path)
		section := ""
		if h.Section != "" {
			section = " › " + printable.Of(h.Section)
		}
		if width > 0 && section != "" && cellWidth(where+section) > width {
			// The path alone on its line (it is data, never cut), the
			// section under it.
			fmt.Fprintln(s.out, bold(where))
			fmt.Fprintln(s.out, bold("  "+strings.TrimPrefix(section, " ")))
		} else {
			fmt.Fprintln(s.out, bold(where+section))
		}
		if h.Fragment.Text == "" {
			continue
		}
		text := h.Fragment.Marked(openMark, closeMark, printable.Of)
		if !color {
			text = strings.NewReplacer(openMark, open, closeMark, close).Replace(text)
		}
		lines := []string{text}
		if width > 0 {
			lines = wrapText(text, max(width-4, minWrap))
		}
		for _, l := range lines {
			fmt.Fprintf(s.out, "    %s\n", strings.NewReplacer(openMark, open, closeMark, close).Replace(l))
		}
	}
	if shown := uint64(len(res.Hits)); shown < res.Total {
		fmt.Fprintf(s.err, "zk: %d of %d matching notes shown (--limit)\n", shown, res.Total)
	}
}
