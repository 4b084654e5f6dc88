package vault

import (
	"path/filepath"
	"testing"
)

// Local and Within are the one lexical "inside the vault" test every
// front end asks (config paths, links, MCP resources, paths from the
// command line): a name that merely starts with two dots is inside, as is
// the root itself.
func TestLocalAndWithin(t *testing.T) {
	for _, tc := range []struct {
		p    string
		want bool
	}{
		{"a.md", true},
		{"a/b.md", true},
		{".", true},
		{"a/../b", true},
		{"..b", true},
		{"a/..b/c", true},
		{"", false},
		{"..", false},
		{"../a", false},
		{"a/../../b", false},
		{"/a", false},
	} {
		if got := Local(tc.p); got != tc.want {
			t.Errorf("Local(%q) = %v, want %v", tc.p, got, tc.want)
		}
	}
	dir := filepath.FromSlash("/v/vault")
	for _, tc := range []struct {
		p, want string
		ok      bool
	}{
		{"/v/vault", ".", true},
		{"/v/vault/a/b.md", "a/b.md", true},
		{"/v/vault/..b", "..b", true},
		{"/v/vault/a/../c", "c", true},
		{"/v", "", false},
		{"/v/vault2/a", "", false},
		{"/v/vault/../x", "", false},
		{"/elsewhere", "", false},
	} {
		got, ok := Within(dir, filepath.FromSlash(tc.p))
		if got != tc.want || ok != tc.ok {
			t.Errorf("Within(%q, %q) = %q, %v; want %q, %v", dir, tc.p, got, ok, tc.want, tc.ok)
		}
	}
}
