package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zk-claims/zk/internal/printable"
)

// hostileText is what a vault from someone else can put in a name, a
// heading, a value or a file a falsifier prints: an OSC 52 clipboard
// write, a title set, a colour, a C1 CSI (as UTF-8), a bidi override, a
// hyperlink, and a BEL.
const hostileText = "\x1b]52;c;aGk=\a\x1b[31mRED\x1b]0;TITLE\a\u009b2J\u202eRTL\x1b]8;;http:x\x1b\\lnk"

// yamlHostile is hostileText as a YAML double-quoted string's escapes:
// YAML refuses the raw controls, not their escapes.
var yamlHostile = strings.NewReplacer("\x1b", `\e`, "\a", `\a`, "\u009b", `\x9b`, "\u202e", `\u202e`, `\`, `\\`).Replace(hostileText)

// writeHostileVault writes a vault whose file names, headings,
// frontmatter keys and values, tags, links, falsifiers, criteria, .base
// file, config and types.json hold hostileText, and a file evil.txt for a
// falsifier to print (raw C1 bytes, invalid UTF-8, NUL and CRs too).
func writeHostileVault(t *testing.T) (dir, note, base string) {
	t.Helper()
	dir = t.TempDir()
	E, Y := hostileText, yamlHostile
	name := "Ctl" + E + "name"
	note = filepath.Join("Permanent Notes", name+".md")
	base = "views" + E + ".base"
	files := map[string]string{
		".obsidian/app.json": "{}",
		note: "---\ntype: permanent\ntags: [\"t" + Y + "\"]\naliases: [\"al" + Y + "\"]\n\"prop" + Y + "\": \"val" + Y + "\"\n---\n" +
			"# Claim " + E + "\n\n## Claim\n\nThe claim " + E + " holds. [[Missing" + E + "]] [[" + name + "#Head" + E + "]] [l" + E + "](nope" + E + ".md) #tag" + E + "x\n\n" +
			"## Scope\n\nscope " + E + "\n\n## Evidence\n\n## Tests / falsifiers\n\n- If " + E + " happens, wrong.\n  - run: `cat evil" + E + ".txt`\n  - refuted if: `rate" + E + " < 100`\n" +
			"- If cat shows it, wrong.\n  - run: `cat evil.txt`\n- If " + E + " shows, wrong.\n  - run: `cat evil.txt`\n\n## Links\n\n- [[Other]] — supports" + E + ": because " + E + "\n\n## Maintenance\n\n- Last tended: 2020-01-01\n",
		"Permanent Notes/Other.md":   "---\ntype: permanent\n---\n# Other\n\nSee [[" + name + "]] " + E + ".\n\n## Maintenance\n\n- Last tended: 2020-01-0" + E + "\n",
		"evil.txt":                   E + "\x9b" + "X\x00\xff\n\rhidden\rshown\r\n",
		"rawc1.md":                   "# raw \x9b2J c1 " + E + "\n\nbody [[" + E + "]]\n",
		".zk/config.toml":            "[claims]\nindex-dir = \"idx\\u001b[31m\"\n[claims.rules]\n\"bogus\\u001b]0;T\\u0007\\u009b\\u202e\" = \"error\"\n",
		".zk/templates/permanent.md": "# {{title}} " + E + "\n\n## Claim" + E + "\n\n{{nope" + E + "}}\n",
		base: "filters:\n  and:\n    - file.name.contains(\"Ctl\")\nformulas:\n  \"f" + Y + "\": '\"" + Y + "\" + file.name'\nviews:\n  - type: table\n    name: \"v" + Y + "\"\n" +
			"    order: [file.name, \"formula.f" + Y + "\", \"prop" + Y + "\"]\n",
		"bad.base":             "views:\n  - type: table\n    filters: \"nope" + Y + "(\"\n",
		".obsidian/types.json": `{"types": {"prop\u001b]0;T\u0007\u009b\u202e": "number\u001b[31m"}}`,
	}
	for p, s := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, note, base
}

// rawControls names what in b a terminal would act on (a control but a
// line break, tab or carriage return, a C1 control, a bidi control) or
// cannot read (invalid UTF-8), or is "".
func rawControls(b []byte) string {
	var found []string
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			found = append(found, "invalid byte "+printable.Of(string(b[i:i+1])))
		case r != '\n' && r != '\t' && r != '\r' && printable.Unsafe(r):
			found = append(found, printable.Of(string(r)))
		}
		i += size
	}
	if len(found) > 8 {
		found = append(found[:8], "…")
	}
	return strings.Join(found, " ")
}

// TestNoRawControlsOnTheTerminal runs every command that reads a vault
// over one whose every part holds escape sequences, C1 controls and bidi
// overrides, as on a terminal (stdout and stderr terminals, no colour of
// zk's own), and fails on a raw control byte in what it prints: a vault
// cannot write the clipboard, set the title, move the cursor or reorder a
// line through zk. zk run's live output was the one that did (a
// falsifier cat-ing a vault file).
func TestNoRawControlsOnTheTerminal(t *testing.T) {
	dir, note, base := writeHostileVault(t)
	t.Setenv("ZK_TODAY", "2026-12-02")
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	for _, args := range [][]string{
		{"check"}, {"check", "--format", "github"}, {"check", "--format", "sarif"}, {"check", note},
		{"stale"}, {"stale", "--format", "markdown"}, {"list"}, {"list", "--format", "csv"}, {"list", "--format", "tsv"},
		{"properties"}, {"properties", "--format", "json"}, {"graph"}, {"graph", "--format", "dot"},
		{"backlinks", note}, {"backlinks", "Permanent Notes/Other.md"}, {"links", note}, {"links", "rawc1.md"},
		{"parse", note}, {"base", base}, {"base", "bad.base"}, {"search", "claim"}, {"search", "hidden"},
		{"mv", "--dry-run", note, "Renamed.md"}, {"trust", note}, {"runs"}, {"runs", note},
		{"run", "--dry-run", note, "--falsifier", "3", "--", "cat", "evil" + hostileText + ".txt"},
		{"run", note, "--falsifier", "2", "--", "cat", "evil.txt"},
		{"run", note, "--falsifier", "2", "--", "sh", "-c", "cat evil.txt >&2"},
		{"runs", note}, {"runs"}, {"check"}, {"tend", note}, {"new", "Fresh one"},
	} {
		var out, errs bytes.Buffer
		s := &streams{in: strings.NewReader(""), out: &out, err: &errs, outTTY: true, errTTY: true}
		run(context.Background(), append([]string{"--no-color", "--vault", dir}, args...), s)
		for what, b := range map[string][]byte{"stdout": out.Bytes(), "stderr": errs.Bytes()} {
			if raw := rawControls(b); raw != "" {
				t.Errorf("zk %s: raw on the terminal's %s: %s\n%s", printable.Of(strings.Join(args, " ")), what, raw, printable.Lines(string(b)))
			}
		}
	}
	// The log keeps the command's output byte for byte.
	logs, _ := filepath.Glob(filepath.Join(dir, ".zk", "runs", "*.log"))
	found := false
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err == nil && bytes.Contains(b, []byte(hostileText+"\x9bX\x00\xff\n\rhidden\rshown\r\n")) {
			found = true
		}
	}
	if !found {
		t.Errorf("no run log holds evil.txt's bytes as they are (%d logs)", len(logs))
	}
}
