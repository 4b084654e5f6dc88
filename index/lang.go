package index

import (
	"bytes"
	"cmp"
	"slices"

	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/ar"
	"github.com/blevesearch/bleve/v2/analysis/lang/bg"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/cs"
	"github.com/blevesearch/bleve/v2/analysis/lang/da"
	"github.com/blevesearch/bleve/v2/analysis/lang/de"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/lang/es"
	"github.com/blevesearch/bleve/v2/analysis/lang/fa"
	"github.com/blevesearch/bleve/v2/analysis/lang/fi"
	"github.com/blevesearch/bleve/v2/analysis/lang/fr"
	"github.com/blevesearch/bleve/v2/analysis/lang/hu"
	"github.com/blevesearch/bleve/v2/analysis/lang/id"
	"github.com/blevesearch/bleve/v2/analysis/lang/it"
	"github.com/blevesearch/bleve/v2/analysis/lang/nl"
	"github.com/blevesearch/bleve/v2/analysis/lang/no"
	"github.com/blevesearch/bleve/v2/analysis/lang/pl"
	"github.com/blevesearch/bleve/v2/analysis/lang/pt"
	"github.com/blevesearch/bleve/v2/analysis/lang/ro"
	"github.com/blevesearch/bleve/v2/analysis/lang/ru"
	"github.com/blevesearch/bleve/v2/analysis/lang/sv"
	"github.com/blevesearch/bleve/v2/analysis/lang/tr"
	"github.com/blevesearch/bleve/v2/analysis/token/apostrophe"
	"github.com/blevesearch/bleve/v2/registry"
	"golang.org/x/text/unicode/norm"
)

// A language is how a note's text is analysed. Each has an analyzer of
// its own and its own copy of every text field (body_fr, claim_fr, …), so
// a word is only ever compared with words analysed the same way: the
// French stemmer never meets a Danish note.
type language struct {
	code string
	// filters follow the tokenizer, NFC, width folding and
	// lower-casing: elision, folding, stemming, in that order; a stemmer
	// is last. Stemming runs on folded words, so "epingler" and "épingler"
	// stem alike.
	filters []string
	// cjk analyses into overlapping pairs of characters (bleve's cjk
	// bigrams); a query word is matched as a phrase of its pairs.
	cjk bool
	// stemFirst stems the word as written, before the fold, which then
	// folds the stem: the stemmer reads the letters folding takes off
	// (Polish ą ę ł, Romanian ș ț ă, Hungarian ő ű), and Polish's, a
	// table of real words, stems a folded one wrongly. The word is stemmed
	// folded too, and both stems are indexed when they differ, so that a
	// query typed without those letters still meets its word.
	stemFirst bool
	// stop holds the language's common words, for detection only.
	stop []byte
}

// languages are the analyses zk has, by the note language codes that
// pick them (ISO 639-1). Latin-script languages fold accents; only
// English folds English plurals and possessives. A note in a language
// not listed is analysed as "und": NFC, lower case, folded, unstemmed.
var languages = map[string]language{
	"en": {code: "en", filters: []string{en.PossessiveName, filterFold, en.PluralStemmerName}, stop: en.EnglishStopWords},
	"fr": {code: "fr", filters: []string{fr.ElisionName, filterFold, fr.LightStemmerName}, stop: fr.FrenchStopWords},
	"de": {code: "de", filters: []string{filterFold, de.LightStemmerName}, stop: de.GermanStopWords},
	"es": {code: "es", filters: []string{filterFold, es.LightStemmerName}, stop: es.SpanishStopWords},
	"it": {code: "it", filters: []string{it.ElisionName, filterFold, it.LightStemmerName}, stop: it.ItalianStopWords},
	"pt": {code: "pt", filters: []string{filterFold, pt.LightStemmerName}, stop: pt.PortugueseStopWords},
	"nl": {code: "nl", filters: []string{filterFold, nl.SnowballStemmerName}, stop: nl.DutchStopWords},
	"da": {code: "da", filters: []string{filterFold, da.SnowballStemmerName}, stop: da.DanishStopWords},
	"sv": {code: "sv", filters: []string{filterFold, sv.SnowballStemmerName}, stop: sv.SwedishStopWords},
	"no": {code: "no", filters: []string{filterFold, no.SnowballStemmerName}, stop: no.NorwegianStopWords},
	"fi": {code: "fi", filters: []string{filterFold, fi.SnowballStemmerName}, stop: fi.FinnishStopWords},
	"ru": {code: "ru", filters: []string{filterYo, ru.SnowballStemmerName}},
	// Ukrainian: neither bleve nor Snowball has a stemmer, and Russian's
	// joins words that differ; the words are kept as written (й and ї are
	// letters, not folded).
	"uk": {code: "uk"},
	// Bleve's Snowball stemmers (Romanian, Hungarian) and its Stempel
	// (Polish, Lucene's), stemming the word as written (stemFirst).
	"ro": {code: "ro", filters: []string{filterFold, ro.SnowballStemmerName}, stemFirst: true, stop: ro.RomanianStopWords},
	"hu": {code: "hu", filters: []string{filterFold, hu.SnowballStemmerName}, stemFirst: true, stop: hu.HungarianStopWords},
	"pl": {code: "pl", filters: []string{filterFold, filterStempel}, stemFirst: true, stop: pl.PolishStopWords},
	// Croatian: bleve's stemmer (Ljubešić and Pandžić's, for Croatian
	// and Serbian), stemming the word as written (it reads č ć đ š ž).
	// Bosnian and Serbian in Latin script are read as Croatian.
	"hr": {code: "hr", filters: []string{filterFold, filterHr}, stemFirst: true, stop: hrStop},
	// Serbian: Cyrillic is written in Latin letters (the two scripts map
	// letter for letter: љ is lj), then stemmed as Croatian, so that a
	// word typed in either script finds it in both.
	"sr": {code: "sr", filters: []string{filterSrLatin, filterFold, filterHr}, stemFirst: true},
	// Bulgarian: bleve has its common words but no stemmer; Russian's,
	// which stemmed it before, knows neither its articles (книгата, "the
	// book") nor its plurals. The light stemmer Lucene uses (Nakov's):
	// книгата and книги find книга. й is a letter, not folded.
	"bg": {code: "bg", filters: []string{filterBg}, stop: bg.BulgarianStopWords},
	// Indonesian, Czech and Greek: bleve, Lucene's port, has their common
	// words but no stemmer, nor has Snowball's Go port; folded, unstemmed.
	"id": {code: "id", filters: []string{filterFold}, stop: id.IndonesianStopWords},
	"cs": {code: "cs", filters: []string{filterFold}, stop: cs.CzechStopWords},
	"el": {code: "el", filters: []string{filterFold}},
	// Turkish writes a proper noun's suffixes after an apostrophe
	// (Paris'te, Ankara'da): bleve's apostrophe filter drops them, as its
	// Turkish analyzer does. Its Snowball stemmer is not used: it reads
	// the dotless ı and the other letters folding makes ASCII, and the
	// stemmer would have to run before the fold, where a prefix query
	// could no longer be read as the words were.
	"tr": {code: "tr", filters: []string{apostrophe.Name, filterFold}, stop: tr.TurkishStopWords},
	// Arabic: bleve's normalisation (alef forms, yeh, teh marbuta, the
	// vowel marks and tatweel) and its light stemmer, Lucene's, which
	// takes off the article and the prefixes joined to it (ال, وال, بال,
	// كال, فال, لل, و) and common suffixes: الكتاب and وكتاب find كتاب.
	"ar": {code: "ar", filters: []string{filterFold, ar.NormalizeName, ar.StemmerName}},
	// Persian: bleve's normalisation (Arabic's, then Persian yeh, keheh,
	// heh), no stemmer, as bleve's Persian analyzer.
	"fa": {code: "fa", filters: []string{filterFold, ar.NormalizeName, fa.NormalizeName}},
	// Hebrew: neither bleve nor Lucene has an analysis; the points fold
	// away (they are combining marks), and the one-letter prefixes (ה, ו,
	// ב, ל, מ, ש, כ) stay on the word: without a dictionary, taking them
	// off conflates words (מלך is not לך). *ספר finds הספר.
	"he": {code: "he", filters: []string{filterFold}},
	"zh": {code: "zh", cjk: true},
	"ja": {code: "ja", cjk: true},
	"ko": {code: "ko", cjk: true},
	// Written without spaces between words: pairs of characters (see
	// unspaced), never folded (their vowel signs are combining marks).
	"th":      {code: "th"},
	"lo":      {code: "lo"},
	"km":      {code: "km"},
	"my":      {code: "my"},
	langOther: {code: langOther, filters: []string{filterFold}},
}

// hrStop are bleve's Croatian common words, which are only the forms of
// six verbs, and the common words of Croatian, Serbian and Bosnian (some
// Polish, Czech or Italian write too; not sa, which Slovak writes more):
// with bleve's alone, a Croatian text read as Polish.
var hrStop = append([]byte("je\na\ni\nu\nna\nto\nse\nda\nod\ndo\nne\npa\nmoj\nmoje\nsu\novo\nova\novaj\nšto\nšta\nkoji\nkoja\nkoje\nnije\nkao\nsmo\nili\ngdje\ngde\nkada\nsamo\niz\nsve\njer\nveć\nvrlo\nbilo\nnešto\nsvi\n"), hrStopWords...)

// stemmer is the language's stemming filter, "" when it has none: the
// last of its filters, unless that one only normalises (notStemmers).
func (l language) stemmer() string {
	if n := len(l.filters); n > 0 && !notStemmers[l.filters[n-1]] {
		return l.filters[n-1]
	}
	return ""
}

// notStemmers are the filters a language's analysis may end with that
// are not stemmers: they apply to prefix and wildcard terms too.
var notStemmers = map[string]bool{filterFold: true, filterYo: true, ar.NormalizeName: true, fa.NormalizeName: true, filterSrLatin: true}

// langOther is the analysis of a note in a language zk has none for.
const langOther = "und"

// langAliases map what a frontmatter may say to a code.
var langAliases = map[string]string{
	"english": "en", "french": "fr", "français": "fr", "francais": "fr", "german": "de", "deutsch": "de",
	"spanish": "es", "español": "es", "espanol": "es", "italian": "it", "italiano": "it", "portuguese": "pt",
	"português": "pt", "dutch": "nl", "danish": "da", "dansk": "da", "swedish": "sv", "svenska": "sv",
	"norwegian": "no", "norsk": "no", "nb": "no", "nn": "no", "finnish": "fi", "suomi": "fi", "russian": "ru",
	"chinese": "zh", "中文": "zh", "japanese": "ja", "日本語": "ja", "korean": "ko", "한국어": "ko",
	"thai": "th", "ไทย": "th", "lao": "lo", "khmer": "km", "ខ្មែរ": "km", "burmese": "my", "myanmar": "my",
	"turkish": "tr", "türkçe": "tr", "turkce": "tr", "arabic": "ar", "العربية": "ar", "persian": "fa", "farsi": "fa",
	"فارسی": "fa", "hebrew": "he", "עברית": "he", "iw": "he", "ukrainian": "uk", "українська": "uk",
	"romanian": "ro", "română": "ro", "romana": "ro", "hungarian": "hu", "magyar": "hu", "polish": "pl",
	"polski": "pl", "indonesian": "id", "bahasa indonesia": "id", "in": "id", "czech": "cs", "čeština": "cs",
	"cestina": "cs", "greek": "el", "ελληνικά": "el", "croatian": "hr", "hrvatski": "hr", "bosnian": "hr",
	"bosanski": "hr", "bs": "hr", "serbian": "sr", "srpski": "sr", "српски": "sr", "bulgarian": "bg",
	"български": "bg",
}

// normLang turns a language tag ("fr", "fr-CA", "pt_BR", "French") into
// a code zk analyses, and says whether it knew it.
func normLang(tag string) (string, bool) {
	t := strings.ToLower(strings.TrimSpace(tag))
	if c, ok := langAliases[t]; ok {
		return c, true
	}
	if i := strings.IndexAny(t, "-_"); i > 0 {
		t = t[:i]
	}
	if _, ok := languages[t]; ok {
		return t, true
	}
	return langOther, t == langOther
}

// filterFold folds accents and ligatures (é → e, ß → ss, æ → ae) so that
// a word typed without them finds it.
const filterFold = "zk-fold"

// filterYo folds ё into е in Russian, as Russian search does: most text
// writes е for both, so "елка" must find "ёлка" and the reverse. The rest
// of filterFold is not for Cyrillic: й is a letter, not и with a mark.
const filterYo = "zk-yo"

// filterWidth folds fullwidth Latin letters and digits into ASCII and
// halfwidth katakana into the usual katakana, in every language: bleve's
// cjk_width filter, run only on words that hold such a character (all of
// them are U+FF01 to U+FF9F, whose UTF-8 starts with 0xEF), since it
// rebuilds every word it is given.
const filterWidth = "zk-width"

// registerAnalysis registers zk's own token filter with bleve, once: bleve
// finds filters by name, in a process-wide registry, when it builds an
// index's analyzers, at creation and at every open.
var registerAnalysis = sync.OnceValue(func() error {
	if err := registerTokenizer(); err != nil {
		return err
	}
	if err := registry.RegisterTokenFilter(filterFold, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return foldFilter{}, nil
	}); err != nil {
		return err
	}
	if err := registry.RegisterTokenFilter(filterYo, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return yoFilter{}, nil
	}); err != nil {
		return err
	}
	if err := registry.RegisterTokenFilter(filterStempel, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return stempelFilter{}, nil
	}); err != nil {
		return err
	}
	if err := registry.RegisterTokenFilter(filterHr, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return hrFilter{}, nil
	}); err != nil {
		return err
	}
	if err := registry.RegisterTokenFilter(filterSrLatin, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return srLatinFilter{}, nil
	}); err != nil {
		return err
	}
	if err := registry.RegisterTokenFilter(filterBg, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return bgFilter{}, nil
	}); err != nil {
		return err
	}
	if err := registry.RegisterTokenFilter(filterWidth, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return widthFilter{cjk.NewCJKWidthFilter()}, nil
	}); err != nil {
		return err
	}
	return registry.RegisterTokenFilter(filterStem, func(config map[string]any, cache *registry.Cache) (analysis.TokenFilter, error) {
		name, _ := config["stemmer"].(string)
		stem, err := cache.TokenFilterNamed(name)
		if err != nil {
			return nil, err
		}
		first, _ := config["first"].(bool)
		return stemTwin{stem: stem, first: first}, nil
	})
})

// filterStem is the type of the stemming filters: "zk-stem" with the
// stemmer's name. Each language's is named stemFilter(code).
const filterStem = "zk-stem"

func stemFilter(code string) string { return filterStem + "-" + code }

// stemTwin stems each word and, when the stem differs from the word,
// keeps the word too, marked with a leading '=', at the same position.
// The twin says which languages write a query's word as it was typed
// (attested): "parametres" is French, though the Danish stemmer would
// also reduce it to the stem of "parametre".
type stemTwin struct {
	stem analysis.TokenFilter
	// first: the words come unfolded, and are stemmed before the fold
	// and after it (language.stemFirst).
	first bool
}

// Filter keeps a twin once per field: the look-up asks only whether a note
// has it, and each occurrence would cost the index a posting location
// (twins were 14% of the tokens of Obsidian's help vault; once per field,
// 7%).
func (f stemTwin) Filter(in analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(in)+len(in)/8)
	one := make(analysis.TokenStream, 1)
	var seen map[string]bool
	var buf []byte
	for _, t := range in {
		if t.Type == pairType || t.Type == analysis.Double || t.Type == analysis.Single {
			out = append(out, t) // pairs of characters: no stemmer's
			continue
		}
		var written []byte // the stem of the word as written, folded
		if f.first {
			buf = append(buf[:0], t.Term...)
			one[0] = t
			f.stem.Filter(one)
			written = fold(t.Term)
			t.Term = fold(buf)
		}
		buf = append(buf[:0], t.Term...)
		one[0] = t
		f.stem.Filter(one)
		out = append(out, t)
		if written != nil && string(written) != string(t.Term) {
			also := *t
			also.Term = written
			out = append(out, &also)
		}
		if string(t.Term) != string(buf) && !seen[string(buf)] {
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[string(buf)] = true
			twin := *t
			twin.Term = append([]byte{twinMark}, buf...)
			out = append(out, &twin)
		}
	}
	return out
}

// twinMark starts the unstemmed twin of a word.
const twinMark = '='

// filterStempel is bleve's Polish stemmer, Stempel, read on first use:
// its table takes 60 ms and 10 MB to load, which every search would pay,
// since bleve builds each analyzer when it opens the index, Polish notes
// or none.
const filterStempel = "zk-stempel"

var stempel = sync.OnceValues(pl.NewPolishStemmerFilter)

type stempelFilter struct{}

// Filter leaves the words as they are if the table cannot be read (it is
// compiled into zk: it can only be whole).
func (stempelFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	f, err := stempel()
	if err != nil {
		return in
	}
	return f.Filter(in)
}

type yoFilter struct{}

func (yoFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	for _, t := range in {
		if bytes.Contains(t.Term, []byte("ё")) {
			t.Term = bytes.ReplaceAll(t.Term, []byte("ё"), []byte("е"))
		}
	}
	return in
}

type widthFilter struct{ width analysis.TokenFilter }

func (f widthFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	one := make(analysis.TokenStream, 1)
	for _, t := range in {
		if bytes.IndexByte(t.Term, 0xef) >= 0 {
			one[0] = t
			f.width.Filter(one)
		}
	}
	return in
}

type foldFilter struct{}

func (foldFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	for _, t := range in {
		// Neither pairs of unspaced text nor CJK and Hangul, which are
		// paired after: decomposed, が would lose its voicing mark and
		// read as か.
		if t.Type != pairType && t.Type != analysis.Ideographic {
			t.Term = fold(t.Term)
		}
	}
	return in
}

// fold removes combining marks after canonical decomposition and spells
// out the letters that do not decompose. ASCII comes back as it is.
//
// It works rune by rune, from the decomposition tables: the chain of
// transformers it replaced (NFD, remove marks, NFC) was built for every
// word that was not ASCII, and took 14% of zk index on Obsidian's help
// vault. Its input is in NFC (the filter runs after filterNFC), so a
// letter and its marks are one rune, whose decomposition holds both.
func fold(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < utf8.RuneSelf {
		i++
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, i, len(b)+8)
	copy(out, b[:i])
	for i < len(b) {
		if c := b[i]; c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			out = append(out, b[i])
			i++
			continue
		}
		d := norm.NFD.Properties(b[i:]).Decomposition()
		if d == nil {
			d = b[i : i+size]
		}
		for len(d) > 0 {
			dr, dsize := utf8.DecodeRune(d)
			switch lig, ok := ligatures[dr]; {
			case ok:
				out = append(out, lig...)
			case !unicode.Is(unicode.Mn, dr):
				out = append(out, d[:dsize]...)
			}
			d = d[dsize:]
		}
		i += size
	}
	return out
}

// ligatures are the letters that do not decompose, spelled out, with the
// Turkish dotless ı (so "isik" finds "ışık", as "IŞIK" does once
// lower-cased), and the typographic apostrophe, which a word holds
// between its letters as it holds ' ("O’Reilly" is "o'reilly").
var ligatures = map[rune]string{'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'đ': "d", 'ł': "l", 'þ': "th", 'ı': "i",
	'Æ': "AE", 'Œ': "OE", 'Ø': "O", 'Đ': "D", 'Ł': "L", 'Þ': "TH", '’': "'"}

// detectSample is how much of a note's text detection reads.
const detectSample = 4 << 10

// detectLang guesses a note's language from its text: by script first
// (kana is Japanese, Han without kana Chinese, Hangul Korean, Cyrillic
// Ukrainian when its letters and words say so else Russian, Greek Greek,
// Arabic script Persian when it writes Persian's letters else Arabic,
// Hebrew Hebrew; Thai, Lao, Khmer and Myanmar script their languages), and
// for Latin script by counting the common words of each language zk
// knows (bleve's stop-word lists, from Snowball and Lucene).
// Text too short or too mixed to tell is English, as zk analysed every
// note before it knew languages.
func detectLang(text string) string {
	if len(text) > detectSample {
		text = text[:detectSample]
		for len(text) > 0 && !utf8.ValidString(text[len(text)-1:]) && !utf8.RuneStart(text[len(text)-1]) {
			text = text[:len(text)-1]
		}
	}
	var latin, han, kana, hangul, cyrillic, ukrainian, serbian, macedonian, bulgarian, greek, arabic, persian, hebrew int
	unspacedCount := map[string]int{}
	for _, r := range text {
		switch {
		case r >= 0x0e00 && isUnspaced(r):
			unspacedCount[unspacedLang(r)]++
		case r < 0x80:
			if unicode.IsLetter(r) {
				latin++
			}
		case unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r):
			kana++
		case unicode.Is(unicode.Han, r):
			han++
		case unicode.Is(unicode.Hangul, r):
			hangul++
		case unicode.Is(unicode.Cyrillic, r):
			cyrillic++
			ukrainian += ukrainianLetter(r)
			serbian += serbianLetter(r)
			macedonian += macedonianLetter(r)
			bulgarian += bulgarianLetter(r)
		case unicode.Is(unicode.Greek, r):
			greek++
		case unicode.Is(unicode.Arabic, r):
			arabic++
			persian += persianLetter(r)
		case unicode.Is(unicode.Hebrew, r):
			hebrew++
		case unicode.Is(unicode.Latin, r):
			latin++
		}
	}
	// One CJK character says about as much as a Latin word.
	cjk := 4 * (han + kana + hangul)
	switch {
	case cjk > latin && kana > 0 && kana*20 >= han:
		return "ja"
	case cjk > latin && hangul >= han:
		return "ko"
	case cjk > latin:
		return "zh"
	case cyrillic > latin && ukrainian+ukrainianWords(text) > 0:
		return "uk"
	case cyrillic > latin && serbian > 0 && macedonian == 0:
		return "sr"
	case cyrillic > latin && bulgarian-hardSigns(text)+bulgarianWords(text) > 0:
		return "bg"
	case cyrillic > latin:
		return "ru"
	case greek > latin:
		return "el"
	case arabic > latin && persian > 0:
		return "fa"
	case arabic > latin:
		return "ar"
	case hebrew > latin:
		return "he"
	}
	bestUnspaced, most := "", latin
	for _, code := range []string{"th", "lo", "km", "my", langOther} {
		if n := unspacedCount[code]; n > most {
			bestUnspaced, most = code, n
		}
	}
	if bestUnspaced != "" {
		return bestUnspaced
	}
	counts := map[string]int{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		for _, l := range stopLangs(w) {
			counts[l]++
		}
	}
	best, bestN, second := "en", 0, 0
	for _, code := range latinOrder {
		switch n := counts[code]; {
		case n > bestN:
			best, bestN, second = code, n, bestN
		case n > second:
			second = n
		}
	}
	if bestN < 3 || bestN == second {
		return "en"
	}
	return best
}

// ukrainianLetter is 1 for a letter Ukrainian writes and Russian does
// not (і ї є ґ), -1 for one Russian writes and Ukrainian does not (ы э ъ
// ё), else 0: the sum over a text says which of the two it is.
func ukrainianLetter(r rune) int {
	switch unicode.ToLower(r) {
	case 'і', 'ї', 'є', 'ґ':
		return 1
	case 'ы', 'э', 'ъ', 'ё':
		return -1
	}
	return 0
}

// serbianLetter is 1 for a letter Serbian writes and Russian, Ukrainian
// and Bulgarian do not (ђ ј љ њ ћ џ), else 0; Macedonian writes four of
// them too (macedonianLetter).
func serbianLetter(r rune) int {
	switch unicode.ToLower(r) {
	case 'ђ', 'ј', 'љ', 'њ', 'ћ', 'џ':
		return 1
	}
	return 0
}

// macedonianLetter is 1 for a letter only Macedonian writes (ѓ ќ ѕ):
// a text with one is not Serbian.
func macedonianLetter(r rune) int {
	switch unicode.ToLower(r) {
	case 'ѓ', 'ќ', 'ѕ':
		return 1
	}
	return 0
}

// bulgarianLetter is 1 for ъ, a vowel in Bulgarian and rare in Russian,
// and ѝ, -1 for the letters Russian writes and Bulgarian does not (ы э
// ё), else 0.
func bulgarianLetter(r rune) int {
	switch unicode.ToLower(r) {
	case 'ъ', 'ѝ':
		return 1
	case 'ы', 'э', 'ё':
		return -1
	}
	return 0
}

// hardSigns counts ъ before е, ё, ю or я, as Russian writes it after a
// prefix (объект, подъезд): Bulgarian's ъ is a vowel, before consonants.
func hardSigns(text string) int {
	n := 0
	for _, s := range []string{"ъе", "ъё", "ъю", "ъя"} {
		n += strings.Count(text, s)
	}
	return n
}

// bulgarianWords is the count of the common words only Bulgarian writes
// less those only Russian writes, for a text too short for the letters.
func bulgarianWords(text string) int {
	n := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		switch w {
		case "това", "са", "във", "със", "които", "който", "която", "което", "ще", "тя", "ние", "вие":
			n++
		case "что", "это", "какие", "какой", "здесь", "вы", "мы", "он", "она", "был", "была":
			n--
		}
	}
	return n
}

// ukrainianWords is the count of the common words only Ukrainian writes
// less those only Russian writes, for a text too short to hold the
// letters that tell them apart.
func ukrainianWords(text string) int {
	n := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		switch w {
		case "що", "це", "як", "та", "або", "але", "які", "який", "тут", "до", "від", "ви", "ми", "він", "вона":
			n++
		case "что", "это", "как", "или", "но", "какие", "какой", "здесь", "от", "вы", "мы", "он", "она":
			n--
		}
	}
	return n
}

// persianLetter is 1 for a letter Persian writes and Arabic does not,
// or writes otherwise (پ چ ژ گ, and ک and ی for Arabic's ك and ي), -1 for
// the Arabic forms of those two and its teh marbuta (ة), else 0: the sum
// over a text says which of the two it is.
func persianLetter(r rune) int {
	switch r {
	case 'پ', 'چ', 'ژ', 'گ', 'ک', 'ی':
		return 1
	case 'ك', 'ي', 'ة':
		return -1
	}
	return 0
}

// unspacedLang is the language of a character of the unspaced scripts.
func unspacedLang(r rune) string {
	switch {
	case unicode.Is(unicode.Thai, r):
		return "th"
	case unicode.Is(unicode.Lao, r):
		return "lo"
	case unicode.Is(unicode.Khmer, r):
		return "km"
	case unicode.Is(unicode.Myanmar, r):
		return "my"
	}
	return langOther
}

// latinOrder breaks ties: the order of the languages detection prefers.
var latinOrder = []string{"en", "fr", "de", "es", "it", "pt", "nl", "da", "sv", "no", "fi", "tr", "ro", "hu", "pl", "cs", "id", "hr"}

// stopWords maps a common word to the languages it is common in.
var stopWords = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	for _, code := range latinOrder {
		for _, line := range strings.Split(string(languages[code].stop), "\n") {
			if i := strings.IndexByte(line, '|'); i >= 0 {
				line = line[:i]
			}
			if strings.HasPrefix(line, "#") {
				continue
			}
			for _, w := range strings.Fields(line) {
				m[w] = append(m[w], code)
			}
		}
	}
	return m
})

func stopLangs(w string) []string { return stopWords()[w] }

// langFolders is Options.Languages: glob → language, tried longest glob
// first, so that "fr/en/**" wins over "fr/**".
type langFolders []langFolder

type langFolder struct{ glob, code string }

func newLangFolders(m map[string]string) langFolders {
	var out langFolders
	for g, code := range m {
		c, _ := normLang(code)
		out = append(out, langFolder{glob: g, code: c})
	}
	slices.SortFunc(out, func(a, b langFolder) int {
		return cmp.Or(len(b.glob)-len(a.glob), strings.Compare(a.glob, b.glob))
	})
	return out
}

func (lf langFolders) of(p string) (string, bool) {
	for _, f := range lf {
		if ok, _ := doublestar.Match(f.glob, p); ok {
			return f.code, true
		}
	}
	return "", false
}

// key names the map for the index marker: "" when there is none.
func (lf langFolders) key() string {
	var parts []string
	for _, f := range lf {
		parts = append(parts, f.glob+"="+f.code)
	}
	return strings.Join(parts, ";")
}
