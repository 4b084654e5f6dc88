package workspace

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zk-claims/zk/templates"
)

// TestEveryInputChangesTheKey changes each input of inputParts, one at a
// time, and asks every cache's key: it must change exactly when the cache
// declares the input. An input added to Inputs without a case here fails
// the test, so that no input reaches a key untested.
func TestEveryInputChangesTheKey(t *testing.T) {
	tmpl, _ := templates.Default("permanent")
	base := map[string]string{
		".obsidian/app.json":                 "{}",
		".zk/config.toml":                    "[claims.types.permanent]\nfolder = \"Notes\"\n",
		".zk/templates/permanent.md":         string(tmpl),
		"Notes/A.md":                         "# A\n",
		".zk/runs/ledger.jsonl":              `{"id":"20261201T100000Z-0001","note":"Notes/A.md","verdict":"refutes"}` + "\n",
		".zk/runs/20261201T100000Z-0001.log": "rate = 99.9\n",
	}
	write := func(t *testing.T, w *Workspace, p, text string) {
		full := filepath.Join(w.Vault.Dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	caches := []struct {
		name    string
		purpose string
		set     Inputs
	}{
		{"check", checkPurpose, checkInputs},
		{"list", "zk list records v1", listInputs},
		{"details", detailPurpose, detailInputs},
		{"runs", runsPurpose, detailInputs},
		{"stale", stalePurpose, staleInputs},
		{"index", "zk index", indexInputs},
		{"base", basePurpose, baseInputs},
		{"properties", propertiesPurpose, propertiesInputs},
		{"lsp", entriesPurpose, liveInputs},
		{"graph", graphPurpose, graphInputs},
		{"holds", holdsPurpose, holdsInputs},
	}
	cases := []struct {
		input  Inputs
		change func(t *testing.T, w *Workspace)
	}{
		{InBuild, func(t *testing.T, w *Workspace) { w.version += "+1" }},
		{InConfig, func(t *testing.T, w *Workspace) {
			write(t, w, ".zk/config.toml", base[".zk/config.toml"]+"# edited\n")
		}},
		// The config's confidence, as the command read it.
		{InJudging, func(t *testing.T, w *Workspace) { w.Config.Confidence = "90%" }},
		{InTemplates, func(t *testing.T, w *Workspace) {
			write(t, w, ".zk/templates/permanent.md", base[".zk/templates/permanent.md"]+"\n## Also\n")
		}},
		{InPropTypes, func(t *testing.T, w *Workspace) {
			write(t, w, ".obsidian/types.json", `{"types":{"rating":"number"}}`)
		}},
		{InToday, func(t *testing.T, w *Workspace) { w.Today = w.Today.AddDate(0, 0, 1) }},
		{InLedger, func(t *testing.T, w *Workspace) {
			write(t, w, ".zk/runs/ledger.jsonl", `{"id":"r1","note":"Notes/A.md","verdict":"refutes"}`+"\n")
		}},
		{InZone, func(t *testing.T, w *Workspace) { w.Zone = time.FixedZone("UTC+1", 3600) }},
		{InUntrusted, func(t *testing.T, w *Workspace) {
			write(t, w, ".zk/journal/x.foreign.json", "{}")
		}},
		// A refuting run's log, which decides whether a later run under
		// another criterion answers it, deleted: the folder of logs
		// changes, the ledger does not.
		{InRunLogs, func(t *testing.T, w *Workspace) {
			if err := os.Remove(filepath.Join(w.Vault.Dir, ".zk", "runs", "20261201T100000Z-0001.log")); err != nil {
				t.Fatal(err)
			}
		}},
		// The log rewritten in place to bytes of the same size, its mtime
		// set back (touch -r): its ctime moved.
		{InRunLogs, func(t *testing.T, w *Workspace) {
			p := filepath.Join(w.Vault.Dir, ".zk", "runs", "20261201T100000Z-0001.log")
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(p)
			if err != nil || len(b) == 0 {
				t.Fatalf("log %q, %v", b, err)
			}
			b[0] ^= 1
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
		}},
	}
	var covered Inputs
	for _, tc := range cases {
		covered |= tc.input
		w, _ := open(t, base, Reading)
		before := map[string]string{}
		for _, c := range caches {
			k, err := w.inputKey(c.purpose, c.set)
			if err != nil {
				t.Fatal(err)
			}
			before[c.name] = string(k[:])
		}
		tc.change(t, w)
		for _, c := range caches {
			k, err := w.inputKey(c.purpose, c.set)
			if err != nil {
				t.Fatal(err)
			}
			changed := string(k[:]) != before[c.name]
			if want := c.set&tc.input != 0; changed != want {
				t.Errorf("input %b changed: %s key changed %v, want %v", tc.input, c.name, changed, want)
			}
		}
	}
	if covered != allInputs {
		t.Errorf("inputs %b have no case here", allInputs&^covered)
	}
}

// The caches never share a key, even over the same inputs.
func TestCacheKeysAreApart(t *testing.T) {
	w, _ := open(t, map[string]string{".obsidian/app.json": "{}"}, Reading)
	a, _ := w.inputKey("zk check", listInputs)
	b, _ := w.inputKey("zk list records v1", listInputs)
	if a == b {
		t.Error("two purposes, one key")
	}
}
