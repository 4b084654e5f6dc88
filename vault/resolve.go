package vault

import (
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Resolver finds the file a link names, by Obsidian's rules
// (research/obsidian-spec.md §D):
//
//  1. an empty path is the source note itself;
//  2. an exact vault path wins ("Folder/Note" or "Folder/Note.md"), ignoring case;
//  3. otherwise every file with the same name, ignoring case, is a candidate
//     (a name with a folder keeps only candidates whose path ends with it);
//  4. a candidate in the source note's own folder wins;
//  5. then the shortest path string, then the lexicographically first.
//
// The ".md" extension is optional; other files need their extension.
// Aliases never resolve a link. Names are compared after NFC normalisation
// so that a name typed on one system finds a file stored on another.
type Resolver struct {
	exact  map[string]string   // folded path -> path (the first, see before)
	byName map[string][]string // folded file name -> paths, best first
	// collide maps a folded path that several files share (Note.md and
	// NOTE.md, or Café.md in NFC and in NFD) to all of them, best first;
	// nil when none do, as in most vaults.
	collide map[string][]string
	// files, set for a resolver made by LazyResolver, gives the files of
	// a name (NameKey) when a link first asks for it; byName then keeps
	// what it gave, sorted, under mu, and exact is not used.
	files func(name string) []string
	mu    sync.Mutex
	// clean: every path is path.Clean's, so that its folder is all of it
	// before its last '/' (inDir).
	clean bool
}

// NameKey is the key by which a resolver finds the files of a name: the
// file's name (its path's last element, extension kept), folded as
// links are.
func NameKey(p string) string { return path.Base(fold(p)) }

// NameKeys are NameKey of every path, the ASCII ones folded without an
// allocation each.
func NameKeys(paths []string) []string {
	keys := foldAll(paths)
	for i, k := range keys {
		keys[i] = path.Base(k)
	}
	return keys
}

// LazyResolver is a resolver that indexes no file in advance: the first
// link naming a name asks files for the files of that name (their
// NameKey; it may give others too, which are left out), and the answer
// is kept. A recheck after an edit resolves the links of a few notes,
// and of the notes they rest on, which cannot be known before their
// summaries are read: a name table the cache keeps answers them without
// an index of every path. Its Collisions are those among the names asked
// for. It is safe for use from several goroutines.
func LazyResolver(files func(name string) []string) *Resolver {
	return &Resolver{byName: map[string][]string{}, files: files}
}

// named are the files of the folded name key, best first.
func (r *Resolver) named(key string) []string {
	if r.files == nil {
		return r.byName[key]
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if ps, ok := r.byName[key]; ok {
		return ps
	}
	var ps []string
	for _, p := range r.files(key) {
		if NameKey(p) == key && !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, order)
	r.byName[key] = ps
	return ps
}

// exactly is the file whose folded path is key: of those, the first in
// the order candidates are tried (before), as NewResolver keeps it.
func (r *Resolver) exactly(key string) (string, bool) {
	if r.files == nil {
		p, ok := r.exact[key]
		return p, ok
	}
	for _, c := range r.named(path.Base(key)) {
		if fold(c) == key {
			return c, true
		}
	}
	return "", false
}

// NewResolver indexes the vault-relative paths of every file in the vault.
func NewResolver(paths []string) *Resolver {
	r := &Resolver{exact: make(map[string]string, len(paths)), byName: make(map[string][]string, len(paths))}
	keys := foldAll(paths)
	// A name's one file, as most names have, is a slice of one array, not
	// an allocation of its own (append copies it out for a second file).
	one := make([]string, len(paths))
	r.clean = true
	for i, p := range paths {
		if r.clean && path.Clean(p) != p {
			r.clean = false
		}
		key := keys[i]
		if prev, ok := r.exact[key]; ok {
			// Files whose paths differ only by case or normal form: links
			// reach one of them, the same one whether they name it by
			// path or by name (before, the same order byName keeps).
			if r.collide == nil {
				r.collide = map[string][]string{}
			}
			if r.collide[key] == nil {
				r.collide[key] = []string{prev}
			}
			r.collide[key] = append(r.collide[key], p)
			if before(p, prev) {
				r.exact[key] = p
			}
		} else {
			r.exact[key] = p
		}
		// The folded path's name is the folded name: '/' neither folds
		// nor composes.
		name := path.Base(key)
		if ps, ok := r.byName[name]; ok {
			r.byName[name] = append(ps, p)
		} else {
			one[i] = p
			r.byName[name] = one[i : i+1 : i+1]
		}
	}
	for _, ps := range r.collide {
		slices.SortFunc(ps, order)
	}
	for _, ps := range r.byName {
		if len(ps) > 1 { // most names are one file's: nothing to sort
			slices.SortFunc(ps, order)
		}
	}
	return r
}

// order is before as a comparison.
func order(a, b string) int {
	switch {
	case before(a, b):
		return -1
	case before(b, a):
		return 1
	}
	return 0
}

// before is the order candidates are tried in: the shortest path, then
// the lexicographically first (D5).
func before(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// foldAll is fold of every path, those in NFC (all ASCII ones, and most
// others) lowered into one string and sliced from it rather than
// allocated one by one: the help vault's paths in its other languages
// were each normalised and lowered on their own.
func foldAll(paths []string) []string {
	n := 0
	for _, p := range paths {
		n += len(p)
	}
	buf := make([]byte, 0, n)
	ends := make([]int, len(paths)) // -1: not ASCII, folded apart
	for i, p := range paths {
		ascii := true
		for j := 0; j < len(p); j++ {
			if p[j] >= utf8.RuneSelf {
				ascii = false
				break
			}
		}
		if !ascii {
			if !utf8.ValidString(p) || norm.NFC.QuickSpanString(p) != len(p) {
				ends[i] = -1
				continue
			}
			buf = appendLower(buf, p)
			ends[i] = len(buf)
			continue
		}
		for j := 0; j < len(p); j++ {
			c := p[j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf = append(buf, c)
		}
		ends[i] = len(buf)
	}
	all := string(buf)
	out := make([]string, len(paths))
	start := 0
	for i, p := range paths {
		if ends[i] < 0 {
			out[i] = fold(p)
			continue
		}
		out[i] = all[start:ends[i]]
		start = ends[i]
	}
	return out
}

func fold(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.ToLower(norm.NFC.String(s))
		}
	}
	// ASCII is its own NFC form: most names skip the normaliser.
	return strings.ToLower(s)
}

// Has reports whether p is a file of the vault (exact path, ignoring case).
func (r *Resolver) Has(p string) (string, bool) {
	return r.exactly(fold(p))
}

// HasExactly reports whether p, byte for byte, is a file of the vault: a
// file argument names that file, never one that differs from it by case
// or normal form.
func (r *Resolver) HasExactly(p string) bool {
	key := fold(p)
	if r.files != nil {
		return slices.Contains(r.named(path.Base(key)), p)
	}
	if got, ok := r.exact[key]; !ok || got == p {
		return ok
	}
	for _, c := range r.collide[key] {
		if c == p {
			return true
		}
	}
	return false
}

// Collisions are the groups of files whose paths differ only by case or
// Unicode normal form, each best first: every link reaches its first
// file, never the others. Groups come sorted by their first file.
func (r *Resolver) Collisions() [][]string {
	var out [][]string
	collide := r.collide
	if r.files != nil {
		r.mu.Lock()
		collide = map[string][]string{}
		for _, ps := range r.byName {
			for _, p := range ps { // best first: each group too
				collide[fold(p)] = append(collide[fold(p)], p)
			}
		}
		r.mu.Unlock()
	}
	for _, ps := range collide {
		if r.files != nil && len(ps) < 2 {
			continue
		}
		out = append(out, ps)
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// Resolve returns the vault path that linkpath names when written in the
// note at source, and whether it names anything. A path that would leave
// the vault names nothing.
func (r *Resolver) Resolve(linkpath, source string) (string, bool) {
	if linkpath == "" {
		return source, true
	}
	if p, ok, done := r.resolveName(linkpath, source); done {
		return p, ok
	}
	return r.resolve(linkpath, source)
}

// resolveName resolves a link that is a name alone ([[Note]], most
// links), as resolve does but without allocating: the name is folded
// into a buffer and the maps are read with it (a check resolves every
// link of the vault, and the folded copies were a tenth of a cold
// check). done is false for any other link.
func (r *Resolver) resolveName(linkpath, source string) (p string, ok, done bool) {
	if r.files != nil || len(linkpath) > 120 || linkpath == "." || linkpath == ".." {
		return "", false, false
	}
	var buf [128]byte
	b, plain := appendNameKey(buf[:0], linkpath)
	if !plain {
		return "", false, false
	}
	name := len(b)
	withMD := append(b, ".md"...)
	ext := path.Ext(linkpath) != ""
	var cands []string
	if ext {
		if p, ok := r.exact[string(withMD)]; ok {
			return p, true, true
		}
		if p, ok := r.exact[string(b[:name])]; ok && hasExt(p) {
			return p, true, true
		}
		if cands = r.byName[string(withMD)]; len(cands) == 0 {
			cands = r.byName[string(b[:name])]
		}
	} else {
		// A name without an extension, as most links are: one lookup
		// where there were three. A file at the vault's root is among
		// the name's candidates exactly when the path is a file's (the
		// exact path then wins, D2), and no file of the name's folded
		// path without .md has an extension (it has no dot). A name of
		// one file is that file either way; of several, the exact path
		// is looked up, not each candidate searched for a '/'.
		cands = r.byName[string(withMD)]
		if len(cands) > 1 {
			if p, ok := r.exact[string(withMD)]; ok {
				return p, true, true
			}
		}
	}
	if len(cands) == 0 {
		return "", false, true
	}
	if len(cands) == 1 {
		return cands[0], true, true // most names are one file's: no folder to compare
	}
	srcDir := path.Dir(source)
	for _, c := range cands {
		if r.inDir(c, srcDir) {
			return c, true, true
		}
	}
	return cands[0], true, true
}

// appendNameKey appends to b the name linkKey folds linkpath to, for a
// name alone: plain is false for a path with a folder ('/' or '\\'), a
// control character, a space at either end (linkKey trims it), or a name
// the normaliser would change. A name in another script is folded here
// too, rune by rune as strings.ToLower does (fold, once the name is in
// NFC): the help vault's links in its other languages, half of them,
// took resolve's copies, 2% of its cold check.
func appendNameKey(b []byte, linkpath string) (_ []byte, plain bool) {
	if linkpath == "" || linkpath[0] == ' ' || linkpath[len(linkpath)-1] == ' ' {
		return b, false
	}
	for i := 0; i < len(linkpath); i++ {
		c := linkpath[i]
		switch {
		case c >= utf8.RuneSelf:
			return appendNameKeyAny(b[:0], linkpath)
		case c == '/' || c == '\\' || c < ' ':
			return b, false
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b, true
}

// appendNameKeyAny is appendNameKey for a name that is not ASCII. The
// normaliser's quick span is all of a name exactly when NFC.String gives
// the name itself (IsNormalString allocates to say so).
func appendNameKeyAny(b []byte, linkpath string) ([]byte, bool) {
	first, _ := utf8.DecodeRuneInString(linkpath)
	last, _ := utf8.DecodeLastRuneInString(linkpath)
	if unicode.IsSpace(first) || unicode.IsSpace(last) || !utf8.ValidString(linkpath) || norm.NFC.QuickSpanString(linkpath) != len(linkpath) {
		return b, false
	}
	for _, r := range linkpath {
		if r == '/' || r == '\\' || r < ' ' {
			return b, false
		}
	}
	return appendLower(b, linkpath), true
}

// appendLower appends strings.ToLower(s) to b, for s valid UTF-8: rune by
// rune, as strings.ToLower maps a string that is not ASCII.
func appendLower(b []byte, s string) []byte {
	for _, r := range s {
		b = utf8.AppendRune(b, unicode.ToLower(r))
	}
	return b
}

// inDir is path.Dir(p) == dir, for p one of r's paths, without cleaning
// p's folder again when every path is clean already: a link to a name
// that files in many folders have (the help vault's names are in each
// language's folder) took path.Dir of each, 2.5% of a cold check.
func (r *Resolver) inDir(p, dir string) bool {
	if !r.clean {
		return path.Dir(p) == dir
	}
	switch dir {
	case ".":
		return strings.IndexByte(p, '/') < 0
	case "/":
		return len(p) > 0 && p[0] == '/' && strings.IndexByte(p[1:], '/') < 0
	}
	// dir, a '/', then a name: compared from the front, where the
	// candidates of a name in many folders differ (the help vault's
	// language folders), not searched from the back of each.
	n := len(dir)
	return n > 0 && len(p) > n && p[n] == '/' && p[:n] == dir && strings.IndexByte(p[n+1:], '/') < 0
}

// resolve is Resolve of any link.
func (r *Resolver) resolve(linkpath, source string) (string, bool) {
	f, ok := linkKey(linkpath, source)
	if !ok {
		return "", false
	}
	if p, ok := r.exactly(f + ".md"); ok {
		return p, true
	}
	if p, ok := r.exactly(f); ok && hasExt(p) {
		return p, true
	}
	base := path.Base(f)
	dir := ""
	if i := strings.LastIndexByte(f, '/'); i >= 0 {
		dir = f[:i+1]
	}
	for _, key := range []string{base + ".md", base} {
		if key == base && !hasExt(base) {
			continue
		}
		cands := r.named(key)
		if dir != "" {
			var kept []string
			for _, c := range cands {
				if strings.HasSuffix(fold(path.Dir(c))+"/", "/"+dir) || fold(path.Dir(c))+"/" == dir {
					kept = append(kept, c)
				}
			}
			cands = kept
		}
		if len(cands) == 0 {
			continue
		}
		srcDir := path.Dir(source)
		for _, c := range cands {
			if path.Dir(c) == srcDir {
				return c, true
			}
		}
		return cands[0], true
	}
	return "", false
}

// linkKey is the folded vault path linkpath, written in the note at
// source, names before any file is looked up; ok is false for a path
// that names nothing (empty, or leaving the vault).
func linkKey(linkpath, source string) (f string, ok bool) {
	lp := strings.TrimSpace(linkpath)
	lp = strings.ReplaceAll(lp, `\`, "/")
	if strings.HasPrefix(lp, "./") || strings.HasPrefix(lp, "../") {
		// Obsidian writes these under the "relative path" link format.
		joined := path.Join(path.Dir(source), lp)
		if !Local(joined) {
			return "", false
		}
		lp = joined
	}
	lp = strings.TrimPrefix(lp, "/")
	if lp == "" || lp == "." {
		return "", false
	}
	return fold(lp), true
}

// ResolverFor is a resolver over those of paths that the links of one
// note (at source) can name: it resolves each of them as NewResolver(paths)
// does, for one pass over paths instead of an index of all of them (a
// tenth of the time at 100,000 files). The language server checks the
// first note opened with it while the index is built.
func ResolverFor(paths []string, source string, links []string) *Resolver {
	// A file a link can name has the name the link ends with (with or
	// without .md), folded: its path folded is the link's, or its name
	// is the link's. The names are kept by byte length: an ASCII name
	// keeps its length folded, and is compared with the names of its
	// length without being folded.
	var byLen [256][]string
	names := map[string]bool{}
	for _, l := range links {
		f, ok := linkKey(l, source)
		if !ok {
			continue
		}
		base := path.Base(f)
		for _, k := range []string{base + ".md", base} {
			if !names[k] {
				names[k] = true
				if len(k) < len(byLen) {
					byLen[len(k)] = append(byLen[len(k)], k)
				}
			}
		}
	}
	var keep []string
	for _, p := range paths {
		name := path.Base(p)
		match := false
		if len(name) < len(byLen) && asciiString(name) {
			for _, k := range byLen[len(name)] {
				if asciiEqualFold(name, k) {
					match = true
					break
				}
			}
		} else {
			match = names[fold(name)]
		}
		if match {
			keep = append(keep, p)
		}
	}
	return NewResolver(keep)
}

func asciiString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiEqualFold reports whether the ASCII s, lowered, is k.
func asciiEqualFold(s, k string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != k[i] {
			return false
		}
	}
	return true
}

func hasExt(p string) bool {
	return path.Ext(p) != ""
}

// Candidates returns every file whose name matches linkpath, best first:
// what an ambiguous name could mean.
func (r *Resolver) Candidates(linkpath string) []string {
	base := fold(path.Base(strings.TrimSpace(linkpath)))
	out := append([]string(nil), r.named(base+".md")...)
	if hasExt(base) {
		out = append(out, r.named(base)...)
	}
	return out
}

// LinkNames are the names n's links, embeds and frontmatter links end
// with, folded, sorted, each once: a resolver's answer for a link of name
// b depends on the files whose name (NameKey) is b or b+".md" alone (the
// files ResolverFor keeps), so a file added or removed that none of them
// names (NamingKeys) leaves every link of n resolved as it was. Besides
// the frontmatter links Obsidian reads, a "[[link]]" string anywhere in
// the frontmatter, nested objects too, is counted, as a base reads the
// properties.
func LinkNames(n *Note) []string {
	var out []string
	add := func(linkpath string) {
		if linkpath == "" {
			return // the note itself
		}
		f, ok := linkKey(linkpath, n.Path)
		if !ok {
			return
		}
		out = append(out, path.Base(f))
	}
	for l := range n.LinksAndEmbeds() {
		add(l.Path)
	}
	for _, l := range n.FrontmatterLinks {
		add(l.Path)
	}
	if n.Frontmatter != nil {
		var visit func(v any, depth int)
		visit = func(v any, depth int) {
			if depth > 64 {
				return
			}
			switch x := v.(type) {
			case string:
				for _, m := range wikiInString(x) {
					target, _, _ := strings.Cut(m[2:len(m)-2], "|")
					p, _, _ := strings.Cut(target, "#")
					add(p)
					add(strings.TrimSpace(p))
				}
			case []any:
				for _, e := range x {
					visit(e, depth+1)
				}
			case map[string]any:
				for _, e := range x {
					visit(e, depth+1)
				}
			}
		}
		visit(n.Frontmatter.Values, 0)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// NamingKeys are the link names (LinkNames) that can name a file at one
// of paths: a file's name (NameKey) k is named by a link of name k, or,
// when k ends with .md, by one of name k without it.
func NamingKeys(paths []string) map[string]bool {
	out := map[string]bool{}
	for _, k := range NameKeys(paths) {
		out[k] = true
		if b, ok := strings.CutSuffix(k, ".md"); ok {
			out[b] = true
		}
	}
	return out
}
