package vault

import (
	"path"
	"sort"
	"strings"
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
	exact  map[string]string   // folded path -> path
	byName map[string][]string // folded file name -> paths, best first
}

// NewResolver indexes the vault-relative paths of every file in the vault.
func NewResolver(paths []string) *Resolver {
	r := &Resolver{exact: make(map[string]string, len(paths)), byName: make(map[string][]string, len(paths))}
	for _, p := range paths {
		r.exact[fold(p)] = p
		name := fold(path.Base(p))
		r.byName[name] = append(r.byName[name], p)
	}
	for _, ps := range r.byName {
		sort.Slice(ps, func(i, j int) bool {
			if len(ps[i]) != len(ps[j]) {
				return len(ps[i]) < len(ps[j])
			}
			return ps[i] < ps[j]
		})
	}
	return r
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
	got, ok := r.exact[fold(p)]
	return got, ok
}

// Resolve returns the vault path that linkpath names when written in the
// note at source, and whether it names anything. A path that would leave
// the vault names nothing.
func (r *Resolver) Resolve(linkpath, source string) (string, bool) {
	if linkpath == "" {
		return source, true
	}
	lp := strings.TrimSpace(linkpath)
	lp = strings.ReplaceAll(lp, `\`, "/")
	if strings.HasPrefix(lp, "./") || strings.HasPrefix(lp, "../") {
		// Obsidian writes these under the "relative path" link format.
		joined := path.Join(path.Dir(source), lp)
		if joined == ".." || strings.HasPrefix(joined, "../") {
			return "", false
		}
		lp = joined
	}
	lp = strings.TrimPrefix(lp, "/")
	if lp == "" || lp == "." {
		return "", false
	}
	f := fold(lp)
	if p, ok := r.exact[f+".md"]; ok {
		return p, true
	}
	if p, ok := r.exact[f]; ok && hasExt(p) {
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
		cands := r.byName[key]
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

func hasExt(p string) bool {
	return path.Ext(p) != ""
}

// Candidates returns every file whose name matches linkpath, best first:
// what an ambiguous name could mean.
func (r *Resolver) Candidates(linkpath string) []string {
	base := fold(path.Base(strings.TrimSpace(linkpath)))
	out := append([]string(nil), r.byName[base+".md"]...)
	if hasExt(base) {
		out = append(out, r.byName[base]...)
	}
	return out
}
