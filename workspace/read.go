package workspace

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/zk-claims/zk/internal/printable"
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

// Inbound is the links into a note, or into a note not written yet.
type Inbound struct {
	// Note is the note's vault path, or for one not written yet the name
	// the links reach it by, as the argument gave it.
	Note string
	// Unwritten says no file has the name: Edges are the unresolved links
	// that would resolve to a note of that name (Unwritten.Reaches).
	Unwritten bool
	// Edges are by linking note and line.
	Edges []vault.Edge
}

// Backlinks are the links into the note arg names from every note of the
// vault (itself too): the edges of the vault's graph into it
// (vault.Graph.In), from the notes' details without building the graph,
// looked through in the model file a piece at a time when it can answer
// so (inbound). A name no file has but links reach is a note not written
// yet, as Obsidian's backlinks pane and graph show one: its links are
// the answer, Unwritten set; a name nothing reaches is the NotFoundError.
func (w *Workspace) Backlinks(ctx context.Context, arg string) (Inbound, error) {
	files, _, err := w.Vault.Files(ctx)
	if err != nil {
		return Inbound{}, err
	}
	p, err := FindNote(w.Vault, files, arg)
	if err == nil {
		in, err := w.edgesInto(ctx, files, p)
		return Inbound{Note: p, Edges: in}, err
	}
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		return Inbound{}, err
	}
	name, ok := UnwrittenName(arg)
	if !ok {
		return Inbound{}, err
	}
	in, uerr := w.unwrittenInto(ctx, files, name, false, nf)
	if uerr != nil {
		return Inbound{}, uerr
	}
	if len(in) == 0 {
		return Inbound{}, err
	}
	return Inbound{Note: name.Name, Unwritten: true, Edges: in}, nil
}

// edgesInto is the edges into the file at p ("": every unresolved
// edge), by linking note and line.
func (w *Workspace) edgesInto(ctx context.Context, files []vault.File, p string) ([]vault.Edge, error) {
	in, ok, err := w.inbound(ctx, files, p)
	if err != nil {
		return nil, err
	}
	if !ok {
		details, err := w.details(ctx, files)
		if err != nil {
			return nil, err
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
	return in, nil
}

// unwrittenInto is the unresolved edges that reach name, from the same
// details (and model cache) as any note's backlinks: an edit that adds
// or removes such a link is read as any edit is. noCache reads every
// note instead, the cache neither read nor written (zk list --no-cache).
// When none reaches it, nf (FindNote's answer) is given the names of
// notes not written yet nearest its argument too, where it has fewer
// than three of files: "Ridley Scot" finds [[Ridley Scott]].
func (w *Workspace) unwrittenInto(ctx context.Context, files []vault.File, name Unwritten, noCache bool, nf *NotFoundError) ([]vault.Edge, error) {
	var all []vault.Edge
	if noCache {
		g, _, err := vault.GraphVault(ctx, w.Vault, files)
		if err != nil {
			return nil, err
		}
		all = g.Edges
	} else {
		var err error
		if all, err = w.edgesInto(ctx, files, ""); err != nil {
			return nil, err
		}
	}
	var in []vault.Edge
	for _, e := range all {
		if name.Reaches(e) {
			in = append(in, e)
		}
	}
	if len(in) == 0 && len(nf.Near) < nearMax {
		// The names of notes (no other file's extension) as notes of
		// their own, each once (folded), spelt as most links spell it.
		count := map[string]int{}
		best := map[string]string{}
		var keys []string
		for _, e := range all {
			p := e.Path
			if ext := strings.ToLower(path.Ext(p)); e.Resolved() || (ext != "" && ext != ".md") {
				continue
			}
			if !strings.HasSuffix(strings.ToLower(p), ".md") {
				p += ".md"
			}
			if !vault.Local(p) {
				continue
			}
			k := vault.FoldName(p)
			if _, ok := best[k]; !ok {
				keys = append(keys, k)
			}
			if count[p]++; count[p] > count[best[k]] {
				best[k] = p
			}
		}
		names := make([]vault.File, len(keys))
		for i, k := range keys {
			names[i] = vault.File{Path: best[k]}
		}
		for _, n := range Near(names, name.Name, nearMax) {
			if len(nf.Near) < nearMax && !slices.Contains(nf.Near, n) {
				nf.Near = append(nf.Near, n)
			}
		}
	}
	return in, nil
}

// nearMax is how many names a NotFoundError suggests at most.
const nearMax = 3

// Notice is what a front end says of a note not written yet, "" of a
// note: the listing is of links to a name no file has.
func (in Inbound) Notice() string {
	if !in.Unwritten {
		return ""
	}
	return printable.Of(in.Note) + ": not written yet; the links listed reach it by name"
}

// Unwritten is a note not written yet, by the name links give it.
type Unwritten struct {
	// Name is the argument without [[ ]]; File the note it would be.
	Name, File string
	r          *vault.Resolver
}

// UnwrittenName is the note not written yet a note argument names:
// ok is false for one that cannot be a note's name (empty, a folder,
// out of the vault, a file that is not a note).
func UnwrittenName(arg string) (Unwritten, bool) {
	name := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(arg), "]]"), "|")
	name = strings.TrimSpace(strings.TrimPrefix(name, "[["))
	file := name
	if !strings.HasSuffix(strings.ToLower(file), ".md") {
		file += ".md"
	}
	clean := path.Clean(strings.ReplaceAll(file, `\`, "/"))
	if name == "" || strings.HasSuffix(name, "/") || !vault.Local(clean) || strings.ContainsAny(name, "#|^") {
		return Unwritten{}, false
	}
	return Unwritten{Name: name, File: clean, r: vault.NewResolver([]string{clean})}, true
}

// Reaches reports whether e, an unresolved edge, would resolve to the
// note were it written: by the link's text, case ignored, as Obsidian
// resolves it (a link to Ridley Scott.png is another file's).
func (u Unwritten) Reaches(e vault.Edge) bool {
	if e.Resolved() {
		return false
	}
	p, ok := u.r.Resolve(e.Path, e.From)
	return ok && p == u.File
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
