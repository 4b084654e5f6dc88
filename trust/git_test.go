package trust

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestGitConfigValues(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []gitValue
	}{
		{"[include]\n\tpath = ../x.cfg\n", []gitValue{{"include", "path", "../x.cfg"}}},
		{"[includeIf \"gitdir:~/w/\"]\n  PATH = \"a b.cfg\" # why\n", []gitValue{{"includeif", "path", "a b.cfg"}}},
		{"[Include] path = x ; same line\n", []gitValue{{"include", "path", "x"}}},
		{"[core]\n\thooksPath = \"h\\\"q\"\n", []gitValue{{"core", "hookspath", `h"q`}}},
		{"[alias]\n\tt = !sh \\\n t.sh\n", []gitValue{{"alias", "t", "!sh  t.sh"}}},
		{"[includeIf \"gitdir:a]b\"]\npath=y\n", []gitValue{{"includeif", "path", "y"}}},
		{"[core.x]\nfsmonitor\n", []gitValue{{"core", "fsmonitor", ""}}},
		{"# [include]\n; path = no\n", nil},
	} {
		if got := slices.Collect(gitConfigValues(tc.src)); !slices.Equal(got, tc.want) {
			t.Errorf("gitConfigValues(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

func FuzzGitConfigValues(f *testing.F) {
	f.Add("[include]\n\tpath = ../x.cfg\n[core] fsmonitor = \"a\\\"b\" ; c\n")
	f.Add("[includeIf \"gitdir:x]\"]path=y\\\n z")
	f.Fuzz(func(t *testing.T, src string) {
		for v := range gitConfigValues(src) {
			// A value is read from the source: it is never longer.
			if len(v.value) > len(src) || len(v.key) > len(src) || strings.ContainsRune(v.section, ']') {
				t.Fatalf("%q: %q", src, v)
			}
		}
	})
}

// TestReadBound: the words of a tool's files read as names are bounded,
// all of a command's files together: past maxRead the command is opaque,
// where a 30 MB Makefile's words took 90 s and 700 MB to stat.
func TestReadBound(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range maxRead + 10 {
		fmt.Fprintf(&b, "X%d := $(shell sh g%d.sh)\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(strings.Repeat("[core]\n\tk = v w\n", maxRead+10)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, argv := range [][]string{{"make", "x"}, {"git", "status"}} {
		s, err := Inspect(dir, argv)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(s.Opaque, func(o string) bool { return strings.Contains(o, "words; zk does not read them all") }) {
			t.Errorf("%s: opaque %q, want the words over %d said", argv, s.Opaque, maxRead)
		}
	}
}
