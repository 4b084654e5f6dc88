package checkcache

import (
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
)

func TestNewKey(t *testing.T) {
	if NewKey([]byte("ab"), []byte("c")) == NewKey([]byte("a"), []byte("bc")) {
		t.Error("keys of differently split parts collide")
	}
}

// A stamp settles a file by its size and time only when both are
// unchanged and the time is older than the racy window before the stamp
// was written; anything else is for the file's bytes to settle.
func TestSettled(t *testing.T) {
	written := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	old := written.Add(-time.Hour)
	stamp := Stamp{Path: "a.md", Size: 4, ModTime: old.UnixNano()}
	for _, tt := range []struct {
		name  string
		stamp Stamp
		file  vault.File
		want  bool
	}{
		{"unchanged", stamp, vault.File{Path: "a.md", Size: 4, ModTime: old}, true},
		{"another size", stamp, vault.File{Path: "a.md", Size: 5, ModTime: old}, false},
		{"touched", stamp, vault.File{Path: "a.md", Size: 4, ModTime: written}, false},
		{"racy: stamped within the window", Stamp{Path: "a.md", Size: 4, ModTime: written.Add(-time.Second).UnixNano()},
			vault.File{Path: "a.md", Size: 4, ModTime: written.Add(-time.Second)}, false},
	} {
		if got := settled(written.UnixNano(), tt.stamp, tt.file); got != tt.want {
			t.Errorf("%s: settled %v, want %v", tt.name, got, tt.want)
		}
	}
}
