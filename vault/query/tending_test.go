package query

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/tending"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// TestTendingCodec: zk stale's section reads back what it wrote: each
// note's cadence and links; a cut anywhere is refused, and a damaged
// cadence or link is told, never a panic or an index past the files.
func TestTendingCodec(t *testing.T) {
	c := tending.Cadence{Path: "A.md", Typed: true, Dated: true,
		Tended:   tending.Tended{Source: "maintenance", Raw: "2026-02-30", Date: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), Line: 4, Err: errors.New("not a date")},
		Interval: vault.Interval{N: 3, Unit: 'm'}, Source: tending.IntervalType,
		Problem: &tending.StaleProblem{Path: "A.md", Line: 1, Message: "tend-every: bad"}}
	notes := []Tending{{Path: "A.md", cadence: encodeCadence(c), links: "\x02\x01\x02"}, {Path: "B.md", cadence: encodeCadence(tending.Cadence{Path: "B.md"}), links: "\x00"}}
	b := EncodeTending(notes)
	got, err := DecodeTending(b)
	if err != nil || !reflect.DeepEqual(got, notes) {
		t.Fatalf("DecodeTending = %+v, %v; want %+v", got, err, notes)
	}
	if gc, ok := got[0].Cadence(); !ok || gc.Tended.Err.Error() != c.Tended.Err.Error() || gc.Problem.Message != c.Problem.Message || gc.Interval != c.Interval {
		t.Errorf("Cadence = %+v, %v; want %+v", gc, ok, c)
	}
	var links []int
	if !got[0].EachLink(3, func(i int) { links = append(links, i) }) || !reflect.DeepEqual(links, []int{1, 2}) {
		t.Errorf("links %v, want [1 2]", links)
	}
	if got[0].EachLink(2, func(i int) { t.Errorf("index %d told of a damaged entry", i) }) {
		t.Error("an index past the files read as good")
	}
	for cut := range len(b) {
		if _, err := DecodeTending(b[:cut]); err == nil {
			t.Fatalf("cut at %d of %d bytes decoded", cut, len(b))
		}
	}
	for cut := range len(notes[0].cadence) {
		if _, ok := (Tending{Path: "A.md", cadence: notes[0].cadence[:cut]}).Cadence(); ok {
			t.Fatalf("a cadence cut at %d read as good", cut)
		}
	}
}

func FuzzDecodeTending(f *testing.F) {
	f.Add(EncodeTending([]Tending{{Path: "A.md", cadence: encodeCadence(tending.Cadence{Path: "A.md", Dated: true}), links: "\x01\x00"}}))
	f.Add([]byte(tendingMagic + "\xff\xff\xff\xff\x0f"))
	f.Fuzz(func(t *testing.T, b []byte) {
		notes, err := DecodeTending(b)
		if err != nil {
			return
		}
		for _, n := range notes {
			n.Cadence()
			n.EachLink(len(notes), func(i int) {
				if i < 0 || i >= len(notes) {
					t.Fatalf("index %d of %d files", i, len(notes))
				}
			})
		}
		if again, err := DecodeTending(EncodeTending(notes)); err != nil || !reflect.DeepEqual(again, notes) {
			t.Fatalf("re-encoded entries decode as %+v, %v", again, err)
		}
	})
}

// TestReadTendingResolvesAsEveryFile: a few notes read again are each
// given a resolver over the files their links can name (resolveLinks);
// their links resolve to the files an index of every file gives, by path,
// relative path, name in any case, heading, alias, embed, frontmatter
// link and a name two files share; and so they do past fewNotes, through
// that index.
func TestReadTendingResolvesAsEveryFile(t *testing.T) {
	links := "[[b]] [[Sub/C|c]] [[../Top]] [[./Sub/Same]] [[same]] [[D#Heading]] ![[pic.PNG]] [[Nowhere]] [[a]]\n"
	for _, notes := range []int{3, fewNotes + 4} {
		files := resolvingFiles(links)
		for i := range notes {
			files[fmt.Sprintf("More/N%02d.md", i)] = "# N\n" + links
		}
		v, err := vault.Open(vaulttest.Dir(t, files))
		if err != nil {
			t.Fatal(err)
		}
		walk, _, err := v.Files(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var reuse func(string) (Tending, bool)
		if notes <= fewNotes { // all but the few read again
			reuse = func(p string) (Tending, bool) { return Tending{}, !strings.HasPrefix(p, "More/") }
		}
		got, err := ReadTending(context.Background(), v, walk, Options{}, reuse, nil)
		if err != nil {
			t.Fatal(err)
		}
		paths, _ := vault.SplitFiles(walk)
		all := vault.NewResolver(paths)
		read := 0
		for _, n := range got {
			if n.Path == "" {
				continue // reused
			}
			read++
			note, err := v.ReadNote(n.Path)
			if err != nil {
				t.Fatal(err)
			}
			var want, have []string
			want = vault.LinkedFiles(note, all)
			n.EachLink(len(walk), func(i int) { have = append(have, walk[i].Path) })
			if !slices.Equal(have, want) || strings.HasPrefix(n.Path, "More/") && len(want) < 6 {
				t.Errorf("%d notes: %s links to %v, want %v", notes, n.Path, have, want)
			}
		}
		if read < notes {
			t.Errorf("%d notes: %d read", notes, read)
		}
		v.Close()
	}
}

// resolvingFiles is a vault whose A and B link (links) to files by every
// way a link resolves: path, relative path, name in any case, heading,
// embed, frontmatter link, a name two files share, and none.
func resolvingFiles(links string) map[string]string {
	return map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "---\nup: \"[[Sub/D]]\"\n---\n# A\n" + links,
		"B.md":               "# B\n" + links,
		"Sub/C.md":           "# C\n[[A]] [[../B]] [[Same]]\n",
		"Sub/D.md":           "# D\n## Heading\n",
		"Sub/Same.md":        "# Same\n",
		"Other/same.md":      "# same\n",
		"Top.md":             "# Top\n",
		"pic.png":            "png",
	}
}
