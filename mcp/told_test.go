package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zk-claims/zk/view"
)

// The check tool's paths that are no note of the vault (a commit's
// .github/pull_request_template.md) are not checked, as zk check PATH
// says on stderr: the tool says so in its warnings, where it said
// nothing and an agent took the file for checked and clean.
func TestMCPCheckPassedOver(t *testing.T) {
	cs, _ := newMCPSessionWith(t, func(dir string) {
		if err := os.MkdirAll(filepath.Join(dir, ".github"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeOld(t, filepath.Join(dir, ".github", "pull_request_template.md"), "# PR\n[[Nowhere]]\n")
	})
	var page checkPage
	callTool(t, cs, "check", map[string]any{"paths": []string{".github/pull_request_template.md"}}, &page, false)
	want := []string{".github/pull_request_template.md: not checked: in a dot folder, which zk does not read"}
	if !slices.Equal(page.Warnings, want) || len(page.Findings) != 0 {
		t.Errorf("check of a file in a dot folder: warnings %q, findings %+v, want %q and none", page.Warnings, page.Findings, want)
	}
}

// The backlinks and list tools answer for a note not written yet that
// notes link to, as zk backlinks and zk list --links-to do: the result
// says the name is unresolved, and its warnings why no file is named.
func TestMCPUnwritten(t *testing.T) {
	cs, _ := newMCPSessionWith(t, func(dir string) {
		writeOld(t, filepath.Join(dir, "Alien.md"), "# Alien\nBy [[Ridley Scott]].\n")
	})
	var back backlinksPage
	callTool(t, cs, "backlinks", map[string]any{"note": "Ridley Scott"}, &back, false)
	want := []string{"Ridley Scott: not written yet; the links listed reach it by name"}
	if back.Note != "Ridley Scott" || !back.Unresolved || len(back.Edges) != 1 || back.Edges[0].From != "Alien.md" || !slices.Equal(back.Warnings, want) {
		t.Errorf("backlinks Ridley Scott = %+v, want Alien.md's link, unresolved, warnings %q", back, want)
	}
	var list struct {
		view.List
		Warnings []string `json:"warnings"`
	}
	callTool(t, cs, "list", map[string]any{"links_to": "ridley scott"}, &list, false)
	if len(list.Notes) != 1 || list.Notes[0].Path != "Alien.md" || list.LinksToUnresolved != "ridley scott" || len(list.Warnings) != 1 {
		t.Errorf("list links_to ridley scott = %+v, want Alien.md, links_to_unresolved, a warning", list)
	}
	if text := callTool(t, cs, "backlinks", map[string]any{"note": "Nobody"}, nil, true); !strings.Contains(text, "no such note") {
		t.Errorf("backlinks of a name nothing links to: %q, want no such note", text)
	}
}

// A check path that leads out of the vault is refused by its text, as
// every tool's note argument is: the tool answered a file outside that
// exists with success ("not checked: outside the vault") and one that
// does not with an error, so an agent learned which files exist there.
func TestMCPCheckOutsideVault(t *testing.T) {
	cs, dir := newMCPSessionWith(t, nil)
	writeOld(t, filepath.Join(filepath.Dir(dir), "secret.md"), "# secret\n")
	for _, p := range []string{"../secret.md", "../missing.md", filepath.Join(filepath.Dir(dir), "secret.md")} {
		if text := callTool(t, cs, "check", map[string]any{"paths": []string{p}}, nil, true); !strings.Contains(text, "outside the vault") || strings.Contains(text, "not checked") {
			t.Errorf("check %s: %q, want refused as outside the vault", p, text)
		}
	}
}
