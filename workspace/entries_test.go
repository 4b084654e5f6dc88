package workspace

import (
	"bytes"
	"context"
	"encoding/binary"
	"reflect"
	"testing"

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
