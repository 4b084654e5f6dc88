package trust

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
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

// An approval binds the content of the vault files its command names: a
// changed, added or removed file makes it unapproved, and Check says which.
func TestCheckFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trust.json")
	s := Open(path)
	a := Approval{Vault: "/v", Note: "n.md", Command: "sh run.sh", Files: map[string]string{"run.sh": "sha256:aa"}}
	if err := s.Approve(a); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		files   map[string]string
		changed []string
	}{
		"same":    {map[string]string{"run.sh": "sha256:aa"}, nil},
		"edited":  {map[string]string{"run.sh": "sha256:bb"}, []string{"run.sh"}},
		"removed": {nil, []string{"run.sh"}},
		"added":   {map[string]string{"run.sh": "sha256:aa", "lib.sh": "sha256:cc"}, []string{"lib.sh"}},
	} {
		b := a
		b.Files = tc.files
		v, err := s.Check(b)
		if err != nil {
			t.Fatal(err)
		}
		if v.Approved != (tc.changed == nil) || !slices.Equal(v.Changed, tc.changed) {
			t.Errorf("%s: %+v, want changed %v", name, v, tc.changed)
		}
	}
}

func TestHashFiles(t *testing.T) {
	dir := t.TempDir()
	for p, text := range map[string]string{"run.sh": "echo 1\n", "lib/x.sh": "x\n", "data.csv": "1,2\n"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644)
	}
	outside := filepath.Join(t.TempDir(), "out.sh")
	os.WriteFile(outside, []byte("x"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "link.sh"))
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, tc := range []struct {
		argv []string
		want []string
	}{
		{[]string{"sh", "run.sh"}, []string{"run.sh"}},
		{[]string{"sh", "-c", "sh lib/x.sh && cat ./run.sh"}, []string{"lib/x.sh", "run.sh"}},
		{[]string{"tool", "--input=data.csv", filepath.Join(dir, "run.sh")}, []string{"data.csv", "run.sh"}},
		{[]string{"sh", "../out.sh", outside, "link.sh", "lib", "."}, nil},
		{[]string{"go", "test", "./..."}, nil},
	} {
		got, err := HashFiles(root, dir, tc.argv)
		if err != nil {
			t.Fatal(err)
		}
		if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, tc.want) {
			t.Errorf("%q: files %v, want %v", tc.argv, keys, tc.want)
		}
	}
	a, _ := HashFiles(root, dir, []string{"sh", "run.sh"})
	os.WriteFile(filepath.Join(dir, "run.sh"), []byte("echo 2\n"), 0o644)
	if b, _ := HashFiles(root, dir, []string{"sh", "run.sh"}); a["run.sh"] == b["run.sh"] {
		t.Error("the hash did not change with the content")
	}
}
