package workspace

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
)

// NoteText is a note's text, or one section of it.
type NoteText struct {
	Path string
	// Section is the heading's text when one section was asked for.
	Section string
	Text    string
	// Headings are the note's headings' texts, in order.
	Headings []string
}

// ReadNote reads the note arg names, or only its section whose heading
// is section (any level, case ignored; "" for the whole note). A section
// the note lacks is a UsageError listing its headings.
func (w *Workspace) ReadNote(ctx context.Context, arg, section string) (NoteText, error) {
	p, _, err := LocatePaths(ctx, w.Vault, arg)
	if err != nil {
		return NoteText{}, err
	}
	n, err := w.Vault.ReadNote(p)
	if err != nil {
		return NoteText{}, err
	}
	out := NoteText{Path: p, Text: string(n.Src), Headings: []string{}}
	for _, h := range n.Headings {
		out.Headings = append(out.Headings, h.Text)
	}
	if section != "" {
		sec, ok := n.Section(section, 0)
		if !ok {
			return out, usage(fmt.Errorf("%s has no section %q; its headings: %s", p, section, strings.Join(out.Headings, ", ")))
		}
		out.Section, out.Text = sec.Title, string(n.Src[sec.Start:sec.End])
	}
	return out, nil
}

// Links are the links, embeds and frontmatter links of the note arg
// names, each resolved as Obsidian resolves it, and the note's path.
func (w *Workspace) Links(ctx context.Context, arg string) (string, []vault.Edge, error) {
	p, files, err := LocatePaths(ctx, w.Vault, arg)
	if err != nil {
		return "", nil, err
	}
	n, err := w.Vault.ReadNote(p)
	if err != nil {
		return "", nil, err
	}
	// A resolver over the files its links can name, not an index of them
	// all: it resolves each link as one of every file does.
	var links []string
	for l := range n.GraphLinks() {
		links = append(links, l.Path)
	}
	return p, vault.NoteEdges(n, vault.ResolverFor(vault.Paths(files), p, links)), nil
}

// Backlinks are the links into the note arg names from every note of the
// vault (itself too), by linking note and line, and the note's path: the
// edges of the vault's graph into it (vault.Graph.In), from the notes'
// details without building the graph, looked through in the model file
// a piece at a time when it can answer so (inbound).
func (w *Workspace) Backlinks(ctx context.Context, arg string) (string, []vault.Edge, error) {
	files, _, err := w.Vault.Files(ctx)
	if err != nil {
		return "", nil, err
	}
	p, err := FindNote(w.Vault, files, arg)
	if err != nil {
		return "", nil, err
	}
	in, ok, err := w.inbound(ctx, files, p)
	if err != nil {
		return "", nil, err
	}
	if !ok {
		details, err := w.details(ctx, files)
		if err != nil {
			return "", nil, err
		}
		in = []vault.Edge{}
		for _, d := range details {
			in = d.AppendEdgesTo(in, p)
		}
	}
	sort.SliceStable(in, func(i, j int) bool {
		if in[i].From != in[j].From {
			return in[i].From < in[j].From
		}
		return in[i].Line < in[j].Line
	})
	return p, in, nil
}

// Graph is every note's links, resolved (vault.GraphVault).
type Graph struct {
	*vault.Graph
	// Files are the vault's files; Notes the notes read.
	Files []vault.File
	Notes []string
}

// NoteRuns is what a note's runs say: its records oldest first,
// what they say of each falsifier (and of falsifiers deleted since), and,
// for each falsifier whose criterion changed since its latest run, that
// run judged again under the criterion as written now.
type NoteRuns struct {
	Path     string
	Runs     []evidence.Run
	Standing evidence.Standing
	// Rejudged holds the judgements again, by falsifier number.
	Rejudged map[int]evidence.Rejudgement
}

// Runs reads the runs recorded in the Evidence section of the note arg
// names (NoteRuns).
func (w *Workspace) Runs(ctx context.Context, arg string) (NoteRuns, error) {
	p, _, err := LocatePaths(ctx, w.Vault, arg)
	if err != nil {
		return NoteRuns{}, err
	}
	src, err := w.Vault.ReadFile(p, w.Vault.MaxNoteSize)
	if err != nil {
		return NoteRuns{}, err
	}
	n := vault.NewParser().Parse(p, src)
	// One Rejudger for the note's falsifiers, the answers to their
	// refutations and their changed criteria alike: each may name a log
	// of its own (50 falsifiers of 24 MB logs read 1.2 GB, 32 s), and the
	// budget holds for one note as for the vault.
	rejudger := w.rejudger()
	ledger := w.ledger(nil)
	nr := NoteRuns{Path: p, Runs: evidence.ParseRuns(src), Standing: evidence.LatestRuns(n, ledger[p], rejudger)}
	evidence.PlaceForeign(&nr.Standing, ledger)
	// Oldest first, as the README and zk runs --help say: a note's
	// blocks are in the order they were written, which a hand edit or a
	// block pasted from elsewhere (zk attach of an older result) breaks.
	slices.SortStableFunc(nr.Runs, func(a, b evidence.Run) int { return a.Started.Compare(b.Started) })
	for _, l := range nr.Standing.Falsifiers {
		if l.CriterionChanged() {
			if nr.Rejudged == nil {
				nr.Rejudged = map[int]evidence.Rejudgement{}
			}
			nr.Rejudged[l.Falsifier.N] = rejudger.Changed(l)
		}
	}
	return nr, nil
}

// rejudger is a Rejudger for one command (zk check, zk runs with or
// without a note, zk run --rejudge, an editor's zk.rejudge): it judges
// runs again with the config's settings, reading their logs from the
// vault, at most evidence.RejudgeBudget of them: under a criterion
// changed since, and a refuting run under the criterion of a later run
// that supported the claim, to tell whether that run answers it
// (evidence.Answer).
func (w *Workspace) rejudger() *evidence.Rejudger {
	return evidence.NewRejudger(w.readLog, w.Config.Judging(""), evidence.RejudgeBudget)
}
