package vault

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestScanHostileVault: files that are not notes, or not safe to read, are
// skipped with a reason; nothing panics and the good notes are read.
func TestScanHostileVault(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	write("Good.md", "# Good\n[[Other]]\n")
	write("sub/Other.md", "# Other\n")
	write(".trash/Old.md", "# Old\n")
	write(".obsidian/app.json", "{}")
	write("binary.md", "# x\x00\x01\x02")
	write("utf16.md", "\xff\xfe#\x00 \x00")
	write("big.md", strings.Repeat("a", 2048))
	write("deep.md", strings.Repeat(">", 150)+" [[x]]\n")
	link("loop2.md", "loop1.md")
	link("loop1.md", "loop2.md")
	link("/etc/hostname", "outside.md")
	link("Good.md", "alias.md")
	link(".", "selfdir")
	link("sub", "subdir-link")
	link("../Good.md", "sub/up.md") // a note linked from another folder

	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	v.MaxNoteSize = 1024
	s := scanAll(t, v)
	var notes []string
	for _, n := range s.notes {
		notes = append(notes, n.Path)
	}
	if want := []string{"Good.md", "alias.md", "deep.md", "sub/Other.md", "sub/up.md"}; !reflect.DeepEqual(notes, want) {
		t.Errorf("notes = %q, want %q", notes, want)
	}
	if n := s.note("deep.md"); n == nil || !n.Fallback {
		t.Errorf("deep.md: want the fallback scanner's reading, got %+v", n)
	}
	skipped := map[string]string{}
	for _, k := range s.skipped {
		skipped[k.Path] = k.Reason
	}
	for p, want := range map[string]string{
		"binary.md":  "binary",
		"utf16.md":   "UTF-16",
		"big.md":     "too large",
		"loop1.md":   "symlink",
		"loop2.md":   "symlink",
		"outside.md": "outside the vault",
	} {
		if !strings.Contains(skipped[p], want) {
			t.Errorf("%s: skipped for %q, want a reason containing %q", p, skipped[p], want)
		}
	}
	var keys []string
	for p := range skipped {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	if len(keys) != 6 {
		t.Errorf("skipped %q, want exactly the 6 bad files", keys)
	}
	if got, ok := s.resolver.Resolve("Old", "Good.md"); ok {
		t.Errorf("[[Old]] resolved to %s inside .trash", got)
	}
	if n, err := v.ReadNote("sub/Other.md"); err != nil || len(n.Headings) != 1 {
		t.Errorf("ReadNote(sub/Other.md) = %+v, %v", n, err)
	}
	// Reading through the root refuses a path out of the vault.
	if _, err := v.ReadFile("outside.md", 0); err == nil {
		t.Error("read a symlink that leads out of the vault")
	}
	if _, err := v.ReadFile("../x.md", 0); err == nil {
		t.Error("read a path that leads out of the vault")
	}
}

// The walk's files come in path order whether or not a folder's files
// come sorted, with each subfolder's files among its folder's where its
// name and a "/" sort.
func TestAppendSorted(t *testing.T) {
	type tree struct {
		files []string
		subs  map[string]tree
	}
	var build func(dir string, tr tree) *folderList
	build = func(dir string, tr tree) *folderList {
		l := &folderList{path: dir}
		for _, f := range tr.files {
			l.files = append(l.files, File{Path: join(dir, f)})
		}
		for name, sub := range tr.subs { // in map order: any order
			l.subs = append(l.subs, build(join(dir, name), sub))
		}
		return l
	}
	for _, tc := range []struct {
		name string
		top  tree
		want []string
	}{
		{"none", tree{}, nil},
		{"one folder", tree{files: []string{"b.md", "a.md"}}, []string{"a.md", "b.md"}},
		{"folders out of order", tree{subs: map[string]tree{"b": {files: []string{"x.md"}}, "c": {}, "a": {files: []string{"z.md", "y.md"}}}},
			[]string{"a/y.md", "a/z.md", "b/x.md"}},
		{"a subfolder among a folder's files", tree{subs: map[string]tree{"a": {files: []string{"z.md", "a.md"}, subs: map[string]tree{"b": {files: []string{"c.md"}}}}}},
			[]string{"a/a.md", "a/b/c.md", "a/z.md"}},
		{"names around the slash", tree{files: []string{"b0.md", "b-c.md", "b.md"}, subs: map[string]tree{"b": {files: []string{"x.md"}}, "b-c": {files: []string{"y.md"}}}},
			[]string{"b-c.md", "b-c/y.md", "b.md", "b/x.md", "b0.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 5 { // the map's order varies
				var got []string
				for _, f := range build(".", tc.top).appendSorted(nil) {
					got = append(got, f.Path)
				}
				if !slices.Equal(got, tc.want) {
					t.Fatalf("got %q, want %q", got, tc.want)
				}
			}
		})
	}
}
