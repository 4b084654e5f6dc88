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
	b := EncodeResult(files, rep.Notes, rep.Findings, rep.Spent, rep.States)
	prev, notes, err := DecodeResult(b, files)
	if err != nil {
		t.Fatal(err)
	}
	if notes != rep.Notes || !reflect.DeepEqual(prev.Findings, rep.Findings) || prev.Spent != rep.Spent {
		t.Errorf("decoded %d notes, %+v, spent %d", notes, prev.Findings, prev.Spent)
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
	for n := range len(b) {
		DecodeResult(b[:n], files)
		DecodeResultFindings(b[:n])
		c := append([]byte(nil), b...)
		c[n] ^= 0xff
		DecodeResult(c, files)
		DecodeResult(b, files[:1])
	}
}

// FuzzDecodeResult feeds DecodeResult damaged results: an error or
// something, never a panic or an allocation beyond the input's size.
//
//	go test ./checkcache -run '^$' -fuzz FuzzDecodeResult -fuzztime 30s
func FuzzDecodeResult(f *testing.F) {
	files := []vault.File{{Path: "a.md"}, {Path: "b.md"}, {Path: "pic.png"}}
	f.Add(EncodeResult(files, 2, sampleFindings, 7, []lint.NoteState{
		{Path: "a.md", Read: true, Checked: true, Targets: []string{"b.md", "pic.png"}, Broken: []string{"missing"}},
		{Path: "b.md"},
	}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		DecodeResult(b, files)
		DecodeResultFindings(b)
	})
}
