package checkcache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
)

func TestLoad(t *testing.T) {
	written := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	old := written.Add(-time.Hour)
	racy := written.Add(-time.Second)
	notes := map[string]string{"a.md": "# A\n", "b.md": "# B\n"}
	base := []vault.File{
		{Path: "a.md", Size: 4, ModTime: old},
		{Path: "b.md", Size: 4, ModTime: old},
		{Path: "c.png", Size: 9, ModTime: old},
	}
	key := NewKey([]byte("config"))
	with := func(edit func(fs []vault.File) []vault.File) []vault.File {
		fs := append([]vault.File(nil), base...)
		return edit(fs)
	}
	tests := []struct {
		name     string
		key      Key
		stamped  []vault.File // the files the entry stamps (default base)
		files    []vault.File
		content  map[string]string // what a re-read returns (default notes)
		hit      bool
		rehashed int
	}{
		{name: "unchanged", files: base, hit: true},
		{name: "another key", key: NewKey([]byte("other")), files: base},
		{name: "a note's size changed", files: with(func(fs []vault.File) []vault.File { fs[0].Size = 5; return fs })},
		{name: "touched, same bytes", files: with(func(fs []vault.File) []vault.File { fs[0].ModTime = written; return fs }), hit: true, rehashed: 1},
		{name: "touched, other bytes", files: with(func(fs []vault.File) []vault.File { fs[0].ModTime = written; return fs }),
			content: map[string]string{"a.md": "# X\n"}},
		{name: "racy stamp, same stat, other bytes", stamped: with(func(fs []vault.File) []vault.File { fs[1].ModTime = racy; return fs }),
			files: with(func(fs []vault.File) []vault.File { fs[1].ModTime = racy; return fs }), content: map[string]string{"b.md": "# Y\n"}},
		{name: "racy stamp, same bytes", stamped: with(func(fs []vault.File) []vault.File { fs[1].ModTime = racy; return fs }),
			files: with(func(fs []vault.File) []vault.File { fs[1].ModTime = racy; return fs }), hit: true, rehashed: 1},
		{name: "an attachment changed", files: with(func(fs []vault.File) []vault.File { fs[2].Size = 10; return fs })},
		{name: "a file added", files: append(with(func(fs []vault.File) []vault.File { return fs }), vault.File{Path: "d.md", Size: 1, ModTime: old})},
		{name: "a file renamed", files: with(func(fs []vault.File) []vault.File { fs[1].Path = "bb.md"; return fs })},
		{name: "a file removed", files: base[:2]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "c.cache")
			stamped := tt.stamped
			if stamped == nil {
				stamped = base
			}
			stamps := Stamps(stamped, func(p string) ([32]byte, bool) {
				src, ok := notes[p]
				return Hash([]byte(src)), ok
			})
			if err := Save(file, Entry{Key: key, Written: written.UnixNano(), Stamps: stamps, Result: []byte("result")}); err != nil {
				t.Fatal(err)
			}
			k := tt.key
			if k == (Key{}) {
				k = key
			}
			read := func(p string) ([]byte, error) {
				if src, ok := tt.content[p]; ok {
					return []byte(src), nil
				}
				if src, ok := notes[p]; ok {
					return []byte(src), nil
				}
				return nil, os.ErrNotExist
			}
			got, rehashed, ok := Load(file, k, tt.files, read)
			if ok != tt.hit || rehashed != tt.rehashed {
				t.Fatalf("Load: hit %v rehashed %d, want hit %v rehashed %d", ok, rehashed, tt.hit, tt.rehashed)
			}
			if ok && string(got) != "result" {
				t.Errorf("result = %q", got)
			}
		})
	}
}

func TestLoadForeignFiles(t *testing.T) {
	dir := t.TempDir()
	files := []vault.File{{Path: "a.md", Size: 1, ModTime: time.Unix(1, 0)}}
	read := func(string) ([]byte, error) { return nil, errors.New("not read") }
	for name, content := range map[string][]byte{"empty": nil, "garbage": []byte("not gob at all"), "truncated": {0x1f, 0xff}} {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, content, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, ok := Load(file, NewKey(), files, read); ok {
			t.Errorf("%s cache file: a hit", name)
		}
	}
	// Another format version is never trusted.
	stamps := Stamps(files, func(string) ([32]byte, bool) { return [32]byte{}, false })
	file := filepath.Join(dir, "this")
	if err := Save(file, Entry{Key: NewKey(), Stamps: stamps}); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := Load(file, NewKey(), files, read); !ok {
		t.Fatal("this version's entry: a miss")
	}
	this, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	next := bytes.Clone(this)
	binary.LittleEndian.PutUint32(next[len(magic):], Version+1)
	file = filepath.Join(dir, "next")
	if err := os.WriteFile(file, next, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := Load(file, NewKey(), files, read); ok {
		t.Error("another version's entry: a hit")
	}
	if _, _, ok := Load(filepath.Join(dir, "missing"), NewKey(), files, read); ok {
		t.Error("a missing file: a hit")
	}
}

func TestNewKey(t *testing.T) {
	if NewKey([]byte("ab"), []byte("c")) == NewKey([]byte("a"), []byte("bc")) {
		t.Error("keys of differently split parts collide")
	}
}

// FuzzRead feeds Read damaged cache files: it must return an error or an
// entry that saves back to the same bytes, and never panic or allocate
// beyond the file's size.
//
//	go test ./checkcache -run '^$' -fuzz FuzzRead -fuzztime 30s
func FuzzRead(f *testing.F) {
	dir := f.TempDir()
	valid := filepath.Join(dir, "valid")
	e := Entry{Key: NewKey([]byte("k")), Written: 42, Result: []byte("result"), Stamps: []Stamp{
		{Path: "a.md", Size: 3, ModTime: 7, Hash: Hash([]byte("abc"))},
		{Path: "ü/b.png", Size: 9, ModTime: -1},
	}}
	if err := Save(valid, e); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(valid)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)-len(e.Result)-1])
	f.Add(b[:len(magic)+4])
	f.Add([]byte(magic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(t.TempDir(), "c")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := Read(file)
		if err != nil {
			return
		}
		again := filepath.Join(t.TempDir(), "again")
		if err := Save(again, got); err != nil {
			t.Fatal(err)
		}
		round, err := Read(again)
		if err != nil {
			t.Fatalf("an entry Read accepted does not read back: %v", err)
		}
		if got.Written == 0 {
			round.Written = 0 // Save dates an undated entry
		}
		if !reflect.DeepEqual(round, got) {
			t.Errorf("Save then Read changed the entry:\n%+v\n%+v", got, round)
		}
	})
}
