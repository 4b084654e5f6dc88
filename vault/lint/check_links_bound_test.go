package lint

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault"
)

// The link rules' indexes must answer as the plain scans they replace did.

// plainHasHeadingPath and plainClosest are the scans of before.
func plainHasHeadingPath(headings []string, subpath string) bool {
	from := 0
	for _, part := range strings.Split(strings.TrimPrefix(subpath, "#"), "#") {
		want := vault.NormHeading(part)
		if want == "" {
			continue
		}
		i := from
		for ; i < len(headings) && vault.NormHeading(headings[i]) != want; i++ {
		}
		if i == len(headings) {
			return false
		}
		from = i + 1
	}
	return true
}

func plainClosest(headings []string, subpath string) (string, bool) {
	parts := strings.Split(subpath, "#")
	want := vault.NormHeading(parts[len(parts)-1])
	best, bestD := "", -1
	for _, h := range headings {
		if d := editDistance(want, vault.NormHeading(h)); bestD < 0 || d < bestD {
			best, bestD = strings.TrimSpace(h), d
		}
	}
	return best, bestD >= 0
}

func TestHeadingIndexMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "c", "é", " ", "#", "[[", "]]", "A", "ab", "ba"}
	word := func() string {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 2000 {
		headings := make([]string, rng.IntN(8))
		for i := range headings {
			headings[i] = word()
		}
		sub := "#" + word()
		if rng.IntN(2) == 0 {
			sub += "#" + word()
		}
		if got, want := hasHeadingPath(headings, sub), plainHasHeadingPath(headings, sub); got != want {
			t.Fatalf("hasHeadingPath(%q, %q) = %v, want %v", headings, sub, got, want)
		}
		gb, gok := closestHeading(headings, sub)
		wb, wok := plainClosest(headings, sub)
		if gb != wb || gok != wok {
			t.Fatalf("closestHeading(%q, %q) = %q %v, want %q %v", headings, sub, gb, gok, wb, wok)
		}
	}
}

func TestBoundedDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"kitten", "sitting", math.MaxInt - 1, 3},
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 2, 3}, // over the limit: limit+1
		{"kitten", "sitting", 0, 1},
		{"", "abc", 10, 3},
		{"abc", "abc", 0, 0},
	} {
		if got := boundedDistance([]rune(tt.a), []rune(tt.b), tt.limit); got != tt.want {
			t.Errorf("boundedDistance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.limit, got, tt.want)
		}
	}
}

// TestLinkTargetsBounded: thousands of broken links into a note of
// thousands of headings or block ids are all reported, with the closest
// heading while the check's budget lasts, and a repeated link costs
// nothing more.
func TestLinkTargetsBounded(t *testing.T) {
	const n = 3000
	sum := &noteSummary{name: "H"}
	for i := range n {
		sum.headings = append(sum.headings, "Heading number "+itoa(i))
		sum.blocks = append(sum.blocks, "b"+itoa(i))
	}
	lt := newLinkTargets()
	suggested := 0
	for i := range n {
		if func() bool { _, ok := lt.headingIndex(sum).Find("#Missing heading " + itoa(i)); return ok }() {
			t.Fatalf("found a heading that is not there")
		}
		if _, ok := lt.closestHeading(sum, "#Missing heading "+itoa(i)); ok {
			suggested++
		}
		if !lt.hasBlock(sum, "B"+itoa(i)) || lt.hasBlock(sum, "nob"+itoa(i)) {
			t.Fatalf("block %d: wrong answer", i)
		}
	}
	if suggested == 0 || suggested == n {
		t.Errorf("%d of %d broken links got a suggestion: want some, within the budget, not all", suggested, n)
	}
	if lt.cells >= 0 {
		t.Errorf("budget not spent: %d cells left", lt.cells)
	}
	// The first link, asked again, is answered from memory.
	if best, ok := lt.closestHeading(sum, "#Missing heading 0"); !ok || best != "Heading number 0" {
		t.Errorf("closest to #Missing heading 0 = %q %v", best, ok)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// FuzzBoundedDistance holds the banded distance to the whole table's:
// the distance when it is within limit, more than limit otherwise.
func FuzzBoundedDistance(f *testing.F) {
	for _, s := range [][2]string{{"kitten", "sitting"}, {"", "abc"}, {"abcdef", "ab"}, {"héllo", "hello wörld"}} {
		f.Add(s[0], s[1], 2)
	}
	f.Fuzz(func(t *testing.T, a, b string, limit int) {
		limit = max(0, min(limit, 40))
		want := editDistance(a, b)
		got := boundedDistance([]rune(a), []rune(b), limit)
		if want <= limit && got != want || want > limit && got <= limit {
			t.Fatalf("boundedDistance(%q, %q, %d) = %d, distance %d", a, b, limit, got, want)
		}
		rows := make([]int, 2*(len([]rune(b))+1))
		for i := range rows {
			rows[i] = -7 // another comparison's leavings
		}
		if again := boundedDistanceIn([]rune(a), []rune(b), limit, rows); again != got {
			t.Fatalf("in used rows: %d, want %d", again, got)
		}
	})
}

// posLineCol finds the line and column of a link's ends as lineCol does,
// from the parser's places where they agree with the note's lines, and
// from the offset alone where they do not.
func TestPosLineCol(t *testing.T) {
	src := "---\ntitle: é\n---\n# Ünïcode [[A#x]]\r\nplain [[B]] then ![[C#^b]]\n\n" + strings.Repeat("ü", 300) + " [[D#far]]\n日本 [ref](E.md#y)\n[[F]]"
	n := vault.NewParser().Parse("N.md", []byte(src))
	nc := &noteCheck{n: n, lines: n.Lines()}
	seen := 0
	for l := range n.LinksAndEmbeds() {
		for _, p := range []vault.Pos{l.Span.Start, l.Span.End} {
			wl, wc := nc.lineCol(p.Offset)
			if gl, gc := nc.posLineCol(p); gl != wl || gc != wc {
				t.Errorf("%q at %+v: %d:%d, want %d:%d", l.Original, p, gl, gc, wl, wc)
			}
			for _, bad := range []vault.Pos{{Line: p.Line + 1, Col: p.Col, Offset: p.Offset}, {Line: p.Line, Col: p.Col + 1, Offset: p.Offset},
				{Line: -1, Col: 0, Offset: p.Offset}, {Line: p.Line, Col: p.Col, Offset: len(src) + 5}} {
				wl, wc := nc.lineCol(bad.Offset)
				if gl, gc := nc.posLineCol(bad); gl != wl || gc != wc {
					t.Errorf("%q at %+v: %d:%d, want %d:%d", l.Original, bad, gl, gc, wl, wc)
				}
			}
			seen++
		}
	}
	if seen != 12 {
		t.Errorf("%d places of links, want 12", seen)
	}
}
