package workspace

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/move"
)

// Live is the model of the vault that a long-lived front end (zk lsp)
// keeps for a session, where a command reads one and exits: zk check's
// session over the vault's files, the resolver of its links, and every
// note's entry (its summary for the link rules, its links with their
// places for references, its tags for completion), opened from the
// model file and kept current as notes are saved and files come and go.
// The front end holds what its protocol needs (the notes open in an
// editor, what it last sent) and asks Live the rest.
//
// A start is in three stages, each a wait: early, a note can be checked
// (against the files the model file names, before the vault is walked);
// named, the vault's files are walked and the session opened on them;
// known, every note's entry is read.
type Live struct {
	opts LiveOptions
	v    *vault.Vault

	early    chan struct{}
	named    chan struct{}
	namedErr error
	known    chan struct{}
	knownErr error
	// checked is closed when the front end's first answer is out
	// (Answered): the walk waits for it (firstCheckGrace at most).
	checked     chan struct{}
	checkedOnce sync.Once

	mu      sync.Mutex
	session *lint.Session // set before named is closed
	res     *vault.Resolver
	cached  []string // the files the model file names, until the walk is done
	notes   []string // the vault's notes
	// files are the vault's files as last walked, their stamps what
	// TakeWalk tells a file changed on disk by; gen counts the walks
	// taken.
	files []vault.File
	gen   uint64
	// links and lower are the shortest link to each of notes and it in
	// lower case, nil until CompletionLinks asks for them.
	links, lower []string
	// entries are every note's entry as the start read it, sorted by
	// path (nil until then); edges are the links of each note saved,
	// read again or deleted since (nil), by path, in place of its
	// entry's.
	entries []NoteEntry
	edges   map[string][]LinkRef
	tags    *vocab
}

// LiveOptions configure a Live.
type LiveOptions struct {
	// Vault is the vault served; the caller opens and closes it.
	Vault *vault.Vault
	// Lint are zk check's options for this vault.
	Lint lint.Options
	// Today is the day of each check (the maintenance rules).
	Today func() time.Time
	// Cache, when set, opens the model file's entries at the start
	// (Workspace.LiveCache): a note is checked at once against the files
	// it names, and on a vault unchanged since it was written the start
	// parses no note. nil reads every note.
	Cache func() EntryCache
	// BeforeWalk and BeforeRead, when set, run before the walk and
	// between the walk and the read of every note: a test holds the start
	// there.
	BeforeWalk, BeforeRead func()
}

// NewLive returns a Live of the vault; Start reads it.
func NewLive(opts LiveOptions) *Live {
	if opts.Today == nil {
		opts.Today = func() time.Time { return opts.Lint.Today }
	}
	return &Live{opts: opts, v: opts.Vault, early: make(chan struct{}), named: make(chan struct{}), known: make(chan struct{}),
		checked: make(chan struct{}), edges: map[string][]LinkRef{}, tags: newVocab()}
}

// firstCheckGrace is how long a start that can check a note against the
// cached files waits for the first one to be checked before it walks the
// vault and decodes the cache: the note an editor opens first is what its
// user waits for, and on a vault of 100,000 notes the walk and the decode
// take every core for most of a second. An editor opens it within a few
// milliseconds of the start; one that opens none waits this long more
// for the whole vault.
const firstCheckGrace = 100 * time.Millisecond

// Start reads the vault once. When the cache names the vault's files as
// they were, a note can be checked at once against those of them its
// links can name (vault.ResolverFor), while the vault's files are walked
// and the cached entries decoded; else once the walk is done. walked
// runs once the walk is done and the session opened on its files (a
// note checked before is checked again: a file added or deleted since
// the cache was written); then every note's entry is read, through the
// cache when set, which parses only the notes changed since it was
// written, and known runs before the waits for it end (an alias's hint
// on a broken link, links/rests-on-refuted).
func (l *Live) Start(ctx context.Context, walked, known func()) error {
	defer close(l.known)
	var (
		cache  EntryCache
		cached []string // the files the cache names
	)
	if l.opts.Cache != nil {
		cache = l.opts.Cache()
		if cached = cache.Paths(); cached != nil {
			l.mu.Lock()
			l.cached = cached
			l.mu.Unlock()
			close(l.early)
		}
	}
	if cached != nil {
		t := time.NewTimer(firstCheckGrace)
		select {
		case <-l.checked:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	type walkResult struct {
		files []vault.File
		err   error
	}
	walk := make(chan walkResult, 1)
	// The resolver of the files the cache names is made beside the walk
	// and the decoding: it is the walk's when the walk finds the same
	// files, as it mostly does (0.1 s of CPU at 100,000 files, after the
	// walk otherwise).
	var early chan *vault.Resolver
	if cached != nil {
		early = make(chan *vault.Resolver, 1)
		go func() { early <- vault.NewResolver(cached) }()
	}
	go func() {
		if l.opts.BeforeWalk != nil {
			l.opts.BeforeWalk()
		}
		files, _, err := l.v.Files(ctx)
		walk <- walkResult{files, err}
	}()
	if cache != nil {
		cache.Decode() // beside the walk
	}
	wk := <-walk
	if wk.err != nil {
		if cache != nil {
			cache.Close() // Entries, which would, is not called
		}
		l.namedErr, l.knownErr = wk.err, wk.err
		if cached == nil {
			close(l.early)
		}
		close(l.named)
		return wk.err
	}
	files := wk.files
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	var res *vault.Resolver // the session's and the front end's
	if early != nil {
		if r := <-early; slices.Equal(paths, cached) {
			res = r
		}
	}
	if res == nil {
		res = vault.NewResolver(paths)
	}
	session := lint.OpenSession(res, l.opts.Lint)
	session.SetToday(l.opts.Today)
	l.mu.Lock()
	l.session, l.cached = session, nil
	l.setFiles(files, res)
	l.mu.Unlock()
	if cached == nil {
		close(l.early)
	}
	close(l.named)
	if walked != nil {
		walked()
	}
	if l.opts.BeforeRead != nil {
		l.opts.BeforeRead()
	}
	read := func(reuse func(string) (NoteEntry, bool), hashed func(*vault.Note)) ([]NoteEntry, error) {
		// The notes' files are listed apart only here: a start on an
		// unchanged vault reads none (8 MB at 100,000 notes).
		_, notes := vault.SplitFiles(files)
		return l.readEntries(ctx, session, res, notes, reuse, hashed)
	}
	var entries []NoteEntry
	var err error
	if cache != nil {
		entries, err = cache.Entries(ctx, files, read)
	} else {
		entries, err = read(nil, nil)
	}
	if err != nil {
		l.knownErr = err
		return err
	}
	// The entries are kept as they are, not copied into a map of links
	// and a session's table of summaries: at 100,000 notes those copies
	// were a tenth of the start's CPU, most of it faulting in memory.
	l.tags.setAll(entries)
	session.Record(len(entries), func(i int) *lint.Summary { return &entries[i].sum })
	l.mu.Lock()
	l.entries = entries
	l.mu.Unlock()
	if known != nil {
		known()
	}
	return nil
}

// readEntries is the entry of every note of a walk, reusing what reuse
// gives and reading the rest on the vault's workers.
func (l *Live) readEntries(ctx context.Context, session *lint.Session, res *vault.Resolver, notes []vault.File,
	reuse func(string) (NoteEntry, bool), hashed func(*vault.Note)) ([]NoteEntry, error) {
	out := make([]NoteEntry, len(notes))
	have := make([]bool, len(notes))
	var stale []vault.File
	var at []int
	for i, f := range notes {
		if reuse != nil {
			if e, ok := reuse(f.Path); ok {
				out[i], have[i] = e, true
				continue
			}
		}
		stale, at = append(stale, f), append(at, i)
	}
	l.v.Each(ctx, stale, func(k int, n *vault.Note) {
		out[at[k]] = NoteEntry{sum: session.Summarize(n), links: LinksOf(n, res), tags: tagsOf(n)}
		have[at[k]] = true
		if hashed != nil {
			hashed(n)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kept := out[:0]
	for i, e := range out {
		if have[i] { // a note that could not be read has none
			kept = append(kept, e)
		}
	}
	return kept, nil
}

// WaitEarly waits until a note can be checked: against the files the
// cache names, or the walk's (an error if the walk failed first).
func (l *Live) WaitEarly() error {
	<-l.early
	select {
	case <-l.named:
		return l.namedErr
	default:
		return nil
	}
}

// WaitNamed waits for the vault's files to be walked: enough to resolve
// links and check one note.
func (l *Live) WaitNamed() error {
	<-l.named
	return l.namedErr
}

// WaitKnown waits for every note's entry to be read.
func (l *Live) WaitKnown() error {
	<-l.known
	return l.knownErr
}

// KnownDone is closed once every note's entry is read (or the read
// failed): what WaitKnown waits for, for a wait that can give up.
func (l *Live) KnownDone() <-chan struct{} { return l.known }

// CanCheck reports whether a note can be checked now: against the
// files the cache names, or the walk's.
func (l *Live) CanCheck() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.session != nil || l.cached != nil
}

// Check is zk check's findings on n, which may be a note's text as an
// editor holds it. Before the walk is done it is checked against the
// files the cache names; before every note is read, the notes its links
// into a heading or block name are read first, so that it is judged as
// the whole vault would judge it. False when it cannot be checked yet
// (CanCheck).
func (l *Live) Check(n *vault.Note) ([]lint.Finding, bool) {
	l.mu.Lock()
	session, res, cached := l.session, l.res, l.cached
	l.mu.Unlock()
	if session == nil && cached == nil {
		return nil, false
	}
	if session == nil { // the walk is not done: Start's walked checks it again
		session, res = l.firstSession(n, cached)
	}
	l.learnTargets(n, session, res)
	return session.Check(n), true
}

// Answered tells the start that the front end's first answer is out
// (the first note opened checked and its findings sent): it walks the
// vault now, if it waited for that (firstCheckGrace).
func (l *Live) Answered() { l.checkedOnce.Do(func() { close(l.checked) }) }

// firstSession is a check session for n alone before the vault's files
// are walked: its links resolve against those of the cached files they
// can name, and the notes they name are read on demand.
func (l *Live) firstSession(n *vault.Note, cached []string) (*lint.Session, *vault.Resolver) {
	var links []string
	for lk := range n.GraphLinks() { // its frontmatter links too, which zk check checks
		links = append(links, lk.Path)
	}
	res := vault.ResolverFor(cached, n.Path, links)
	session := lint.OpenSession(res, l.opts.Lint)
	session.SetToday(l.opts.Today)
	return session, res
}

// learnTargets reads, before every note is read, the notes that n's
// links into a heading or block name and the session has not read yet,
// so that n's first findings judge those links as the whole vault's
// would.
func (l *Live) learnTargets(n *vault.Note, session *lint.Session, res *vault.Resolver) {
	select {
	case <-l.known:
		return
	default:
	}
	seen := map[string]bool{n.Path: true}
	for lk := range n.LinksAndEmbeds() {
		if lk.Path == "" || lk.Subpath == "" {
			continue
		}
		t, ok := res.Resolve(lk.Path, n.Path)
		if !ok || seen[t] || !vault.IsNotePath(t) {
			continue
		}
		seen[t] = true
		if session.Knows(t) {
			continue
		}
		if tn, err := l.v.ReadNote(t); err == nil {
			session.Learn(tn)
		}
	}
}

// setFiles takes a walk's files and its resolver. The shortest link to
// each note is worked out at the first completion that needs them
// (CompletionLinks), not at the start: most starts are not followed by a
// [[. The caller holds mu.
func (l *Live) setFiles(files []vault.File, res *vault.Resolver) {
	l.res, l.files = res, files
	l.gen++
	l.notes = make([]string, 0, len(files)) // mostly notes: one allocation
	for _, f := range files {
		if f.IsNote() {
			l.notes = append(l.notes, f.Path)
		}
	}
	l.links, l.lower = nil, nil
}

// Resolver resolves links against the vault's files as last walked (nil
// before the walk). It is not changed after: a new walk makes another.
func (l *Live) Resolver() *vault.Resolver {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.res
}

// Notes are the paths of the vault's notes as last walked, sorted; the
// slice is not changed after.
func (l *Live) Notes() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.notes
}

// CompletionLinks are what a [[link]] to each of notes (Notes, of the
// same walk) writes (its shortest link: the name when no other file has
// it, else the path, without .md), and each in lower case for matching
// what is typed; made at the first call after a walk, and not changed
// after.
func (l *Live) CompletionLinks() (links, lower, notes []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.links == nil && len(l.notes) > 0 {
		links, lower := make([]string, len(l.notes)), make([]string, len(l.notes))
		for i, p := range l.notes {
			links[i] = ShortestLink(p, l.res)
			lower[i] = strings.ToLower(links[i])
		}
		l.links, l.lower = links, lower
	}
	if l.links == nil {
		return nil, nil, nil
	}
	return l.links, l.lower, l.notes
}

// ShortestLink is what a [[link]] to p writes: the note's name when no
// other file has it, else its path, both without .md.
func ShortestLink(p string, r *vault.Resolver) string {
	name := strings.TrimSuffix(baseName(p), extOf(p))
	if len(r.Candidates(name)) > 1 {
		return strings.TrimSuffix(p, extOf(p))
	}
	return name
}

func baseName(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

func extOf(p string) string {
	b := baseName(p)
	if i := strings.LastIndexByte(b, '.'); i >= 0 {
		return b[i:]
	}
	return ""
}

// Relations are the relations the vault's Links entries use, beyond
// none, most used first (nil before the walk).
func (l *Live) Relations() []string {
	l.mu.Lock()
	session := l.session
	l.mu.Unlock()
	if session == nil {
		return nil
	}
	return session.Relations()
}

// Tags are the tags the vault's notes use, most used first, then by
// name.
func (l *Live) Tags() []string { return l.tags.words() }

// NotesWithTag are the notes that use tag or a tag nested under it
// (TagUnder), in no order.
func (l *Live) NotesWithTag(tag string) []string { return l.tags.notesWith(tag) }

// Update takes n as the note at its path now (saved, or read again from
// disk): the session's summary of it, its links and its tags. Before
// the walk it does nothing: the start reads the note.
func (l *Live) Update(n *vault.Note) {
	l.mu.Lock()
	session, res := l.session, l.res
	l.mu.Unlock()
	if session == nil {
		return
	}
	session.Update(n)
	l.tags.set(n.Path, tagsOf(n))
	links := LinksOf(n, res)
	l.mu.Lock()
	l.edges[n.Path] = links
	l.mu.Unlock()
}

// UpdateSession takes n as the note at its path for the checks only (a
// note closed in an editor: the file on disk is the note again).
func (l *Live) UpdateSession(n *vault.Note) {
	l.mu.Lock()
	session := l.session
	l.mu.Unlock()
	if session != nil {
		session.Update(n)
	}
}

// eachLinks calls f with each note's links, its entry's or, if it
// changed since the start, those edges holds, until f returns false.
// The caller holds mu.
func (l *Live) eachLinks(f func(from string, links []LinkRef) bool) {
	for i := range l.entries {
		e := &l.entries[i]
		if len(l.edges) > 0 {
			if _, changed := l.edges[e.Path()]; changed {
				continue
			}
		}
		if !f(e.Path(), e.links) {
			return
		}
	}
	for p, links := range l.edges {
		if links != nil && !f(p, links) {
			return
		}
	}
}

// LinksInto are the links into the note at p from every note but those
// skip names (an editor's open notes, whose links it reads from their
// text), in no order.
func (l *Live) LinksInto(p string, skip func(from string) bool) []LinkRef {
	var out []LinkRef
	l.mu.Lock()
	l.eachLinks(func(_ string, rs []LinkRef) bool {
		for _, r := range rs {
			if r.To == p {
				out = append(out, r)
			}
		}
		return true
	})
	l.mu.Unlock()
	return slices.DeleteFunc(out, func(r LinkRef) bool { return skip != nil && skip(r.From) })
}

// Affected are the notes whose findings may change when the notes at ps
// do: those that link to one of them (backlinks), and those that rest
// on one through a chain of Links entries (lint.Session.Dependents); ps
// themselves, and those skip names (notes open in an editor), left out.
func (l *Live) Affected(skip func(string) bool, ps ...string) []string {
	l.mu.Lock()
	session := l.session
	l.mu.Unlock()
	if session == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, p := range ps {
		seen[p] = true
	}
	var out []string
	add := func(q string) {
		if !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
	}
	deps := session.Dependents(ps...)
	changed := make(map[string]bool, len(ps))
	for _, p := range ps {
		changed[p] = true
	}
	l.mu.Lock()
	l.eachLinks(func(from string, rs []LinkRef) bool {
		for _, r := range rs {
			if r.To != "" && changed[r.To] {
				add(from)
				break
			}
		}
		return true
	})
	l.mu.Unlock()
	for _, q := range deps {
		add(q)
	}
	return slices.DeleteFunc(out, func(q string) bool { return skip != nil && skip(q) })
}

// Recheck is zk check's findings on the note at p as it is on disk; n
// is nil when it cannot be read (deleted), and ok false when it was not
// checked.
func (l *Live) Recheck(p string) (n *vault.Note, fs []lint.Finding, ok bool) {
	n, err := l.v.ReadNote(p)
	if err != nil {
		return nil, nil, false
	}
	fs, ok = l.Check(n)
	return n, fs, ok
}

// RecheckNotes is Recheck of each of ps, checked together
// (lint.Session.CheckNotes: the chains of links/rests-on-refuted found
// once for them all, where each walked its own): each note read, its
// findings, and ok false when the notes were not checked (CanCheck). A
// note that cannot be read (deleted) is a nil note.
func (l *Live) RecheckNotes(ps []string) (ns []*vault.Note, fss [][]lint.Finding, ok bool) {
	l.mu.Lock()
	session, res := l.session, l.res
	l.mu.Unlock()
	if session == nil { // the walk is not done: one at a time, as Check does then
		ns, fss = make([]*vault.Note, len(ps)), make([][]lint.Finding, len(ps))
		for i, p := range ps {
			if ns[i], fss[i], ok = l.Recheck(p); ns[i] != nil && !ok {
				return nil, nil, false
			}
		}
		return ns, fss, true
	}
	ns = make([]*vault.Note, len(ps))
	read := make([]*vault.Note, 0, len(ps))
	for i, p := range ps {
		n, err := l.v.ReadNote(p)
		if err != nil {
			continue
		}
		l.learnTargets(n, session, res)
		ns[i] = n
		read = append(read, n)
	}
	checked := session.CheckNotes(read)
	fss = make([][]lint.Finding, len(ps))
	k := 0
	for i, n := range ns {
		if n != nil {
			fss[i] = checked[k]
			k++
		}
	}
	return ns, fss, true
}

// FileChanges are files changed outside the front end, by vault path.
type FileChanges struct {
	Created, Changed, Deleted []string
}

// FilesChanged takes files changed outside the front end: a new walk,
// the notes deleted forgotten, and each note changed that skip does not
// name (an editor's open notes, which it holds) read again. It returns
// the notes to check again that the walk alone tells: those that linked
// to or rested on a note deleted, and those whose broken links a file
// created mends; and the notes changed, read again, whose dependents
// (Affected) are to be checked again too.
func (l *Live) FilesChanged(ctx context.Context, c FileChanges, skip func(string) bool) (recheck, reread []string, err error) {
	files, _, err := l.v.Files(ctx)
	if err != nil {
		return nil, nil, err
	}
	return l.filesChanged(c, skip, files)
}

// Walk is a walk of the vault's files, made for TakeWalk.
type Walk struct {
	files []vault.File
	gen   uint64 // the walks taken before it
}

// Rescan walks the vault for TakeWalk, which takes the files created,
// deleted or changed since: for a front end whose client does not report
// changes on disk (Neovim on Linux; eglot 1.9 none of a file renamed
// within its folder or of a folder made after the start), to which a
// note created outside the editor stayed unknown for the session, every
// link to it broken. The walk takes nothing, so that it can run beside
// the front end's other work (a second of it at 100,000 notes).
func (l *Live) Rescan(ctx context.Context) (Walk, error) {
	l.mu.Lock()
	gen := l.gen
	l.mu.Unlock()
	files, _, err := l.v.Files(ctx)
	return Walk{files: files, gen: gen}, err
}

// TakeWalk takes, as FilesChanged does, the files that w finds created,
// deleted or changed (by their stamps, vault.File.SameStat) since the
// walk before it, and returns what FilesChanged returns and the changes
// found. A walk taken since w began (FilesChanged's) is as new as w: w
// is dropped then, with no changes. The caller runs one TakeWalk or
// FilesChanged at a time.
func (l *Live) TakeWalk(w Walk, skip func(string) bool) (recheck, reread []string, c FileChanges, err error) {
	l.mu.Lock()
	last, gen := l.files, l.gen
	l.mu.Unlock()
	if gen != w.gen {
		return nil, nil, c, nil
	}
	was := make(map[string]vault.File, len(last))
	for _, f := range last {
		was[f.Path] = f
	}
	for _, f := range w.files {
		old, ok := was[f.Path]
		delete(was, f.Path)
		switch {
		case !ok:
			c.Created = append(c.Created, f.Path)
			c.Changed = append(c.Changed, f.Path)
		case !old.SameStat(f):
			c.Changed = append(c.Changed, f.Path)
		}
	}
	for p := range was {
		c.Deleted = append(c.Deleted, p)
	}
	slices.Sort(c.Deleted)
	if len(c.Created)+len(c.Changed)+len(c.Deleted) == 0 {
		return nil, nil, c, nil
	}
	recheck, reread, err = l.filesChanged(c, skip, w.files)
	return recheck, reread, c, err
}

// filesChanged is FilesChanged with the new walk's files.
func (l *Live) filesChanged(c FileChanges, skip func(string) bool, files []vault.File) (recheck, reread []string, err error) {
	// The notes deleted are still in the graph: their dependents are
	// known only before the new walk forgets them. A path that is not a
	// note's may be a folder's, deleted with its notes: a client may
	// tell of the folder and not of each note in it.
	l.mu.Lock()
	known := l.notes // sorted
	l.mu.Unlock()
	var deleted []string
	for _, p := range c.Deleted {
		if vault.IsNotePath(p) {
			deleted = append(deleted, p)
			continue
		}
		i, _ := slices.BinarySearch(known, p+"/")
		for ; i < len(known) && strings.HasPrefix(known[i], p+"/"); i++ {
			deleted = append(deleted, known[i])
		}
	}
	var gone []string
	if len(deleted) > 0 {
		gone = l.Affected(skip, deleted...)
	}
	res := vault.ResolverOf(files)
	l.mu.Lock()
	session := l.session
	l.mu.Unlock()
	session.SetWalk(files, res)
	l.mu.Lock()
	l.setFiles(files, res)
	reached := l.reachNew(c.Created, res)
	for _, p := range deleted {
		if skip == nil || !skip(p) {
			l.edges[p] = nil
			l.tags.set(p, nil)
		}
	}
	l.mu.Unlock()
	for _, p := range c.Changed {
		if !vault.IsNotePath(p) || (skip != nil && skip(p)) {
			continue
		}
		reread = append(reread, p) // its dependents too, even if it cannot be read now
		if n, err := l.v.ReadNote(p); err == nil {
			l.Update(n)
		}
	}
	reached = slices.DeleteFunc(reached, func(q string) bool { return skip != nil && skip(q) })
	return append(gone, reached...), reread, nil
}

// reachNew resolves again, with res, the links that reached no file
// before the files created: the notes whose links now reach one are
// returned (their broken links are mended). The caller holds mu.
func (l *Live) reachNew(createdPaths []string, res *vault.Resolver) []string {
	if len(createdPaths) == 0 {
		return nil
	}
	created := map[string]bool{}
	for _, p := range createdPaths {
		created[p] = true
	}
	var out []string
	l.eachLinks(func(q string, rs []LinkRef) bool {
		mended := false
		for i, r := range rs {
			if r.To != "" {
				continue
			}
			if t, ok := res.Resolve(r.Path, q); ok && created[t] {
				rs[i].To, rs[i].Path = t, ""
				mended = true
			}
		}
		if mended {
			out = append(out, q)
		}
		return true
	})
	return out
}

// PlanRename is the edits that move the file at p to newPath with every
// link to it rewritten, and the note's H1 that is its name renamed with
// it, as zk mv plans them (vault/move), the vault's files walked now. A
// plan with links it cannot rewrite (Unwritable) is returned as it is,
// for the front end to refuse.
func (l *Live) PlanRename(ctx context.Context, p, newPath string) (*move.Plan, error) {
	files, _, err := l.v.Files(ctx)
	if err != nil {
		return nil, err
	}
	if err := l.v.Inside(newPath); err != nil {
		return nil, planErr(err)
	}
	f, err := move.ReadFormat(l.v)
	if err != nil {
		return nil, err
	}
	plan, err := move.Move(ctx, l.v, files, p, newPath, f)
	return plan, planErr(err)
}

// PlanHeadingRename is the edits that rename the heading of the note at
// p to newName with every link to it rewritten, as zk mv plans them.
func (l *Live) PlanHeadingRename(ctx context.Context, p, heading, newName string) (*move.Plan, error) {
	files, _, err := l.v.Files(ctx)
	if err != nil {
		return nil, err
	}
	plan, err := move.Heading(ctx, l.v, files, p, heading, newName)
	return plan, planErr(err)
}

// planErr is a rename's refusal in the terms a front end answers in: a
// new name that no link can write, or that leaves the vault, a
// UsageError; a name another file holds, a RefusedError; else err.
func planErr(err error) error {
	for _, e := range []error{move.ErrBadName, move.ErrDotPath, move.ErrNoHeading, vault.ErrOutsideVault} {
		if errors.Is(err, e) {
			return usage(err)
		}
	}
	if errors.Is(err, move.ErrExists) || errors.Is(err, move.ErrTwin) {
		return &RefusedError{Err: err}
	}
	return err
}
