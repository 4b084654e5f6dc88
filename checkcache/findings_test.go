package checkcache

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/zk-claims/zk/vault/lint"
)

var sampleFindings = []lint.Finding{
	{Path: "a.md", Line: 1, Column: 1, Rule: "structure/title", Severity: lint.Error, Message: "no title"},
	{Path: "a.md", Line: 27, Column: 3, EndLine: 27, EndColumn: 40, Rule: "links/broken", Severity: lint.Error, Message: "[[x]]: no note or file \"x\" in the vault"},
	{Path: "ü/b.md", Line: 37, Column: 16, Rule: "maintenance/stale", Severity: lint.Warning, Message: ""},
	{Path: "ü/b.md", Line: 40, Column: 1, Rule: "falsifiers/criterion-changed", Severity: lint.Warning, Message: "judged again",
		Next: lint.Next{Step: lint.StepRejudge, Falsifier: 3}},
}

func TestFindingsRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		notes    int
		findings []lint.Finding
	}{
		{0, []lint.Finding{}},
		{3, sampleFindings},
		{100000, append(append([]lint.Finding{}, sampleFindings...), sampleFindings...)},
	} {
		notes, got, err := DecodeFindings(EncodeFindings(tt.notes, tt.findings))
		if err != nil {
			t.Fatal(err)
		}
		if notes != tt.notes || !reflect.DeepEqual(got, tt.findings) {
			t.Errorf("round trip: %d %+v, want %d %+v", notes, got, tt.notes, tt.findings)
		}
	}
}

// A next step zk does not know is damage: a front end would word it as
// nothing.
func TestFindingsUnknownStep(t *testing.T) {
	fs := []lint.Finding{{Path: "a.md", Rule: "r", Message: "m", Next: lint.Next{Step: lint.LastStep + 1, Falsifier: 1}}}
	if _, _, err := DecodeFindings(EncodeFindings(1, fs)); err == nil {
		t.Error("a finding whose step is past lint.LastStep decoded")
	}
}

// FuzzDecodeFindings feeds DecodeFindings damaged results: an error or a
// result that encodes back to one decoding alike, never a panic.
//
//	go test ./checkcache -run '^$' -fuzz FuzzDecodeFindings -fuzztime 30s
func FuzzDecodeFindings(f *testing.F) {
	b := EncodeFindings(3, sampleFindings)
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add(b[:1])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		notes, got, err := DecodeFindings(b)
		if err != nil {
			return
		}
		notes2, again, err := DecodeFindings(EncodeFindings(notes, got))
		if err != nil {
			t.Fatalf("a result DecodeFindings accepted does not encode back: %v", err)
		}
		if notes2 != notes || !reflect.DeepEqual(again, got) {
			t.Errorf("encode changed the result: %+v, was %+v", again, got)
		}
	})
}

// BenchmarkEncodeFindings encodes the findings of a check of 10,000
// notes as zk check saves them after a file came or went: some 8,000,
// a path's together, a few rules, messages mostly their own.
func BenchmarkEncodeFindings(b *testing.B) {
	var fs []lint.Finding
	for i := range 8000 {
		p := fmt.Sprintf("Notes/folder %d/note number %d.md", i/800, i*10/8)
		fs = append(fs, lint.Finding{Path: p, Rule: fmt.Sprintf("links/rule-%d", i%17),
			Message: fmt.Sprintf("link [[target %d]] names no note", i%3000), Line: i % 40, Column: 3, EndLine: i % 40, EndColumn: 20})
	}
	b.ReportAllocs()
	for b.Loop() {
		EncodeFindingsPieces(nil, fs, 10000)
	}
}
