package index

import (
	"unicode"
	"unicode/utf8"

	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	vregexp "github.com/blevesearch/vellum/regexp"

	"github.com/zk-claims/zk/internal/lazyre"
	"github.com/zk-claims/zk/vault"
)

// ErrQuery wraps a query that does not parse or names an unknown field.
var ErrQuery = errors.New("bad query")

// Fields are the field names a query may use.
var Fields = []string{FieldClaim, FieldScope, FieldEvidence, FieldBody, FieldProp, FieldTitle, FieldTag, FieldLinks, FieldPath, FieldTended, FieldLang}

// Request is one search.
type Request struct {
	// Query is in bleve's query-string syntax: words, "phrases", +must,
	// -not, field:word, prefix*, fuzzy~, /regexp/, tended:>"2026-01-01".
	Query string
	// Limit is the most hits returned (the total is still counted).
	Limit int
	// MaxUpdate is the most changed notes the search will index itself
	// before it answers; beyond that it answers from the index as it is and
	// reports it stale. Negative does not look at the vault at all.
	MaxUpdate int
	// CheckBudget bounds how long the search stats the notes (0 means
	// DefaultCheckBudget): past it, the search knows only what the
	// folders say.
	CheckBudget time.Duration
	// MaxCheckNotes is the largest index (in notes) for which the search
	// stats every note, not only every folder; 0 means
	// DefaultMaxCheckNotes.
	MaxCheckNotes int
	// WaitCheckNotes is the largest index for which the search waits for
	// the stat of every note (up to CheckBudget); above it, the stats run
	// while the query does and the answer waits at most CheckGrace for
	// them once it is ready. 0 means DefaultWaitCheckNotes.
	WaitCheckNotes int
}

// DefaultCheckBudget bounds the stat of every note, so a slow disk never
// makes a search hang (a vault over DefaultWaitCheckNotes waits only
// CheckGrace for it).
const DefaultCheckBudget = time.Second

// DefaultMaxCheckNotes is the largest vault whose every note a search
// stats. The folders are stat-ed at any size (a folder's time moves when
// a note in it is added, removed or renamed, or saved by an editor that
// writes a new file and renames it); an edit written in place into an
// existing file moves only that file's time, which only a stat of every
// note sees: about 1 µs a note on an idle machine, but on a loaded one
// the stats take the CPU the query needs (at 10,000 generated notes,
// load average 30: 1.11 s with them against 0.59 s without, rg -l 1.14
// s), and the folders are what a search past this size relies on.
const DefaultMaxCheckNotes = 5_000

// DefaultWaitCheckNotes is the largest vault for which a search always
// waits for the stat of every note: a millisecond or two.
const DefaultWaitCheckNotes = 2_000

// CheckGrace is how long a search of a larger vault waits, once its
// answer is ready, for the stat of every note that ran beside it: the
// check costs the answer no more than this, and when it is not done the
// answer says so ("checked": false).
const CheckGrace = 5 * time.Millisecond

// Result is a search's answer, best hit first.
type Result struct {
	Query string
	Total uint64
	Hits  []Hit
	// Notes is how many notes the index searched.
	Notes int
	// Checked is set when the search compared every note of the vault
	// with the index: then Stale is all it may be missing.
	Checked bool
	// Stale counts the notes changed since the index was last updated and
	// not indexed by this search: hits may miss or misplace them.
	Stale int
	// Unchecked, when Checked is not set, says what the search did not
	// compare (nothing at all with MaxUpdate < 0): the index may be
	// staler than Stale says.
	Unchecked string
	// Updated is what an update run by this search did, if one ran.
	Updated *Stats
}

// Hit is one note that matches.
type Hit struct {
	Path  string
	Title string
	// Section is the title of the heading over the best match, "" for the
	// note's title or text before any heading.
	Section  string
	Score    float64
	Fragment Fragment
}

// Fragment is a short excerpt of a note around its best match.
type Fragment struct {
	Text string
	// Marks are the byte ranges of Text that matched the query.
	Marks [][2]int
}

// Marked is the fragment's text with open and close around each match,
// the text passed through esc (printable, for a terminal) when set.
func (f Fragment) Marked(open, close string, esc func(string) string) string {
	if esc == nil {
		esc = func(s string) string { return s }
	}
	var b strings.Builder
	at := 0
	for _, m := range f.Marks {
		if m[0] < at || m[1] > len(f.Text) {
			continue
		}
		b.WriteString(esc(f.Text[at:m[0]]))
		b.WriteString(open)
		b.WriteString(esc(f.Text[m[0]:m[1]]))
		b.WriteString(close)
		at = m[1]
	}
	b.WriteString(esc(f.Text[at:]))
	return b.String()
}

// fragmentWidth is about how many bytes of text a fragment shows.
const fragmentWidth = 160

// Search answers a query from the vault's index. The vault is compared
// with the index while the query runs (checkFresh: the folders, and up to
// Request.MaxCheckNotes every note); if few notes changed
// (Request.MaxUpdate), the index is brought up to date and the query run
// again, else the result says what it may be missing, or what it did not
// compare. An index that is missing is built; a damaged one is moved
// aside and rebuilt.
func Search(ctx context.Context, v *vault.Vault, opts Options, req Request) (*Result, error) {
	if _, err := parseQuery(req.Query, nil, nil); err != nil {
		return nil, err // before the index is even opened
	}
	dir, err := opts.dir(v)
	if err != nil {
		return nil, err
	}
	s, err := openStore(dir, v.Dir, false)
	if err != nil {
		return nil, err
	}
	s.tended, s.langs = opts.TendedKey, newLangFolders(opts.Languages).key()
	res := &Result{Query: req.Query}
	for attempt := 0; ; attempt++ {
		err := s.answer(ctx, v, opts, req, res)
		var de *DamagedError
		if err == nil || !errors.As(err, &de) || attempt > 0 {
			return res, err
		}
		// Damaged: rebuild from the notes and answer from the new index.
		st, err := s.repair(ctx, v, opts, de)
		if err != nil {
			return res, err
		}
		res.Updated = &st
	}
}

// answer runs the query on the live generation while it checks the
// vault for changes (checkFresh), refreshes the index and runs the query
// again if notes changed and that is cheap, then cuts the fragments from
// the notes.
func (s *store) answer(ctx context.Context, v *vault.Vault, opts Options, req Request, res *Result) error {
	r, err := s.openCurrent(ctx, v, opts, res)
	if err != nil {
		return err
	}
	defer func() { r.close() }()
	type checked struct {
		f   freshness
		err error
	}
	var fresh chan checked
	stop := make(chan struct{}) // closed when the stat of every note may stop
	var stopOnce sync.Once
	stopNotes := func() { stopOnce.Do(func() { close(stop) }) }
	defer stopNotes()
	if req.MaxUpdate >= 0 {
		fresh = make(chan checked, 1)
		maxNotes := cmp.Or(req.MaxCheckNotes, DefaultMaxCheckNotes)
		deadline := time.Now().Add(cmp.Or(req.CheckBudget, DefaultCheckBudget))
		go func() {
			f, err := r.checkFresh(ctx, v, maxNotes, deadline, stop)
			fresh <- checked{f, err}
		}()
	}
	out, err := r.query(ctx, req.Query, req.Limit)
	var hits []Hit
	if err == nil {
		hits = r.hits(v, out) // while the check runs
	}
	if fresh != nil {
		if r.folders.Notes > cmp.Or(req.WaitCheckNotes, DefaultWaitCheckNotes) {
			grace := time.AfterFunc(CheckGrace, stopNotes)
			defer grace.Stop()
		}
		c := <-fresh // checkFresh uses r: wait for it, even after an error
		if err == nil {
			err = c.err
		}
		if err == nil {
			res.Checked, res.Unchecked, res.Stale = c.f.complete, c.f.why, 0
			d := c.f.d
			if len(d.racy) > 0 && len(d.racy) <= req.MaxUpdate {
				m, merr := r.manifest()
				if merr != nil {
					return merr
				}
				d = d.unracy(m, v)
			}
			if changed := d.count(); changed > 0 {
				fresh, err := s.refresh(ctx, v, opts, req, changed, r, res)
				if err != nil {
					return err
				}
				if fresh != nil {
					r = fresh
					if out, err = r.query(ctx, req.Query, req.Limit); err == nil {
						hits = r.hits(v, out)
					}
				}
			}
		}
	} else {
		res.Unchecked = "--no-update: the vault was not compared with the index"
	}
	if err != nil {
		return err
	}
	res.Total = out.Total
	res.Notes = r.folders.Notes
	res.Hits = hits
	return nil
}

// refresh updates the index when at most req.MaxUpdate notes changed and
// no other zk holds it, and returns the reopened generation; nil means
// the search answers from r and res.Stale says how far behind it is.
func (s *store) refresh(ctx context.Context, v *vault.Vault, opts Options, req Request, changed int, r *reader, res *Result) (*reader, error) {
	if changed > req.MaxUpdate {
		res.Stale = changed
		return nil, nil
	}
	unlock, err := s.lock(ctx, 0)
	if errors.Is(err, ErrBusy) {
		res.Stale = changed // another zk is updating it right now
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer unlock()
	r.close()
	st, err := s.update(ctx, v, opts, "")
	if err != nil {
		return nil, err
	}
	if res.Updated == nil || !res.Updated.Built { // a rebuild is the news
		res.Updated = &st
	}
	return s.openCurrent(ctx, v, opts, res)
}

// repair rebuilds a damaged generation under the writer lock, unless
// another zk replaced it meanwhile.
func (s *store) repair(ctx context.Context, v *vault.Vault, opts Options, de *DamagedError) (Stats, error) {
	unlock, err := s.lock(ctx, opts.Wait)
	if err != nil {
		return Stats{}, err
	}
	defer unlock()
	if gen, _ := s.current(); gen == "" || s.path(gen) != de.Dir {
		return s.update(ctx, v, opts, "") // another zk replaced it meanwhile
	}
	return s.rebuild(ctx, v, opts, de)
}

// reader is an open, checked, read-only generation, its folder record
// and, read when needed, its manifest.
type reader struct {
	*generation
	folders *folderRecord

	once sync.Once
	m    *manifest
	mErr error
}

// manifest decodes the generation's manifest, once: a search of a vault
// that did not change never needs it (at 100,000 notes it is 7 MB).
func (r *reader) manifest() (*manifest, error) {
	r.once.Do(func() { r.m, r.mErr = r.generation.meta() })
	return r.m, r.mErr
}

// openCurrent opens the live generation read-only, building the index
// first when there is none yet (or it is foreign or of another schema).
func (s *store) openCurrent(ctx context.Context, v *vault.Vault, opts Options, res *Result) (*reader, error) {
	for attempt := 0; ; attempt++ {
		gen, stale := s.current()
		if gen == "" || stale != "" {
			if attempt > 0 {
				return nil, fmt.Errorf("no usable index after a rebuild: %s", stale)
			}
			st, err := s.rebuildLocked(ctx, v, opts)
			if err != nil {
				return nil, err
			}
			res.Updated = &st
			continue
		}
		g, err := openGeneration(s.path(gen), true, opts.Wait)
		if errors.Is(err, fs.ErrNotExist) {
			if attempt < 2 {
				continue // a writer replaced the generation between the two reads
			}
			err = &DamagedError{Dir: s.path(gen), Err: err} // CURRENT names nothing
		}
		if err != nil {
			return nil, err
		}
		rec, err := g.folderRecord()
		if err != nil {
			g.close()
			return nil, err
		}
		return &reader{generation: g, folders: rec}, nil
	}
}

// rebuildLocked takes the writer lock and updates, which builds the
// index when the live generation is missing or unusable.
func (s *store) rebuildLocked(ctx context.Context, v *vault.Vault, opts Options) (Stats, error) {
	unlock, err := s.lock(ctx, opts.Wait)
	if err != nil {
		return Stats{}, err
	}
	defer unlock()
	return s.update(ctx, v, opts, "")
}

// query runs a parsed query, asking for the term locations that the
// fragments are cut around.
func (r *reader) query(ctx context.Context, qs string, limit int) (*bleve.SearchResult, error) {
	if limit <= 0 {
		limit = 10
	}
	langs, err := r.langs()
	if err != nil {
		return nil, err
	}
	q, err := parseQuery(qs, langs, func(w string) []string { return r.attested(ctx, w, langs) })
	if err != nil {
		return nil, err
	}
	sr := bleve.NewSearchRequestOptions(q, limit, 0, false)
	sr.Fields = []string{FieldTitle, fieldHash}
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	out, err := r.search(qctx, sr)
	if err == nil {
		err = r.locate(qctx, q, out)
	}
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return nil, fmt.Errorf("%w: the query ran over %v (a phrase of very common words?)", ErrQuery, queryTimeout)
	}
	return out, err
}

// langs are the languages of the notes the index holds, read from the
// names of the title fields (every note has a title): a query is
// analysed for each of them.
func (r *reader) langs() ([]string, error) {
	var names []string
	err := r.damaged(func() error {
		var err error
		names, err = r.idx.Fields()
		return err
	})
	if err != nil {
		return nil, err
	}
	var langs []string
	for _, n := range names {
		if code, ok := strings.CutPrefix(n, FieldTitle+"_"); ok {
			if _, known := languages[code]; known {
				langs = append(langs, code)
			}
		}
	}
	slices.Sort(langs)
	return langs, nil
}

// attested are the languages among langs whose notes write word as it
// is (accents and case aside), found from the unstemmed twins that
// stemTwin keeps and from the words no stemmer changed. A word no note
// writes as it is gives nil: it is then read in every language.
func (r *reader) attested(ctx context.Context, word string, langs []string) []string {
	for _, c := range norm.NFC.String(word) {
		if !unicode.IsLetter(c) {
			return nil // not one word: read it every way
		}
	}
	var out []string
	err := r.damaged(func() error {
		ir, err := r.idx.Advanced()
		if err != nil {
			return err
		}
		rd, err := ir.Reader()
		if err != nil {
			return err
		}
		defer rd.Close()
		// Term dictionary look-ups, not searches: 10 fields × 2 forms per
		// language cost microseconds.
		has := func(term, field string) bool {
			tfr, err := rd.TermFieldReader(ctx, []byte(term), field, false, false, false)
			if err != nil {
				return false
			}
			defer tfr.Close()
			return tfr.Count() > 0
		}
	langs:
		for _, code := range langs {
			if languages[code].cjk {
				continue
			}
			// The word as this language writes its words, short of
			// stemming: Russian does not fold й, which a fold for every
			// language made и, so a Russian note was not among those that
			// write "файлів" when an English note held it too, and the word
			// was read in English only.
			w := asWritten(termAnalyzer(code), word)
			for _, f := range textFields {
				if has(w, langField(f, code)) || has(string(twinMark)+w, langField(f, code)) {
					out = append(out, code)
					continue langs
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil // read it in every language; the search itself reports damage
	}
	return out
}

// locate fills in the term locations of the hits shown, by running the
// query again on just those notes: asking for locations in the first run
// would gather them for every matching note (2.6× the cost of a common
// word at 10k notes) to keep ten.
func (r *reader) locate(ctx context.Context, q query.Query, out *bleve.SearchResult) error {
	if len(out.Hits) == 0 {
		return nil
	}
	ids := make([]string, len(out.Hits))
	for i, h := range out.Hits {
		ids[i] = h.ID
	}
	sr := bleve.NewSearchRequestOptions(query.NewConjunctionQuery([]query.Query{query.NewDocIDQuery(ids), q}), len(ids), 0, false)
	sr.IncludeLocations = true
	again, err := r.search(ctx, sr)
	if err != nil {
		return err
	}
	locs := make(map[string]search.FieldTermLocationMap, len(again.Hits))
	for _, h := range again.Hits {
		locs[h.ID] = h.Locations
	}
	for _, h := range out.Hits {
		h.Locations = locs[h.ID]
	}
	return nil
}

// queryTimeout bounds one query: a phrase of very common words costs time
// linear in the notes holding them all.
const queryTimeout = 10 * time.Second

// hits reads each hit's note and cuts its fragment, but only from a note
// whose bytes are the ones indexed (the hash stored with its document):
// the offsets bleve returns are into that text.
func (r *reader) hits(v *vault.Vault, out *bleve.SearchResult) []Hit {
	p := vault.NewParser()
	hits := make([]Hit, 0, len(out.Hits))
	for _, h := range out.Hits {
		hit := Hit{Path: h.ID, Score: h.Score}
		if t, ok := h.Fields[FieldTitle].(string); ok {
			hit.Title = t
		}
		if n, _ := v.LoadNote(p, vault.File{Path: h.ID}); n != nil {
			if hash, ok := h.Fields[fieldHash].(string); ok && hash == hashText(contentHash(n.Src)) {
				hit.Section, hit.Fragment = bestFragment(splitText(n), baseFields(h.Locations))
			}
		}
		hits = append(hits, hit)
	}
	return hits
}

// baseFields files the term locations of a language's copy of a field
// (body_fr) under the field (body).
func baseFields(locs search.FieldTermLocationMap) search.FieldTermLocationMap {
	out := search.FieldTermLocationMap{}
	for f, terms := range locs {
		if i := strings.LastIndexByte(f, '_'); i > 0 {
			f = f[:i]
		}
		if out[f] == nil {
			out[f] = search.TermLocationMap{}
		}
		for term, ls := range terms {
			out[f][term] = append(out[f][term], ls...)
		}
	}
	return out
}

// MaxQuery bounds a query's length before bleve's parser sees it: 100 KB
// of "(" took it 12.6 s and 290 MB, 5 MB of words past 120 s and 1.8 GB
// (issue 23), and no one types a query of pages.
const MaxQuery = 4 << 10

// langFilter finds lang:xx words in a query: they name the languages the
// query is analysed for (and the notes it finds).
var langFilter = lazyre.New(`(^|\s)\+?lang:([^\s"]+)`)

// parseQuery parses the query string and maps zk's fields onto the
// index: a text word is analysed for each of langs (nil: English only,
// to check the syntax), or for those lang: names.
func parseQuery(s string, langs []string, attested func(word string) []string) (query.Query, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: empty query", ErrQuery)
	}
	if len(s) > MaxQuery {
		return nil, fmt.Errorf("%w: %d bytes, over the %d a query may have", ErrQuery, len(s), MaxQuery)
	}
	if err := plainText(s); err != nil {
		return nil, err
	}
	var only []string
	for _, m := range langFilter().FindAllStringSubmatch(s, -1) {
		code, ok := normLang(m[2])
		if !ok {
			return nil, fmt.Errorf("%w: no language %q (zk analyses %s)", ErrQuery, m[2], strings.Join(langCodes(), ", "))
		}
		only = append(only, code)
	}
	rest := strings.TrimSpace(langFilter().ReplaceAllString(s, " "))
	// bleve's parser reads a run of digits as a number, with
	// strconv.ParseFloat, which takes no fullwidth digit ("０１２" failed to
	// parse): as ASCII, the word is what the notes' ０１２ is indexed as.
	rest = strings.Map(func(r rune) rune {
		if r >= '０' && r <= '９' {
			return r - '０' + '0'
		}
		return r
	}, rest)
	if langs == nil {
		langs = []string{"en"}
	}
	if only != nil {
		langs = only
	}
	var filter query.Query
	if only != nil {
		var qs []query.Query
		for _, code := range only {
			tq := query.NewTermQuery(code)
			tq.SetField(FieldLang)
			qs = append(qs, tq)
		}
		filter = query.NewDisjunctionQuery(qs)
		if rest == "" {
			return filter, nil
		}
	}
	q, err := bleve.NewQueryStringQuery(rest).Parse()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrQuery, whereQueryFails(rest, err))
	}
	if only != nil {
		attested = nil // the languages are named
	}
	if q, err = rewrite(q, langs, attested); err != nil {
		return nil, err
	}
	if err := searchable(q); err != nil {
		return nil, err
	}
	if filter != nil {
		q = query.NewConjunctionQuery([]query.Query{q, filter})
	}
	s = rest
	if title := plainQuery(s); title != "" {
		// A note whose whole title is the query leads: it is the note
		// about that, whatever the notes that mention it often say.
		exact := query.NewMatchQuery(title)
		exact.SetField(fieldTitleWhole)
		exact.SetBoost(exactTitleBoost)
		q = query.NewBooleanQuery([]query.Query{q}, []query.Query{exact}, nil)
	}
	return q, nil
}

// plainText refuses a query holding a control character or bytes that
// are not UTF-8: no word the analysers keep and no path zk lists holds
// one, and bleve's parser took "path:\x00" and matched no note without a
// reason. Tab and line ends separate words, as spaces do.
func plainText(s string) error {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return fmt.Errorf("%w: the query is not UTF-8 (at byte %d)", ErrQuery, i)
		case unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r':
			return fmt.Errorf("%w: the query holds a control character (%U at byte %d), which no note's words or paths hold", ErrQuery, r, i)
		}
	}
	return nil
}

// plainQuery is the query as a title would be written, when it is only
// words or one quoted phrase: no fields, operators, wildcards or boosts.
// "" when it is more than that.
func plainQuery(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 1 && strings.HasPrefix(s, `"`) && strings.HasSuffix(s, `"`) {
		s = s[1 : len(s)-1]
	}
	if s == "" || strings.ContainsAny(s, `:*?~^/\"`) {
		return ""
	}
	for _, w := range strings.Fields(s) {
		if w[0] == '+' || w[0] == '-' {
			return ""
		}
	}
	return strings.Join(strings.Fields(s), " ")
}

// whereQueryFails adds to a query's parse error where it fails: bleve's
// parser says only "syntax error". The query is split into its clauses
// (on white space outside quotes), and the first clause that does not
// parse on its own is named with its column (in characters, from 1).
func whereQueryFails(s string, err error) error {
	type clause struct {
		text string
		col  int
	}
	var clauses []clause
	var b strings.Builder
	col, start, quote, quoteCol, escaped := 0, 0, false, 0, false
	flush := func() {
		if b.Len() > 0 {
			clauses = append(clauses, clause{b.String(), start})
			b.Reset()
		}
	}
	for _, r := range s {
		col++
		switch {
		case escaped:
			escaped = false
		case r == '\\':
			escaped = true
		case r == '"':
			if !quote {
				quoteCol = col
			}
			quote = !quote
		case !quote && (r == ' ' || r == '\t' || r == '\n'):
			flush()
			continue
		}
		if b.Len() == 0 {
			start = col
		}
		b.WriteRune(r)
	}
	flush()
	if quote {
		return fmt.Errorf("the quote at column %d is never closed", quoteCol)
	}
	for _, c := range clauses {
		if _, cerr := bleve.NewQueryStringQuery(c.text).Parse(); cerr != nil {
			return fmt.Errorf("%v at column %d, in %q%s", cerr, c.col, c.text, clauseHint(c.text))
		}
	}
	return err
}

// clauseHint says what a clause that does not parse is missing, for the
// shapes a user writes by mistake.
func clauseHint(c string) string {
	switch {
	case c == "+" || c == "-":
		return ": + and - go right before a word (+must -not)"
	case strings.HasSuffix(c, ":") || strings.HasSuffix(c, ":>") || strings.HasSuffix(c, ":<") || strings.HasSuffix(c, ":>=") || strings.HasSuffix(c, ":<="):
		return ": a field needs a value (title:word, tended:>\"2026-01-01\")"
	case strings.Count(c, ":") > 1:
		return ": one field per word; quote a value that holds a colon (path:\"a:b.md\")"
	case strings.Contains(c, "/") && strings.Contains(c, "^"):
		// bleve's lexer reads ^ as a boost inside a /regexp/ too, and
		// /^a/ fails on an index out of range: the message says nothing.
		return ": ^ is a boost (word^2), inside a /regexp/ too; a regexp matches a whole word already, so it needs no ^ or $"
	}
	return ""
}

// rewrite walks a parsed query: a word without a field searches every
// text field; a tag may be written with its '#'; a field zk does not
// have is an error rather than a silent empty answer.
func rewrite(q query.Query, langs []string, attested func(string) []string) (query.Query, error) {
	var err error
	switch q := q.(type) {
	case *query.BooleanQuery:
		for _, sub := range []*query.Query{&q.Must, &q.Should, &q.MustNot} {
			if *sub != nil {
				if *sub, err = rewrite(*sub, langs, attested); err != nil {
					return nil, err
				}
			}
		}
		return q, nil
	case *query.ConjunctionQuery:
		for i := range q.Conjuncts {
			if q.Conjuncts[i], err = rewrite(q.Conjuncts[i], langs, attested); err != nil {
				return nil, err
			}
		}
		return q, nil
	case *query.DisjunctionQuery:
		for i := range q.Disjuncts {
			if q.Disjuncts[i], err = rewrite(q.Disjuncts[i], langs, attested); err != nil {
				return nil, err
			}
		}
		return q, nil
	case query.FieldableQuery:
		if f := q.Field(); f == "" || slices.Contains(textFields, f) {
			if err := hasWord(q); err != nil {
				return nil, err
			}
		}
		switch f := q.Field(); {
		case f == "":
			return inLanguages(q, textFields, readIn(q, langs, attested)), nil
		case slices.Contains(textFields, f):
			return inLanguages(q, []string{f}, readIn(q, langs, attested)), nil
		case f == FieldLang:
			return q, nil
		case f == FieldTag || f == FieldLinks || f == FieldPath:
			return wholeValue(q), nil
		case !isField(f):
			return nil, fmt.Errorf("%w: no field %q (fields: %s)", ErrQuery, f, strings.Join(Fields, ", "))
		}
		return q, nil
	}
	return q, nil
}

// searchable refuses what bleve's parser takes and its searchers do not:
// a fuzziness past searcher.MaxFuzziness (word~3) or below 0, a regexp
// that vellum, which matches it against the index's terms, cannot compile
// (/(/, /a\b/, /a*?/). Left to the search, each failed inside the index,
// which took the failure for damage: the index was moved aside and
// rebuilt from the notes (15 s at 6,280 notes, at every such query), and
// the answer said it was damaged.
func searchable(q query.Query) error {
	fuzzy := func(word string, f int) error {
		if f < 0 || f > searcher.MaxFuzziness {
			return fmt.Errorf("%w: %s~%d: a word matches at most %d edits away (word~1, word~2)", ErrQuery, word, f, searcher.MaxFuzziness)
		}
		return nil
	}
	switch q := q.(type) {
	case *query.BooleanQuery:
		for _, sub := range []query.Query{q.Must, q.Should, q.MustNot} {
			if sub != nil {
				if err := searchable(sub); err != nil {
					return err
				}
			}
		}
	case *query.ConjunctionQuery:
		for _, sub := range q.Conjuncts {
			if err := searchable(sub); err != nil {
				return err
			}
		}
	case *query.DisjunctionQuery:
		for _, sub := range q.Disjuncts {
			if err := searchable(sub); err != nil {
				return err
			}
		}
	case *query.MatchQuery:
		return fuzzy(q.Match, q.Fuzziness)
	case *query.MatchPhraseQuery:
		return fuzzy(q.MatchPhrase, q.Fuzziness)
	case *query.FuzzyQuery:
		return fuzzy(q.Term, q.Fuzziness)
	case *query.RegexpQuery:
		// As bleve's RegexpQuery hands it to the index: a leading ^
		// dropped, compiled as scorch compiles it (vellum's regexp.New is
		// its syntax.Parse and NewParsedWithLimit).
		if _, err := vregexp.New(strings.TrimPrefix(q.Regexp, "^")); err != nil {
			return fmt.Errorf("%w: /%s/: %v", ErrQuery, q.Regexp, err)
		}
	}
	return nil
}

// hasWord refuses a word or phrase of a text field that holds no letter
// or digit: the analysers drop punctuation, so it would match no note,
// and bleve's parser takes it without complaint ("claim:(" answered no
// hits and no reason).
func hasWord(q query.FieldableQuery) error {
	const grammar = "a word is optional unless written +word (must) or -word (must not); quote a word to search it as written"
	var text string
	switch q := q.(type) {
	case *query.MatchQuery:
		text = q.Match
		// Lucene's grouping and operators are words to bleve's parser:
		// "a AND b" read as "a or b", "claim:(a b)" searched b everywhere.
		switch {
		case text == "AND" || text == "OR" || text == "NOT":
			return fmt.Errorf("%w: the query language has no %s: %s", ErrQuery, text, grammar)
		case strings.HasPrefix(text, "(") && !strings.Contains(text, ")"), strings.HasSuffix(text, ")") && !strings.Contains(text, "("):
			return fmt.Errorf("%w: the query language has no parentheses (%q): %s", ErrQuery, text, grammar)
		}
	case *query.MatchPhraseQuery:
		text = q.MatchPhrase
	default:
		return nil
	}
	if strings.IndexFunc(text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) >= 0 {
		return nil
	}
	clause := text
	if f := q.Field(); f != "" {
		clause = f + ":" + text
	}
	return fmt.Errorf("%w: %q has no word to search for (punctuation alone matches no note)", ErrQuery, clause)
}

// inLanguages searches a word in each of fields, in each language's copy
// of the field, weighted by fieldBoost. A word in a CJK language, or that
// holds Han, kana or Hangul (paired in every language), or in a script
// written without word spaces (Thai, Khmer…), is matched as a phrase of
// its character pairs: the word, not any of its characters.
func inLanguages(q query.FieldableQuery, fields, langs []string) query.Query {
	var any []query.Query
	for _, f := range fields {
		for _, code := range langs {
			c := withField(q, langField(f, code))
			switch c := c.(type) {
			case *query.PrefixQuery:
				c.Prefix = asWritten(termAnalyzer(code), c.Prefix)
			case *query.WildcardQuery:
				c.Wildcard = asWritten(termAnalyzer(code), c.Wildcard)
			}
			if m, ok := c.(*query.MatchQuery); ok && (languages[code].cjk || hasUnspaced(m.Match) || hasPaired(m.Match)) && m.Fuzziness == 0 {
				p := query.NewMatchPhraseQuery(m.Match)
				p.SetField(m.FieldVal)
				p.SetBoost(m.Boost())
				c = p
			}
			if b, ok := c.(query.BoostableQuery); ok && fieldBoost[f] != 0 {
				b.SetBoost(b.Boost() * fieldBoost[f])
			}
			any = append(any, c)
			if twin := unstemmed(c, code); twin != nil {
				any = append(any, twin)
			}
		}
	}
	if len(any) == 1 {
		return any[0]
	}
	return query.NewDisjunctionQuery(any)
}

// unstemmed is a prefix or wildcard query on the unstemmed twins of a
// stemmed language's words (stemTwin), nil for any other query: the
// words themselves are indexed by their stems, which a prefix as long as
// the word passes ("fußnote*" is not a prefix of the stem "fussnot").
func unstemmed(c query.Query, code string) query.Query {
	if languages[code].stemmer() == "" {
		return nil
	}
	var twin query.FieldableQuery
	switch c := c.(type) {
	case *query.PrefixQuery:
		twin = query.NewPrefixQuery(string(twinMark) + c.Prefix)
		twin.(*query.PrefixQuery).SetBoost(c.Boost())
	case *query.WildcardQuery:
		twin = query.NewWildcardQuery(string(twinMark) + c.Wildcard)
		twin.(*query.WildcardQuery).SetBoost(c.Boost())
	default:
		return nil
	}
	twin.SetField(c.(query.FieldableQuery).Field())
	return twin
}

// termMapping is this zk's mapping, whose term analyzers put a prefix or
// wildcard term through what its field's words went through (an index
// built under another mapping is of another Schema, and rebuilt).
var termMapping = sync.OnceValues(newMapping)

// asWritten is term as analyzer writes it: bleve gives a prefix or
// wildcard term to the index as typed, where a word is analysed, so
// "Obsidian*" found nothing and "obsidian*" thousands of notes. The term
// is one token to the analyzer, its * and ? kept (no filter touches
// them); a term it cannot analyse stays as typed.
func asWritten(analyzer, term string) string {
	im, err := termMapping()
	if err != nil {
		return term
	}
	a := im.AnalyzerNamed(analyzer)
	if a == nil {
		return term
	}
	if ts := a.Analyze([]byte(term)); len(ts) == 1 && len(ts[0].Term) > 0 {
		return string(ts[0].Term)
	}
	return term
}

// readIn are the languages a word is read in: those that write it as it
// is, if any do (and CJK, whose analysis never stems), else all of them.
// Only a word is narrowed so; a phrase, prefix or regexp is read in all.
func readIn(q query.FieldableQuery, langs []string, attested func(string) []string) []string {
	m, ok := q.(*query.MatchQuery)
	if !ok || attested == nil {
		return langs
	}
	some := attested(m.Match)
	if len(some) == 0 {
		return langs
	}
	for _, code := range langs {
		if languages[code].cjk {
			some = append(some, code)
		}
	}
	return some
}

// langCodes are the language codes zk analyses, sorted.
func langCodes() []string {
	var out []string
	for code := range languages {
		out = append(out, code)
	}
	slices.Sort(out)
	return out
}

func isField(f string) bool {
	for _, known := range Fields {
		if f == known {
			return true
		}
	}
	return false
}

// fieldBoost weighs a match of a word without a field: a note whose
// title or claim says it is more about it than one that mentions it. The
// title outweighs the claim, which outweighs the scope, evidence and
// body (weight 1); a title that is the whole query outweighs them all
// (exactTitleBoost).
var fieldBoost = map[string]float64{FieldTitle: 3, FieldClaim: 2}

// exactTitleBoost weighs a note whose whole title is the query (case and
// Unicode form aside): it leads, even over notes that use the words many
// times in their title and claim.
const exactTitleBoost = 10

// withField copies a field query onto another field. The copy is shallow:
// only the field differs, so boost, fuzziness and operator carry over.
func withField(q query.FieldableQuery, field string) query.Query {
	v := reflect.ValueOf(q)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return q
	}
	c := reflect.New(v.Elem().Type())
	c.Elem().Set(v.Elem())
	fq := c.Interface().(query.FieldableQuery)
	fq.SetField(field)
	return fq
}

// wholeValue adapts a query on a field kept whole (tag, links, path): a
// "quoted value" is the value itself, not a phrase of words, and a tag may
// be written with its '#', as a note writes it ("tag:#project").
func wholeValue(q query.FieldableQuery) query.Query {
	trim := func(s string) string {
		if q.Field() == FieldTag {
			return strings.TrimPrefix(s, "#")
		}
		return s
	}
	switch q := q.(type) {
	case *query.MatchPhraseQuery:
		m := query.NewMatchQuery(trim(q.MatchPhrase))
		m.SetField(q.Field())
		m.SetBoost(q.Boost())
		return m
	case *query.MatchQuery:
		q.Match = trim(q.Match)
	case *query.TermQuery:
		q.Term = trim(q.Term)
	case *query.PrefixQuery:
		q.Prefix = lowerName(q.Field(), trim(q.Prefix))
	case *query.WildcardQuery:
		q.Wildcard = lowerName(q.Field(), trim(q.Wildcard))
	}
	return q
}

// lowerName puts a tag or link prefix as those fields are indexed (NFC,
// lower case); a path is kept as written, as it is indexed.
func lowerName(field, term string) string {
	if field == FieldPath {
		return term
	}
	return asWritten(analyzerName, term)
}

// bestFragment picks the window of a note's text with the most distinct
// matched terms (ties go to the claim, then scope, evidence, body, title)
// and cuts a fragment there, inside one section.
func bestFragment(t noteText, locs search.FieldTermLocationMap) (string, Fragment) {
	type match struct {
		start, end int
		term       string
	}
	bestScore, bestField := -1, ""
	var best []match
	var anchor match
	for _, field := range textFields {
		text := t.field(field)
		var ms []match
		for term, ls := range locs[field] {
			for _, l := range ls {
				if int(l.End) <= len(text) && l.Start < l.End {
					ms = append(ms, match{int(l.Start), int(l.End), term})
				}
			}
		}
		slices.SortFunc(ms, func(a, b match) int { return a.start - b.start })
		for i, a := range ms[:min(len(ms), 64)] {
			seen := map[string]bool{}
			for _, m := range ms[i:] {
				if m.start >= a.start+fragmentWidth*2/3 {
					break
				}
				seen[m.term] = true
			}
			if len(seen) > bestScore {
				bestScore, bestField, best, anchor = len(seen), field, ms, a
			}
		}
	}
	if bestField == "" {
		return "", Fragment{}
	}
	text := t.field(bestField)
	lo, hi := 0, len(text)
	section := ""
	if bestField != FieldTitle {
		seg, _ := t.sectionAt(bestField, anchor.start)
		lo, hi, section = seg.start, seg.end, seg.section
	}
	var marks [][2]int
	for _, m := range best {
		marks = append(marks, [2]int{m.start, m.end})
	}
	return section, cut(text, lo, hi, anchor.start, marks)
}

// field is the text indexed in a field; the title's is the title and
// then, a line each, its aliases.
func (t noteText) field(f string) string {
	if f == FieldTitle {
		if len(t.aliases) == 0 {
			return t.title
		}
		return t.title + "\n" + strings.Join(t.aliases, "\n")
	}
	return t.fields[f]
}
