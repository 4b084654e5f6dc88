package vault

import (
	"path"
	"strings"
	"testing"
)

// TestResolve pins Obsidian's resolution rules with the cases of
// research/edge_cases.yaml (each named by its id there).
func TestResolve(t *testing.T) {
	tests := []struct {
		id     string
		files  []string
		source string
		link   string
		want   string // "" for unresolved
	}{
		{"case-insensitive-name", []string{"a/Log.md"}, "x.md", "log", "a/Log.md"},
		{"case-insensitive-name upper", []string{"a/Log.md"}, "x.md", "LOG", "a/Log.md"},
		{"extension-case-insensitive", []string{"Ext.md"}, "x.md", "Ext.MD", "Ext.md"},
		{"md-extension-optional", []string{"Sub/Three laws of motion.md"}, "x.md", "Three laws of motion.md", "Sub/Three laws of motion.md"},
		{"non-markdown-needs-extension", []string{"Figure 1.png"}, "x.md", "Figure 1", ""},
		{"non-markdown-with-extension", []string{"Figure 1.png"}, "x.md", "Figure 1.png", "Figure 1.png"},
		{"md-beats-canvas-for-bare-name", []string{"Plan.md", "Plan.canvas"}, "x.md", "Plan", "Plan.md"},
		{"canvas-by-extension", []string{"Plan.md", "Plan.canvas"}, "x.md", "Plan.canvas", "Plan.canvas"},
		{"tie-break-exact-vault-path-wins", []string{"Note.md", "b/Note.md"}, "b/x.md", "Note", "Note.md"},
		{"tie-break-same-folder", []string{"a/Note.md", "b/Note.md"}, "b/x.md", "Note", "b/Note.md"},
		{"tie-break-ancestor-folder-does-not-count", []string{"b/Note.md", "zzzz/Note.md"}, "zzzz/deep/x.md", "Note", "b/Note.md"},
		{"tie-break-shortest-path-string", []string{"a/b/Note.md", "zzzz/Note.md"}, "x.md", "Note", "a/b/Note.md"},
		{"equal length: lexicographic", []string{"bb/Note.md", "aa/Note.md"}, "x.md", "Note", "aa/Note.md"},
		{"folder-path-is-vault-root-relative", []string{"Projects/Note.md", "x/Projects/Note.md"}, "x/y.md", "Projects/Note", "Projects/Note.md"},
		{"partial-path-suffix", []string{"a/b/Note.md"}, "x.md", "b/Note", "a/b/Note.md"},
		{"partial path must match whole folders", []string{"ab/Note.md"}, "x.md", "b/Note", ""},
		{"relative-path", []string{"Note.md", "a/x.md"}, "a/x.md", "../Note", "Note.md"},
		{"relative-path with extension", []string{"Note.md", "a/x.md"}, "a/x.md", "../Note.md", "Note.md"},
		{"relative path escaping the vault", []string{"Note.md"}, "a/x.md", "../../Note", ""},
		{"absolute-looking path", []string{"etc/passwd.md"}, "x.md", "../../etc/passwd", ""},
		{"leading slash is the vault root", []string{"a/Note.md"}, "x.md", "/a/Note", "a/Note.md"},
		{"alias-is-not-a-link-target", []string{"Artificial Intelligence.md"}, "x.md", "AI", ""},
		{"zettelkasten-uid-prefix-does-not-resolve", []string{"202301011230 My note title.md"}, "x.md", "202301011230", ""},
		{"dotted daily-note name", []string{"2021.07.17.md"}, "x.md", "2021.07.17", "2021.07.17.md"},
		{"same-file", []string{"x.md"}, "x.md", "", "x.md"},
		{"schemed-target-is-an-internal-link", []string{"x.md"}, "x.md", "https://example.com", ""},
		{"trailing-space-in-target (zk trims)", []string{"Plugins/Quick switcher.md"}, "x.md", "Quick Switcher ", "Plugins/Quick switcher.md"},
		{"unicode-normalisation (NFD file, NFC link)", []string{"Cafe\u0301.md"}, "x.md", "Caf\u00e9", "Cafe\u0301.md"},
		{"by name in a folder, normalised and folded", []string{"\u00dcber/Sub/Cafe\u0301 NOTE.md"}, "x.md", "caf\u00e9 note", "\u00dcber/Sub/Cafe\u0301 NOTE.md"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got, ok := NewResolver(tt.files).Resolve(tt.link, tt.source)
			if !ok {
				got = ""
			}
			if got != tt.want {
				t.Errorf("Resolve(%q from %s) = %q, want %q", tt.link, tt.source, got, tt.want)
			}
			// A resolver over the files the link can name resolves it
			// the same, among others it leaves out.
			files := append([]string{"zz/Other note.md", "Noté.md", "a/LOG2.md", "Sub/Three laws.md"}, tt.files...)
			got, ok = ResolverFor(files, tt.source, []string{"Other", tt.link}).Resolve(tt.link, tt.source)
			if !ok {
				got = ""
			}
			if got != tt.want {
				t.Errorf("ResolverFor: Resolve(%q from %s) = %q, want %q", tt.link, tt.source, got, tt.want)
			}
			// A resolver asking for each name's files, given exactly or
			// among every file, resolves it the same.
			for _, loose := range []bool{false, true} {
				got, ok = lazyOver(files, loose).Resolve(tt.link, tt.source)
				if !ok {
					got = ""
				}
				if got != tt.want {
					t.Errorf("LazyResolver (loose %v): Resolve(%q from %s) = %q, want %q", loose, tt.link, tt.source, got, tt.want)
				}
			}
		})
	}
}

// Paths that differ only by case or normal form: links reach the same one
// whichever order the walk listed them in, a file argument names each
// exactly, and the group is reported.
func TestResolverCollisions(t *testing.T) {
	nfc, nfd := "Caf\u00e9.md", "Cafe\u0301.md"
	for i, paths := range [][]string{
		{"Note.md", "NOTE.md", nfc, nfd, "a.md"},
		{nfd, "a.md", nfc, "NOTE.md", "Note.md"},
		{"Note.md", "NOTE.md", nfc, nfd, "a.md"},
		{nfd, "a.md", nfc, "NOTE.md", "Note.md"},
	} {
		r := NewResolver(paths)
		if i >= 2 { // a lazy resolver, once it was asked for both names
			r = lazyOver(paths, i == 3)
			r.Resolve("café", "a.md")
		}
		for _, link := range []string{"Note", "note.md", "NOTE"} {
			if got, _ := r.Resolve(link, "a.md"); got != "NOTE.md" {
				t.Errorf("%v: [[%s]] -> %q, want NOTE.md", paths, link, got)
			}
		}
		if got, _ := r.Has("note.md"); got != "NOTE.md" {
			t.Errorf("%v: Has(note.md) = %q, want the one links reach", paths, got)
		}
		for _, p := range []string{"Note.md", "NOTE.md", nfc, nfd} {
			if !r.HasExactly(p) {
				t.Errorf("%v: HasExactly(%q) = false", paths, p)
			}
		}
		if r.HasExactly("note.md") {
			t.Errorf("%v: HasExactly(note.md) = true", paths)
		}
		got := r.Collisions()
		if len(got) != 2 || got[0][0] != nfc || got[0][1] != nfd || got[1][0] != "NOTE.md" || got[1][1] != "Note.md" {
			t.Errorf("%v: Collisions = %q", paths, got)
		}
	}
	if c := NewResolver([]string{"a.md", "b/a.md"}).Collisions(); c != nil {
		t.Errorf("no collision, got %q", c)
	}
}

// lazyOver is a LazyResolver over paths, given the files of each name
// asked for exactly or (loose) every file.
func lazyOver(paths []string, loose bool) *Resolver {
	return LazyResolver(func(name string) []string {
		if loose {
			return append(paths, paths...) // each twice, too
		}
		var out []string
		for _, p := range paths {
			if NameKey(p) == name {
				out = append(out, p)
			}
		}
		return out
	})
}

// NameKeys are NameKey of each path, and a name's key is the one a
// resolver indexes it under.
func TestNameKeys(t *testing.T) {
	paths := []string{"a.md", "Notes/Café.md", "NOTES/B.MD", "Café/X.md", "İ.md", "z/ÄÖÜ/q.MD", "img.PNG"}
	keys := NameKeys(paths)
	for i, p := range paths {
		if keys[i] != NameKey(p) {
			t.Errorf("%q: NameKeys %q, NameKey %q", p, keys[i], NameKey(p))
		}
		if got := NewResolver([]string{p}).byName[keys[i]]; len(got) != 1 {
			t.Errorf("%q: not indexed under %q", p, keys[i])
		}
	}
}

// The allocation-free path for plain names resolves every link as the
// general one does.
func TestResolveNameAsResolve(t *testing.T) {
	r := NewResolver([]string{"Note.md", "a/Note.md", "b/NOTE.md", "a/Other.md", "img.PNG", "a/img.png",
		"Deep/er/x.pdf", "Dots.v2.md", "Dots.v2", "ca\u0301fe.md", "Ü.md", "de/Straße.md", "en/Straße.md",
		"Ωmega.md", "x/İstanbul.md", "y/été.md", "z/été.md", "Kelvin\u212a.md"})
	links := []string{"Note", "note", "NOTE.md", "Other", "other.MD", "img.png", "IMG.PNG", "x.pdf", "x",
		"Dots.v2", "dots.v2.md", "Missing", ".", "..", " Note", "Note ", "Note\t", "a/Note", "./Note",
		"café", "ü", "Note.md.md", "img", strings.Repeat("n", 200),
		"straße", "STRASSE", "Straße.md", "ΩMEGA", "ωmega", "İstanbul", "istanbul", "i\u0307stanbul", "été", "ÉTÉ",
		"e\u0301te\u0301", "\u3000été", "été\u00a0", "caf\xe9", "été/x", "Ω\\x", "Ω\tx", "kelvinK", "KELVIN\u212a", strings.Repeat("Ω", 70)}
	for _, src := range []string{"Note.md", "a/Other.md", "b/NOTE.md", "z/y.md", "de/x.md", "en/x.md", "y/x.md", "z/x.md"} {
		for _, l := range links {
			gp, gok := r.resolve(l, src)
			p, ok, done := r.resolveName(l, src)
			if !done {
				continue
			}
			if p != gp || ok != gok {
				t.Errorf("%q from %s: %q %v, want %q %v", l, src, p, ok, gp, gok)
			}
		}
	}
	// A name that is also a root file's path, in several spellings: the
	// exact path wins, as the general path finds it.
	r2 := NewResolver([]string{"a/k.md", "\u212a.md", "zz/Same.md", "SAME.md", "same.md", "x/only.md", "y/only.md", "only.md.md"})
	for _, src := range []string{"a/x.md", "zz/y.md", "x/z.md", "q.md"} {
		for _, l := range []string{"k", "K", "same", "Same", "only", "only.md", "ONLY"} {
			gp, gok := r2.resolve(l, src)
			if p, ok, done := r2.resolveName(l, src); done && (p != gp || ok != gok) {
				t.Errorf("%q from %s: %q %v, want %q %v", l, src, p, ok, gp, gok)
			}
		}
	}
	for _, l := range []string{"Other", "ΩMEGA", "Straße"} {
		if _, _, done := r.resolveName(l, "a/Note.md"); !done {
			t.Errorf("%q: not resolved as a name", l)
		}
		if allocs := testing.AllocsPerRun(100, func() { r.Resolve(l, "a/Note.md") }); allocs != 0 {
			t.Errorf("%q: a plain name allocates %v times", l, allocs)
		}
	}
}

// A file's name is indexed as its name folded alone would be, though
// NewResolver folds each path once and takes the name from it: folding
// changes no '/' and composes nothing across one.
func TestResolverNameFoldedFromThePath(t *testing.T) {
	for _, p := range []string{
		"Notes/Café.md", "Notes/Cafe\u0301.md", "Ca/\u0301x.md", "A\u0301/B.md", "İstanbul/İzmir.md",
		"Dž/ǅemal.md", "STRASSE/Straße.md", "a/b/c/D.md", "top.md", "Ω/Ωmega.md",
	} {
		r := NewResolver([]string{p})
		if got := r.byName[fold(path.Base(p))]; len(got) != 1 || got[0] != p {
			t.Errorf("%q: indexed under its name folded: %v", p, got)
		}
	}
}

// foldAll folds each path as fold does, the ASCII ones sliced from one
// string.
func TestFoldAll(t *testing.T) {
	paths := []string{"", "a.md", "Notes/Café.md", "NOTES/B.MD", "Cafe\u0301/X.md", "İ.md", "z/ÄÖÜ/q.MD", "plain/lower.md",
		"caf\xe9.md", "\u212aelvin/Ⱥ.md", "日本語/ノート.md", "x.md"}
	got := foldAll(paths)
	for i, p := range paths {
		if got[i] != fold(p) {
			t.Errorf("%q: folded %q, want %q", p, got[i], fold(p))
		}
	}
}

// FuzzInDir holds inDir to path.Dir on any path of a resolver, clean or
// not, and any folder.
func FuzzInDir(f *testing.F) {
	for _, s := range [][2]string{{"a/b.md", "a"}, {"b.md", "."}, {"/b.md", "/"}, {"a//b.md", "a"}, {"./a/b", "a"}, {"a/../b", "."}, {"a/b/", "a"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, p, dir string) {
		for _, paths := range [][]string{{p}, {path.Clean(p)}} {
			r := NewResolver(paths)
			q := paths[0]
			for _, d := range []string{dir, path.Dir(q), path.Dir(dir)} {
				if got, want := r.inDir(q, d), path.Dir(q) == d; got != want {
					t.Fatalf("inDir(%q, %q) = %v, want %v (clean %v)", q, d, got, want, r.clean)
				}
			}
		}
	})
}

// FuzzResolveName holds the path for plain names to the general one on
// any link and files.
func FuzzResolveName(f *testing.F) {
	for _, s := range [][3]string{{"Straße", "de/Straße.md", "en/STRASSE.md"}, {"e\u0301te\u0301", "été.md", "x/Été.md"},
		{"\u3000Ω", "Ω.md", "a/ω.md"}, {"İ", "i\u0307.md", "İ.md"}, {"caf\xe9", "caf\xe9.md", "café.md"}} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, link, p1, p2 string) {
		r := NewResolver([]string{p1, p2, "a/" + p1, "b/" + p2})
		for _, src := range []string{"x.md", "a/x.md", "b/x.md"} {
			if link == "" {
				continue
			}
			if p, ok, done := r.resolveName(link, src); done {
				if gp, gok := r.resolve(link, src); p != gp || ok != gok {
					t.Fatalf("%q from %s: %q %v, want %q %v", link, src, p, ok, gp, gok)
				}
			}
		}
	})
}

// FuzzFoldAll holds foldAll to fold of each path.
func FuzzFoldAll(f *testing.F) {
	for _, s := range []string{"Café.md", "Cafe\u0301.md", "caf\xe9", "Ⱥ/\u212a", "İ"} {
		f.Add(s, "A/"+s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		paths := []string{a, "x.md", b, a + "/" + b}
		for i, got := range foldAll(paths) {
			if got != fold(paths[i]) {
				t.Fatalf("%q: folded %q, want %q", paths[i], got, fold(paths[i]))
			}
		}
	})
}
