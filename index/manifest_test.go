package index

import (
	"errors"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
)

func TestManifestRoundTrip(t *testing.T) {
	m := &manifest{Written: 1_700_000_000_000_000_000, Entries: []entry{
		{Path: "A.md", Size: 10, ModTime: 5, Hash: contentHash([]byte("a"))},
		{Path: "dir/ünïcode.md", Size: 0, ModTime: -1, Skipped: true},
	}}
	got, err := decodeManifest(m.encode())
	if err != nil {
		t.Fatal(err)
	}
	if got.Written != m.Written || len(got.Entries) != 2 || got.Entries[0] != m.Entries[0] || got.Entries[1] != m.Entries[1] {
		t.Fatalf("round trip: got %+v, want %+v", got, m)
	}
}

// Every truncation and every single-byte flip of a manifest is refused,
// never decoded into a wrong list of notes.
func TestManifestCorrupt(t *testing.T) {
	b := (&manifest{Written: 42, Entries: []entry{{Path: "A.md", Size: 3}, {Path: "B.md", Size: 4}}}).encode()
	for n := range len(b) {
		if _, err := decodeManifest(b[:n]); !errors.Is(err, errBadManifest) {
			t.Errorf("truncated to %d bytes: err = %v", n, err)
		}
	}
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 0x40
		if _, err := decodeManifest(c); !errors.Is(err, errBadManifest) {
			t.Errorf("byte %d flipped: err = %v", i, err)
		}
	}
}

func TestManifestCompare(t *testing.T) {
	old := time.Unix(1000, 0)
	m := &manifest{Written: old.Add(time.Hour).UnixNano(), Entries: []entry{
		{Path: "gone.md", Size: 1, ModTime: old.UnixNano()},
		{Path: "same.md", Size: 2, ModTime: old.UnixNano()},
		{Path: "touched.md", Size: 3, ModTime: old.UnixNano()},
		{Path: "z-racy.md", Size: 4, ModTime: old.Add(time.Hour - time.Second).UnixNano()},
	}}
	files := []vault.File{
		{Path: "new.md", Size: 1, ModTime: old},
		{Path: "same.md", Size: 2, ModTime: old},
		{Path: "touched.md", Size: 3, ModTime: old.Add(time.Second)},
		{Path: "z-racy.md", Size: 4, ModTime: old.Add(time.Hour - time.Second)},
	}
	d := m.compare(files)
	if got := pathsOf(d.added); len(got) != 1 || got[0] != "new.md" {
		t.Errorf("added = %v, want [new.md]", got)
	}
	if got := pathsOf(d.suspect); len(got) != 1 || got[0] != "touched.md" {
		t.Errorf("suspect = %v, want [touched.md]", got)
	}
	if got := pathsOf(d.racy); len(got) != 1 || got[0] != "z-racy.md" {
		t.Errorf("racy = %v, want [z-racy.md]", got)
	}
	if len(d.deleted) != 1 || d.deleted[0] != "gone.md" {
		t.Errorf("deleted = %v, want [gone.md]", d.deleted)
	}
}
