package index

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	seg "github.com/blevesearch/segment"
)

// tokenizerWords is zk's tokenizer for text: Unicode word boundaries
// (UAX #29, bleve's segmenter) for every script that writes spaces or
// marks between words, and overlapping pairs of characters for the
// scripts that do not (see unspaced).
const tokenizerWords = "zk-words"

// unspaced are the scripts written without spaces between words: Thai,
// Lao, Khmer, Myanmar and the Tai scripts. UAX #29 leaves their word
// breaks to a dictionary, and bleve's segmenter, which has none, drops
// their text altogether: a Thai note indexed no Thai word. No maintained Go
// module segments them by dictionary (the Thai ones are unmaintained and
// know no Khmer), so they are cut as CJK is: into overlapping pairs of
// characters (code points), and a query word is matched as the phrase of
// its pairs. A word is then found where its characters stand in a row, and
// nowhere else.
var unspaced = []*unicode.RangeTable{unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar, unicode.New_Tai_Lue, unicode.Tai_Tham, unicode.Tai_Viet}

// isUnspaced reports whether r is written in a script without word spaces.
func isUnspaced(r rune) bool {
	return r >= 0x0e00 && r <= 0x0eff || // Thai, Lao: the common case first
		r >= 0x1000 && unicode.In(r, unspaced...)
}

// hasUnspaced reports whether s holds a character of those scripts; a
// query word that does is matched as a phrase of its pairs.
func hasUnspaced(s string) bool {
	for _, r := range s {
		if r >= 0x0e00 && isUnspaced(r) {
			return true
		}
	}
	return false
}

// pairType marks the pairs of unspaced text: later filters leave them as
// they are (folding would strip a Thai vowel sign, which is a combining
// mark, and conflate words).
const pairType = analysis.Shingle

// maxTokenBytes is the longest word indexed whole. A longer one is cut to
// its first maxTokenBytes bytes (at a character boundary), in notes and
// in queries alike, so a query for it still finds it: one 4 MiB "word"
// cost 8 s and 570 MB in bleve's term dictionary; cut, it costs what any
// word does. No word of any language is near it (the longest in common
// dictionaries are under 100 bytes in UTF-8); a hash, a key or a base64
// blob may be.
const maxTokenBytes = 256

// wordsTokenizer is tokenizerWords.
type wordsTokenizer struct{}

func (wordsTokenizer) Tokenize(input []byte) analysis.TokenStream {
	folded, at := foldFullwidth(input)
	if at == nil {
		out, _ := tokenize(input)
		return out
	}
	// The words of the folded text, at the offsets of the text as written
	// (a hit's fragment is cut from the note).
	out, _ := tokenize(folded)
	for _, t := range out {
		t.Start, t.End = at[t.Start], at[t.End]
	}
	return out
}

// foldFullwidth gives text with its fullwidth forms of ASCII (U+FF01 to
// U+FF5E: ０, Ａ, ＃) as ASCII, and the offset in text of each offset of
// the folded text (one more than its length); at is nil when text holds
// none. Folded before the words are split, since UAX #29 counts the
// fullwidth digits as no word at all (０１２ was dropped) and splits
// Ｒ２Ｄ２ where it keeps R2D2 whole; so the fullwidth and the ASCII
// spelling are the same words. Each such form is 3 bytes in UTF-8, led
// by 0xEF: other text is passed over without decoding.
func foldFullwidth(text []byte) ([]byte, []int) {
	i := 0
	for ; i+2 < len(text); i++ {
		if text[i] == 0xef && fullwidthAt(text[i:]) {
			break
		}
	}
	if i+2 >= len(text) {
		return text, nil
	}
	out := make([]byte, i, len(text))
	copy(out, text[:i])
	at := make([]int, i, len(text)+1)
	for k := range at {
		at[k] = k
	}
	for i < len(text) {
		if text[i] == 0xef && fullwidthAt(text[i:]) {
			r, _ := utf8.DecodeRune(text[i : i+3])
			out = append(out, byte(r-0xff01+'!'))
			at = append(at, i)
			i += 3
			continue
		}
		out = append(out, text[i])
		at = append(at, i)
		i++
	}
	return out, append(at, len(text))
}

// fullwidthAt reports whether b starts with a fullwidth form of ASCII:
// U+FF01–FF3F is EF BC 81–BF, U+FF40–FF5E is EF BD 80–9E.
func fullwidthAt(b []byte) bool {
	return len(b) >= 3 && b[0] == 0xef &&
		(b[1] == 0xbc && b[2] >= 0x81 && b[2] <= 0xbf || b[1] == 0xbd && b[2] >= 0x80 && b[2] <= 0x9e)
}

// maxFieldWords is how many words of one field of a note (its claim,
// scope, evidence, body, properties or title) are indexed where they
// stand, as phrases need them; maxFieldTerms is how many are indexed in
// all. Past maxFieldWords a word is indexed only the first time it
// comes (a pair of CJK or unspaced characters likewise), so that the
// note is still found by every word it holds but not by a phrase there;
// past maxFieldTerms nothing more is. bleve holds every word of a note
// it indexes, with its position, until the note's batch is written: a
// note of 4 MB of one-letter words (2,000,000 words) took 780 MB, one
// of 4 MB of Chinese 1.2 GB. A field of 100,000 words is about 600 KB
// of English, a book of 300 pages.
const (
	maxFieldWords = 100_000
	maxFieldTerms = 200_000
)

// tokenize splits text into words, see tokenizerWords; over reports
// that the text held more than maxFieldWords words, so that some were
// indexed once or not at all.
func tokenize(input []byte) (analysis.TokenStream, bool) {
	return tokenizeUpTo(input, maxFieldWords, maxFieldTerms)
}

// tokenizeUpTo is tokenize with the bounds as arguments, for the tests.
func tokenizeUpTo(input []byte, maxWords, maxTerms int) (out analysis.TokenStream, over bool) {
	// Tokens are allocated in slabs, as bleve's tokenizer does: one
	// allocation per token was a third of the tokenizer's time.
	// A slab holds at most 1,024: a guess from the bytes left is far too
	// many for a text of long words.
	guess := min(len(input)/5+1, 1024)
	out = make(analysis.TokenStream, 0, guess)
	slab := make([]analysis.Token, guess)
	var seen map[string]bool // past maxFieldWords: the words indexed since
	// prev is the last ideograph (or run of kana, or Hangul) passed, and
	// whether it was indexed: past maxFieldWords a pair of them is
	// indexed the first time it comes, as the two characters the CJK
	// filter pairs.
	var prev analysis.Token
	prevIn := false
	emit := func(t analysis.Token) {
		if len(slab) == 0 {
			slab = make([]analysis.Token, min(max(64, (len(input)-t.End)/5), 1024))
		}
		p := &slab[0]
		*p = t
		slab = slab[1:]
		out = append(out, p)
	}
	token := func(t analysis.Token) {
		if len(out) < maxWords {
			emit(t)
			prev, prevIn = t, true
			return
		}
		over = true
		if len(out) >= maxTerms {
			return
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		if t.Type != analysis.Ideographic {
			prev, prevIn = t, !seen[string(t.Term)]
			if prevIn {
				seen[string(t.Term)] = true
				emit(t)
			}
			return
		}
		// An ideograph is indexed with the one before it when the pair
		// is new (the CJK filter pairs characters that touch), and alone
		// when it starts a run and is new.
		key := "\x00" + string(t.Term)
		if prev.Type == analysis.Ideographic && prev.End == t.Start {
			key = string(prev.Term) + string(t.Term)
		}
		withPrev := key[0] != 0 && !prevIn
		if !seen[key] && (!withPrev || len(out)+2 <= maxTerms) {
			seen[key] = true
			if withPrev {
				emit(prev)
			}
			emit(t)
			prev, prevIn = t, true
			return
		}
		prev, prevIn = t, false
	}
	words := seg.NewWordSegmenterDirect(input)
	start, pos := 0, 1
	runStart, runEnd := -1, -1 // the run of unspaced text being gathered
	flush := func() {
		if runStart >= 0 {
			pos = appendPairs(token, input[runStart:runEnd], runStart, pos)
			runStart = -1
		}
	}
	for len(out) < maxTerms && words.Segment() {
		b := words.Bytes()
		end := start + len(b)
		typ := words.Type()
		if typ == seg.None {
			if r, _ := utf8.DecodeRune(b); isUnspaced(r) {
				if runStart < 0 {
					runStart = start
				}
				runEnd = end
				start = end
				continue
			}
		}
		flush()
		switch {
		case typ == seg.Letter && hasHangul(b):
			pos = appendHangul(token, b, start, pos)
		case typ == seg.Letter && bytes.Contains(b, zwnj) && hasArabicScript(b):
			at := start
			for _, part := range bytes.Split(b, zwnj) {
				if len(part) > 0 {
					w := cutWord(part)
					token(analysis.Token{Term: w, Start: at, End: at + len(w), Position: pos, Type: analysis.AlphaNumeric})
					pos++
				}
				at += len(part) + len(zwnj)
			}
		case typ != seg.None:
			w := cutWord(b)
			token(analysis.Token{Term: w, Start: start, End: start + len(w), Position: pos, Type: tokenType(typ)})
			pos++
		}
		start = end
	}
	flush()
	for len(out) >= maxTerms && !over && words.Segment() {
		r, _ := utf8.DecodeRune(words.Bytes())
		over = words.Type() != seg.None || isUnspaced(r) // a word left out
	}
	return out, over
}

// appendPairs adds the overlapping pairs of characters of one run of
// unspaced text at offset off, from position pos; a run of one character
// is that character.
func appendPairs(token func(analysis.Token), run []byte, off, pos int) int {
	first, size := utf8.DecodeRune(run)
	if size == len(run) || first == utf8.RuneError {
		token(analysis.Token{Term: run, Start: off, End: off + len(run), Position: pos, Type: pairType})
		return pos + 1
	}
	for i := 0; i+size < len(run); {
		_, next := utf8.DecodeRune(run[i+size:])
		token(analysis.Token{Term: run[i : i+size+next], Start: off + i, End: off + i + size + next, Position: pos, Type: pairType})
		pos++
		i += size
		size = next
	}
	return pos
}

// zwnj is the zero-width non-joiner, which Persian writes between the
// parts of a word that are not joined (می‌خواهید, "you want", is می and
// خواهید): UAX #29 keeps the parts one word, so خواهید did not find it.
// Each part is a word, as Lucene's Persian analyzer reads the joiner as a
// space; a phrase of the parts still finds them together. Only in Arabic
// script (Persian, Urdu, Kurdish: hasArabicScript).
var zwnj = []byte("\u200c")

// hasArabicScript reports whether b holds a letter of the Arabic block
// (U+0600–06FF, led by 0xD8–0xDB in UTF-8): Indic scripts write the
// joiner inside their words, to choose a glyph, and keep it.
func hasArabicScript(b []byte) bool {
	for _, c := range b {
		if c >= 0xd8 && c <= 0xdb {
			return true
		}
	}
	return false
}

// hasPaired reports whether s holds a character that every analysis
// cuts into pairs by its script (Han, kana, Hangul): a query word that
// does is matched as a phrase of its pairs, whatever the note's language.
func hasPaired(s string) bool {
	for _, r := range s {
		if r >= 0x1100 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hangul, r) ||
			unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)) {
			return true
		}
	}
	return false
}

// hasHangul reports whether a word holds a Hangul character. Every one is
// three bytes or more in UTF-8, led by a byte of at least 0xe1: a word of
// Latin, Greek or Cyrillic letters is passed over without decoding.
func hasHangul(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] >= 0xe1 {
			if r, _ := utf8.DecodeRune(b[i:]); unicode.Is(unicode.Hangul, r) {
				return true
			}
		}
	}
	return false
}

// appendHangul adds a word that holds Hangul as its runs of Hangul and of
// other letters, one word each, the Hangul typed as ideographs: UAX #29
// counts Hangul syllables as letters, so bleve's segmenter gave 보관소를
// (보관소 and its particle 를) as one word of letters, which the CJK
// bigram filter passes over (it pairs ideographs only), and a Korean note
// was indexed by whole words: 보관소 did not find it. Typed so, a Korean
// note's words are cut into pairs of syllables, as Chinese and Japanese
// are, and "API를" is the words API and 를, as Lucene's tokenizer cuts it.
func appendHangul(token func(analysis.Token), word []byte, off, pos int) int {
	for len(word) > 0 {
		r, size := utf8.DecodeRune(word)
		hangul := unicode.Is(unicode.Hangul, r)
		n := size
		for n < len(word) {
			r, size := utf8.DecodeRune(word[n:])
			if unicode.Is(unicode.Hangul, r) != hangul {
				break
			}
			n += size
		}
		typ := analysis.AlphaNumeric
		if hangul {
			typ = analysis.Ideographic
		}
		w := cutWord(word[:n])
		token(analysis.Token{Term: w, Start: off, End: off + len(w), Position: pos, Type: typ})
		pos++
		word, off = word[n:], off+n
	}
	return pos
}

// cutWord shortens a word to maxTokenBytes, at a character boundary.
func cutWord(b []byte) []byte {
	if len(b) <= maxTokenBytes {
		return b
	}
	n := maxTokenBytes
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

// tokenType is bleve's unicode tokenizer's typing of a segment.
func tokenType(t int) analysis.TokenType {
	switch t {
	case seg.Ideo, seg.Kana:
		return analysis.Ideographic
	case seg.Number:
		return analysis.Numeric
	}
	return analysis.AlphaNumeric
}

// filterCut is cutWord as a token filter, for the analyzers that keep a
// value whole (titles, tags, links).
const filterCut = "zk-cut"

type cutFilter struct{}

func (cutFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	for _, t := range in {
		if len(t.Term) > maxTokenBytes {
			t.Term = cutWord(t.Term)
			t.End = t.Start + len(t.Term)
		}
	}
	return in
}

// longWords adds to seen the words of text that the index cuts: only
// text with a run of maxTokenBytes bytes without a space can hold one,
// and only that text is segmented here again.
func longWords(text string, seen map[string]bool) {
	run := 0
	for i := 0; i < len(text) && run <= maxTokenBytes; i++ {
		switch text[i] {
		case ' ', '\n', '\t', '\r':
			run = 0
		default:
			run++
		}
	}
	if run <= maxTokenBytes {
		return
	}
	words := seg.NewWordSegmenterDirect([]byte(text))
	for words.Segment() {
		if words.Type() != seg.None && len(words.Bytes()) > maxTokenBytes {
			seen[string(words.Bytes())] = true
		}
	}
}

// overWords reports whether text holds more than maxFieldWords words,
// so that the index keeps some of them once or not at all. Text of fewer
// bytes cannot: every word takes a byte at least.
func overWords(text string) bool {
	if len(text) <= maxFieldWords {
		return false
	}
	folded, _ := foldFullwidth([]byte(text))
	// Stopped at maxFieldWords: whether a word comes after is the answer.
	_, over := tokenizeUpTo(folded, maxFieldWords, maxFieldWords)
	return over
}

// registerTokenizer registers tokenizerWords and filterCut with bleve.
func registerTokenizer() error {
	if err := registry.RegisterTokenizer(tokenizerWords, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return wordsTokenizer{}, nil
	}); err != nil {
		return err
	}
	return registry.RegisterTokenFilter(filterCut, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return cutFilter{}, nil
	})
}
