package trust

import (
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
		if got := gitConfigValues(tc.src); !slices.Equal(got, tc.want) {
			t.Errorf("gitConfigValues(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

func FuzzGitConfigValues(f *testing.F) {
	f.Add("[include]\n\tpath = ../x.cfg\n[core] fsmonitor = \"a\\\"b\" ; c\n")
	f.Add("[includeIf \"gitdir:x]\"]path=y\\\n z")
	f.Fuzz(func(t *testing.T, src string) {
		for _, v := range gitConfigValues(src) {
			// A value is read from the source: it is never longer.
			if len(v.value) > len(src) || len(v.key) > len(src) || strings.ContainsRune(v.section, ']') {
				t.Fatalf("%q: %q", src, v)
			}
		}
	})
}
