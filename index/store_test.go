package index

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The deletion guard refuses everything that is not provably a zk index
// generation inside a zk index folder.
func TestProvablyGen(t *testing.T) {
	root := t.TempDir()
	home, _ := os.UserHomeDir()
	s, err := openStore(root, "/vault")
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name string, files ...string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, name), 0o700); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(root, name, f), []byte("{}"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk("gen-1", "index_meta.json")
	mk("gen-2")
	mk("gen-3", "notes.md")
	mk("gen-4.broken", "index_meta.json")
	mk("notes", "index_meta.json")
	os.Symlink(filepath.Join(root, "gen-1"), filepath.Join(root, "gen-5"))

	for _, tc := range []struct {
		dir, name string
		ok        bool
	}{
		{root, "gen-1", true},
		{root, "gen-2", true}, // empty: a build that died at once
		{root, "gen-4.broken", true},
		{root, "gen-3", false}, // not a bleve index
		{root, "notes", false},
		{root, "gen-5", false}, // a symlink
		{root, "", false},
		{root, ".", false},
		{root, "..", false},
		{root, "gen-1/../gen-1", false},
		{"", "gen-1", false},
		{"/", "gen-1", false},
		{home, "gen-1", false},
		{filepath.Dir(root), filepath.Base(root), false},
	} {
		err := provablyGen(tc.dir, tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("provablyGen(%q, %q) = %v, want ok=%v", tc.dir, tc.name, err, tc.ok)
		}
	}
	s.sweep("gen-1")
	for name, want := range map[string]bool{"gen-1": true, "gen-2": false, "gen-3": true, "gen-4.broken": true, "notes": true} {
		if _, err := os.Lstat(filepath.Join(root, name)); (err == nil) != want {
			t.Errorf("after sweep, %s exists = %v, want %v", name, err == nil, want)
		}
	}
}

// A folder holding anything that is not a zk index is never used.
func TestOpenStoreRefusesForeignFolder(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "thesis.md"), []byte("mine"), 0o600)
	if _, err := openStore(dir, "/vault"); !errors.Is(err, ErrNotIndexDir) {
		t.Fatalf("openStore on a folder of notes: err = %v, want ErrNotIndexDir", err)
	}
}

func TestGuardRecoversPanics(t *testing.T) {
	err := guard("/idx", func() error { panic("slice bounds out of range") })
	var de *DamagedError
	if !errors.As(err, &de) || de.Dir != "/idx" {
		t.Fatalf("guard(panic) = %v, want a DamagedError", err)
	}
}
