package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// The deletion guard refuses everything that is not provably a zk index
// generation inside a zk index folder.
func TestProvablyGen(t *testing.T) {
	root := t.TempDir()
	home, _ := os.UserHomeDir()
	s, err := openStore(root, "/vault", false)
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
	for _, reclaim := range []bool{false, true} {
		if _, err := openStore(dir, "/vault", reclaim); !errors.Is(err, ErrNotIndexDir) {
			t.Fatalf("openStore(reclaim %v) on a folder of notes: err = %v, want ErrNotIndexDir", reclaim, err)
		}
	}
	// Nor is one that holds an index's names and anything else besides.
	dir = t.TempDir()
	os.Mkdir(filepath.Join(dir, "gen-1"), 0o700)
	os.WriteFile(filepath.Join(dir, "CURRENT"), []byte("gen-1\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "thesis.md"), []byte("mine"), 0o600)
	if _, err := openStore(dir, "/vault", true); !errors.Is(err, ErrNotIndexDir) {
		t.Fatalf("openStore(reclaim) on an index folder holding a note: err = %v, want ErrNotIndexDir", err)
	}
}

// An index whose marker is missing or corrupt stays refused, every time,
// with a MarkerError (the command says how to recover); an update asked to
// rebuild writes the marker again and builds, and the index works again.
func TestMarkerLostIsRecoverable(t *testing.T) {
	for name, damage := range map[string]func(p string){
		"missing": func(p string) { os.Remove(p) },
		"garbled": func(p string) { os.WriteFile(p, []byte("{\x00garbage"), 0o600) },
		"empty":   func(p string) { os.WriteFile(p, nil, 0o600) },
	} {
		t.Run(name, func(t *testing.T) {
			v := testVault(t, sample)
			opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
			ctx := context.Background()
			if _, err := Update(ctx, v, opts, false); err != nil {
				t.Fatal(err)
			}
			damage(filepath.Join(opts.Dir, markerName))
			for range 2 {
				var me *MarkerError
				if _, err := Update(ctx, v, opts, false); !errors.As(err, &me) {
					t.Fatalf("update with the marker %s: err = %v, want a MarkerError", name, err)
				}
				if _, err := Search(ctx, v, opts, Request{Query: "alpha", MaxUpdate: 10}); !errors.As(err, &me) {
					t.Fatalf("search with the marker %s: err = %v, want a MarkerError", name, err)
				}
			}
			st, err := Update(ctx, v, opts, true)
			if err != nil || !st.Built || st.Notes != 3 {
				t.Fatalf("update --rebuild = %+v, %v; want a build of 3 notes", st, err)
			}
			if got, _ := searchPaths(t, v, opts, "alpha"); !slices.Equal(got, []string{"A.md", "sub/B.md"}) {
				t.Errorf("search after the rebuild = %v", got)
			}
			if gens, _ := filepath.Glob(filepath.Join(opts.Dir, "gen-*")); len(gens) != 1 {
				t.Errorf("generations after the rebuild: %v, want one", gens)
			}
		})
	}
}

// A file zk may not read or write is the user's to fix: the intact index
// is left as it is, never moved aside as damaged.
func TestPermissionIsNotDamage(t *testing.T) {
	denied := &fs.PathError{Op: "open", Path: "/idx/gen-1/store/root.bolt", Err: syscall.EACCES}
	var pe *PermissionError
	if err := notDamage("/idx/gen-1", fmt.Errorf("wrapped: %w", denied)); !errors.As(err, &pe) {
		t.Errorf("notDamage(EACCES) = %v, want a PermissionError", err)
	}
	var de *DamagedError
	if err := notDamage("/idx/gen-1", errors.New("unexpected EOF")); !errors.As(err, &de) {
		t.Errorf("notDamage(EOF) = %v, want a DamagedError", err)
	}
	if os.Getuid() == 0 {
		t.Skip("root reads a 0444 file: the end-to-end half needs another user")
	}
	v := testVault(t, sample)
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx"), Wait: time.Second}
	ctx := context.Background()
	if _, err := Update(ctx, v, opts, false); err != nil {
		t.Fatal(err)
	}
	bolts, _ := filepath.Glob(filepath.Join(opts.Dir, "gen-*", "store", "root.bolt"))
	os.Chmod(bolts[0], 0o444)
	t.Cleanup(func() { os.Chmod(bolts[0], 0o644) })
	writeNote(t, v.Dir, "D.md", "# D\n\ndelta\n")
	if _, err := Update(ctx, v, opts, false); !errors.As(err, &pe) {
		t.Errorf("update on a 0444 root.bolt: err = %v, want a PermissionError", err)
	}
	if broken, _ := filepath.Glob(filepath.Join(opts.Dir, "*"+brokenExt)); len(broken) != 0 {
		t.Errorf("the intact index was moved aside: %v", broken)
	}
}

func TestGuardRecoversPanics(t *testing.T) {
	err := guard("/idx", func() error { panic("slice bounds out of range") })
	var de *DamagedError
	if !errors.As(err, &de) || de.Dir != "/idx" {
		t.Fatalf("guard(panic) = %v, want a DamagedError", err)
	}
}
