package vault

import "testing"

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
