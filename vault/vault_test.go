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

// The walk's files come in path order whether or not the folders'
// sorted files, joined in their folders' order, are already in it.
func TestSortedFiles(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks [][]string
		want   []string
	}{
		{"none", nil, nil},
		{"one folder", [][]string{{"a.md", "b.md"}}, []string{"a.md", "b.md"}},
		{"folders out of order", [][]string{{"b/x.md"}, {}, {"a/y.md", "a/z.md"}}, []string{"a/y.md", "a/z.md", "b/x.md"}},
		{"a subfolder among a folder's files", [][]string{{"a/a.md", "a/z.md"}, {"a/b/c.md"}}, []string{"a/a.md", "a/b/c.md", "a/z.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var chunks [][]File
			for _, c := range tc.chunks {
				var fs []File
				for _, p := range c {
					fs = append(fs, File{Path: p})
				}
				chunks = append(chunks, fs)
			}
			var got []string
			for _, f := range sortedFiles(chunks) {
				got = append(got, f.Path)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
