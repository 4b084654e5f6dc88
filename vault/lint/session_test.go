package lint

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault"
)

func sessionVault(t *testing.T, notes map[string]string) (*vault.Vault, []vault.File) {
	t.Helper()
	dir := t.TempDir()
	for p, text := range notes {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	files, _, err := v.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v, files
}

// A session's check of a note finds what zk check finds for it, and sees
// the editor's text of a note rather than the file's.
func TestSessionMatchesCheck(t *testing.T) {
	ctx := context.Background()
	v, files := sessionVault(t, map[string]string{
		"a.md": "# A\n\nSee [[b#Old]], [[b#^blk]], [[c]] and [[Bee]].\n",
		"b.md": "---\naliases: [Bee]\n---\n# B\n\n## Old\n\ntext ^blk\n",
	})
	s, err := NewSession(ctx, v, files, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Check(ctx, v, files, nil, Options{Only: func(p string) bool { return p == "a.md" }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := v.ReadNote("a.md")
	if err != nil {
		t.Fatal(err)
	}
	got := s.Check(a)
	if !reflect.DeepEqual(got, want.Findings) {
		t.Fatalf("session found\n%+v\ncheck found\n%+v", got, want.Findings)
	}
	if len(got) != 2 { // [[c]] broken; [[Bee]] broken, naming b's alias
		t.Errorf("want 2 findings, got %+v", got)
	}

	// b's heading renamed in the editor: a's link to it is now broken.
	b := vault.NewParser().Parse("b.md", []byte("# B\n\n## New\n\ntext ^blk\n"))
	s.Update(b)
	after := s.Check(a)
	rules := map[string]int{}
	for _, f := range after {
		rules[f.Rule]++
	}
	if rules[RuleBrokenHeading] != 1 {
		t.Errorf("after b's heading changed: %+v, want one %s", after, RuleBrokenHeading)
	}
	// b no longer declares the alias Bee: the message no longer names it.
	for _, f := range after {
		if f.Rule == RuleBrokenLink && strings.Contains(f.Message, "Bee") && strings.Contains(f.Message, "alias") {
			t.Errorf("stale alias in %q", f.Message)
		}
	}

	// c.md created: SetFiles resolves [[c]].
	if err := os.WriteFile(filepath.Join(v.Dir, "c.md"), []byte("# C\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, _, _ = v.Files(ctx)
	s.SetFiles(files)
	for _, f := range s.Check(a) {
		if f.Rule == RuleBrokenLink && strings.Contains(f.Message, `"c"`) {
			t.Errorf("[[c]] still broken after c.md was created: %s", f.Message)
		}
	}
}
