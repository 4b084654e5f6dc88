package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMCPToolAnnotations(t *testing.T) {
	cs, _ := newMCPSession(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type hints struct{ readOnly, destructive, idempotent, openWorld bool }
	want := map[string]hints{
		"check": {readOnly: true}, "stale": {readOnly: true}, "search": {readOnly: true}, "links": {readOnly: true},
		"backlinks": {readOnly: true}, "read_note": {readOnly: true}, "runs": {readOnly: true}, "list": {readOnly: true},
		"properties": {readOnly: true},
		"tend":       {destructive: true, idempotent: true}, "set_property": {destructive: true, idempotent: true},
		"new": {}, "append_section": {},
		"move":          {destructive: true},
		"run_falsifier": {openWorld: true},
	}
	for _, tool := range res.Tools {
		a := tool.Annotations
		w, ok := want[tool.Name]
		if !ok {
			continue
		}
		delete(want, tool.Name)
		if a == nil {
			t.Errorf("%s: no annotations", tool.Name)
			continue
		}
		// The protocol's defaults for hints left out: destructive and open
		// world true, idempotent false.
		got := hints{readOnly: a.ReadOnlyHint, idempotent: a.IdempotentHint,
			destructive: a.DestructiveHint == nil || *a.DestructiveHint, openWorld: a.OpenWorldHint == nil || *a.OpenWorldHint}
		if w.readOnly {
			w.destructive = got.destructive // meaningless for a read-only tool
		}
		if got != w {
			t.Errorf("%s: hints %+v, want %+v", tool.Name, got, w)
		}
	}
	for name := range want {
		t.Errorf("tool %s not listed", name)
	}
}

func TestMCPProperties(t *testing.T) {
	cs, dir := newMCPSession(t)
	writeNote(t, dir, "Typed.md", "---\nstatus: draft\nrating: 3\n---\n# Typed\n")
	var out propertiesJSON
	callTool(t, cs, "properties", nil, &out, false)
	got := map[string]string{}
	for _, p := range out.Properties {
		got[p.Name] = string(p.Type)
	}
	if got["status"] != "text" || got["rating"] != "number" {
		t.Errorf("properties %+v", out.Properties)
	}
}

// writeNote writes a note into the test vault, old enough to be edited.
func writeNote(t *testing.T, dir, p, text string) {
	t.Helper()
	full := filepath.Join(dir, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute) // older than the moment a write waits for
	if err := os.Chtimes(full, old, old); err != nil {
		t.Fatal(err)
	}
}

func readNote(t *testing.T, dir, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A move is shown, then applied with the token of what was shown; a
// token of another plan applies nothing.
func TestMCPMoveDryRunThenApply(t *testing.T) {
	cs, dir := newMCPSession(t)
	var plan moveOutput
	callTool(t, cs, "move", map[string]any{"from": "Rates", "to": "Archive/Rates.md"}, &plan, false)
	if !plan.DryRun || plan.Confirm == "" || len(plan.Moved) != 1 || plan.Moved[0].To != "Archive/Rates.md" {
		t.Fatalf("dry run: %+v", plan)
	}
	if _, err := os.Stat(filepath.Join(dir, "Archive", "Rates.md")); err == nil {
		t.Fatal("the dry run moved the note")
	}
	if text := callTool(t, cs, "move", map[string]any{"from": "Rates", "to": "Elsewhere/Rates.md", "confirm": plan.Confirm}, nil, true); !strings.Contains(text, "no longer the one confirm names") {
		t.Errorf("another move with the token: %s", text)
	}
	var done moveOutput
	callTool(t, cs, "move", map[string]any{"from": "Rates", "to": "Archive/Rates.md", "confirm": plan.Confirm}, &done, false)
	if done.DryRun || done.Confirm != "" {
		t.Errorf("applied: %+v", done)
	}
	if !strings.Contains(readNote(t, dir, "Archive/Rates.md"), "# Rates") || !strings.Contains(readNote(t, dir, "Speedups.md"), "[[Rates]]") {
		t.Errorf("after the move: Speedups.md reads %q", readNote(t, dir, "Speedups.md"))
	}
	// A heading: the same two steps.
	callTool(t, cs, "move", map[string]any{"from": "Archive/Rates#Claim", "to": "#Claim held"}, &plan, false)
	callTool(t, cs, "move", map[string]any{"from": "Archive/Rates#Claim", "to": "#Claim held", "confirm": plan.Confirm}, &done, false)
	if !strings.Contains(readNote(t, dir, "Archive/Rates.md"), "## Claim held\n") {
		t.Errorf("heading not renamed: %q", readNote(t, dir, "Archive/Rates.md"))
	}
}

func TestMCPAppendSection(t *testing.T) {
	cs, dir := newMCPSession(t)
	var out editOutput
	callTool(t, cs, "append_section", map[string]any{"note": "Rates", "section": "evidence", "text": "- 2026-12-02: measured again"}, &out, false)
	if out.Path != "Rates.md" {
		t.Errorf("append: %+v", out)
	}
	if got := readNote(t, dir, "Rates.md"); !strings.Contains(got, "## Evidence\n\nSome text.\n\n- 2026-12-02: measured again\n\n## Maintenance") {
		t.Errorf("after append:\n%s", got)
	}
	if backups, _ := filepath.Glob(filepath.Join(dir, ".zk", "backups", "*")); len(backups) == 0 {
		t.Error("no backup of the previous version")
	}
	if text := callTool(t, cs, "append_section", map[string]any{"note": "Rates", "section": "Nope", "text": "x"}, nil, true); !strings.Contains(text, "no section \"Nope\"") || !strings.Contains(text, "Evidence") {
		t.Errorf("a missing section: %s", text)
	}
}

func TestMCPSetProperty(t *testing.T) {
	cs, dir := newMCPSession(t)
	var out editOutput
	callTool(t, cs, "set_property", map[string]any{"note": "Rates", "key": "status", "value": "draft"}, &out, false)
	callTool(t, cs, "set_property", map[string]any{"note": "Rates", "key": "rating", "value": 4}, &out, false)
	callTool(t, cs, "set_property", map[string]any{"note": "Rates", "key": "tags", "value": []string{"measure", "rate"}}, &out, false)
	if got := readNote(t, dir, "Rates.md"); !strings.HasPrefix(got, "---\nstatus: draft\nrating: 4\ntags:\n  - measure\n  - rate\n---\n# Rates\n") {
		t.Errorf("after set_property:\n%s", got)
	}
	// The same value again: nothing to write.
	callTool(t, cs, "set_property", map[string]any{"note": "Rates", "key": "rating", "value": 4}, &out, false)
	if !out.Unchanged {
		t.Errorf("the same value again: %+v", out)
	}
	for _, bad := range []map[string]any{
		{"note": "Rates", "key": "a: b", "value": "x"},
		{"note": "Rates", "key": "a", "value": map[string]any{"b": 1}},
		{"note": "Nope", "key": "a", "value": "x"},
	} {
		callTool(t, cs, "set_property", bad, nil, true)
	}
}
