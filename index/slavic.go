package index

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

// filterHr is bleve's Croatian stemming (croatian.go): its suffix
// transformations, then its stemmer, as one filter (a stemmer is one
// filter of a language's).
const filterHr = "zk-hr"

type hrFilter struct{}

// Filter reads each word's stem from hrStems when it can: the stemmer
// tries up to 60 regular expressions a word, which made zk index of
// Croatian five times the CPU of Polish (3.2 s against 0.6 s for the help
// vault's Polish notes read as Croatian), and a text's words come again
// and again.
func (f hrFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	for _, t := range in {
		if stem, ok := hrStems.get(t.Term); ok {
			t.Term = stem
			continue
		}
		word := string(t.Term)
		term := word
		for _, suffix := range hrSuffixes() {
			if strings.HasSuffix(term, suffix) {
				term = term[:len(term)-len(suffix)] + hrSuffixTransformations[suffix]
				break
			}
		}
		t.Term = []byte(hrStem(term))
		hrStems.put(word, t.Term)
	}
	return in
}

// hrStems are the stems of the words stemmed last, shared by bleve's
// analysis goroutines; at most stemCacheSize, emptied when full.
var hrStems = &stemCache{}

const stemCacheSize = 1 << 16

type stemCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (c *stemCache) get(word []byte) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	stem, ok := c.m[string(word)]
	return slices.Clone(stem), ok // a later filter may write in a word
}

func (c *stemCache) put(word string, stem []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= stemCacheSize {
		c.m = make(map[string][]byte, 1024)
	}
	c.m[word] = slices.Clone(stem)
}

// hrSuffixes are the keys of bleve's Croatian suffix transformations,
// longest first. bleve's own filter ranges over the map, in Go's random
// order: a word two of them end (…teticima: ticima and teticima) could
// be transformed one way in a note and the other in a query (with
// bleve's rules as they are, both forms stem alike).
var hrSuffixes = sync.OnceValue(func() []string {
	var out []string
	for s := range hrSuffixTransformations {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return out
})

// filterSrLatin writes Serbian Cyrillic in Serbian Latin letters.
const filterSrLatin = "zk-sr-latin"

type srLatinFilter struct{}

// srLatin is Serbian Cyrillic's Latin spelling, letter for letter.
var srLatin = strings.NewReplacer(
	"а", "a", "б", "b", "в", "v", "г", "g", "д", "d", "ђ", "đ", "е", "e", "ж", "ž", "з", "z", "и", "i",
	"ј", "j", "к", "k", "л", "l", "љ", "lj", "м", "m", "н", "n", "њ", "nj", "о", "o", "п", "p", "р", "r",
	"с", "s", "т", "t", "ћ", "ć", "у", "u", "ф", "f", "х", "h", "ц", "c", "ч", "č", "џ", "dž", "ш", "š",
)

func (srLatinFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	for _, t := range in {
		// Cyrillic is led by 0xD0–0xD3 in UTF-8: Latin words pass as they are.
		if hasCyrillicLead(t.Term) {
			t.Term = []byte(srLatin.Replace(string(t.Term)))
		}
	}
	return in
}

func hasCyrillicLead(b []byte) bool {
	for _, c := range b {
		if c >= 0xd0 && c <= 0xd3 {
			return true
		}
	}
	return false
}

// filterBg is Bulgarian's light stemmer.
const filterBg = "zk-bg"

type bgFilter struct{}

func (bgFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	for _, t := range in {
		if hasCyrillicLead(t.Term) {
			t.Term = []byte(stemBg(string(t.Term)))
		}
	}
	return in
}

// stemBg is the light stemmer for Bulgarian of Preslav Nakov (BulStem),
// as Lucene's BulgarianStemmer writes it: the definite articles, then the
// plural endings, then a final vowel; lengths are in letters.
func stemBg(w string) string {
	r := []rune(w)
	n := len(r)
	ends := func(s string) bool { // r[:n] ends with s, without a copy
		i := n - utf8.RuneCountInString(s)
		if i < 0 {
			return false
		}
		for _, c := range s {
			if r[i] != c {
				return false
			}
			i++
		}
		return true
	}
	if n < 4 {
		return w
	}
	if n > 5 && ends("ища") {
		return string(r[:n-3])
	}
	// The article.
	switch {
	case n > 6 && ends("ият"):
		n -= 3
	case n > 5 && (ends("ът") || ends("то") || ends("те") || ends("та") || ends("ия")):
		n -= 2
	case n > 4 && ends("ят"):
		n -= 2
	}
	// The plural.
	switch {
	case n > 6 && ends("овци"):
		n -= 3 // овци → о
	case n > 6 && ends("ове"):
		n -= 3
	case n > 6 && ends("еве"):
		r[n-3] = 'й'
		n -= 2
	case n > 5 && ends("ища"):
		n -= 3
	case n > 5 && ends("та"):
		n -= 2
	case n > 5 && ends("ци"):
		r[n-2] = 'к'
		n--
	case n > 5 && ends("зи"):
		r[n-2] = 'г'
		n--
	case n > 5 && r[n-3] == 'е' && r[n-1] == 'и':
		r[n-3] = 'я'
		n--
	case n > 4 && ends("си"):
		r[n-2] = 'х'
		n--
	case n > 4 && ends("и"):
		n--
	}
	if n > 3 {
		if ends("я") {
			n--
		}
		if ends("а") || ends("о") || ends("е") {
			n--
		}
	}
	if n > 4 && ends("ен") {
		r[n-2] = 'н'
		n--
	}
	if n > 5 && r[n-2] == 'ъ' {
		r[n-2] = r[n-1]
		n--
	}
	return string(r[:n])
}
