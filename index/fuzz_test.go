package index

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/zk-claims/zk/vault"
)

// FuzzDecodeManifest: any bytes decode to a manifest that encodes back to
// the same bytes, or to errBadManifest; never a panic or a huge
// allocation.
func FuzzDecodeManifest(f *testing.F) {
	f.Add((&manifest{Written: 7, Entries: []entry{{Path: "a.md", Size: 1, ModTime: 2}}}).encode())
	f.Add((&manifest{}).encode())
	f.Add([]byte("zkm1"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeManifest(b)
		if err != nil {
			return
		}
		if again := m.encode(); !bytes.Equal(again, b) {
			t.Fatalf("decode(encode) differs:\n%q\n%q", b, again)
		}
	})
}

// FuzzSplitText: for any note, every segment lies inside its field, the
// fields are valid UTF-8, and a fragment cut anywhere keeps its marks
// inside its text.
func FuzzSplitText(f *testing.F) {
	f.Add(permanent, 10)
	f.Add("# T\n\n## Claim\n\nx \xc3 y\n## Claim\n\nagain", 3)
	f.Add("---\ntags: [a]\n---\n", 0)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, src string, at int) {
		n := vault.NewParser().Parse("n.md", []byte(src))
		nt := splitText(n)
		for _, s := range nt.segments {
			text := nt.fields[s.field]
			if s.start < 0 || s.end > len(text) || s.start >= s.end {
				t.Fatalf("segment %+v outside %s (%d bytes)", s, s.field, len(text))
			}
		}
		for field, text := range nt.fields {
			if !utf8.ValidString(text) {
				t.Fatalf("%s is not valid UTF-8: %q", field, text)
			}
			if len(text) == 0 {
				continue
			}
			at := min(max(at, 0), len(text)-1)
			fr := cut(text, 0, len(text), at, [][2]int{{at, min(at+3, len(text))}})
			for _, m := range fr.Marks {
				if m[0] < 0 || m[1] > len(fr.Text) || m[0] > m[1] {
					t.Fatalf("mark %v outside fragment %q", m, fr.Text)
				}
			}
			if strings.Contains(fr.Text, "\n") {
				t.Fatalf("fragment keeps a line break: %q", fr.Text)
			}
		}
	})
}

// Language detection and folding take any bytes: never a panic, always a
// language zk analyses, and folding is idempotent.
func FuzzDetectLang(f *testing.F) {
	for _, s := range []string{"", "ok", "Les paramètres de la liste", "标注", "ノート", "Заметки", "ß æ Œ ø",
		"e\u0301", "\xff\xfe", strings.Repeat("日本", 3000) + "é", "#" + strings.Repeat("a/", 5000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, ok := languages[detectLang(s)]; !ok {
			t.Fatalf("detectLang(%q) = %q, not a language zk analyses", s, detectLang(s))
		}
		once := fold([]byte(s))
		if twice := fold(once); string(twice) != string(once) {
			t.Fatalf("fold(fold(%q)) = %q, fold = %q", s, twice, once)
		}
	})
}

// foldChain is fold as it was first written, a chain of transformers: the
// rune-by-rune fold must give the same bytes for text in NFC.
func foldChain(b []byte) []byte {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.Bytes(t, b)
	if err != nil {
		return b
	}
	return []byte(strings.NewReplacer("ß", "ss", "æ", "ae", "œ", "oe", "ø", "o", "đ", "d", "ł", "l", "þ", "th",
		"Æ", "AE", "Œ", "OE", "Ø", "O", "Đ", "D", "Ł", "L", "Þ", "TH").Replace(string(out)))
}

func FuzzFoldAsChain(f *testing.F) {
	for _, s := range []string{"épingler", "Überschrift", "straße", "Ærø", "ǢŁódź", "tiếng Việt", "Ελληνικά ά", "русский й", "한국어", "日本語", "ok", "\xff", "e\u0301"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		in := norm.NFC.Bytes([]byte(s))
		if got, want := norm.NFC.Bytes(fold(in)), foldChain(in); string(got) != string(want) {
			t.Fatalf("fold(%q) = %q, the chain gives %q", in, got, want)
		}
	})
}

// Every word the tokenizer gives is the text at its offsets, with the
// fullwidth forms of ASCII read as ASCII (and cut to maxTokenBytes): a
// hit's fragment is marked at those offsets in the note as written.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"", "Chapter ０１２ and Ｒ２Ｄ２.", "اگر می\u200cخواهید", "보관소를 API를", "ค้นหา", "标注系统",
		"a\u200cb", "\xef\xbc", "０", strings.Repeat("ｘ", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in := []byte(s)
		for _, tok := range (wordsTokenizer{}).Tokenize(in) {
			if tok.Start < 0 || tok.End > len(in) || tok.Start >= tok.End {
				t.Fatalf("%q: token %q at %d-%d, outside the text", s, tok.Term, tok.Start, tok.End)
			}
			written, _ := foldFullwidth(in[tok.Start:tok.End])
			if string(written) != string(tok.Term) {
				t.Fatalf("%q: token %q at %d-%d, where the text reads %q", s, tok.Term, tok.Start, tok.End, in[tok.Start:tok.End])
			}
		}
	})
}

// Past its bounds (small here) the tokenizer still gives only the text at
// its offsets, in order, and no more words than the bound: the pairs of
// CJK characters it keeps there must still touch for the CJK filter.
func FuzzTokenizeUpTo(f *testing.F) {
	for _, s := range []string{"a b c a b d e", "标注系统标注链接标", "ค้นหาค้นหาข้อความ", "보관소를 API를 보관소", "a 标注 b 标 注 标注"} {
		f.Add(s, uint8(2), uint8(5))
	}
	f.Fuzz(func(t *testing.T, s string, words, terms uint8) {
		in := []byte(s)
		maxWords, maxTerms := int(words), int(words)+int(terms)
		out, over := tokenizeUpTo(in, maxWords, maxTerms)
		all, _ := tokenizeUpTo(in, 1<<30, 1<<30)
		if len(out) > maxTerms || over != (len(all) > maxWords) {
			t.Fatalf("%q: %d words, over %v; the text has %d, bounds %d and %d", s, len(out), over, len(all), maxWords, maxTerms)
		}
		for i, tok := range out {
			if tok.Start < 0 || tok.End > len(in) || tok.Start >= tok.End || string(tok.Term) != string(in[tok.Start:tok.End]) {
				t.Fatalf("%q: token %q at %d-%d, not the text there", s, tok.Term, tok.Start, tok.End)
			}
			if i > 0 && tok.Start < out[i-1].Start {
				t.Fatalf("%q: token %q at %d before the one at %d", s, tok.Term, tok.Start, out[i-1].Start)
			}
		}
	})
}

// FuzzAnalyze: every language's analysis takes any text without a panic,
// and each word it gives lies inside the text (Stempel and the Snowball
// stemmers read words as written since schema 10).
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"książki i czasopisma", "orașele cărțile", "házakban könyvek", "Ąę Łł ŻŹ", "ţ ș ț ă î â",
		"ő ű", "\xff\xfe ą", "e\u0301", strings.Repeat("ą", 300), "листя і їх", "ΣΗΜΕΙΩΣΕΙΣ",
		"Књига је на столу", "Книгата е на масата, ябълките", "Knjige su na stolu, bilježnice", "teticima anjac"} {
		f.Add(s)
	}
	im, err := newMapping()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// The text indexed is valid UTF-8 (splitText), and bleve's
		// segmenter gives a word past the end of invalid text.
		s = strings.ToValidUTF8(s, "\uFFFD")
		for code := range languages {
			for _, tok := range im.AnalyzerNamed(langAnalyzer(code)).Analyze([]byte(s)) {
				if tok.Start < 0 || tok.End > len(s) || tok.Start > tok.End {
					t.Fatalf("%s: %q at %d-%d, outside %d bytes", code, tok.Term, tok.Start, tok.End, len(s))
				}
			}
		}
	})
}
