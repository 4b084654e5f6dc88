package workspace

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/zk-claims/zk/checkcache"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/query"
)

// ListRequest is zk list's filters, as the user writes them. Errors name
// a filter by its field in the front end's terms (Options.Term): type,
// folder, where, fields, verdict, due_within, limit, transitive, links_to,
// linked_from.
type ListRequest struct {
	Types, Folders, Tags, Where, Verdicts, Fields []string
	// LinksTo and LinkedFrom are note arguments (path or name).
	LinksTo, LinkedFrom, DueWithin, Sort          string
	Transitive, Orphans, DeadEnds, Stale, Reverse bool
	Limit                                         int
	// NoCache reads every note, ignoring and not writing the cache.
	NoCache bool
}

// Verdicts are the verdicts a list's verdict filter takes.
var Verdicts = []string{string(evidence.VerdictSupports), string(evidence.VerdictRefutes), string(evidence.VerdictInconclusive),
	string(evidence.VerdictError), string(evidence.VerdictAttached), string(evidence.VerdictNone), query.NeverRun}

// ParseList checks a list request and makes its query, with its note
// arguments still to find (List finds them). It needs no vault: a front
// end calls it before opening one, to refuse a bad request first. Its
// errors are UsageErrors naming the field in term's words (nil: the
// field's own name).
func ParseList(req ListRequest, term func(string) string) (query.Query, error) {
	if term == nil {
		term = func(s string) string { return s }
	}
	q := query.Query{Types: req.Types, Folders: req.Folders, Tags: req.Tags, Transitive: req.Transitive,
		Orphans: req.Orphans, DeadEnds: req.DeadEnds, Stale: req.Stale, Sort: req.Sort, Reverse: req.Reverse, Limit: req.Limit}
	if q.Sort == "" {
		q.Sort = "path"
	}
	for _, w := range req.Where {
		c, err := query.ParseCond(w)
		if err != nil {
			return q, usage(fmt.Errorf("list: %s: %w", term("where"), err))
		}
		q.Where = append(q.Where, c)
	}
	for _, f := range req.Fields {
		if err := query.CheckField(f); err != nil {
			return q, usage(fmt.Errorf("list: %s: %w", term("fields"), err))
		}
	}
	for _, v := range req.Verdicts {
		if !slices.Contains(Verdicts, strings.ToLower(v)) {
			return q, usage(fmt.Errorf("list: %s: unknown verdict %q (want %s)", term("verdict"), v, orList(Verdicts)))
		}
		q.Verdicts = append(q.Verdicts, strings.ToLower(v))
	}
	if req.DueWithin != "" {
		iv, err := vault.ParseInterval(req.DueWithin)
		if err != nil {
			return q, usage(fmt.Errorf("list: %s: %w", term("due_within"), err))
		}
		q.DueWithin = iv
	}
	if req.Limit < 0 {
		return q, usage(fmt.Errorf("list: %s %d: want 0 (all) or more", term("limit"), req.Limit))
	}
	if req.Transitive && req.LinksTo == "" && req.LinkedFrom == "" {
		return q, usage(fmt.Errorf("list: %s needs %s or %s", term("transitive"), term("links_to"), term("linked_from")))
	}
	return q, nil
}

// orList is "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// ListWarnings are what a list of res asked for fields should warn of:
// each property of fields (not a file.* attribute) that no note listed
// has, when notes are listed. Its column is empty, a right answer, but
// tended for file.tended is the likelier reading, and said.
func (w *Workspace) ListWarnings(res query.Result, fields []string) []string {
	warns := []string{}
	if res.Unwritten != "" {
		warns = append(warns, fmt.Sprintf("%s %s: not written yet; the notes listed link to it", w.term("links_to"), res.Unwritten))
	}
	if len(res.Notes) == 0 {
		return warns // "no notes match" says it all
	}
	for _, f := range fields {
		if strings.HasPrefix(f, "file.") || slices.ContainsFunc(res.Notes, func(n query.Note) bool { _, ok := n.Properties[f]; return ok }) {
			continue
		}
		hint := ""
		if slices.Contains(query.FileFields, "file."+f) {
			hint = fmt.Sprintf(" (the note's own %s is file.%s)", f, f)
		}
		warns = append(warns, fmt.Sprintf("%s %s: no note listed has the property%s", w.term("fields"), f, hint))
	}
	return warns
}

// List is the notes that pass every filter of req, sorted and limited.
func (w *Workspace) List(ctx context.Context, req ListRequest) (query.Result, error) {
	q, err := ParseList(req, w.term)
	if err != nil {
		return query.Result{}, err
	}
	if err := w.checkTypes(q.Types); err != nil {
		return query.Result{}, err
	}
	v := w.Vault
	files, _, err := v.Files(ctx)
	if err != nil {
		return query.Result{}, err
	}
	unwritten := ""
	for _, arg := range []struct {
		field, note string
		into        *string
	}{{"links_to", req.LinksTo, &q.LinksTo}, {"linked_from", req.LinkedFrom, &q.LinkedFrom}} {
		if arg.note == "" {
			continue
		}
		p, err := FindNote(v, files, arg.note)
		if nf, isNF := errors.AsType[*NotFoundError](err); isNF && arg.into == &q.LinksTo {
			// A note not written yet that notes link to, as zk backlinks
			// answers it.
			if u, ok := UnwrittenName(arg.note); ok {
				in, uerr := w.unwrittenInto(ctx, files, u, req.NoCache, nf)
				if uerr != nil {
					return query.Result{}, uerr
				}
				if len(in) > 0 {
					p, err, unwritten = u.File, nil, u.Name
					for _, e := range in {
						if !slices.Contains(q.Linkers, e.From) {
							q.Linkers = append(q.Linkers, e.From)
						}
					}
				}
			}
		}
		if err != nil {
			return query.Result{}, fmt.Errorf("list: %s: %w", w.field(arg.field), err)
		}
		*arg.into = p
	}
	for _, dir := range q.Folders {
		if !folderExists(v, files, dir) {
			return query.Result{}, usage(fmt.Errorf("list: %s: no folder %q in the vault", w.field("folder"), dir))
		}
	}
	q.Today = w.Today
	opts := w.recordOptions(query.FieldNeeds(req.Fields)|query.SortNeeds(q.Sort), !req.NoCache, files)
	var res query.Result
	if req.NoCache {
		res, err = query.Select(ctx, v, files, q, opts)
	} else {
		var notes []query.Note
		// A listing that reads a record's path and type alone reads the
		// records in place (query.DecodeTextBrief).
		brief := q.Brief() && len(req.Fields) == 0
		if notes, err = w.readRecords(ctx, files, opts, brief); err == nil {
			res, err = q.FilterOwned(notes)
		}
	}
	if _, ok := errors.AsType[*query.KindError](err); ok {
		err = usage(fmt.Errorf("list: %s: %w", w.field("where"), err))
	}
	res.Unwritten = unwritten
	return res, err
}

// checkTypes refuses a type filter that names no type of the vault's
// config (nor "none"), which would otherwise match nothing.
func (w *Workspace) checkTypes(types []string) error {
	names := []string{}
	for _, t := range w.Types {
		names = append(names, t.Name)
	}
	for _, t := range types {
		if !strings.EqualFold(t, "none") && !slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, t) }) {
			return usage(fmt.Errorf("list: %s: unknown type %q (want %s)", w.field("type"), t, orList(append(names, "none"))))
		}
	}
	return nil
}

// folderExists reports whether a folder filter names a folder of the
// vault: one holding a file zk reads (case ignored, as the filter
// matches), or an existing folder that holds none.
func folderExists(v *vault.Vault, files []vault.File, dir string) bool {
	for _, f := range files {
		if query.InFolder(f.Path, dir) {
			return true
		}
	}
	clean := path.Clean(strings.Trim(filepath.ToSlash(dir), "/"))
	if clean == "." {
		return true
	}
	st, err := v.Root().Stat(clean)
	return err == nil && st.IsDir()
}

// recordOptions are the options a note's record is read under: the
// workspace's types, tended keys and interval, templates left out (a
// template is not a note of its type), and what the query needs. With
// cached, or when the verdicts are needed, the run ledger, whose numbers
// tie runs recorded before falsifier ids, as zk check ties them: every
// record cached is read with it, whoever reads it. files are the walk
// (homedLedgerBy).
func (w *Workspace) recordOptions(need query.Need, cached bool, files []vault.File) query.Options {
	templates := w.SkipTemplates(nil)
	opts := query.Options{
		Skip:       func(p string) bool { return !templates(p) },
		Types:      w.Types,
		TendedKeys: w.Config.TendedKeys,
		Interval:   w.Config.Interval(),
		Need:       need,
	}
	if need&query.NeedVerdicts != 0 || cached {
		opts.Ledger, opts.Rejudge = w.homedLedgerBy(cached, files).Notes, w.rejudger()
	}
	return opts
}

// readRecords is every note's query record (query.ReadAll), through
// the per-note cache (cachedNotes), section "list" of the model file;
// the cached records read in place (their path and type alone decoded)
// when brief.
func (w *Workspace) readRecords(ctx context.Context, files []vault.File, opts query.Options, brief bool) ([]query.Note, error) {
	decode, decodeText := query.Decode, query.DecodeText
	if brief {
		decode, decodeText = query.DecodeBrief, query.DecodeTextBrief
	}
	return cachedNotes(w, ctx, files, w.recordsNote(ctx, files, opts, decode, decodeText))
}

// recordsNote is how the list records read under opts
// (Workspace.recordOptions, cached) are cached; decode and decodeText
// read them back.
func (w *Workspace) recordsNote(ctx context.Context, files []vault.File, opts query.Options,
	decode func([]byte) ([]query.Note, error), decodeText func(string) ([]query.Note, error)) perNote[query.Note] {
	return perNote[query.Note]{
		folder: "list", purpose: "zk list records v1", inputs: listInputs,
		read: func(reuse func(string) (query.Note, bool), hashed func(*vault.Note)) ([]query.Note, error) {
			return query.ReadAll(ctx, w.Vault, files, opts, reuse, hashed)
		},
		one:        func(n *vault.Note, r func() *vault.Resolver) query.Note { return query.ReadRecord(n, r(), opts) },
		encode:     query.Encode,
		decode:     decode,
		decodeText: decodeText,
		path:       func(n query.Note) string { return n.Path },
		keeps:      func(p string) bool { return opts.Skip == nil || !opts.Skip(p) }, // query.ReadAll's notes
		names:      true,                                                             // its Links, resolved
	}
}

// perNote says how to cache one thing zk keeps of every note (a list
// record, a note's details): the cache's folder, its key's purpose and
// inputs, how to read the notes (reusing what reuse gives, telling hashed
// each note's source) and how to encode what they give.
type perNote[T any] struct {
	folder, purpose string
	inputs          Inputs
	read            func(reuse func(string) (T, bool), hashed func(*vault.Note)) ([]T, error)
	encode          func([]T) ([]byte, error)
	decode          func([]byte) ([]T, error)
	// decodeText, when set, is decode of the bytes as a string, every
	// string decoded a slice of it (decodeEntries).
	decodeText func(string) ([]T, error)
	path       func(T) string
	// one, when set, is read's entry of one note parsed, its links
	// resolved by the index of every file r makes (once, for every
	// reader filled, when one asks): the reader's section is then filled
	// by another reader's read of every note (fill.go).
	one func(n *vault.Note, r func() *vault.Resolver) T
	// keeps, when set, says that read gives an entry of each note of
	// files keeps holds, in the files' order, and does nothing else: a
	// vault whose every such note keeps its entry is then answered with
	// the section's entries as decoded, read not called (current).
	keeps func(path string) bool
	// ownBytes says that an entry is made of its note's bytes and path
	// alone, never of which other files there are (no link resolved, no
	// file's index): a file added, removed or renamed leaves every other
	// note's entry good, and only the notes added are read.
	ownBytes bool
	// names says that an entry resolves its note's links by name and
	// holds nothing else of other files: each note's link names are kept
	// beside the entries (linknames.go), and a file added, removed or
	// renamed reads again the notes naming it (and those added) alone.
	names bool
	// remap, when set, makes an entry made among other files one among
	// the files now (move: a file's index among those now by its index
	// among the others, -1 for none): zk stale's entries hold files by
	// index. false when it cannot: the note is read again.
	remap func(e T, move func(int) int) (T, bool)
	// bytesOnly says that read reads the notes' bytes and parses none:
	// it fills no other reader's section (fill.go), which needs notes
	// parsed.
	bytesOnly bool
}

// cachedNotes is what c reads of every note, through the vault's model
// file (checkcache.ModelFile: one for every reader, its files stamped
// once as zk check stamps its own, c's entries in a section of their own
// under a key of c's inputs). It is reused note by note: when the vault
// holds the same files as when it was written, a note whose bytes are
// those c's entry was made from (its stamp settled, or its bytes hashed
// the same) keeps its entry, and only the notes changed are read again.
// A file added, removed or renamed can change what any link resolves
// to: with c.names, the notes whose links name such a file are read
// again, and those added; with c.ownBytes, the notes added alone; else
// every note. A cache that cannot be read or written
// costs a full read, never the answer.
func cachedNotes[T any](w *Workspace, ctx context.Context, files []vault.File, c perNote[T]) ([]T, error) {
	return openPerNote(w, c).notes(ctx, files, c.read)
}

// perNoteCache is c's part of the model file opened before the walk it
// is held to: a front end takes the files it stamps while the vault is
// walked (Workspace.LiveCache), and decodes its section meanwhile.
type perNoteCache[T any] struct {
	w    *Workspace
	c    perNote[T]
	file string // "" when the cache has no place: every note is read
	key  checkcache.Key
	err  error             // the key could not be made
	m    *checkcache.Model // nil when there is none
	// r is m as c's section is read: m, or, when the section was kept
	// with the files it was made over (checkcache.Section.Paths), m with
	// those files' stamps (Model.Kept). A save is m's.
	r *checkcache.Model

	once    sync.Once
	section checkcache.Section
	// entries are the section's entries decoded, the file's then each
	// delta's; nil when the section is missing, of another key, or
	// damaged.
	entries [][]T
	// names are the kept link names by path (loadNames), read once.
	names     []heldNames
	namesRead bool
	// fills are the other readers' sections a read of every note fills
	// (fill.go), saved with c's.
	fills []filler
}

// openPerNote opens the model file and reads its stamps, not yet c's
// section.
func openPerNote[T any](w *Workspace, c perNote[T]) *perNoteCache[T] {
	p := &perNoteCache[T]{w: w, c: c}
	file, err := checkcache.ModelFile(w.Vault.Dir)
	if err != nil {
		return p
	}
	p.file = file
	if p.key, p.err = w.inputKey(c.purpose, c.inputs); p.err != nil {
		return p
	}
	if m, err := w.openModel(file); err == nil {
		p.m = m
	}
	return p
}

// paths are the paths of the files the model file stamps, sorted (nil
// when there is none), whatever c's section holds: files are files
// under any config or build.
func (p *perNoteCache[T]) paths() []string {
	if p.m == nil {
		return nil
	}
	out := make([]string, len(p.m.Stamps))
	for i, st := range p.m.Stamps {
		out[i] = st.Path
	}
	return out
}

// load reads and decodes c's section, once: a delta's entry of a note in
// place of the file's.
func (p *perNoteCache[T]) load() {
	p.once.Do(func() {
		if p.r = p.m; p.m == nil {
			return
		}
		sec, ok, err := p.m.Section(p.c.folder)
		if err != nil || !ok || sec.Key != p.key {
			return
		}
		if sec.Paths != nil {
			p.r = p.m.Kept(sec.Paths)
		}
		entries := make([][]T, 0, len(sec.Entries))
		err = checkcache.Guard(func() error { // a mapped file cut short under it: damaged
			for _, b := range sec.Entries {
				old, err := p.decodeEntries(b)
				if err != nil {
					return err
				}
				entries = append(entries, old)
			}
			return nil
		})
		if err != nil {
			return
		}
		p.section, p.entries = sec, entries
	})
}

// decodeEntries decodes entries read from the model file. With
// decodeText, the decoded strings are slices of b itself: the section's
// bytes are read into memory of their own, or mapped for the process's
// life (Model.Section, checkcache.MapModel), and never written after, so
// they can be a string without a copy of them all (12 MB of details at
// 10,000 notes, a tenth of an unchanged zk graph).
func (p *perNoteCache[T]) decodeEntries(b []byte) ([]T, error) {
	if p.c.decodeText == nil || len(b) == 0 {
		return p.c.decode(b)
	}
	return p.c.decodeText(unsafe.String(unsafe.SliceData(b), len(b)))
}

// notes is what read reads of every note of files, reusing the entry of
// each note whose bytes are those it was made from, and saves what
// changed.
func (p *perNoteCache[T]) notes(ctx context.Context, files []vault.File,
	read func(reuse func(string) (T, bool), hashed func(*vault.Note)) ([]T, error)) ([]T, error) {
	if p.m != nil {
		defer p.m.Close()
	}
	if p.file == "" {
		return read(nil, nil)
	}
	if p.err != nil {
		return nil, p.err
	}
	c, v := p.c, p.w.Vault
	started := time.Now() // before the read: the stamps are the walk's
	p.load()
	m := p.r
	if notes, ok := p.current(files); ok {
		return notes, nil
	}
	var keep func(int) bool // when the files are others: which entries still hold
	if c.names && p.entries != nil && m != nil && !sameFiles(m, files) {
		keep = p.unaffected(files)
	}
	st := cachedHashes(m, files, p.section, p.entries != nil, c.ownBytes, keep)
	// mine[i]: c has an entry of files[i], made from bytes of hash hashes[i].
	hashes, mine := make([][sha256.Size]byte, len(files)), make([]bool, len(files))
	reuse, changed := cachedEntries(st, p.entries, files, func(q string) ([]byte, error) { return v.ReadFile(q, v.MaxNoteSize) }, hashes, mine, c.path)
	if keep != nil && c.remap != nil && reuse != nil {
		held := reuse
		// Each stamp's index among the files now, the two walked together
		// (both sorted by path), not a search for every link of every note.
		moved := make([]int32, len(m.Stamps))
		for j, i := 0, 0; j < len(m.Stamps); j++ {
			for i < len(files) && files[i].Path < m.Stamps[j].Path {
				i++
			}
			moved[j] = -1
			if i < len(files) && files[i].Path == m.Stamps[j].Path {
				moved[j] = int32(i)
			}
		}
		move := func(j int) int {
			if j < 0 || j >= len(moved) {
				return -1
			}
			return int(moved[j])
		}
		reuse = func(q string) (T, bool) {
			e, ok := held(q)
			if ok {
				e, ok = c.remap(e, move)
			}
			return e, ok
		}
	}
	var (
		mu       sync.Mutex
		parsed   int
		index    = indexOf(files)
		names    map[int]string // the link names of each note read (c.names, or a filler's), by index in files
		fillNote func(*vault.Note)
	)
	if p.entries == nil && c.one != nil && !c.bytesOnly { // a read of every note: it fills the other readers' missing sections
		p.fills = p.w.fills(ctx, files, p.m, c.folder)
		if len(p.fills) > 0 {
			fillNote = fillEach(p.fills, files)
		}
	}
	keepNames := c.names || slices.ContainsFunc(p.fills, filler.names)
	if keepNames {
		names = map[int]string{}
	}
	notes, err := read(reuse, func(n *vault.Note) {
		h := checkcache.Hash(n.Src)
		var ns string
		if keepNames {
			ns = encodeNames(vault.LinkNames(n))
		}
		if fillNote != nil {
			fillNote(n)
		}
		mu.Lock()
		defer mu.Unlock()
		if i := index(n.Path); i >= 0 {
			hashes[i], mine[i] = h, true
			if keepNames {
				names[i] = ns
			}
		}
		parsed++
		if p.w.parsed != nil {
			p.w.parsed(n.Path)
		}
	})
	if err != nil {
		return nil, err
	}
	if !changed && parsed == 0 && !p.section.Carried {
		return notes, nil // every entry and stamp as cached (a section carried is written anew: it may hold files gone)
	}
	p.save(files, st, hashes, mine, notes, started, false, names)
	return notes, nil
}

// sameFiles reports whether m stamps files, by path.
func sameFiles(m *checkcache.Model, files []vault.File) bool {
	if len(m.Stamps) != len(files) {
		return false
	}
	for i, f := range files {
		if m.Stamps[i].Path != f.Path {
			return false
		}
	}
	return true
}

// save writes into the model file what changed of notes (read now, or
// reused: mine[i] says the entry of files[i] is of bytes of hash
// hashes[i]): as a delta when the file stamps the same files and has the
// reader's section, else anew. With deltaOnly, notes hold the entries
// read now and a stand-in for each one reused, which only a delta can
// leave out: save then writes nothing and returns false when it cannot
// be a delta. names are the link names of the notes read now, by index
// in files (perNote.names).
func (p *perNoteCache[T]) save(files []vault.File, st modelState, hashes [][sha256.Size]byte, mine []bool, notes []T, started time.Time, deltaOnly bool, names map[int]string) bool {
	w, c, m, key := p.w, p.c, p.m, p.key
	stamps := make([]checkcache.Stamp, len(files))
	for i, f := range files {
		stamps[i] = checkcache.StampOf(f)
		switch {
		case mine[i]:
			stamps[i].Hash = hashes[i]
		case st.state != nil && st.state[i] == hashKnown:
			stamps[i].Hash = st.content[i]
		}
	}
	sec := checkcache.Section{Name: c.folder, Key: key, Hashes: make([][sha256.Size]byte, len(files))}
	at, index := make([]int, len(notes)), indexOf(files) // each note's index in files
	for k, n := range notes {
		if at[k] = index(c.path(n)); at[k] >= 0 && mine[at[k]] {
			sec.Hashes[at[k]] = hashes[at[k]]
		}
	}
	u := checkcache.Update{Written: started.UnixNano(), Stamps: stamps, Carry: carry(m, files), KeepFiles: keepFiles}
	write := notes
	sections := []string{c.folder}
	if c.names {
		sections = append(sections, namesSection(c.folder))
	}
	appendable := st.hasSection && m.Appendable(stamps, key, sections...)
	if deltaOnly && !appendable {
		return false
	}
	if appendable { // only the entries that changed
		u.Changed, write = []int{}, nil
		for i, h := range sec.Hashes {
			if h != st.section.Hashes[i] {
				u.Changed = append(u.Changed, i)
			}
		}
		for k, n := range notes {
			if i := at[k]; i >= 0 && sec.Hashes[i] != ([sha256.Size]byte{}) && sec.Hashes[i] != st.section.Hashes[i] {
				write = append(write, n)
			}
		}
	}
	b, err := c.encode(write)
	if err != nil {
		return true
	}
	sec.Entries = [][]byte{b}
	u.Sections = []checkcache.Section{sec}
	if c.names {
		u.Sections = append(u.Sections, p.namesUpdate(files, sec, names, u.Changed))
	}
	if !appendable {
		for _, f := range p.fills {
			u.Sections = append(u.Sections, f.sections(files, hashes, mine, names)...)
		}
	}
	if err := checkcache.SaveModel(p.file, m, u); err != nil {
		w.warn("%v", err)
	}
	// The model file replaced a file per reader, in a folder of the
	// reader's name beside it: a save leaves no stale copy.
	_ = os.Remove(filepath.Join(filepath.Dir(filepath.Dir(p.file)), c.folder, filepath.Base(p.file)))
	return true
}

// current is what notes gives when every file is as stamped, settled
// by its size and time (nothing to stamp again), and each note c keeps
// has its entry in the section, made from its bytes as stamped: the
// section's entries as decoded, a delta's entry of a note in place of
// the file's, without the copy of each into another slice that read
// makes of what reuse gives (2.6 MB of list records at 10,000 notes),
// nor the tables notes and cachedEntries make to find them. False when
// anything is otherwise: notes then reads, reuses and saves as ever.
func (p *perNoteCache[T]) current(files []vault.File) ([]T, bool) {
	m, sec, keeps := p.r, p.section, p.c.keeps
	if keeps == nil || m == nil || len(p.entries) == 0 || len(m.Stamps) != len(files) || len(sec.Hashes) != len(files) {
		return nil, false
	}
	kept := 0
	for i, f := range files {
		s, h := m.Stamps[i], sec.Hashes[i]
		settled := m.Settled(i, f)
		switch {
		case s.Path != f.Path:
			return nil, false
		case !settled && (s.Hash != [sha256.Size]byte{} || !s.Same(f)):
			return nil, false // to stamp again
		case !f.IsNote() || !keeps(f.Path):
			if h != ([sha256.Size]byte{}) {
				return nil, false
			}
		case !settled || h == [sha256.Size]byte{} || h != s.Hash:
			return nil, false
		default:
			kept++
		}
	}
	out := p.entries[0]
	if len(out) != kept {
		return nil, false
	}
	for _, delta := range p.entries[1:] { // in place of the file's entry of the same note
		for _, e := range delta {
			k, ok := slices.BinarySearchFunc(out, p.c.path(e), func(x T, q string) int { return strings.Compare(p.c.path(x), q) })
			if !ok {
				return nil, false // a note the file has no entry of: read
			}
			out[k] = e
		}
	}
	k := 0
	for _, f := range files {
		if f.IsNote() && keeps(f.Path) {
			if p.c.path(out[k]) != f.Path {
				return nil, false
			}
			k++
		}
	}
	return out, true
}

// indexOf gives a path's index in files (sorted by path), -1 for none:
// at once when asked in the files' order, by a binary search otherwise.
// Not for several goroutines at once.
func indexOf(files []vault.File) func(string) int {
	next := 0
	return func(p string) int {
		if next < len(files) && files[next].Path == p {
			next++
			return next - 1
		}
		i, ok := slices.BinarySearchFunc(files, p, func(f vault.File, p string) int { return strings.Compare(f.Path, p) })
		if !ok {
			return -1
		}
		next = i + 1
		return i
	}
}

// What the model file's stamp says of a file's bytes.
const (
	hashUnknown = iota // not a note, never read, or changed: nothing to trust
	hashKnown          // its stamp is settled: its bytes hash as stamped
	hashToCheck        // touched, or too recent to trust its time: its bytes decide
)

// modelState is what the model file says of the vault's files before a
// reader reads them, by index in the walk: what each one's stamp says of
// its bytes, and the reader's section. state is nil when the file stamps
// other files (or there is none).
type modelState struct {
	state   []uint8
	content [][sha256.Size]byte
	section checkcache.Section
	// hasSection: the file stamped the same files, and has the
	// reader's section.
	hasSection bool
	// fresh: every stamp is settled by size and time alone.
	fresh bool
}

// cachedHashes holds the model file's stamps to files, with the reader's
// section as loaded (has: one of the reader's key, decoded). When the
// file stamps other files, nothing is held, unless ownBytes (a reader's
// entries made of their notes alone, perNote.ownBytes): each file is then
// held to the stamp of its path, and the section's hashes put in the
// files' order, none for a file added.
func cachedHashes(m *checkcache.Model, files []vault.File, sec checkcache.Section, has, ownBytes bool, keep func(j int) bool) modelState {
	if m == nil {
		return modelState{}
	}
	same := len(m.Stamps) == len(files)
	for i := 0; same && i < len(files); i++ { // both sorted by path
		same = m.Stamps[i].Path == files[i].Path
	}
	var at []int // at[i]: the stamp of files[i], -1 for none; nil: the same index
	if !same {
		if !ownBytes && keep == nil {
			return modelState{}
		}
		at = make([]int, len(files))
		j := 0
		for i, f := range files {
			for j < len(m.Stamps) && m.Stamps[j].Path < f.Path {
				j++
			}
			at[i] = -1
			if j < len(m.Stamps) && m.Stamps[j].Path == f.Path {
				at[i] = j
			}
		}
		if has = has && len(sec.Hashes) == len(m.Stamps); has {
			hashes := make([][sha256.Size]byte, len(files))
			for i, j := range at {
				if j >= 0 && (keep == nil || keep(j)) {
					hashes[i] = sec.Hashes[j]
				}
			}
			sec.Hashes = hashes
		}
	}
	// Not fresh when the files are others: the file is written anew.
	st := modelState{state: make([]uint8, len(files)), content: make([][sha256.Size]byte, len(files)), section: sec, hasSection: has, fresh: same}
	for i, f := range files {
		j := i
		if at != nil {
			if j = at[i]; j < 0 {
				continue // a file added: nothing to trust
			}
		}
		s := m.Stamps[j]
		switch {
		case m.Settled(j, f):
			if s.Hash != ([sha256.Size]byte{}) {
				st.state[i], st.content[i] = hashKnown, s.Hash
			}
		case s.Hash == ([sha256.Size]byte{}) && s.Same(f):
			// not a note, or one no reader read: nothing to trust
		default:
			st.fresh = false
			if s.Size == f.Size && s.Hash != ([sha256.Size]byte{}) {
				st.state[i] = hashToCheck
			}
		}
	}
	return st
}

// cachedEntries returns what is still good of the reader's entries (the
// file's, then each delta's, decoded; nil when nothing is: no section,
// another key, another set of files) and whether the file needs writing
// again; hashes and mine get the hash of every note whose entry is
// reused.
func cachedEntries[T any](st modelState, entries [][]T, files []vault.File, read func(string) ([]byte, error),
	hashes [][sha256.Size]byte, mine []bool, path func(T) string) (reuse func(string) (T, bool), changed bool) {
	if !st.hasSection || entries == nil || len(st.section.Hashes) != len(files) {
		return nil, true
	}
	type place struct{ blob, k int }
	at, has := make([]place, len(files)), make([]bool, len(files))
	for b, old := range entries { // a delta's entry of a note in place of the file's
		index := indexOf(files)
		for k, n := range old {
			if i := index(path(n)); i >= 0 {
				at[i], has[i] = place{b, k}, true
			}
		}
	}
	changed = !st.fresh
	good := make([]bool, len(files))
	for i, f := range files {
		was := st.section.Hashes[i]
		if !has[i] || was == ([sha256.Size]byte{}) {
			continue
		}
		switch st.state[i] {
		case hashUnknown:
			changed = true
			continue
		case hashToCheck:
			src, err := read(f.Path)
			if err != nil {
				continue
			}
			st.state[i], st.content[i] = hashKnown, checkcache.Hash(src)
		}
		if st.content[i] != was {
			changed = true
			continue
		}
		good[i], hashes[i], mine[i] = true, was, true
	}
	index := indexOf(files)
	return func(p string) (T, bool) {
		i := index(p)
		if i < 0 || !good[i] {
			var zero T
			return zero, false
		}
		return entries[at[i].blob][at[i].k], true
	}, changed
}
