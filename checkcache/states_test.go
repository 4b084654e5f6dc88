package checkcache

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
)

// A check's result, findings and states, decodes to what was encoded;
// every truncation and every byte changed decodes to an error or to
// something, never a panic.
func TestResultRoundTripAndDamage(t *testing.T) {
	dir := t.TempDir()
	for p, text := range map[string]string{
		"a.md":    "---\naliases: [Ay]\n---\n# A\n\n## H\n\ntext ^blk\n\n[[b#H]] [[missing]] [[pic.png]]\n\n## Links\n\n- [[b]] — extends: why.\n",
		"b.md":    "# B\n\n[[a]]\n",
		"pic.png": "png",
	} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	files, skips, err := v.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := lint.Check(ctx, v, files, skips, lint.Options{States: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, sb := EncodeResult(files, rep.Notes, rep.Findings, rep.Spent, rep.States, nil, nil)
	prev, old, err := DecodeResult(b, sb, files)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(prev.Findings, rep.Findings) || prev.Spent != rep.Spent {
		t.Errorf("decoded %+v, spent %d", prev.Findings, prev.Spent)
	}
	// Encoded again from the old bytes, but for one state: the same bytes.
	// (Each encoding has a tag of its own.)
	if _, again := EncodeResult(files, rep.Notes, rep.Findings, rep.Spent, prev.States, old, func(i int) bool { return i == 1 }); !reflect.DeepEqual(again[tagSize:], sb[tagSize:]) {
		t.Errorf("states encoded from the cached bytes differ:\n%q\n%q", again, sb)
	}
	if len(prev.States) != len(rep.States) {
		t.Fatalf("decoded %d states, want %d", len(prev.States), len(rep.States))
	}
	for i, st := range prev.States {
		want := rep.States[i]
		if st.Path != want.Path || st.Read != want.Read || st.Checked != want.Checked ||
			!reflect.DeepEqual(st.Targets, want.Targets) || !reflect.DeepEqual(st.Broken, want.Broken) ||
			!reflect.DeepEqual(lint.AppendSummary(nil, st.Summary), lint.AppendSummary(nil, want.Summary)) {
			t.Errorf("state %d: %+v, want %+v", i, st, want)
		}
	}
	if _, f, err := DecodeResultFindings(b); err != nil || !reflect.DeepEqual(f, rep.Findings) {
		t.Errorf("findings alone: %+v, %v", f, err)
	}
	_, other := EncodeResult(files, rep.Notes, rep.Findings, rep.Spent, rep.States, nil, nil)
	if _, _, err := DecodeResult(b, other, files); err == nil {
		t.Error("states of another result decoded")
	}
	for n := range len(b) {
		DecodeResult(b[:n], sb, files)
		DecodeResultFindings(b[:n])
	}
	for n := range len(sb) {
		decodeStates(sb[:n], files)
		c := append([]byte(nil), sb...)
		c[n] ^= 0xff
		decodeStates(c, files)
		decodeStates(sb, files[:1])
	}
}

// FuzzDecodeResult feeds DecodeResult's states decoding damaged states: an error or
// something, never a panic or an allocation beyond the input's size.
//
//	go test ./checkcache -run '^$' -fuzz FuzzDecodeResult -fuzztime 30s
func FuzzDecodeResult(f *testing.F) {
	files := []vault.File{{Path: "a.md"}, {Path: "b.md"}, {Path: "pic.png"}}
	_, sb := EncodeResult(files, 2, sampleFindings, 7, []lint.NoteState{
		{Path: "a.md", Read: true, Checked: true, Targets: []string{"b.md", "pic.png"}, Broken: []string{"missing"}},
		{Path: "b.md"},
	}, nil, nil)
	f.Add(sb)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeStates(b, files)
		DecodeResultFindings(b)
	})
}
