package trust

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "zk", "trust.json")
	s := Open(path)
	a := Approval{Vault: "/v", Note: "n.md", Command: "go test ./..."}
	if ok, err := s.Trusted(a); ok || err != nil {
		t.Fatalf("empty store: %v, %v", ok, err)
	}
	if err := s.Approve(a); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Trusted(a); !ok || err != nil {
		t.Fatalf("after Approve: %v, %v", ok, err)
	}
	for name, other := range map[string]Approval{
		"edited command": {Vault: "/v", Note: "n.md", Command: "go test ./... "},
		"other note":     {Vault: "/v", Note: "m.md", Command: "go test ./..."},
		"other vault":    {Vault: "/w", Note: "n.md", Command: "go test ./..."},
		"shifted parts":  {Vault: "/v", Note: "n.mdgo test ./...", Command: ""},
	} {
		if ok, _ := Open(path).Trusted(other); ok {
			t.Errorf("%s: trusted", name)
		}
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, %v", st.Mode(), err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Trusted(a); !errors.Is(err, ErrUnsafe) {
		t.Errorf("world-writable file: err %v, want ErrUnsafe", err)
	}
}

func TestCorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trust.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path).Trusted(Approval{}); err == nil {
		t.Error("corrupt file read without error")
	}
}
