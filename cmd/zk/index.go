package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/index"
	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/workspace"
)

type indexOptions struct {
	root    *rootOptions
	rebuild bool
	format  string
	wait    time.Duration
}

func newIndexCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &indexOptions{root: root}
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Bring the search index up to date",
		Long: `Bring the vault's search index up to date. Only notes whose size,
times, inode or content changed are read again; added, renamed and
deleted notes are picked up. The index is a disposable cache of the
notes: one that is missing, from another zk version, from another vault
or damaged is rebuilt from them (a damaged one is kept aside as
gen-N.broken).

The index lives outside the vault, under the user cache folder, one folder
per vault; $ZK_INDEX_DIR names another folder. A second zk waits up to
--wait for the index, then says it is busy.

Progress shows on a terminal; a one-line summary goes to stderr.
--format json prints the summary to stdout instead.

EXIT STATUS
  0  the index is up to date
  2  the index is busy, or an error`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runIndex(cmd.Context(), opts, s)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.rebuild, "rebuild", false, "build the index from scratch")
	addFormatFlag(cmd, &opts.format, "summary `format` (text on stderr, json on stdout)", "text", "json")
	f.DurationVar(&opts.wait, "wait", index.DefaultWait, "how long to wait for another zk holding the index")
	return cmd
}

func runIndex(ctx context.Context, opts *indexOptions, s *streams) error {
	tuneGC(streamHeapLimit)
	w, err := opts.root.open(ctx, s, workspace.Writing, "")
	if err != nil {
		return err
	}
	defer w.Close()
	bar := newProgress(s)
	start := time.Now()
	st, err := w.Index(ctx, opts.rebuild, workspace.IndexOptions{Dir: opts.root.getenv("ZK_INDEX_DIR"), Wait: opts.wait, Progress: bar.update})
	bar.done()
	if err != nil {
		return err
	}
	took := time.Since(start)
	if opts.format == "json" {
		return writeIndexJSON(s, st, took)
	}
	reportIndex(s, st, took)
	return nil
}

// reportIndex writes an update's messages to stderr: why it rebuilt, the
// notes it skipped, and the summary line.
func reportIndex(s *streams, st index.Stats, took time.Duration) {
	if st.Built && st.Rebuilt != "" {
		fmt.Fprintf(s.err, "zk: rebuilt the index: %s\n", st.Rebuilt)
	}
	for _, sk := range st.Skipped {
		fmt.Fprintf(s.err, "zk: skipped %s: %s\n", sk.Path, sk.Reason)
	}
	for _, c := range st.Cut {
		what := "1 word over %d bytes is indexed by its first %d bytes"
		if c.Words > 1 {
			what = fmt.Sprint(c.Words) + " words over %d bytes are indexed by their first %d bytes"
		}
		fmt.Fprintf(s.err, "zk: %s: "+what+"\n", printable.Of(c.Path), index.MaxWordBytes, index.MaxWordBytes)
	}
	for _, p := range st.Long {
		fmt.Fprintf(s.err, "zk: %s: a part of it is over %d words: past them a word is indexed once (no phrase found there), past %d words none is\n",
			printable.Of(p), index.MaxFieldWords, index.MaxFieldTerms)
	}
	fmt.Fprintf(s.err, "indexed %s (+%d ~%d -%d) in %s\n",
		notesCount(st.Notes), st.Added, st.Changed, st.Deleted, took.Round(time.Millisecond))
}

// notesCount says "1 note" or "N notes".
func notesCount(n int) string {
	if n == 1 {
		return "1 note"
	}
	return fmt.Sprintf("%d notes", n)
}

type indexJSON struct {
	Dir      string        `json:"dir"`
	Notes    int           `json:"notes"`
	Added    int           `json:"added"`
	Changed  int           `json:"changed"`
	Deleted  int           `json:"deleted"`
	Skipped  []skippedJSON `json:"skipped"`
	Cut      []cutJSON     `json:"cut"`
	Long     []string      `json:"long"`
	Built    bool          `json:"built"`
	Rebuilt  string        `json:"rebuilt,omitempty"`
	Duration float64       `json:"duration_s"`
}

// cutJSON is a note holding words longer than the index keeps whole.
type cutJSON struct {
	Path  string `json:"path"`
	Words int    `json:"words"`
}

type skippedJSON struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

func writeIndexJSON(s *streams, st index.Stats, took time.Duration) error {
	out := indexJSON{Dir: st.Dir, Notes: st.Notes, Added: st.Added, Changed: st.Changed, Deleted: st.Deleted,
		Skipped: []skippedJSON{}, Cut: []cutJSON{}, Long: []string{}, Built: st.Built, Rebuilt: st.Rebuilt, Duration: took.Seconds()}
	for _, sk := range st.Skipped {
		out.Skipped = append(out.Skipped, skippedJSON{Path: sk.Path, Reason: sk.Reason})
	}
	for _, c := range st.Cut {
		out.Cut = append(out.Cut, cutJSON{Path: c.Path, Words: c.Words})
	}
	out.Long = append(out.Long, st.Long...)
	return writeJSON(s.out, out)
}

// progress is a progress bar on stderr, shown only on a terminal and only
// once there is enough work to watch.
type progress struct {
	tty bool
	w   io.Writer
	bar *progressbar.ProgressBar
	// now is the clock (a test sets it); start is the first update.
	now   func() time.Time
	start time.Time
	// throttle is the least time between frames.
	throttle time.Duration
}

// rateAfter is how long the bar runs before it shows a rate: the bar's
// own figure divides the first notes by a few microseconds (its first
// frame said 417885 notes/s).
const rateAfter = time.Second

func newProgress(s *streams) *progress {
	return &progress{tty: s.errTTY, w: s.err, now: time.Now, throttle: 100 * time.Millisecond}
}

func (p *progress) update(done, total int) {
	if !p.tty || total < 100 {
		return
	}
	if p.bar == nil {
		p.start = p.now()
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription("indexing"),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(p.throttle),
			progressbar.OptionClearOnFinish(),
		)
	}
	if took := p.now().Sub(p.start); took >= rateAfter {
		p.bar.Describe(fmt.Sprintf("indexing, %.0f notes/s", float64(done)/took.Seconds()))
	}
	p.bar.Set(done)
}

func (p *progress) done() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
