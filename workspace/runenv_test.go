//go:build unix

package workspace

import (
	"slices"
	"strings"
	"testing"
)

// TestRunEnv: a falsifier's command finds no command in the vault's folder
// through a PATH entry that is not absolute (empty, ".", "bin"), and gets
// ZK_VAULT and ZK_NOTE set, whatever this process had.
func TestRunEnv(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"/usr/bin:/bin", "/usr/bin:/bin"},
		{":/usr/bin", "/usr/bin"},
		{"/usr/bin:", "/usr/bin"},
		{"/usr/bin::/bin", "/usr/bin:/bin"},
		{".:/usr/bin:bin:./x", "/usr/bin"},
		{"", ""},
	} {
		got := runEnv([]string{"HOME=/h", "PATH=" + tc.path, "ZK_NOTE=old"}, "/v", "n.md", "")
		want := []string{"HOME=/h", "PATH=" + tc.want, "ZK_VAULT=/v", "ZK_NOTE=n.md"}
		if !slices.Equal(got, want) {
			t.Errorf("PATH=%q: %q, want %q", tc.path, got, want)
		}
	}
}

// TestRunEnvBuilt: Python's bytecode and cargo's builds are kept in zk's
// cache folder, not in the vault's __pycache__ and target/, unless the
// user's environment puts them in a folder of their own (an absolute
// one: a relative one is the vault's); cargo's, one folder per vault.
func TestRunEnvBuilt(t *testing.T) {
	cargo := func(vault string) string {
		for _, kv := range runEnv(nil, vault, "n.md", "/c/zk") {
			if v, ok := strings.CutPrefix(kv, "CARGO_TARGET_DIR="); ok {
				return v
			}
		}
		return ""
	}
	if a, b := cargo("/v"), cargo("/w"); a == b || !strings.HasPrefix(a, "/c/zk/cargo-target/") {
		t.Errorf("cargo's target folders of /v and /w: %q, %q, want two of /c/zk/cargo-target", a, b)
	}
	for _, tc := range []struct {
		env  []string
		want []string
	}{
		{nil, []string{"PYTHONPYCACHEPREFIX=/c/zk/pycache", "CARGO_TARGET_DIR=" + cargo("/v")}},
		{[]string{"PYTHONPYCACHEPREFIX=/mine", "CARGO_TARGET_DIR=/t"}, []string{"PYTHONPYCACHEPREFIX=/mine", "CARGO_TARGET_DIR=/t"}},
		{[]string{"PYTHONPYCACHEPREFIX=pyc", "CARGO_TARGET_DIR=target"}, []string{"PYTHONPYCACHEPREFIX=/c/zk/pycache", "CARGO_TARGET_DIR=" + cargo("/v")}},
		{[]string{"PYTHONPYCACHEPREFIX="}, []string{"PYTHONPYCACHEPREFIX=/c/zk/pycache", "CARGO_TARGET_DIR=" + cargo("/v")}},
	} {
		var set []string
		for _, kv := range runEnv(tc.env, "/v", "n.md", "/c/zk") {
			if strings.HasPrefix(kv, "PYTHONPYCACHEPREFIX=") || strings.HasPrefix(kv, "CARGO_TARGET_DIR=") {
				set = append(set, kv)
			}
		}
		if !slices.Equal(set, tc.want) {
			t.Errorf("%q: %q, want %q", tc.env, set, tc.want)
		}
	}
}
