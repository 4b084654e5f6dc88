package lint

import (
	"testing"
	"unsafe"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
)

// TestRestsOnKeepsNotTheLine: a note's rests-on edges, kept for every
// note until the link rules run, hold the relation list's own word, not
// a slice of the entry's line (which would keep the whole line,
// justification and all, in memory).
func TestRestsOnKeepsNotTheLine(t *testing.T) {
	src := "# A\n\n## Links\n\n- [[B]] — extends: a long justification that no edge needs to keep\n- [[C]] — contrasts: not one to rest on\n"
	n := vault.NewParser().Parse("A.md", []byte(src))
	c := newChecker(vault.NewResolver(nil), Options{})
	edges := c.restsOn(n, vault.NewLines(n.Src), vault.LinkEntries(n))
	if len(edges) != 1 || edges[0].link != "B" || edges[0].relation != "extends" {
		t.Fatalf("edges = %+v, want one to B by extends", edges)
	}
	if unsafe.StringData(edges[0].relation) != unsafe.StringData(RestsOnRelations[0]) {
		t.Error("the edge's relation is a slice of the entry's line, not the list's word")
	}
}

// TestRelationWordsKeepNotTheLine: the relations a session keeps of
// every note are copies, not slices of the entries' lines.
func TestRelationWordsKeepNotTheLine(t *testing.T) {
	src := "# A\n\n## Links\n\n- [[B]] — contrasts: a long justification that no session needs to keep\n"
	entries := vault.LinkEntries(vault.NewParser().Parse("A.md", []byte(src)))
	words := relationWords(entries)
	if len(words) != 1 || words[0] != "contrasts" {
		t.Fatalf("words = %q, want [contrasts]", words)
	}
	if unsafe.StringData(words[0]) == unsafe.StringData(entries[0].Relation) {
		t.Error("the relation kept is a slice of the entry's line")
	}
}

// TestFlakyMessage: the finding says how the runs split, and proposes
// repeat: N to a falsifier without one, more of it to one with it.
func TestFlakyMessage(t *testing.T) {
	fl := evidence.Flips{Runs: 5, Refutes: 2, Supports: 3, Flips: 3}
	tests := []struct {
		name      string
		falsifier evidence.Falsifier
		want      string
	}{
		{"no repeat", evidence.Falsifier{N: 2}, "falsifier 2's verdict flipped 3 times over its last 5 judged runs under this criterion (2 refute, 3 support): a single reading cannot tell the claim from noise; give the falsifier `- repeat: N` to judge its criterion over N runs' samples, 6 or more at 95% (docs/falsifiers.md#noise-judging-on-resamples)"},
		// At 99%, by its own item or the config's, 6 runs are too few:
		// the finding said 6 at 95% whatever the falsifier asked.
		{"no repeat, at 99%", evidence.Falsifier{N: 2, Confidence: "99%"}, "falsifier 2's verdict flipped 3 times over its last 5 judged runs under this criterion (2 refute, 3 support): a single reading cannot tell the claim from noise; give the falsifier `- repeat: N` to judge its criterion over N runs' samples, 8 or more at 99% (docs/falsifiers.md#noise-judging-on-resamples)"},
		{"no repeat, at the config's 75%", evidence.Falsifier{N: 2}.Under(evidence.Settings{Confidence: 0.75}), "falsifier 2's verdict flipped 3 times over its last 5 judged runs under this criterion (2 refute, 3 support): a single reading cannot tell the claim from noise; give the falsifier `- repeat: N` to judge its criterion over N runs' samples, 3 or more at 75% (docs/falsifiers.md#noise-judging-on-resamples)"},
		{"repeated already", evidence.Falsifier{N: 1, Repeat: "6"}, "falsifier 1's verdict flipped 3 times over its last 5 judged runs under this criterion (2 refute, 3 support): the samples of its repeats cannot tell the claim from noise either; raise `repeat:`, or measure what it reads more steadily"},
	}
	for _, tt := range tests {
		if got := FlakyMessage(tt.falsifier, fl); got != tt.want {
			t.Errorf("%s: FlakyMessage = %q, want %q", tt.name, got, tt.want)
		}
	}
}
