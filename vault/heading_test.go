package vault

import (
	"strings"
	"testing"
)

// One table for every reader of a link's #heading: zk check (broken or
// not), the language server (where it goes) and zk mv (which links name a
// heading) all call Find.
func TestHeadingIndexFind(t *testing.T) {
	headings := []string{"T", "Why: it holds", "Can I link? Yes: `code`", "Deep Other", "Property", "[[Linked]] heading", "Property"}
	x := NewHeadingIndex(headings)
	for _, tt := range []struct {
		sub  string
		want int // -2: not found
	}{
		{"#Why it holds", 1},  // the colon is punctuation Obsidian ignores
		{"#why: IT holds", 1}, // case too
		{"#Can I link? Yes: `code`", 2},
		{"#can i link yes code", 2},
		{"#Linked heading", 5},       // [[ ]] ignored
		{"#Property", 4},             // the first of two
		{"#T#Property", 4},           // in order
		{"#Deep Other#Property", 4},  // after Deep Other
		{"#Property#Property", 6},    // the second after the first
		{"#Property#Deep Other", -2}, // Deep comes before Property
		{"#Missing", -2},
		{"#", -1}, // no words: the note itself
	} {
		i, ok := x.Find(tt.sub)
		if tt.want == -2 {
			if ok {
				t.Errorf("Find(%q) = %d, want not found", tt.sub, i)
			}
			continue
		}
		if !ok || i != tt.want {
			t.Errorf("Find(%q) = %d, %v; want %d", tt.sub, i, ok, tt.want)
		}
	}
}

// A link's #^block matches as strings.EqualFold does, wherever it is read:
// BlockKey, which zk check keys its sets by, agrees with it on every pair.
func TestBlockKeyIsEqualFold(t *testing.T) {
	words := []string{"abc", "ABC", "aBc", "k", "K", "\u212a", "s", "S", "\u017f", "ß", "ẞ",
		"σ", "ς", "Σ", "é", "É", "block-1", "BLOCK-1", "\xff", "\xfe", "日本", ""}
	for _, a := range words {
		for _, b := range words {
			if got, want := BlockKey(a) == BlockKey(b), strings.EqualFold(a, b); got != want {
				t.Errorf("BlockKey(%q) == BlockKey(%q) is %v, EqualFold says %v", a, b, got, want)
			}
		}
	}
	n := &Note{BlockIDs: []BlockID{{ID: "para-1"}, {ID: "Other"}}}
	for id, want := range map[string]string{"para-1": "para-1", "PARA-1": "para-1", "other": "Other", "para": ""} {
		b, ok := BlockOf(n, id)
		if b.ID != want || ok != (want != "") {
			t.Errorf("BlockOf(%q) = %q, %v; want %q", id, b.ID, ok, want)
		}
	}
}

// normHeadingBefore is NormHeading as it was before its one-pass
// readings: a replacer of "[[" and "]]", a map, fields, a join and a
// lower-casing.
func normHeadingBefore(s string) string {
	s = strings.NewReplacer("[[", " ", "]]", " ").Replace(s)
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(headingPunct, r) {
			return ' '
		}
		return r
	}, s)
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// FuzzNormHeading holds NormHeading to its reading before the ASCII pass.
func FuzzNormHeading(f *testing.F) {
	for _, s := range []string{
		"", " ", "Why: it holds", "[[Note]] and [[x|y]]", "  A\tB\r\nC  ", "a[[[b]]]c",
		"Ünïcode Heading", "x\u00a0y", "x\u0085y", "\v\f", "#1 (of 2)!", "\xff[[a",
		"already normal", "TRAILING ", strings.Repeat("Ab. ", 100),
		"Ünïcode [[Überschrift]]\u3000Zwei", "ΣΑΣ ς", "İstanbul", "\u2028x\u1680y", "a\xffb\xc3", "\u212a\u017f",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := NormHeading(s), normHeadingBefore(s); got != want {
			t.Fatalf("NormHeading(%q) = %q, want %q", s, got, want)
		}
	})
}

// LinkHeading gives what a wikilink can hold and still reach the heading.
func TestLinkHeading(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"Plain:  words", "Plain:  words"},
		{"See [[Other|the other]] first", "See Other the other first"},
		{"A | B # C ^ D", "A B C D"},
		{"Array [i]", "Array i"},
		{"[[x]]", "x"},
		{"Ünïcode [[ä]]", "Ünïcode ä"},
	} {
		got := LinkHeading(tc.heading)
		if got != tc.want {
			t.Errorf("LinkHeading(%q) = %q, want %q", tc.heading, got, tc.want)
		}
		if NormHeading(got) != NormHeading(tc.heading) {
			t.Errorf("LinkHeading(%q) = %q, which matches %q, not the heading's %q", tc.heading, got, NormHeading(got), NormHeading(tc.heading))
		}
	}
}
