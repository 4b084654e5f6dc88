package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/vaulttest"
)

func sessionVault(t *testing.T, notes map[string]string) (*Session, *vault.Vault, []vault.File) {
	t.Helper()
	v, err := vault.Open(vaulttest.Dir(t, notes))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	files, _, err := v.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(context.Background(), v, files, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, v, files
}

// readNote is v's note at p, or the test's end.
func readNote(t *testing.T, v *vault.Vault, p string) *vault.Note {
	t.Helper()
	n, err := v.ReadNote(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A session's check of a note finds what zk check finds for it, and sees
// the editor's text of a note rather than the file's.
func TestSessionMatchesCheck(t *testing.T) {
	ctx := context.Background()
	s, v, files := sessionVault(t, map[string]string{
		"a.md": "# A\n\nSee [[b#Old]], [[b#^blk]], [[c]] and [[Bee]].\n",
		"b.md": "---\naliases: [Bee]\n---\n# B\n\n## Old\n\ntext ^blk\n",
	})
	want, err := Check(ctx, v, files, nil, Options{Only: func(p string) bool { return p == "a.md" }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := readNote(t, v, "a.md")
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

// A session reports links/rests-on-refuted as Check does, along a chain
// A extends B, B is evidence for C, once C is refuted in the editor; and
// names A and B as C's dependents.
func TestSessionRestsOnRefuted(t *testing.T) {
	ctx := context.Background()
	notes := map[string]string{
		"A.md": "# A\n\n## Links\n\n- [[B]] — extends: A builds on B.\n",
		"B.md": "# B\n\n## Links\n\n- [[C]] — evidence-for: B's data is C's.\n",
		"C.md": "# C\n\n## Tests / falsifiers\n\n- The suite fails.\n",
		"D.md": "# D\n\n## Links\n\n- [[C]] — contrasts: not resting on it.\n",
	}
	s, v, files := sessionVault(t, notes)
	read := func(p string) *vault.Note { return readNote(t, v, p) }
	rests := func(fs []Finding) []string {
		var out []string
		for _, f := range fs {
			if f.Rule == RuleRestsOnRefuted {
				out = append(out, f.Message)
			}
		}
		return out
	}
	if got := rests(s.Check(read("A.md"))); got != nil {
		t.Fatalf("before C is refuted: %v", got)
	}
	if got := s.Relations(); !reflect.DeepEqual(got, []string{"contrasts", "evidence-for", "extends"}) {
		t.Errorf("relations: %v", got)
	}
	s.Update(vault.NewParser().Parse("D.md", []byte("# D\n\n## Links\n\n- [[A]] — extends: now.\n")))
	if got := s.Relations(); !reflect.DeepEqual(got, []string{"extends", "evidence-for"}) {
		t.Errorf("relations once D extends A: %v, want extends (2) then evidence-for", got)
	}
	s.Update(vault.NewParser().Parse("D.md", []byte(notes["D.md"])))
	if got := s.Dependents("C.md"); !reflect.DeepEqual(got, []string{"A.md", "B.md"}) {
		t.Errorf("dependents of C: %v, want A and B", got)
	}
	s.Update(vault.NewParser().Parse("C.md", []byte(vaulttest.RefutedC)))
	got := rests(s.Check(read("A.md")))
	want := []string{"extends [[B]], which rests on a refuted note: [[B]] → [[C]] (refuted: falsifier 1, run 20261203T133032Z-2d8e)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("A after C refuted: %q, want %q", got, want)
	}
	if got := rests(s.Check(read("B.md"))); len(got) != 1 || !strings.HasPrefix(got[0], "evidence-for [[C]], which is refuted") {
		t.Errorf("B after C refuted: %q", got)
	}
	if got := rests(s.Check(read("D.md"))); got != nil {
		t.Errorf("D contrasts with C and rests on nothing: %q", got)
	}
	// The same as zk check's whole-vault findings.
	if err := os.WriteFile(filepath.Join(v.Dir, "C.md"), []byte(vaulttest.RefutedC), 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := Check(ctx, v, files, nil, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rests(all.Findings), append(rests(s.Check(read("A.md"))), rests(s.Check(read("B.md")))...); !reflect.DeepEqual(got, want) {
		t.Errorf("Check found %q, the session %q", got, want)
	}
	// C answered: the chain is gone.
	s.Update(vault.NewParser().Parse("C.md", []byte(notes["C.md"])))
	if got := rests(s.Check(read("A.md"))); got != nil {
		t.Errorf("after C's refutation is gone: %q", got)
	}
}

// A session replaces a note's summary at every check of it; what the link
// rules derived from the summaries replaced is dropped, so that an
// editor's session keeps only what its current notes need.
func TestSessionForgetsReplacedTargets(t *testing.T) {
	s, v, _ := sessionVault(t, map[string]string{
		"a.md": "# A\n\nSee [[b#Nope]] and [[b#^nope]].\n",
		"b.md": "# B\n\n## Old\n\ntext ^blk\n",
	})
	a := readNote(t, v, "a.md")
	for i := range 50 {
		b := vault.NewParser().Parse("b.md", []byte(fmt.Sprintf("# B\n\n## Old %d\n\ntext ^blk\n", i)))
		s.Check(b) // the editor's text of b, a new summary each time
		if got := s.Check(a); len(got) != 2 {
			t.Fatalf("check %d: %+v, want the broken heading and block", i, got)
		}
	}
	lt := s.c.targets
	if len(lt.blocks) > 1 || len(lt.headings) > 1 || len(lt.closest) > 1 {
		t.Errorf("after 50 versions of b: %d block sets, %d heading indexes, %d suggestion sets, want at most 1 each",
			len(lt.blocks), len(lt.headings), len(lt.closest))
	}
}

// The work spent on suggesting headings is bounded per check, not per
// session: a session past the bound still suggests.
func TestSessionSuggestionBudgetIsPerCheck(t *testing.T) {
	s, v, _ := sessionVault(t, map[string]string{
		"a.md": "# A\n\nSee [[b#Oldd]].\n",
		"b.md": "# B\n\n## Old\n",
	})
	a := readNote(t, v, "a.md")
	s.c.targets.cells = 0 // spent by the checks before
	got := s.Check(a)
	if len(got) != 1 || !strings.Contains(got[0].Message, `the closest is "#Old"`) {
		t.Errorf("%+v, want a broken heading with its suggestion", got)
	}
}

// Two notes with the same alias: a broken link naming it names the same
// one of them in a session, whatever order the session learnt them in,
// as in Check.
func TestSessionNamesAnAliasOwnerAsCheck(t *testing.T) {
	ctx := context.Background()
	notes := map[string]string{
		"a.md": "# A\n\n[[Bee]]\n",
		"b.md": "---\naliases: [Bee]\n---\n# B\n",
		"c.md": "---\naliases: [Bee]\n---\n# C\n",
	}
	s, v, files := sessionVault(t, notes)
	want, err := Check(ctx, v, files, nil, Options{Only: func(p string) bool { return p == "a.md" }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Update(readNote(t, v, "b.md")) // b learnt again, after c
	got := s.Check(readNote(t, v, "a.md"))
	if !reflect.DeepEqual(got, want.Findings) {
		t.Fatalf("session found\n%+v\ncheck found\n%+v", got, want.Findings)
	}
	if len(got) != 1 || !strings.Contains(got[0].Message, `alias of "b"`) {
		t.Errorf("want the alias's first owner by name, b: %+v", got)
	}
}

// Of two chains as short to a refuted note, a session names the one
// Check names: M rests on Z before Y, both refuted.
func TestSessionNamesTheChainCheckNames(t *testing.T) {
	ctx := context.Background()
	refuted := func(title string) string { return strings.Replace(vaulttest.RefutedC, "# C", "# "+title, 1) }
	notes := map[string]string{
		"A.md": "# A\n\n## Links\n\n- [[M]] — extends: A builds on M.\n",
		"M.md": "# M\n\n## Links\n\n- [[Z]] — extends: first.\n- [[Y]] — extends: second.\n",
		"Y.md": refuted("Y"),
		"Z.md": refuted("Z"),
	}
	s, v, files := sessionVault(t, notes)
	want, err := Check(ctx, v, files, nil, Options{Only: func(p string) bool { return p == "A.md" }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Check(readNote(t, v, "A.md"))
	if !reflect.DeepEqual(got, want.Findings) {
		t.Fatalf("session found\n%+v\ncheck found\n%+v", got, want.Findings)
	}
	if len(got) != 1 || !strings.Contains(got[0].Message, "[[M]] → [[Y]]") {
		t.Errorf("want the chain through Y, first by path: %+v", got)
	}
}
