//go:build unix

package workspace

import (
	"slices"
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
		got := runEnv([]string{"HOME=/h", "PATH=" + tc.path, "ZK_NOTE=old"}, "/v", "n.md")
		want := []string{"HOME=/h", "PATH=" + tc.want, "ZK_VAULT=/v", "ZK_NOTE=n.md"}
		if !slices.Equal(got, want) {
			t.Errorf("PATH=%q: %q, want %q", tc.path, got, want)
		}
	}
}
