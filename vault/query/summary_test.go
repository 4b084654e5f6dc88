package query

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// TestDetailEdgesInPieces: the ways zk graph and zk backlinks read a
// note's edges without a slice per note (AppendEdges, AppendEdgesTo,
// EdgeCount) give what Edges gives, and none of a damaged encoding.
func TestDetailEdgesInPieces(t *testing.T) {
	edges := []vault.Edge{
		{From: "A.md", To: "B.md", Link: "B", Path: "B", Kind: vault.EdgeLink, Line: 3, Relation: "supports", Qualifier: "q", Justification: "j"},
		{From: "A.md", Link: "Nowhere", Path: "Nowhere", Kind: vault.EdgeLink, Line: 4},
		{From: "A.md", To: "B.md", Link: "B#H", Path: "B", Kind: vault.EdgeEmbed, Line: 9},
		{From: "A.md", To: "C.png", Link: "C.png", Path: "C.png", Kind: vault.EdgeFrontmatter, Line: -1},
	}
	d := Detail{Path: "A.md", edges: encodeEdges(edges)}
	if got := d.Edges(); !reflect.DeepEqual(got, edges) {
		t.Fatalf("Edges = %+v, want %+v", got, edges)
	}
	if n := d.EdgeCount(); n != len(edges) {
		t.Errorf("EdgeCount = %d, want %d", n, len(edges))
	}
	before := []vault.Edge{{From: "Z.md"}}
	if got := d.AppendEdges(before); !reflect.DeepEqual(got, append([]vault.Edge{{From: "Z.md"}}, edges...)) {
		t.Errorf("AppendEdges = %+v", got)
	}
	for _, to := range []string{"B.md", "C.png", "Nowhere", "D.md"} {
		var want []vault.Edge
		for _, e := range edges {
			if e.To == to {
				want = append(want, e)
			}
		}
		if got := d.AppendEdgesTo(nil, to); !reflect.DeepEqual(got, want) {
			t.Errorf("AppendEdgesTo(%q) = %+v, want %+v", to, got, want)
		}
	}
	none := Detail{Path: "N.md"}
	if none.Edges() != nil || none.EdgeCount() != 0 || len(none.AppendEdges(nil)) != 0 || len(none.AppendEdgesTo(nil, "B.md")) != 0 {
		t.Error("a note without edges has some")
	}
	enc := encodeEdges(edges)
	for cut := 1; cut < len(enc); cut++ {
		bad := Detail{Path: "A.md", edges: enc[:cut]}
		if got := bad.AppendEdges(before[:1]); len(got) != 1 {
			t.Fatalf("cut at %d: AppendEdges appended %d edges of a damaged encoding", cut, len(got)-1)
		}
		if got := bad.AppendEdgesTo(nil, "B.md"); len(got) != 0 {
			t.Fatalf("cut at %d: AppendEdgesTo gave %d edges of a damaged encoding", cut, len(got))
		}
		if bad.Edges() != nil {
			t.Fatalf("cut at %d: Edges of a damaged encoding", cut)
		}
	}
}

// TestFalsifierCount: zk runs sizes its rows by FalsifierCount, which is
// len(Falsifiers()) without decoding them, and 0 for none.
func TestFalsifierCount(t *testing.T) {
	fs := []Falsifier{{N: 1, ID: "a", Text: "t", Criterion: "c", Verdict: "supports"}, {N: 2, ID: "b"}, {N: 0, ID: "gone", Verdict: "refutes"}}
	d := Detail{Path: "A.md", falsifiers: encodeFalsifiers(fs)}
	if got := d.FalsifierCount(); got != len(fs) || len(d.Falsifiers()) != len(fs) {
		t.Errorf("FalsifierCount = %d, Falsifiers %d, want %d", got, len(d.Falsifiers()), len(fs))
	}
	if n := (Detail{Path: "N.md"}).FalsifierCount(); n != 0 {
		t.Errorf("FalsifierCount of a note without falsifiers = %d", n)
	}
}

// TestRunsCodec: zk runs' section reads back what it wrote, and a cut
// anywhere is refused, never a panic.
func TestRunsCodec(t *testing.T) {
	fs := []Falsifier{{N: 1, ID: "a", Text: "t", Criterion: "c", Run: "r1", Verdict: "supports", Statement: "s"}, {N: 0, ID: "gone", Verdict: "refutes"},
		{N: 2, Text: "flaky", Criterion: "c", Run: "r2", Verdict: "refutes", Changed: true, Flips: evidence.Flips{Runs: 5, Refutes: 3, Supports: 2, Flips: 4}}}
	runs := []Runs{{Path: "A.md", falsifiers: encodeFalsifiers(fs)}, {Path: "B.md"}}
	b := EncodeRuns(runs)
	got, err := DecodeRuns(b)
	if err != nil || !reflect.DeepEqual(got, runs) || !reflect.DeepEqual(got[0].Falsifiers(), fs) || got[0].FalsifierCount() != 3 {
		t.Fatalf("DecodeRuns = %+v, %v; want %+v", got, err, runs)
	}
	for cut := range len(b) {
		if _, err := DecodeRuns(b[:cut]); err == nil {
			t.Fatalf("runs cut at %d of %d bytes decoded", cut, len(b))
		}
	}
	if _, err := DecodeRuns(append(b, 0)); err == nil {
		t.Error("runs with a byte after them decoded")
	}
}

// TestAppendFalsifiersReused: zk runs decodes every note's falsifiers
// into one slice, reset for each note (fs[:0]); a falsifier that is not
// flaky kept the flips of the one decoded into its place before, so that
// a falsifier run once read "refutes (flaky)" after a flaky one's note.
func TestAppendFalsifiersReused(t *testing.T) {
	flaky := Runs{Path: "A.md", falsifiers: encodeFalsifiers([]Falsifier{{N: 1, Run: "r1", Verdict: "refutes", Changed: true, Flips: evidence.Flips{Runs: 6, Refutes: 3, Supports: 3, Flips: 2}}})}
	steady := []Falsifier{{N: 1, Run: "r2", Verdict: "supports"}}
	one := Runs{Path: "B.md", falsifiers: encodeFalsifiers(steady)}
	fs := flaky.AppendFalsifiers(nil)
	if got := one.AppendFalsifiers(fs[:0]); !reflect.DeepEqual(got, steady) {
		t.Errorf("decoded into a reused slice: %+v, want %+v", got, steady)
	}
}

func FuzzDecodeRuns(f *testing.F) {
	f.Add(EncodeRuns([]Runs{{Path: "A.md", falsifiers: encodeFalsifiers([]Falsifier{{N: 1, Text: "t", Run: "r"}})}, {Path: "B.md"}}))
	f.Add([]byte(runsMagic + "\xff\xff\xff\xff\x0f"))
	f.Add([]byte(runsMagic + "\x01\x04A.md\x05\x01\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		runs, err := DecodeRuns(b)
		if err != nil {
			return
		}
		for _, r := range runs {
			if n, fs := r.FalsifierCount(), r.Falsifiers(); fs != nil && len(fs) != n {
				t.Fatalf("%d falsifiers counted, %d decoded", n, len(fs))
			}
		}
		if again, err := DecodeRuns(EncodeRuns(runs)); err != nil || !reflect.DeepEqual(again, runs) {
			t.Fatalf("re-encoded runs decode as %+v, %v; want %+v", again, err, runs)
		}
	})
}

// TestReadFewResolvesAsEveryFile: a few notes read again by ReadAll
// (their records' links) and ReadDetails (their edges, Links entries
// too) resolve as when every note is read through an index of every
// file: by path, relative path, name in any case, heading, alias, embed,
// frontmatter link and a name two files share.
func TestReadFewResolvesAsEveryFile(t *testing.T) {
	links := "[[b]] [[Sub/C|c]] [[../Top]] [[./Sub/Same]] [[same]] [[D#Heading]] ![[pic.PNG]] [[Nowhere]] [[a]]\n" +
		"\n## Links\n\n- [[Sub/D]] — supports: because.\n- [[same]] — extends: because.\n"
	files := resolvingFiles(links)
	files["More/N1.md"] = "---\nup: \"[[Top]]\"\n---\n# N\n" + links
	files["More/N2.md"] = "# N\n" + links
	for i := range fewNotes + 1 {
		files[fmt.Sprintf("Rest/R%02d.md", i)] = "# R\n[[A]]\n"
	}
	ctx := context.Background()
	v, err := vault.Open(vaulttest.Dir(t, files))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	walk, _, err := v.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Every note read (more than fewNotes: an index of every file), then
	// all but More/'s reused.
	few := func(p string) bool { return !strings.HasPrefix(p, "More/") }
	opts := Options{Need: NeedLinks}
	allNotes, err := ReadAll(ctx, v, walk, opts, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fewNotes, err := ReadAll(ctx, v, walk, opts, func(p string) (Note, bool) { return Note{Path: p}, few(p) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	allDetails, err := ReadDetails(ctx, v, walk, nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fewDetails, err := ReadDetails(ctx, v, walk, nil, nil, func(p string) (Detail, bool) { return Detail{Path: p}, few(p) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for i := range allNotes {
		if p := allNotes[i].Path; !few(p) {
			read++
			if !reflect.DeepEqual(fewNotes[i], allNotes[i]) || len(allNotes[i].Links) < 6 {
				t.Errorf("ReadAll of %s alone: %+v, want %+v", p, fewNotes[i], allNotes[i])
			}
			if got, want := fewDetails[i].Edges(), allDetails[i].Edges(); !reflect.DeepEqual(got, want) || len(want) < 11 {
				t.Errorf("ReadDetails of %s alone: %+v, want %+v", p, got, want)
			}
		}
	}
	if read != 2 {
		t.Errorf("%d notes read again, want 2", read)
	}
}
