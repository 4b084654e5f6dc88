package move

import (
	"context"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// planIn opens a vault of files and plans with do.
func planIn(t *testing.T, files map[string]string, do func(v *vault.Vault, fs []vault.File) (*Plan, error)) (*Plan, error) {
	t.Helper()
	v, err := vault.Open(vaulttest.Dir(t, files))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	fs, _, err := v.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return do(v, fs)
}

func planMove(t *testing.T, files map[string]string, oldP, newP string, f Format) *Plan {
	t.Helper()
	p, err := planIn(t, files, func(v *vault.Vault, fs []vault.File) (*Plan, error) {
		return Move(context.Background(), v, fs, oldP, newP, f)
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// after is each edited file's new content.
func after(p *Plan) map[string]string {
	out := map[string]string{}
	for _, fe := range p.Files {
		out[fe.Path] = string(fe.New)
	}
	return out
}

func TestMoveRewritesEveryForm(t *testing.T) {
	files := map[string]string{
		"Notes/Target.md": "# Target\n\n## Old Head\n\ntext ^blk\n\n[[#Old Head]] [[Target#Old Head]]\n",
		"A.md": "---\nrelated: \"[[Target]]\"\nlist:\n  - \"[[Target#Old Head|alias]]\"\n---\n# A\n\n" +
			"[[Target]] ![[Target#^blk]] [[Target|Shown]] [[Notes/Target]] [[notes/target.md]]\n" +
			"[text](Notes/Target.md#Old%20Head) [t2](<Notes/Target.md>) [t3](Notes/Target \"title\")\n" +
			"[[Missing]] [[Other]] `[[Target]]`\n",
		"Other.md": "# Other\n",
	}
	p := planMove(t, files, "Notes/Target.md", "Archive/Renamed Note.md", Format{NewLinkFormat: Shortest})
	got := after(p)
	wantA := "---\nrelated: \"[[Renamed Note]]\"\nlist:\n  - \"[[Renamed Note#Old Head|alias]]\"\n---\n# A\n\n" +
		"[[Renamed Note]] ![[Renamed Note#^blk]] [[Renamed Note|Shown]] [[Renamed Note]] [[Renamed Note.md]]\n" +
		"[text](Renamed%20Note.md#Old%20Head) [t2](<Renamed Note.md>) [t3](Renamed%20Note \"title\")\n" +
		"[[Missing]] [[Other]] `[[Target]]`\n"
	if got["A.md"] != wantA {
		t.Errorf("A.md:\n%s\nwant:\n%s", got["A.md"], wantA)
	}
	wantT := "# Renamed Note\n\n## Old Head\n\ntext ^blk\n\n[[#Old Head]] [[Renamed Note#Old Head]]\n"
	if got["Notes/Target.md"] != wantT {
		t.Errorf("Target:\n%s\nwant:\n%s", got["Notes/Target.md"], wantT)
	}
	if len(p.Files) != 2 || p.Links != 11 {
		t.Errorf("%d files, %d links; want 2, 11", len(p.Files), p.Links)
	}
	if len(p.Renames) != 1 || p.Renames[0] != (Rename{From: "Notes/Target.md", To: "Archive/Renamed Note.md"}) {
		t.Errorf("renames %+v", p.Renames)
	}
}

// TestMoveRetitles: a renamed note whose H1 is its old name gets the new
// name as its H1 (zk check's structure/title holds the two equal), and
// every link to that heading follows it; a title of its own, a move that
// keeps the name, and a folder's move leave the H1 alone.
func TestMoveRetitles(t *testing.T) {
	files := map[string]string{
		"Old.md":    "---\nx: 1\n---\n#  Old \n\n## Other\n\n[[#Old]] [[#Other]]\n",
		"A.md":      "# A\n\n[[Old#Old]] [[Old#Old#Sub]] [x](Old.md#Old) [[Old#Other]] [[Old]]\n",
		"Own.md":    "# A title of its own\n",
		"Dir/In.md": "# In\n",
	}
	p := planMove(t, files, "Old.md", "New.md", Format{NewLinkFormat: Shortest})
	got := after(p)
	if want := "---\nx: 1\n---\n#  New \n\n## Other\n\n[[#New]] [[#Other]]\n"; got["Old.md"] != want {
		t.Errorf("Old.md = %q, want %q", got["Old.md"], want)
	}
	if want := "# A\n\n[[New#New]] [[New#New#Sub]] [x](New.md#New) [[New#Other]] [[New]]\n"; got["A.md"] != want {
		t.Errorf("A.md = %q, want %q", got["A.md"], want)
	}
	if p.Links != 6 {
		t.Errorf("%d links rewritten, want 6 (the H1 is no link)", p.Links)
	}
	for _, tt := range []struct{ from, to string }{{"Own.md", "Mine.md"}, {"Old.md", "Dir/Old.md"}, {"Dir", "Folder"}} {
		p := planMove(t, files, tt.from, tt.to, Format{NewLinkFormat: Shortest})
		for _, fe := range p.Files {
			for _, e := range fe.Edits {
				if e.Link == "" {
					t.Errorf("%s → %s: edits the heading %q", tt.from, tt.to, e.Old)
				}
			}
		}
	}
}

func TestMoveKeepsOtherTargets(t *testing.T) {
	files := map[string]string{
		"Lib/Note.md":     "# Note\n",
		"Deep/er/Note.md": "# N\n\n[[Sib]]\n", // its name nowhere in it
		"Deep/er/Sib.md":  "# Sib\n",
		"Other/Sib.md":    "# Sib\n",
		// [[Note]] reaches Lib/Note.md (the shorter path) until a Note.md
		// arrives in Src/, which wins as the same folder's.
		"Src/S.md": "# S\n\n[[Note]] [[Deep/er/Note]] [[Gone]]\n",
	}
	p := planMove(t, files, "Deep/er/Note.md", "Src/Note.md", Format{NewLinkFormat: Shortest})
	got := after(p)
	if want := "# S\n\n[[Lib/Note]] [[Src/Note]] [[Gone]]\n"; got["Src/S.md"] != want {
		t.Errorf("Src/S.md = %q, want %q", got["Src/S.md"], want)
	}
	// The moved note's own link: from Src/, [[Sib]] would reach the
	// shorter Other/Sib.md.
	if want := "# N\n\n[[Deep/er/Sib]]\n"; got["Deep/er/Note.md"] != want {
		t.Errorf("moved note = %q, want %q", got["Deep/er/Note.md"], want)
	}
}

func TestMoveCaptured(t *testing.T) {
	files := map[string]string{
		"Old.md": "# Old\n",
		"S.md":   "# S\n\n[[Gone]] [[Old]]\n",
	}
	p := planMove(t, files, "Old.md", "Gone.md", Format{})
	if len(p.Captured) != 1 || !strings.Contains(p.Captured[0], "S.md: Gone") {
		t.Errorf("captured %q", p.Captured)
	}
	if got := after(p)["S.md"]; got != "# S\n\n[[Gone]] [[Gone]]\n" {
		t.Errorf("S.md = %q", got)
	}
}

func TestMoveFormats(t *testing.T) {
	files := map[string]string{
		"N/Target.md": "# T\n",
		"A/B/S.md":    "# S\n\n[[Target]] [x](../../N/Target.md)\n",
	}
	for _, tt := range []struct {
		format, want string
	}{
		{Shortest, "# S\n\n[[New]] [x](../../N/Target.md)\n"},
		{Absolute, "# S\n\n[[M/New]] [x](../../N/Target.md)\n"},
		{Relative, "# S\n\n[[../../M/New]] [x](../../M/New.md)\n"},
	} {
		p := planMove(t, files, "N/Target.md", "M/New.md", Format{NewLinkFormat: tt.format})
		got := after(p)["A/B/S.md"]
		// The markdown link ../../N/Target.md is broken by the move in
		// every format; written again in each.
		want := tt.want
		if tt.format != Relative {
			want = strings.Replace(want, "(../../N/Target.md)", map[string]string{Shortest: "(New.md)", Absolute: "(M/New.md)"}[tt.format], 1)
		}
		if got != want {
			t.Errorf("%s: %q, want %q", tt.format, got, want)
		}
	}
}

func TestMoveAttachmentAndFolder(t *testing.T) {
	files := map[string]string{
		"img/pic.png":      "PNG",
		"Proj/Plan.md":     "# Plan\n\n![[pic.png|100]] [[Proj/Sub/Task]] [[Task]]\n",
		"Proj/Sub/Task.md": "# Task\n\n[[Plan]]\n",
		"S.md":             "# S\n\n![](img/pic.png) [[Proj/Plan#H]]\n",
	}
	p := planMove(t, files, "img/pic.png", "media/photo.png", Format{})
	got := after(p)
	if want := "# Plan\n\n![[photo.png|100]] [[Proj/Sub/Task]] [[Task]]\n"; got["Proj/Plan.md"] != want {
		t.Errorf("Plan = %q", got["Proj/Plan.md"])
	}
	if want := "# S\n\n![](photo.png) [[Proj/Plan#H]]\n"; got["S.md"] != want {
		t.Errorf("S = %q", got["S.md"])
	}
	p = planMove(t, files, "Proj", "Archive/Old", Format{})
	got = after(p)
	if !p.Renames[0].Folder || p.Renames[0].To != "Archive/Old" {
		t.Errorf("renames %+v", p.Renames)
	}
	if want := "# Plan\n\n![[pic.png|100]] [[Task]] [[Task]]\n"; got["Proj/Plan.md"] != want {
		t.Errorf("Plan = %q", got["Proj/Plan.md"])
	}
	if want := "# S\n\n![](img/pic.png) [[Plan#H]]\n"; got["S.md"] != want {
		t.Errorf("S = %q", got["S.md"])
	}
	if _, ok := got["Proj/Sub/Task.md"]; ok {
		t.Errorf("Task.md edited: %q", got["Proj/Sub/Task.md"])
	}
}

func TestMoveRefuses(t *testing.T) {
	files := map[string]string{"A.md": "# A\n", "B.md": "# B\n", "F/C.md": "# C\n", "Café.md": "# Café\n"}
	for _, tt := range []struct{ old, new, want string }{
		{"A.md", "b.md", "only by case"},
		{"A.md", "BB/../B.MD", "only by case"},
		{"A.md", "Cafe\u0301.md", "Unicode form"}, // NFD beside NFC
		{"A.md", "f/C.md", "only by case"},
		{"A.md", "B.md", "already exists"},
		{"A.md", "../A.md", "outside the vault"},
		{"../x.md", "A2.md", "outside the vault"},
		{"A.md", ".obsidian/A.md", "dot folder"},
		{"Nope.md", "N.md", "no such note"},
		{"A.md", "A#1.md", "no link can name it"},
		{"A.md", "A\nB.md", "no link can name it"},
		{"F", "F/G", "into itself"},
		{"A.md", "A.md", "same path"},
	} {
		_, err := planIn(t, files, func(v *vault.Vault, fs []vault.File) (*Plan, error) {
			return Move(context.Background(), v, fs, tt.old, tt.new, Format{})
		})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("mv %s %s: %v, want %q", tt.old, tt.new, err, tt.want)
		}
	}
}

func TestHeadingRename(t *testing.T) {
	files := map[string]string{
		"Note.md":  "# Note\n\n## Old Head ##\n\nx\n\n[[#Old Head]] [[#old head]] [[#Other]]\n",
		"S.md":     "---\nup: \"[[Note#Old Head]]\"\n---\n# S\n\n[[Note#Old Head|alias]] [m](Note.md#Old%20Head) [[Note#^blk]] [[Other#Old Head]]\n",
		"Other.md": "# Other\n\n## Old Head\n",
	}
	p, err := planIn(t, files, func(v *vault.Vault, fs []vault.File) (*Plan, error) {
		return Heading(context.Background(), v, fs, "Note.md", "Old Head", "New: Head")
	})
	if err != nil {
		t.Fatal(err)
	}
	got := after(p)
	if want := "# Note\n\n## New: Head ##\n\nx\n\n[[#New: Head]] [[#New: Head]] [[#Other]]\n"; got["Note.md"] != want {
		t.Errorf("Note = %q, want %q", got["Note.md"], want)
	}
	if want := "---\nup: \"[[Note#New: Head]]\"\n---\n# S\n\n[[Note#New: Head|alias]] [m](Note.md#New:%20Head) [[Note#^blk]] [[Other#Old Head]]\n"; got["S.md"] != want {
		t.Errorf("S = %q, want %q", got["S.md"], want)
	}
	if p.Links != 5 {
		t.Errorf("%d links, want 5", p.Links)
	}
	_, err = planIn(t, files, func(v *vault.Vault, fs []vault.File) (*Plan, error) {
		return Heading(context.Background(), v, fs, "Note.md", "Nope", "X")
	})
	if err == nil || !strings.Contains(err.Error(), "no such heading") {
		t.Errorf("missing heading: %v", err)
	}
}
