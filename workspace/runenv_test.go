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

// TestRunEnvPycache: Python's bytecode is read from zk's cache folder, not
// from the vault's __pycache__, unless the user's environment puts it in
// a folder of their own (an absolute one: a relative one is the vault's).
func TestRunEnvPycache(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{nil, "PYTHONPYCACHEPREFIX=/c/zk/pycache"},
		{[]string{"PYTHONPYCACHEPREFIX=/mine"}, "PYTHONPYCACHEPREFIX=/mine"},
		{[]string{"PYTHONPYCACHEPREFIX=pyc"}, "PYTHONPYCACHEPREFIX=/c/zk/pycache"},
		{[]string{"PYTHONPYCACHEPREFIX="}, "PYTHONPYCACHEPREFIX=/c/zk/pycache"},
	} {
		got := runEnv(tc.env, "/v", "n.md", "/c/zk/pycache")
		var set []string
		for _, kv := range got {
			if strings.HasPrefix(kv, "PYTHONPYCACHEPREFIX=") {
				set = append(set, kv)
			}
		}
		if !slices.Equal(set, []string{tc.want}) {
			t.Errorf("%q: %q, want %q", tc.env, set, tc.want)
		}
	}
}
