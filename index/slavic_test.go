package index

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/hr"
)

func TestStemBg(t *testing.T) {
	for word, want := range map[string]string{
		"книга":    "книг",
		"книгата":  "книг",
		"книги":    "книг",
		"градът":   "град",
		"градове":  "град",
		"човекът":  "човек",
		"ученици":  "ученик",
		"маса":     "мас",
		"път":      "път", // three letters: left
		"ябълката": "ябълк",
	} {
		if got := stemBg(word); got != want {
			t.Errorf("stemBg(%s) = %s, want %s", word, got, want)
		}
	}
}

// Bulgarian and Serbian were read as Russian and stemmed with its stemmer,
// and Croatian was not stemmed: a word's other forms did not find it.
// Serbian is found in either of its scripts. A word that some note writes
// as typed is read in that note's language only (книга is the Russian
// note's), as every language is.
func TestSearchSouthSlavic(t *testing.T) {
	v := testVault(t, map[string]string{
		"bg.md": "# Бележки\n\nКнигата е на масата, а тетрадките са в чантата. Това са моите неща.\n",
		"sr.md": "# Белешке\n\nКњига је на столу, а свеске су у торби. Ово су моје ствари.\n",
		"hr.md": "# Bilješke\n\nKnjige su na stolu, a bilježnice su u torbi. Ovo su moje stvari i to je sve.\n",
		"ru.md": "# Заметки\n\nКнига лежит на столе, а тетради в сумке. Это мои вещи.\n",
	})
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
	for q, want := range map[string]string{
		"книгата":    "bg.md",
		"маса":       "bg.md",
		"тетрадка":   "bg.md",
		"чанта":      "bg.md",
		"књига":      "sr.md",
		"stol":       "hr.md,sr.md",
		"torba":      "hr.md,sr.md",
		"bilježnica": "hr.md",
		"biljeznica": "hr.md",
	} {
		if got, _ := searchPaths(t, v, opts, q); strings.Join(got, ",") != want {
			t.Errorf("search %s = %v, want %s", q, got, want)
		}
	}
}

// A cached Croatian stem is the same word after a later filter wrote in
// the token that carried it.
func TestHrStemCacheCopies(t *testing.T) {
	hrStems = &stemCache{}
	f := hrFilter{}
	first := f.Filter(analysis.TokenStream{&analysis.Token{Term: []byte("knjigama")}})[0]
	want := string(first.Term)
	first.Term[0] = 'X'
	for range 2 {
		got := f.Filter(analysis.TokenStream{&analysis.Token{Term: []byte("knjigama")}})[0]
		if string(got.Term) != want {
			t.Fatalf("knjigama = %s, want %s", got.Term, want)
		}
		got.Term[0] = 'Y'
	}
}

// zk's copy of bleve's Croatian stemmer (croatian.go, kept so that bleve's
// package and its 74 patterns compiled at init stay out of every zk
// command's start) stems as bleve's does: every root of the help vault's
// sample words with every ending bleve's rules name.
func TestHrStemIsBleves(t *testing.T) {
	bleve := hr.NewCroatianStemmerFilter()
	roots := []string{"knjig", "stol", "prst", "krv", "grad", "pjes", "vojk", "čaj", "ljud", "student", "ugov", "log", "anj", "ijal", "noć", "uč", "rad", "ž", "r", ""}
	endings := map[string]bool{"": true}
	for _, p := range hrRulePatterns {
		i := strings.LastIndex(p, "(")
		for _, e := range strings.Split(strings.TrimSuffix(p[i+1:], ")$"), "|") {
			endings[e] = true
		}
	}
	n := 0
	for _, r := range roots {
		for e := range endings {
			for _, infix := range []string{"", "a", "i", "sk", "stv", "n", "ć", "ij"} {
				w := r + infix + e
				got := hrStem(w)
				want := string(bleve.Filter(analysis.TokenStream{&analysis.Token{Term: []byte(w)}})[0].Term)
				if got != want {
					t.Errorf("hrStem(%q) = %q, bleve's %q", w, got, want)
				}
				n++
			}
		}
	}
	if n < 10000 {
		t.Fatalf("compared %d words, want at least 10,000", n)
	}
	for suffix, to := range hr.SuffixTransformations {
		if hrSuffixTransformations[suffix] != to {
			t.Errorf("suffix %q: zk %q, bleve %q", suffix, hrSuffixTransformations[suffix], to)
		}
	}
	if len(hrSuffixTransformations) != len(hr.SuffixTransformations) || hrStopWords != string(hr.CroatianStopWords) {
		t.Errorf("zk's suffix transformations or stop words differ from bleve's")
	}
}
