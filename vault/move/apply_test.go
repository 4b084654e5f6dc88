package move

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/vaulttest"
)

func open(t testing.TB, dir string) (*vault.Vault, []vault.File) {
	t.Helper()
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	fs, _, err := v.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v, fs
}

func read(t *testing.T, dir, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(dir, p string) bool {
	_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p)))
	return err == nil
}

// testKey seals the tests' journals, as a machine's key does.
var testKey = bytes.Repeat([]byte{7}, KeySize)

var twoNotes = map[string]string{
	"Old.md": "# Old\n\n[[Old#H]]\n",
	"A.md":   "# A\n\n[[Old]]\n",
	"B.md":   "# B\n\n[x](Old.md)\n",
}

func TestApply(t *testing.T) {
	dir := vaulttest.Dir(t, twoNotes)
	v, fs := open(t, dir)
	p, err := Move(context.Background(), v, fs, "Old.md", "Sub/New.md", Format{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(context.Background(), v, p, ApplyOptions{Key: testKey}); err != nil {
		t.Fatal(err)
	}
	if exists(dir, "Old.md") || read(t, dir, "Sub/New.md") != "# New\n\n[[New#H]]\n" {
		t.Errorf("not moved")
	}
	if read(t, dir, "A.md") != "# A\n\n[[New]]\n" || read(t, dir, "B.md") != "# B\n\n[x](New.md)\n" {
		t.Errorf("links: %q %q", read(t, dir, "A.md"), read(t, dir, "B.md"))
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, ".zk", "journal")); len(ents) != 1 || ents[0].Name() != "lock" {
		t.Errorf("journal left: %v", ents)
	}
}

// A file edited after the plan: nothing is changed, the journal is gone.
func TestApplyUndoesOnChange(t *testing.T) {
	dir := vaulttest.Dir(t, twoNotes)
	v, fs := open(t, dir)
	p, err := Move(context.Background(), v, fs, "Old.md", "New.md", Format{})
	if err != nil {
		t.Fatal(err)
	}
	// B.md changes after A.md is written (files go in path order).
	err = Apply(context.Background(), v, p, ApplyOptions{Key: testKey, AfterFile: func(i int) {
		if i == 1 {
			os.WriteFile(filepath.Join(dir, "B.md"), []byte("# B\n\n[x](Old.md) edited\n"), 0o644)
		}
	}, Write: vault.WriteOptions{Quiet: -1}, Workers: 1})
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("err = %v, want ErrChanged", err)
	}
	if read(t, dir, "A.md") != twoNotes["A.md"] || !exists(dir, "Old.md") || exists(dir, "New.md") {
		t.Errorf("not undone: A.md %q", read(t, dir, "A.md"))
	}
	if read(t, dir, "B.md") != "# B\n\n[x](Old.md) edited\n" {
		t.Errorf("the other program's edit lost")
	}
	if got := journals(t, dir); len(got) != 0 {
		t.Errorf("journal left: %v", got)
	}
}

func journals(t *testing.T, dir string) []string {
	var out []string
	ents, _ := os.ReadDir(filepath.Join(dir, ".zk", "journal"))
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "mv-") {
			out = append(out, e.Name())
		}
	}
	return out
}

type crash struct{}

// applyCrashing applies p and stops it dead after step n, as a kill
// would: nothing after that step runs, the journal stays.
func applyCrashing(t *testing.T, v *vault.Vault, p *Plan, n int) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(crash); !ok {
				panic(r)
			}
		}
	}()
	Apply(context.Background(), v, p, ApplyOptions{Key: testKey, Workers: 1, AfterFile: func(i int) {
		if i == n {
			panic(crash{})
		}
	}})
	t.Fatalf("did not stop after step %d", n)
}

// A move stopped after any step is finished by Recover, with the vault
// exactly as an uninterrupted move leaves it.
func TestRecoverRollsForward(t *testing.T) {
	want := vaulttest.Dir(t, twoNotes)
	v, fs := open(t, want)
	p, _ := Move(context.Background(), v, fs, "Old.md", "Sub/New.md", Format{})
	if err := Apply(context.Background(), v, p, ApplyOptions{Key: testKey}); err != nil {
		t.Fatal(err)
	}
	steps := len(p.Files) + len(p.Renames)
	for n := 1; n <= steps; n++ {
		dir := vaulttest.Dir(t, twoNotes)
		v, fs := open(t, dir)
		p, _ := Move(context.Background(), v, fs, "Old.md", "Sub/New.md", Format{})
		applyCrashing(t, v, p, n)
		if got := journals(t, dir); len(got) != 1 {
			t.Fatalf("step %d: journals %v", n, got)
		}
		recs, err := Recover(context.Background(), v, vault.WriteOptions{}, testKey)
		if err != nil || len(recs) != 1 || len(recs[0].Conflicts) != 0 {
			t.Fatalf("step %d: %+v, %v", n, recs, err)
		}
		if recs[0].Files+recs[0].Renames != steps-n {
			t.Errorf("step %d: recovered %d files, %d renames; want %d steps", n, recs[0].Files, recs[0].Renames, steps-n)
		}
		for _, f := range []string{"A.md", "B.md", "Sub/New.md"} {
			if read(t, dir, f) != read(t, want, f) {
				t.Errorf("step %d: %s = %q, want %q", n, f, read(t, dir, f), read(t, want, f))
			}
		}
		if exists(dir, "Old.md") || len(journals(t, dir)) != 0 {
			t.Errorf("step %d: Old.md or the journal left", n)
		}
	}
}

// A file edited between the crash and the recovery is left alone and
// reported; the journal is kept aside.
func TestRecoverConflict(t *testing.T) {
	dir := vaulttest.Dir(t, twoNotes)
	v, fs := open(t, dir)
	p, _ := Move(context.Background(), v, fs, "Old.md", "New.md", Format{})
	applyCrashing(t, v, p, 1)
	os.WriteFile(filepath.Join(dir, "B.md"), []byte("mine\n"), 0o644)
	recs, err := Recover(context.Background(), v, vault.WriteOptions{Quiet: -1}, testKey)
	if err != nil || len(recs) != 1 || len(recs[0].Conflicts) != 1 || !strings.Contains(recs[0].Conflicts[0], "B.md: edited") {
		t.Fatalf("%+v, %v", recs, err)
	}
	if read(t, dir, "B.md") != "mine\n" || !exists(dir, "New.md") {
		t.Errorf("B.md overwritten or the rename not done")
	}
	if got := journals(t, dir); len(got) != 1 || !strings.HasSuffix(got[0], ".failed.json") {
		t.Errorf("journals %v", got)
	}
	// Kept aside, it is not tried again.
	if recs, err := Recover(context.Background(), v, vault.WriteOptions{}, testKey); err != nil || len(recs) != 0 {
		t.Errorf("again: %+v, %v", recs, err)
	}
}

func TestRecoverNothing(t *testing.T) {
	dir := vaulttest.Dir(t, twoNotes)
	v, _ := open(t, dir)
	if recs, err := Recover(context.Background(), v, vault.WriteOptions{}, testKey); err != nil || recs != nil {
		t.Errorf("%+v, %v", recs, err)
	}
	if exists(dir, ".zk") {
		t.Errorf("Recover made .zk/ in a vault without a journal")
	}
}
