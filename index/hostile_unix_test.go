//go:build unix

package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zk-claims/zk/internal/ownfile"
)

// An index folder may be inside the vault (index-dir), so every file of
// it may come with the vault. None of them redirects a write, hangs a
// search or has zk read without end: the lock, the marker and CURRENT are
// opened as zk's own files under .zk/ are, and a generation holding a
// symlink or a file that is not regular is damaged, moved aside (nothing
// it links to touched) and rebuilt.
func TestHostileIndexFiles(t *testing.T) {
	const (
		refused = iota // the search fails, saying why
		marker         // a MarkerError: zk index --rebuild recovers
		rebuilt        // the search rebuilds the index and answers
	)
	for _, tc := range []struct {
		name    string
		want    int
		why     error  // what the error or the rebuild's reason wraps or says
		reason  string // rebuilt: in Stats.Rebuilt
		damage  func(t *testing.T, idx, gen, outside string)
		created string // a path outside that must not come to exist
	}{
		{name: "lock linked outside", want: refused, why: ownfile.ErrSymlink, created: "created",
			damage: func(t *testing.T, idx, _, outside string) {
				link(t, filepath.Join(outside, "created"), filepath.Join(idx, lockName))
			}},
		{name: "lock a FIFO", want: refused, why: ownfile.ErrNotRegular,
			damage: func(t *testing.T, idx, _, _ string) { fifo(t, filepath.Join(idx, lockName)) }},
		{name: "marker linked to /dev/zero", want: marker, why: ownfile.ErrSymlink,
			damage: func(t *testing.T, idx, _, _ string) { link(t, "/dev/zero", filepath.Join(idx, markerName)) }},
		{name: "marker a FIFO", want: marker, why: ownfile.ErrNotRegular,
			damage: func(t *testing.T, idx, _, _ string) { fifo(t, filepath.Join(idx, markerName)) }},
		{name: "marker too large", want: marker, why: ownfile.ErrTooLarge,
			damage: func(t *testing.T, idx, _, _ string) { grow(t, filepath.Join(idx, markerName), markerMax+1) }},
		{name: "CURRENT linked to /dev/zero", want: rebuilt, reason: "CURRENT is a symbolic link",
			damage: func(t *testing.T, idx, _, _ string) { link(t, "/dev/zero", filepath.Join(idx, currentName)) }},
		{name: "CURRENT a FIFO", want: rebuilt, reason: "CURRENT is not a regular file",
			damage: func(t *testing.T, idx, _, _ string) { fifo(t, filepath.Join(idx, currentName)) }},
		{name: "generation linked outside", want: rebuilt, reason: "is a symbolic link",
			damage: func(t *testing.T, idx, gen, outside string) {
				moved := filepath.Join(outside, "gen")
				if err := os.Rename(gen, moved); err != nil {
					t.Fatal(err)
				}
				link(t, moved, gen)
			}},
		{name: "segment linked outside", want: rebuilt, reason: ".zap is a symbolic link",
			damage: func(t *testing.T, _, gen, outside string) {
				zaps, _ := filepath.Glob(filepath.Join(gen, "store", "*.zap"))
				if len(zaps) == 0 {
					t.Fatal("no segment")
				}
				moved := filepath.Join(outside, "segment.zap")
				if err := os.Rename(zaps[0], moved); err != nil {
					t.Fatal(err)
				}
				link(t, moved, zaps[0])
			}},
		{name: "root.bolt a FIFO", want: rebuilt, reason: "root.bolt is not a regular file",
			damage: func(t *testing.T, _, gen, _ string) { fifo(t, filepath.Join(gen, "store", "root.bolt")) }},
		{name: "index_meta.json linked to /dev/zero", want: rebuilt, reason: "index_meta.json is a symbolic link",
			damage: func(t *testing.T, _, gen, _ string) { link(t, "/dev/zero", filepath.Join(gen, "index_meta.json")) }},
		{name: "index_meta.json too large", want: rebuilt, reason: "index_meta.json is larger than zk reads",
			damage: func(t *testing.T, _, gen, _ string) { grow(t, filepath.Join(gen, "index_meta.json"), metaMax+1) }},
		{name: "zk-checked linked to /dev/zero", want: rebuilt, reason: "zk-checked is a symbolic link",
			damage: func(t *testing.T, _, gen, _ string) { link(t, "/dev/zero", filepath.Join(gen, checkedName)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := testVault(t, sample)
			outside := t.TempDir()
			opts := Options{Dir: filepath.Join(t.TempDir(), "idx"), Wait: 50 * time.Millisecond}
			ctx := context.Background()
			if _, err := Update(ctx, v, opts, false); err != nil {
				t.Fatal(err)
			}
			cur, err := os.ReadFile(filepath.Join(opts.Dir, currentName))
			if err != nil {
				t.Fatal(err)
			}
			gen := filepath.Join(opts.Dir, strings.TrimSpace(string(cur)))
			tc.damage(t, opts.Dir, gen, outside)
			// A note changed since: the search takes the lock to update.
			writeNote(t, v.Dir, "D.md", "# D\n\nDelta.\n")
			before := listing(t, outside)

			var res *Result
			within(t, 20*time.Second, func() { res, err = Search(ctx, v, opts, Request{Query: "alpha", Limit: 50, MaxUpdate: 100}) })
			switch tc.want {
			case refused:
				if !errors.Is(err, tc.why) {
					t.Errorf("search: %v, want an error wrapping %q", err, tc.why)
				}
				within(t, 20*time.Second, func() { _, err = Update(ctx, v, opts, false) })
				if !errors.Is(err, tc.why) {
					t.Errorf("update: %v, want an error wrapping %q", err, tc.why)
				}
			case marker:
				var me *MarkerError
				if !errors.As(err, &me) || !errors.Is(err, tc.why) {
					t.Fatalf("search: %v, want a MarkerError wrapping %q", err, tc.why)
				}
			case rebuilt:
				if err != nil {
					t.Fatalf("search: %v, want the index rebuilt", err)
				}
				if res.Updated == nil || !res.Updated.Built || !strings.Contains(res.Updated.Rebuilt, tc.reason) {
					t.Fatalf("search updated the index: %+v, want it rebuilt because %q", res.Updated, tc.reason)
				}
				var paths []string
				for _, h := range res.Hits {
					paths = append(paths, h.Path)
				}
				slices.Sort(paths)
				if !slices.Equal(paths, []string{"A.md", "sub/B.md"}) {
					t.Errorf("search after the rebuild: %v", paths)
				}
				if got, _ := searchPaths(t, v, opts, "alpha"); !slices.Equal(got, paths) {
					t.Errorf("the next search: %v, want %v", got, paths)
				}
			}
			if tc.created != "" {
				if _, err := os.Lstat(filepath.Join(outside, tc.created)); err == nil {
					t.Errorf("%s was created outside the index folder", tc.created)
				}
			}
			if after := listing(t, outside); !slices.Equal(after, before) {
				t.Errorf("outside the index folder: %v, was %v", after, before)
			}
		})
	}
}

// within runs f, failing the test when it has not returned after d: a
// read of a FIFO would wait for ever.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still waiting after %v (a FIFO opened?)", d)
	}
}

func link(t *testing.T, target, name string) {
	t.Helper()
	os.RemoveAll(name)
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

func fifo(t *testing.T, name string) {
	t.Helper()
	os.RemoveAll(name)
	if err := syscall.Mkfifo(name, 0o644); err != nil {
		t.Fatal(err)
	}
	// A reader stuck on it (the bug this guards against) is let go when
	// the test ends, so that the other tests still run.
	t.Cleanup(func() {
		if f, err := os.OpenFile(name, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
}

// grow makes name a sparse file of size bytes.
func grow(t *testing.T, name string, size int64) {
	t.Helper()
	if err := os.Truncate(name, size); err != nil {
		t.Fatal(err)
	}
}

// listing is every path under dir with its size and mtime.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %v %d %v", p, info.Mode(), info.Size(), info.ModTime()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
