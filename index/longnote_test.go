package index

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault"
)

// letterWords is n one-letter words, a to j over and over: the most words
// a note's bytes can hold.
func letterWords(n int) string {
	var b strings.Builder
	b.Grow(2 * n)
	for i := range n {
		b.WriteByte("abcdefghij"[i%10])
		b.WriteByte(' ')
	}
	return b.String()
}

// distinctWords is n words, each written once.
func distinctWords(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "w%x ", i)
	}
	return b.String()
}

// A field's words are indexed at their positions up to maxFieldWords,
// then once each, and not past maxFieldTerms: bleve holds every word of a
// note until its batch is written, and a note of 2,000,000 one-letter
// words took 780 MB (one of 4 MB of Chinese, 1.2 GB).
func TestTokenizeBounded(t *testing.T) {
	han := strings.Repeat("标注链接", 60_000) // 240,000 ideographs, 4 distinct pairs and 3 more
	for _, tc := range []struct {
		name     string
		text     string
		max      int
		over     bool
		wantTerm string // a word past maxFieldWords that must be kept
	}{
		{"a normal note", distinctWords(1000), 1000, false, ""},
		{"one-letter words", letterWords(2_000_000) + "zebra", maxFieldWords + 11, true, "zebra"},
		{"distinct words", distinctWords(1_000_000), maxFieldTerms, true, "w186a0"}, // word 100,000
		{"ideographs", han + "。文档", maxFieldWords + 10, true, "文"},
	} {
		out, over := tokenize([]byte(tc.text))
		if len(out) > tc.max || over != tc.over {
			t.Errorf("%s: %d words, over %v; want at most %d, over %v", tc.name, len(out), over, tc.max, tc.over)
		}
		if tc.wantTerm == "" {
			continue
		}
		found := false
		for _, tok := range out[min(maxFieldWords, len(out)):] {
			found = found || string(tok.Term) == tc.wantTerm
		}
		if !found {
			t.Errorf("%s: %q past the first %d words was not kept", tc.name, tc.wantTerm, maxFieldWords)
		}
	}
}

// zk index names a note whose part has more words than maxFieldWords,
// and only such a note.
func TestOverWords(t *testing.T) {
	for text, want := range map[string]bool{
		letterWords(maxFieldWords):              false, // ends with a space
		letterWords(maxFieldWords) + "\n\n  \n": false,
		letterWords(maxFieldWords) + "zebra":    true,
		strings.Repeat("标", maxFieldWords+1):    true,
		strings.Repeat("标", maxFieldWords):      false,
	} {
		if got := overWords(text); got != want {
			t.Errorf("overWords(%d bytes ending %q) = %v, want %v", len(text), text[len(text)-8:], got, want)
		}
	}
}

// A note longer than the index keeps in full is still found by a word at
// its end, and by a phrase and a CJK word in its first part or past it;
// zk index names it.
func TestSearchLongNote(t *testing.T) {
	long := "# Long\n\nthe rate without its denominator\n\n" + letterWords(300_000) +
		"\n\nzebra crossing 标注 ค้นหา\n"
	v := testVault(t, map[string]string{"long.md": long, "short.md": "# Short\n\nA zebra.\n"})
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
	st, err := Update(context.Background(), v, opts, false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(st.Long, ",") != "long.md" {
		t.Errorf("Long = %q, want long.md", st.Long)
	}
	for q, want := range map[string]string{
		"zebra":                     "long.md,short.md",
		"crossing":                  "long.md",
		`"without its denominator"`: "long.md",
		"标注":                        "long.md",
		"ค้นหา":                     "long.md",
	} {
		if got, _ := searchPaths(t, v, opts, q); strings.Join(got, ",") != want {
			t.Errorf("search %s = %v, want %s", q, got, want)
		}
	}
}

// BenchmarkIndexLongNote indexes one note of 2,000,000 one-letter words
// (4 MB): go test ./index -run '^$' -bench LongNote -benchtime 1x
// -memprofile /tmp/mem.out.
func BenchmarkIndexLongNote(b *testing.B) {
	dir := b.TempDir()
	writeNote(b, dir, "long.md", letterWords(2_000_000))
	v, err := vault.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	b.ResetTimer()
	for range b.N {
		if _, err := Update(context.Background(), v, Options{Dir: b.TempDir()}, true); err != nil {
			b.Fatal(err)
		}
	}
}
