package workspace

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// sampleEntries are the entries of a vault whose notes have headings,
// block ids, aliases, rests-on entries, tags and links of every kind
// (resolved, broken, to a heading, to a block, embedded).
func sampleEntries(t testing.TB) []NoteEntry {
	t.Helper()
	v, err := vault.Open(vaulttest.Dir(t, map[string]string{
		".obsidian/app.json": "{}",
		"A.md": "---\naliases: [Aye]\ntags: [fm]\n---\n# A\n\nSee [[B#H]], [[B#^blk]] and [[Gone]]. ![[pic.png]] #topic/sub\n\n" +
			"## Rests on\n- supports [[B]]\n",
		"B.md":    "# B\n\n## H\n\nText. ^blk\n",
		"pic.png": "png",
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	ctx := context.Background()
	files, _, err := v.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	session, err := lint.NewSession(ctx, v, files, lint.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	paths, notes := vault.SplitFiles(files)
	res := vault.NewResolver(paths)
	out := make([]NoteEntry, len(notes))
	v.Each(ctx, notes, func(k int, n *vault.Note) {
		out[k] = NoteEntry{sum: session.Summarize(n), links: LinksOf(n, res), tags: tagsOf(n)}
	})
	return out
}

// Entries decode as they were encoded: encoded again, the same bytes.
func TestEntriesRoundTrip(t *testing.T) {
	es := sampleEntries(t)
	b := EncodeEntries(es)
	got, err := DecodeEntries(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(EncodeEntries(got), b) {
		t.Error("decoded and encoded again, other bytes")
	}
	if len(got) != 2 || got[0].Path() != "A.md" || len(got[0].links) != 5 || !reflect.DeepEqual(got[0].tags, es[0].tags) ||
		!reflect.DeepEqual(got[0].links, es[0].links) || len(got[0].sum.Aliases()) != 1 {
		t.Errorf("decoded %+v, want %+v", got, es)
	}
}

// Bytes EncodeEntries did not write (cut short anywhere, counts larger
// than the bytes, another version, a byte after the end) are an error,
// never a panic or an allocation larger than the input.
func TestDecodeEntriesDamaged(t *testing.T) {
	b := EncodeEntries(sampleEntries(t))
	for i := range len(b) {
		if _, err := DecodeEntries(b[:i]); err == nil {
			t.Errorf("cut at %d of %d: no error", i, len(b))
		}
	}
	huge := binary.AppendUvarint([]byte(entryMagic), 1<<62)
	for name, in := range map[string][]byte{
		"huge count":    huge,
		"huge tags":     binary.AppendUvarint(append([]byte(entryMagic), 1, 0, 0, 0, 0, 0, 0, 0, 0), 1<<40),
		"other version": append([]byte("zk-lsp-entries\x02"), b[len(entryMagic):]...),
		"a byte after":  append(bytes.Clone(b), 0),
	} {
		if _, err := DecodeEntries(in); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if testing.AllocsPerRun(10, func() { DecodeEntries(huge) }) > 3 {
		t.Error("a huge count allocates")
	}
}

// FuzzDecodeEntries: any bytes decode or fail with an error, never a
// panic; what decodes encodes again to bytes that decode the same.
//
//	go test ./workspace -run '^$' -fuzz FuzzDecodeEntries -fuzztime 30s
func FuzzDecodeEntries(f *testing.F) {
	b := EncodeEntries(sampleEntries(f))
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte(entryMagic))
	f.Fuzz(func(t *testing.T, in []byte) {
		es, err := DecodeEntries(in)
		if err != nil {
			return
		}
		out := EncodeEntries(es)
		back, err := DecodeEntries(out)
		if err != nil {
			t.Fatalf("encoded again, not decoded: %v", err)
		}
		if !bytes.Equal(EncodeEntries(back), out) {
			t.Fatal("not stable")
		}
	})
}

// TestPositions: the places of offsets between runes, in any order, on random text of
// newlines, ASCII, two-byte, astral and invalid bytes, agree with
// counting each from the top.
func TestPositions(t *testing.T) {
	naive := func(src []byte, off int) Pos {
		line, start := 0, 0
		for i := 0; i < off; i++ {
			if src[i] == '\n' {
				line, start = line+1, i+1
			}
		}
		return Pos{Line: uint32(line), Char: uint32(UTF16Len(src[start:off]))}
	}
	pieces := []string{"a", "[[x]]", "\n", "é", "😀", "\xff", "\r\n", " "}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		var b bytes.Buffer
		for range rng.IntN(60) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		src := b.Bytes()
		offs := make([]int, rng.IntN(12))
		for i := range offs { // a link starts and ends between runes
			o := rng.IntN(len(src) + 1)
			for o < len(src) && !utf8.RuneStart(src[o]) {
				o--
			}
			offs[i] = o
		}
		got := Positions(src, offs)
		for i, off := range offs {
			if want := naive(src, off); got[i] != want {
				t.Fatalf("Positions(%q, %v)[%d] = %+v, want %+v", src, offs, i, got[i], want)
			}
		}
	}
}

func TestUTF16Len(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"é", 1},        // two bytes, one unit
		{"€", 1},        // three bytes, one unit
		{"😀", 2},        // four bytes, a surrogate pair
		{"\xff", 1},     // an invalid byte: one replacement character
		{"\xf0\x9f", 2}, // a cut-short rune: each byte one
		{"a😀é\r\n", 6},
	} {
		if got := UTF16Len(tc.text); got != tc.want {
			t.Errorf("UTF16Len(%q) = %d, want %d", tc.text, got, tc.want)
		}
		if got := UTF16Len([]byte(tc.text)); got != tc.want {
			t.Errorf("UTF16Len([]byte(%q)) = %d, want %d", tc.text, got, tc.want)
		}
	}
	b := []byte(strings.Repeat("a😀", 1000))
	if allocs := testing.AllocsPerRun(10, func() { UTF16Len(b) }); allocs != 0 {
		t.Errorf("UTF16Len of bytes allocates %v times: it copies them into a string", allocs)
	}
}

// TestLinksOfLongLine: on a line of 20,000 links (the shape the language
// server spent minutes on before its first diagnostics, counting each
// link's column from the line's start) the last link's place is right;
// BenchmarkLinksOfLongLine times it.
func TestLinksOfLongLine(t *testing.T) {
	const n = 20_000
	note, r := longLine(n)
	refs := LinksOf(note, r)
	if len(refs) != n {
		t.Fatalf("%d links, want %d", len(refs), n)
	}
	if last, want := refs[n-1].End, (Pos{Line: 1, Char: 6*n - 1}); last != want {
		t.Errorf("the last link ends at %+v, want %+v", last, want)
	}
}

func longLine(n int) (*vault.Note, *vault.Resolver) {
	src := "# Long\n" + strings.Repeat("[[T]]é", n) + "\n"
	return vault.NewParser().Parse("long.md", []byte(src)), vault.NewResolver([]string{"T.md", "long.md"})
}

// BenchmarkLinksOfLongLine: linear in the line, its ns/op per link flat
// from 1,000 to 100,000 links (it was quadratic).
func BenchmarkLinksOfLongLine(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		note, r := longLine(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				LinksOf(note, r)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/link")
		})
	}
}
