package workspace

import (
	"bytes"
	"cmp"
	"context"
	"iter"
	"slices"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/property"
	"github.com/zk-claims/zk/vault/query"
)

// The reading commands answer from one model of the vault, cached note by
// note (cachedNotes) and read again only for a note whose stamp changed:
// each note's record (query.Note: name, type, properties, tags, links,
// tending, verdicts), which zk list reads, and its details (query.Detail:
// links resolved with their relations, falsifiers), which zk graph and
// backlinks read; its falsifiers alone (query.Runs), which zk runs reads;
// its properties' types (property.NoteTypes), which zk properties reads.
// On an unchanged vault they cost the
// walk and reading the cache, not a parse of every note.

// everyNote is perNote.keeps of a reader of every note, templates too.
func everyNote(string) bool { return true }

// detailPurpose names the details' cache in its key (v2: a falsifier's
// byte of flags says it is flaky, its flips following).
const detailPurpose = "zk note details v2"

// details is every note's details (query.Detail: its links resolved, its
// falsifiers' standing), templates too, in walk order, through their
// per-note cache.
func (w *Workspace) details(ctx context.Context, files []vault.File) ([]query.Detail, error) {
	return cachedNotes(w, ctx, files, w.detailsNote(ctx, files, w.ledger(files)))
}

// ledger is the run ledger by note path (evidence.ReadLedger), none when
// it cannot be read; files are the command's walk (nil: walked here, when
// another note must be looked at).
func (w *Workspace) ledger(files []vault.File) map[string][]evidence.LedgerEntry {
	return w.homedLedgerBy(true, files).Notes
}

// homedLedgerBy is the run ledger by the note each entry is checked
// against now (evidence.Rehome): a refutation follows its block, or its
// falsifier id, to the note that holds it when its own note was renamed
// outside zk or merged into another. The other notes are those of files,
// the command's walk (nil: walked here), looked at through their part of
// the model file (holdsNote), read only where changed; not cached, for a
// command told to leave the cache alone (--no-cache), each is read.
func (w *Workspace) homedLedgerBy(cached bool, files []vault.File) evidence.Homed {
	b, _ := ReadLedger(w.Vault)
	return w.homedLedgerOf(b, cached, files)
}

// homedLedgerOf is homedLedgerBy of the ledger's bytes b, read already.
func (w *Workspace) homedLedgerOf(b []byte, cached bool, files []vault.File) evidence.Homed {
	v := w.Vault
	// A command asks for it several times (its cache keys, its check,
	// its readers), and a refutation whose block is not in its note looks
	// at every note to find it: made once for the ledger's bytes. A
	// workspace lives for one command or tool call (the language server
	// takes its check's options once), in which the notes do not move
	// but by zk mv, whose move line changes the ledger.
	w.homed.Lock()
	defer w.homed.Unlock()
	if w.homed.h != nil && bytes.Equal(w.homed.ledger, b) {
		return *w.homed.h
	}
	read := func(p string) ([]byte, bool) {
		if !vault.IsNotePath(p) {
			return nil, false
		}
		src, err := readNoteFile(v, p, v.MaxNoteSize)
		return src, err == nil
	}
	// What every note holds, from the model file: a vault holding a
	// refuted note deleted read every note for it in every command that
	// reads the ledger (zk check, list, runs at 10,000 notes: 0.57-0.66 s
	// of CPU where 0.11-0.15 without it).
	each := func(f func(p string, h evidence.Held)) {
		ctx := context.Background()
		if files == nil {
			var err error
			if files, _, err = v.Files(ctx); err != nil {
				return
			}
		}
		c := w.holdsNote(ctx, files)
		var holds []query.Holds
		var err error
		if cached {
			holds, err = cachedNotes(w, ctx, files, c)
		} else {
			holds, err = c.read(nil, nil)
		}
		if err != nil {
			return
		}
		for _, h := range holds {
			f(h.Path, h.Held)
		}
	}
	h := evidence.Rehome(evidence.ReadLedger(b), read, each)
	w.homed.ledger, w.homed.h = b, &h
	return h
}

// readNoteFile reads a note's bytes for homedLedger; a test counts it.
var readNoteFile = (*vault.Vault).ReadFile

// holdsPurpose names the section of what each note holds that a
// refutation follows (query.Holds) in its key.
const holdsPurpose = "zk note holds v1"

// holdsInputs: a note's run and block ids are found in its bytes alone,
// by zk's build.
const holdsInputs = InBuild

// holdsNote is how what each note holds that a refutation follows
// (query.Holds) is cached: every note's, templates too, as Rehome looks
// at every note. Its read reads the notes' bytes and parses none, so it
// fills no other reader's section (and homedLedger, which every reader's
// key asks, reads it); a read of every note by another reader fills it,
// only where it is read (fills).
func (w *Workspace) holdsNote(ctx context.Context, files []vault.File) perNote[query.Holds] {
	return perNote[query.Holds]{
		folder: "holds", purpose: holdsPurpose, inputs: holdsInputs,
		read: func(reuse func(string) (query.Holds, bool), hashed func(*vault.Note)) ([]query.Holds, error) {
			return readHolds(ctx, w.Vault, files, reuse, hashed)
		},
		one:        func(n *vault.Note, _ func() *vault.Resolver) query.Holds { return query.HoldsOf(n.Path, n.Src) },
		encode:     func(hs []query.Holds) ([]byte, error) { return query.EncodeHolds(hs), nil },
		decode:     query.DecodeHolds,
		decodeText: query.DecodeHoldsText,
		path:       func(h query.Holds) string { return h.Path },
		keeps:      everyNote,
		ownBytes:   true, // its ids
		bytesOnly:  true,
	}
}

// readHolds is what every note of files holds (query.Holds), reusing what
// reuse gives and reading the others' bytes, unparsed (telling hashed
// each one's source); a note that cannot be read is left out, as Rehome
// left it before.
func readHolds(ctx context.Context, v *vault.Vault, files []vault.File,
	reuse func(string) (query.Holds, bool), hashed func(*vault.Note)) ([]query.Holds, error) {
	out := make([]query.Holds, 0, len(files))
	var stale []int // each note to read, by index in files
	var at []int    // each one's index in out
	for i, f := range files {
		if !f.IsNote() {
			continue
		}
		if reuse != nil {
			if h, ok := reuse(f.Path); ok {
				out = append(out, h)
				continue
			}
		}
		stale, at = append(stale, i), append(at, len(out))
		out = append(out, query.Holds{})
	}
	read := make([]bool, len(stale))
	vault.Parallel(len(stale), func(k int) {
		if ctx.Err() != nil {
			return
		}
		p := files[stale[k]].Path
		src, err := readNoteFile(v, p, v.MaxNoteSize)
		if err != nil {
			return
		}
		out[at[k]], read[k] = query.HoldsOf(p, src), true
		if hashed != nil {
			hashed(&vault.Note{Path: p, Src: src})
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return keepRead(out, at, read), nil
}

// keepRead is out without the entries of the notes that could not be
// read: at are their places in out, in order, and read says which were.
func keepRead[T any](out []T, at []int, read []bool) []T {
	if !slices.Contains(read, false) {
		return out
	}
	kept, k := out[:0], 0 // in place
	for i := range out {
		if k < len(at) && at[k] == i {
			k++
			if !read[k-1] {
				continue
			}
		}
		kept = append(kept, out[i])
	}
	return kept
}

// detailsNote is how the details read with ledger are cached.
func (w *Workspace) detailsNote(ctx context.Context, files []vault.File, ledger map[string][]evidence.LedgerEntry) perNote[query.Detail] {
	return perNote[query.Detail]{
		folder: "details", purpose: detailPurpose, inputs: detailInputs,
		read: func(reuse func(string) (query.Detail, bool), hashed func(*vault.Note)) ([]query.Detail, error) {
			return query.ReadDetails(ctx, w.Vault, files, ledger, w.rejudger(), reuse, hashed)
		},
		one: func(n *vault.Note, r func() *vault.Resolver) query.Detail {
			return query.ReadDetail(n, r(), ledger[n.Path], w.rejudger())
		},
		encode:     func(ds []query.Detail) ([]byte, error) { return query.EncodeDetails(ds), nil },
		decode:     query.DecodeDetails,
		decodeText: query.DecodeDetailsText,
		path:       func(d query.Detail) string { return d.Path },
		keeps:      everyNote,
		names:      true, // its edges, resolved
	}
}

// runsPurpose names zk runs' section of the model file in its key (v2:
// a falsifier's byte of flags says it is flaky, its flips following).
const runsPurpose = "zk note runs v2"

// runs is every note's falsifiers' standing (query.Runs), templates too,
// in walk order, through their per-note cache: a section of its own, not
// the details', whose links zk runs never reads. Its inputs are the
// details' (the ledger ties runs recorded before falsifier ids).
func (w *Workspace) runs(ctx context.Context, files []vault.File) ([]query.Runs, error) {
	return cachedNotes(w, ctx, files, w.runsNote(ctx, files, w.ledger(files)))
}

// runsNote is how zk runs' entries read with ledger are cached.
func (w *Workspace) runsNote(ctx context.Context, files []vault.File, ledger map[string][]evidence.LedgerEntry) perNote[query.Runs] {
	return perNote[query.Runs]{
		folder: "runs", purpose: runsPurpose, inputs: detailInputs,
		read: func(reuse func(string) (query.Runs, bool), hashed func(*vault.Note)) ([]query.Runs, error) {
			return query.ReadRuns(ctx, w.Vault, files, ledger, w.rejudger(), reuse, hashed)
		},
		one: func(n *vault.Note, _ func() *vault.Resolver) query.Runs {
			return query.ReadRun(n, ledger[n.Path], w.rejudger())
		},
		encode:     func(rs []query.Runs) ([]byte, error) { return query.EncodeRuns(rs), nil },
		decode:     query.DecodeRuns,
		decodeText: query.DecodeRunsText,
		path:       func(r query.Runs) string { return r.Path },
		keeps:      everyNote,
		ownBytes:   true, // a note's falsifiers and its ledger entries: no link resolved
	}
}

// Graph is every note's links, resolved, from the notes' details.
func (w *Workspace) Graph(ctx context.Context) (Graph, error) {
	ge, err := w.GraphEdges(ctx)
	if err != nil {
		return Graph{}, err
	}
	// Every note's edges decoded into one slice sized once, in note order.
	total := 0
	for _, n := range ge.details {
		total += n.EdgeCount()
	}
	edges := make([]vault.Edge, 0, total)
	for _, n := range ge.details {
		edges = n.AppendEdges(edges)
	}
	return Graph{Graph: vault.GraphOf(edges), Files: ge.Files, Notes: ge.Notes}, nil
}

// GraphEdges is the vault's graph as the notes' details hold it, its
// edges decoded as they are walked (Edges): zk graph prints 40,000 edges
// at 10,000 notes, and gathering them in a slice first (7 MB) was a
// tenth of its CPU.
func (w *Workspace) GraphEdges(ctx context.Context) (GraphEdges, error) {
	files, _, err := w.Vault.Files(ctx)
	if err != nil {
		return GraphEdges{}, err
	}
	notes, err := w.details(ctx, files)
	if err != nil {
		return GraphEdges{}, err
	}
	paths := make([]string, len(notes))
	for i, n := range notes {
		paths[i] = n.Path
	}
	return GraphEdges{Files: files, Notes: paths, details: notes}, nil
}

// GraphEdges is every note's links, resolved (Workspace.GraphEdges).
type GraphEdges struct {
	// Files are the vault's files; Notes the notes read, in path order.
	Files   []vault.File
	Notes   []string
	details []query.Detail
}

// Edges yields every note's edges, note by note in source order, each
// note's decoded into one buffer used again for the next.
func (g GraphEdges) Edges(yield func(vault.Edge) bool) {
	var buf []vault.Edge
	for _, n := range g.details {
		buf = n.AppendEdges(buf[:0])
		for _, e := range buf {
			if !yield(e) {
				return
			}
		}
	}
}

// Properties are the vault's frontmatter properties by name, each with
// its type (declared in .obsidian/types.json, else its values' most
// common) and how many notes have it; templates are left out. They are
// counted from each note's properties' types (property.NoteTypes),
// cached in a section of their own: a few bytes a note, where the list
// records are 3.8 MB at 10,000 notes.
func (w *Workspace) Properties(ctx context.Context) ([]property.Summary, error) {
	files, _, err := w.Vault.Files(ctx)
	if err != nil {
		return nil, err
	}
	notes, err := w.propertyTypes(ctx, files)
	if err != nil {
		return nil, err
	}
	templates := w.SkipTemplates(nil)
	var census property.Census
	for _, n := range notes {
		if templates(n.Path) {
			census.AddTypes(n)
		}
	}
	return census.Summaries(w.PropTypes), nil
}

// propertiesPurpose names zk properties' section of the model file in
// its key.
const propertiesPurpose = "zk property types v1"

// propertiesInputs: a note's properties' types are read from its
// frontmatter alone (the declared types apply when they are counted, and
// templates are left out then).
const propertiesInputs = InBuild

// propertyTypes is every note's properties' types, templates too, in
// walk order, through their per-note cache.
func (w *Workspace) propertyTypes(ctx context.Context, files []vault.File) ([]property.NoteTypes, error) {
	return cachedNotes(w, ctx, files, w.typesNote(ctx, files))
}

// typesNote is how zk properties' entries are cached.
func (w *Workspace) typesNote(ctx context.Context, files []vault.File) perNote[property.NoteTypes] {
	return perNote[property.NoteTypes]{
		folder: "properties", purpose: propertiesPurpose, inputs: propertiesInputs,
		read: func(reuse func(string) (property.NoteTypes, bool), hashed func(*vault.Note)) ([]property.NoteTypes, error) {
			return readNoteTypes(ctx, w.Vault, files, reuse, hashed)
		},
		one:        func(n *vault.Note, _ func() *vault.Resolver) property.NoteTypes { return noteTypes(n) },
		encode:     func(ns []property.NoteTypes) ([]byte, error) { return property.EncodeNoteTypes(ns), nil },
		decode:     property.DecodeNoteTypes,
		decodeText: property.DecodeNoteTypesText,
		path:       func(n property.NoteTypes) string { return n.Path },
		keeps:      everyNote,
		ownBytes:   true, // its frontmatter's types
	}
}

// noteTypes is n's properties' types.
func noteTypes(n *vault.Note) property.NoteTypes {
	var values map[string]any
	if n.Frontmatter != nil {
		values = n.Frontmatter.Values
	}
	return property.TypesOf(n.Path, values)
}

// readNoteTypes is the properties' types of every note of files, reusing
// what reuse gives and parsing the others (telling hashed each one's
// source); a note that cannot be read is left out. No resolver is built:
// the types are the frontmatter's alone.
func readNoteTypes(ctx context.Context, v *vault.Vault, files []vault.File,
	reuse func(string) (property.NoteTypes, bool), hashed func(*vault.Note)) ([]property.NoteTypes, error) {
	out := make([]property.NoteTypes, 0, len(files))
	var stale []vault.File
	var at []int // each stale note's index in out
	for _, f := range files {
		if !f.IsNote() {
			continue
		}
		if reuse != nil {
			if n, ok := reuse(f.Path); ok {
				out = append(out, n)
				continue
			}
		}
		stale, at = append(stale, f), append(at, len(out))
		out = append(out, property.NoteTypes{})
	}
	if len(stale) == 0 {
		return out, nil
	}
	read := make([]bool, len(stale))
	v.Each(ctx, stale, func(k int, n *vault.Note) {
		out[at[k]], read[k] = noteTypes(n), true
		if hashed != nil {
			hashed(n)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return keepRead(out, at, read), nil
}

// Verdict is one falsifier of the vault as zk runs lists them: its note,
// what its latest record says and, when its criterion changed since that
// record was judged, the record judged again under the criterion as
// written now.
type Verdict struct {
	Note string
	query.Falsifier
	Rejudged *evidence.Rejudgement
}

// Verdicts are every falsifier of the vault, by note, then by number,
// deleted ones with a standing refutation last in their note. They come
// from the notes' runs (Workspace.runs); only a note with a changed
// criterion is read again, to judge its latest run again.
func (w *Workspace) Verdicts(ctx context.Context) ([]Verdict, error) {
	each, total, err := w.VerdictNotes(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Verdict, 0, total) // sized once: a Verdict is some 180 bytes
	for vs := range each {
		out = append(out, vs...)
	}
	return out, nil
}

// VerdictNotes are Verdicts a note's at a time, in their order, each
// note's in a slice used again for the next note's, and how many there
// are: zk runs prints each as it comes rather than 20,000 of them (3.6
// MB at 10,000 notes) gathered first.
func (w *Workspace) VerdictNotes(ctx context.Context) (each iter.Seq[[]Verdict], total int, err error) {
	files, _, err := w.Vault.Files(ctx)
	if err != nil {
		return nil, 0, err
	}
	notes, err := w.runs(ctx, files)
	if err != nil {
		return nil, 0, err
	}
	for _, n := range notes {
		total += n.FalsifierCount()
	}
	return func(yield func([]Verdict) bool) {
		var (
			ledger map[string][]evidence.LedgerEntry
			fs     []query.Falsifier // each note's, decoded into one slice reused
			out    []Verdict
			// One Rejudger for every note: notes share runs (a note copied
			// keeps its blocks), and each judged the same log again, read
			// and decoded whole (21 copies of a note of a 24 MB log: 21
			// reads of it, 3 s and 460 MB each).
			rejudger *evidence.Rejudger
		)
		for _, n := range notes {
			fs, out = n.AppendFalsifiers(fs[:0]), out[:0]
			for _, f := range fs {
				out = append(out, Verdict{Note: n.Path, Falsifier: f})
			}
			if slices.ContainsFunc(fs, func(f query.Falsifier) bool { return f.Changed && f.N > 0 }) {
				if ledger == nil {
					ledger = w.ledger(files)
					rejudger = w.rejudger()
				}
				w.rejudgeVerdicts(n.Path, out, ledger, rejudger)
			}
			// The notes come by path and their falsifiers by number: mostly
			// in order already, which a check costs less than a stable
			// sort's merges.
			if !slices.IsSortedFunc(out, byFalsifier) {
				slices.SortStableFunc(out, byFalsifier)
			}
			if len(out) > 0 && !yield(out) {
				return
			}
		}
	}, total, nil
}

// rejudgeVerdicts judges again, under the criterion written now, the
// latest run of each falsifier of the note at p (its verdicts, out) whose
// criterion changed since, with rejudger (every note's); a note gone
// since the walk keeps its rows as recorded.
func (w *Workspace) rejudgeVerdicts(p string, out []Verdict, ledger map[string][]evidence.LedgerEntry, rejudger *evidence.Rejudger) {
	nv, err := w.Vault.ReadNote(p)
	if err != nil {
		return
	}
	for _, l := range evidence.LatestRuns(nv, ledger[p], rejudger).Falsifiers {
		if !l.CriterionChanged() {
			continue
		}
		rj := rejudger.Changed(l)
		for i := len(out) - 1; i >= 0; i-- {
			if out[i].N == l.Falsifier.N {
				out[i].Falsifier, out[i].Rejudged = query.FalsifierOf(l), &rj
			}
		}
	}
}

// byFalsifier orders a note's verdicts by number, deleted ones (number
// 0) last.
func byFalsifier(a, b Verdict) int {
	if (a.N == 0) != (b.N == 0) {
		if a.N == 0 {
			return 1
		}
		return -1
	}
	return cmp.Compare(a.N, b.N)
}
