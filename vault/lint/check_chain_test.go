package lint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// chainVault is a vault of a chain of n notes, n00000 resting on n00001
// and so on, the last on C, refuted (vaulttest.RefutedC).
func chainVault(t *testing.T, n int, refuted string) (*vault.Vault, []vault.File) {
	t.Helper()
	notes := map[string]string{"C.md": refuted}
	for i := range n {
		next := "C"
		if i+1 < n {
			next = chainName(i + 1)
		}
		notes[chainName(i)+".md"] = fmt.Sprintf("# %s\n\n## Links\n\n- [[%s]] — supports: x\n", chainName(i), next)
	}
	v, err := vault.Open(vaulttest.Dir(t, notes))
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

func chainName(i int) string { return fmt.Sprintf("n%05d", i) }

// restsMessages are the messages of fs's links/rests-on-refuted findings
// by note path.
func restsMessages(fs []Finding) map[string]string {
	out := map[string]string{}
	for _, f := range fs {
		if f.Rule == RuleRestsOnRefuted {
			out[f.Path] = f.Message
		}
	}
	return out
}

const refutedWhy = "(refuted: falsifier 1, run 20261203T133032Z-2d8e)"

// TestRestsOnShortChains: a chain of up to four notes is named whole, as
// it always was; a longer one by its first three notes, its refuted one
// and its length. Check and a session name the same.
func TestRestsOnShortChains(t *testing.T) {
	v, files := chainVault(t, 5, vaulttest.RefutedC)
	want := map[string]string{
		"n00004.md": "supports [[C]], which is refuted (falsifier 1, run 20261203T133032Z-2d8e)",
		"n00003.md": "supports [[n00004]], which rests on a refuted note: [[n00004]] → [[C]] " + refutedWhy,
		"n00002.md": "supports [[n00003]], which rests on a refuted note: [[n00003]] → [[n00004]] → [[C]] " + refutedWhy,
		"n00001.md": "supports [[n00002]], which rests on a refuted note: [[n00002]] → [[n00003]] → [[n00004]] → [[C]] " + refutedWhy,
		"n00000.md": "supports [[n00001]], which rests on a refuted note through a chain of 5 notes: [[n00001]] → [[n00002]] → [[n00003]] → … → [[C]] " + refutedWhy,
	}
	rep, err := Check(context.Background(), v, files, nil, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := restsMessages(rep.Findings)
	for p, w := range want {
		if got[p] != w {
			t.Errorf("Check on %s:\n got %q\nwant %q", p, got[p], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("Check: %d findings, want %d: %q", len(got), len(want), got)
	}
	s, err := NewSession(context.Background(), v, files, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for p, w := range want {
		if got := restsMessages(s.Check(readNote(t, v, p)))[p]; got != w {
			t.Errorf("session on %s:\n got %q\nwant %q", p, got, w)
		}
	}
}

// TestRestsOnLongChainBounded: a chain of 10,000 notes is named in a
// message of a few hundred bytes, not of every note's name, by Check and
// by a session; and a whole check of a long chain writes messages of
// bytes linear in the notes (naming every chain whole wrote the square:
// 734 MB for 3,000 notes of 150-character names).
func TestRestsOnLongChainBounded(t *testing.T) {
	const n = 10000
	v, files := chainVault(t, n, vaulttest.RefutedC)
	want := "supports [[n00001]], which rests on a refuted note through a chain of 10000 notes: " +
		"[[n00001]] → [[n00002]] → [[n00003]] → … → [[C]] " + refutedWhy
	only := func(p string) bool { return p == "n00000.md" || p == "n05000.md" }
	rep, err := Check(context.Background(), v, files, nil, Options{Only: only}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := restsMessages(rep.Findings)
	if got["n00000.md"] != want {
		t.Errorf("Check on the chain's start:\n got %.300q (%d bytes)\nwant %q", got["n00000.md"], len(got["n00000.md"]), want)
	}
	if m := got["n05000.md"]; len(m) > 512 || !strings.Contains(m, "a chain of 5000 notes: [[n05001]] → [[n05002]] → [[n05003]] → … → [[C]]") {
		t.Errorf("Check in the chain's middle: %.300q (%d bytes)", m, len(m))
	}
	s, err := NewSession(context.Background(), v, files, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := restsMessages(s.Check(readNote(t, v, "n00000.md")))["n00000.md"]; got != want {
		t.Errorf("session on the chain's start:\n got %.300q (%d bytes)\nwant %q", got, len(got), want)
	}

	// The whole vault: every note's message, of its own size. (Smaller,
	// so that a check naming whole chains fails here rather than runs out
	// of memory: 2,000 notes named whole are 26 MB.)
	v, files = chainVault(t, 2000, vaulttest.RefutedC)
	rep, err = Check(context.Background(), v, files, nil, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, m := range restsMessages(rep.Findings) {
		total += len(m)
	}
	if len(restsMessages(rep.Findings)) != 2000 || total > 2000*200 {
		t.Errorf("the check of a chain of 2,000: %d messages of %d bytes, want 2,000 of 200 bytes or fewer each", len(restsMessages(rep.Findings)), total)
	}
}

// TestRestsOnRefutedWhyClipped: why a note is refuted is repeated in the
// finding of every note resting on it, so its parts a note can make as
// long as it likes (here a deleted falsifier's text, quoted) are clipped.
func TestRestsOnRefutedWhyClipped(t *testing.T) {
	long := strings.Repeat("The suite fails. ", 1000)
	block := evidence.RenderRun(evidence.Run{ID: "20261203T133032Z-2d8e", Started: time.Date(2026, 12, 3, 13, 30, 32, 0, time.UTC),
		Exit: 1, Verdict: evidence.VerdictRefutes, Falsifier: long, Criterion: "exit = 1; refuted if `exit != 0`: refuted"}, "\n")
	refuted := "# C\n\n## Tests / falsifiers\n\n## Evidence\n\n" + string(block) + "\n"
	v, files := chainVault(t, 2, refuted)
	rep, err := Check(context.Background(), v, files, nil, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := restsMessages(rep.Findings)["n00001.md"]
	if !strings.HasPrefix(got, `supports [[C]], which is refuted (deleted falsifier "The suite fails. The suite`) || len(got) > 300 {
		t.Errorf("the finding of a note resting on C: %.300q (%d bytes)", got, len(got))
	}
}

// TestRecheckLongChainLinear: a note edited in the middle of a chain of
// 3,000 has the 1,500 before it checked again, each resting on the
// refuted note through the rest of the chain. Their chains are found by
// one walk of the notes they reach, not one walk each (1,500 walks of
// 1,500 to 3,000 notes: 3.4 million notes looked at, and 7 s of zk
// check at 150-character names), and are the ones Check names.
func TestRecheckLongChainLinear(t *testing.T) {
	const n = 3000
	ctx := context.Background()
	v, files := chainVault(t, n, vaulttest.RefutedC)
	opts := Options{States: true}
	full, err := Check(ctx, v, files, nil, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	mid := chainName(n/2) + ".md"
	src := fmt.Sprintf("# %s\n\nEdited.\n\n## Links\n\n- [[%s]] — supports: x\n", chainName(n/2), chainName(n/2+1))
	if err := os.WriteFile(filepath.Join(v.Dir, mid), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	files, _, err = v.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	walked := 0
	walkedHook = func(k int) { walked += k }
	defer func() { walkedHook = nil }()
	got, ok, err := Recheck(ctx, v, files, nil, opts, full.Previous(), []string{mid}, nil)
	if err != nil || !ok {
		t.Fatalf("recheck: ok %v, %v", ok, err)
	}
	if walked > 2*n {
		t.Errorf("the recheck's walks looked at %d notes, want %d at most", walked, 2*n)
	}
	want, err := Check(ctx, v, files, nil, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := restsMessages(got.Findings), restsMessages(want.Findings); !reflect.DeepEqual(g, w) {
		t.Errorf("recheck and check differ: %d and %d findings", len(g), len(w))
	}
}

// TestCheckNotesChainLinear: the refuted note at the end of a chain of N
// saved, an editor checks again the N notes resting on it
// (Session.Dependents). Checked together (CheckNotes), their chains are
// found by one walk of the notes they reach; checked one by one, as the
// language server did, each walked the rest of the chain (N = 1,000:
// 501,500 notes looked at). Their findings are each note's Check's.
func TestCheckNotesChainLinear(t *testing.T) {
	for _, n := range []int{100, 1000} {
		notes := map[string]string{"C.md": vaulttest.RefutedC}
		for i := range n {
			next := "C"
			if i+1 < n {
				next = chainName(i + 1)
			}
			notes[chainName(i)+".md"] = fmt.Sprintf("# %s\n\n## Links\n\n- [[%s]] — supports: x\n", chainName(i), next)
		}
		s, v, _ := sessionVault(t, notes)
		deps := s.Dependents("C.md")
		if len(deps) != n {
			t.Fatalf("N = %d: %d dependents", n, len(deps))
		}
		ns := make([]*vault.Note, len(deps))
		for i, p := range deps {
			ns[i] = readNote(t, v, p)
		}
		walked := 0
		walkedHook = func(k int) { walked += k }
		got := s.CheckNotes(ns)
		walkedHook = nil
		if walked > 2*(n+1) {
			t.Errorf("N = %d: the checks' walks looked at %d notes, want %d at most", n, walked, 2*(n+1))
		}
		if restsMessages(got[0])[ns[0].Path] == "" {
			t.Errorf("N = %d: %s has no finding of resting on C: %v", n, ns[0].Path, got[0])
		}
		for i, nt := range ns {
			if want := s.Check(nt); !reflect.DeepEqual(got[i], want) {
				t.Errorf("N = %d: %s checked together %v, alone %v", n, nt.Path, got[i], want)
				break
			}
		}
	}
}
