package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zk-claims/zk/view"
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
		"properties": {readOnly: true}, "base": {readOnly: true}, "verdicts": {readOnly: true},
		"tend": {destructive: true, idempotent: true}, "set_property": {destructive: true, idempotent: true},
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
	var out view.Properties
	callTool(t, cs, "properties", nil, &out, false)
	got := map[string]string{}
	for _, p := range out.List {
		got[p.Name] = string(p.Type)
	}
	if got["status"] != "text" || got["rating"] != "number" {
		t.Errorf("properties %+v", out.List)
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

// A NUL appended near a note's top made it a file zk check skips and
// every later write refuses (tend said "binary file (NUL bytes)"): the
// append is refused, the note left as it was, and the note still tended.
func TestMCPAppendOfANULIsRefused(t *testing.T) {
	cs, dir := newMCPSession(t)
	before := readNote(t, dir, "Rates.md")
	if text := callTool(t, cs, "append_section", map[string]any{"note": "Rates", "section": "Claim", "text": "a\x00b"}, nil, true); !strings.Contains(text, "NUL") {
		t.Errorf("append of a NUL: %s", text)
	}
	if got := readNote(t, dir, "Rates.md"); got != before {
		t.Errorf("the note changed:\n%q", got)
	}
	callTool(t, cs, "tend", map[string]any{"note": "Rates", "date": "2026-12-01"}, nil, false)
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
	// An agent's error names JSON's values, not Go's types.
	text := callTool(t, cs, "set_property", map[string]any{"note": "Rates", "key": "tags", "value": []any{"a", nil}}, nil, true)
	if want := "set_property: value: item 2 of the list is null"; !strings.HasPrefix(text, want) || strings.Contains(text, "<nil>") {
		t.Errorf("a null in a list: %q, want it to start %q", text, want)
	}
}

// Every list-like result is a page: limit (default 100), offset, and
// where the next page starts.
func TestMCPPaging(t *testing.T) {
	cs, dir := newMCPSession(t)
	for i := range 5 {
		writeNote(t, dir, fmt.Sprintf("Broken %d.md", i), fmt.Sprintf("# Broken %d\n\n[[Nowhere %d]] [[Speedups]]\n", i, i))
	}
	var c checkPage
	callTool(t, cs, "check", map[string]any{"limit": 2}, &c, false)
	if len(c.Findings) != 2 || c.NextOffset != 2 || c.Items < 6 {
		t.Fatalf("check, limit 2: %d findings, next %d, of %d", len(c.Findings), c.NextOffset, c.Items)
	}
	all := c.Items
	seen := len(c.Findings)
	for pages := 0; c.NextOffset != 0 && pages < all; pages++ {
		next := c.NextOffset
		c = checkPage{} // a last page has no next_offset to decode
		callTool(t, cs, "check", map[string]any{"limit": 2, "offset": next}, &c, false)
		seen += len(c.Findings)
	}
	if seen != all {
		t.Errorf("the pages held %d findings of %d", seen, all)
	}
	var l listPage
	callTool(t, cs, "list", map[string]any{"limit": 3, "offset": 2}, &l, false)
	if len(l.Notes) != 3 || l.Items != 7 || l.NextOffset != 5 {
		t.Errorf("list, 3 from 2: %d notes, next %d, of %d", len(l.Notes), l.NextOffset, l.Items)
	}
	var b backlinksPage
	callTool(t, cs, "backlinks", map[string]any{"note": "Speedups", "limit": 4}, &b, false)
	if len(b.Edges) != 4 || b.Items != 6 || b.NextOffset != 4 {
		t.Errorf("backlinks, limit 4: %d, next %d, of %d", len(b.Edges), b.NextOffset, b.Items)
	}
	b = backlinksPage{}
	callTool(t, cs, "backlinks", map[string]any{"note": "Speedups", "offset": 4}, &b, false)
	if len(b.Edges) != 2 || b.NextOffset != 0 {
		t.Errorf("backlinks from 4: %d, next %d", len(b.Edges), b.NextOffset)
	}
	if text := callTool(t, cs, "links", map[string]any{"note": "Speedups", "limit": -1}, nil, true); !strings.Contains(text, "limit and offset are counts") {
		t.Errorf("a negative limit: %s", text)
	}
}

// resources/list is paged by a cursor: 6,500 notes at once were 1.7 MB.
func TestMCPResourcesPaged(t *testing.T) {
	cs, _ := newMCPSessionWith(t, func(dir string) {
		for i := range resourcePage + 10 {
			writeNote(t, dir, fmt.Sprintf("Many/Note %03d.md", i), "# N\n")
		}
	})
	res, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != resourcePage || res.NextCursor == "" {
		t.Fatalf("first page: %d resources, cursor %q", len(res.Resources), res.NextCursor)
	}
	next, err := cs.ListResources(context.Background(), &sdk.ListResourcesParams{Cursor: res.NextCursor})
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Resources) != len(mcpVault)-1+10 || next.NextCursor != "" { // the notes of mcpVault, .obsidian/app.json aside
		t.Errorf("second page: %d resources, cursor %q", len(next.Resources), next.NextCursor)
	}
}

// A search that builds the index tells a client that asked how far the
// build is.
func TestMCPSearchProgress(t *testing.T) {
	var mu sync.Mutex
	var got []*sdk.ProgressNotificationParams
	cs, _ := newMCPSessionWith(t, nil, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		got = append(got, r.Params)
		mu.Unlock()
	}})
	params := &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": "baseline"}}
	params.SetProgressToken("build-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("search: %v %+v", err, res)
	}
	// Notifications travel apart from the answer: wait for the last.
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		done := n > 0 && got[n-1].Progress == got[n-1].Total
		mu.Unlock()
		if done || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 {
		t.Fatal("no progress notification while the index was built")
	}
	last := got[len(got)-1]
	if last.ProgressToken != "build-1" || last.Total != 2 || last.Progress != 2 || last.Message == "" {
		t.Errorf("last progress %+v, want 2 of 2 notes, token build-1", last)
	}
	// Without a token, none.
	n := len(got)
	mu.Unlock()
	callTool(t, cs, "search", map[string]any{"query": "rate"}, nil, false)
	mu.Lock()
	if len(got) != n {
		t.Errorf("progress sent to a call that asked for none")
	}
}

func TestMCPBase(t *testing.T) {
	cs, dir := newMCPSession(t)
	writeNote(t, dir, "Books.base", "views:\n  - type: table\n    name: Rated\n    filters: 'rating > 0'\n    order: [file.name, rating]\n    sort:\n      - property: rating\n        direction: DESC\n")
	for i := range 3 {
		writeNote(t, dir, fmt.Sprintf("Book %d.md", i), fmt.Sprintf("---\nrating: %d\n---\n# Book %d\n", i+1, i))
	}
	var out basePage
	callTool(t, cs, "base", map[string]any{"base": "Books.base", "limit": 2}, &out, false)
	var got []string
	for _, g := range out.Groups {
		for _, r := range g.Rows {
			got = append(got, r.Path)
		}
	}
	if out.View != "Rated" || out.Total != 3 || out.Items != 3 || out.NextOffset != 2 || strings.Join(got, ",") != "Book 2.md,Book 1.md" {
		t.Errorf("base, limit 2: view %q total %d items %d next %d rows %v", out.View, out.Total, out.Items, out.NextOffset, got)
	}
	out = basePage{}
	callTool(t, cs, "base", map[string]any{"base": "Books", "offset": 2}, &out, false)
	if len(out.Groups) != 1 || len(out.Groups[0].Rows) != 1 || out.Groups[0].Rows[0].Path != "Book 0.md" || out.NextOffset != 0 {
		t.Errorf("base from 2: %+v", out.Groups)
	}
	if text := callTool(t, cs, "base", map[string]any{"base": "Books", "view": "Nope"}, nil, true); !strings.Contains(text, "Nope") {
		t.Errorf("an unknown view: %s", text)
	}
	// A view of no row is, as zk base --format json has it, one unnamed
	// group of no rows (where its summaries would be): it was no group.
	writeNote(t, dir, "None.base", "views:\n  - type: table\n    name: None\n    filters: 'rating > 100'\n")
	out = basePage{}
	callTool(t, cs, "base", map[string]any{"base": "None"}, &out, false)
	if len(out.Groups) != 1 || out.Groups[0].Key != nil || out.Groups[0].Rows == nil || len(out.Groups[0].Rows) != 0 || out.Total != 0 {
		t.Errorf("base None: groups %+v total %d, want one unnamed group of no rows", out.Groups, out.Total)
	}
	// Its warnings are zk base --format json's, which the result's base
	// names the file of: they were each prefixed with the base's path.
	writeNote(t, dir, "Map.base", "views:\n  - type: map\n    name: M\nbogus: 1\n")
	out = basePage{}
	callTool(t, cs, "base", map[string]any{"base": "Map"}, &out, false)
	if want := []string{`line 4: unknown key "bogus" ignored`, `view type "map" is shown as a table`}; out.Where != "Map.base" || !slices.Equal(out.Warnings, want) {
		t.Errorf("base Map: base %q, warnings %q, want Map.base, %q", out.Where, out.Warnings, want)
	}
}

// The base tool reads the vault's .base files and no other: a path out of
// the vault, absolute or through .., gets one answer whether a file is
// there or not, and what a file there holds is never read (the command
// line's zk base reads a .base file anywhere, its user's own).
func TestMCPBaseStaysInTheVault(t *testing.T) {
	cs, dir := newMCPSession(t)
	outside := filepath.Join(filepath.Dir(dir), "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "Secret.base")
	if err := os.WriteFile(secret, []byte("views:\n  - type: table\n    name: SecretView\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeNote(t, dir, "Views/Books.base", "views:\n  - type: table\n    name: Rated\n")
	rel, err := filepath.Rel(dir, secret)
	if err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{secret, filepath.Join(outside, "Missing.base"), filepath.ToSlash(rel), "../outside/Missing.base"} {
		text := callTool(t, cs, "base", map[string]any{"base": arg}, nil, true)
		if want := arg + ": path is outside the vault"; text != want {
			t.Errorf("base %s: %q, want %q", arg, text, want)
		}
	}
	// A .base file of the vault, by its path or its name; one it has not
	// is said so in the tool's terms, not as a failed open.
	for _, arg := range []string{"Views/Books.base", "Books.base", "Books"} {
		var out basePage
		callTool(t, cs, "base", map[string]any{"base": arg}, &out, false)
		if out.View != "Rated" {
			t.Errorf("base %s: view %q, want Rated", arg, out.View)
		}
	}
	if text := callTool(t, cs, "base", map[string]any{"base": "Nope.base"}, nil, true); !strings.Contains(text, `"Nope.base": no .base file of that path or name in`) {
		t.Errorf("base Nope.base: %s", text)
	}
}

// The tools that read every note (check, base, list, stale, properties,
// move's plan) tell a client that gave a progress token how many they have read; a
// search told only of an index build, and a base on a large vault was
// silent.
func TestMCPReadingProgress(t *testing.T) {
	notes := 0
	for p := range mcpVault {
		if strings.HasSuffix(p, ".md") {
			notes++
		}
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"check", map[string]any{}},
		{"base", map[string]any{"base": "All.base"}},
		{"list", map[string]any{}},
		{"stale", map[string]any{}},
		{"properties", map[string]any{}},
		{"move", map[string]any{"from": "Rates", "to": "Inbox/"}}, // a dry run reads every note for its links
	} {
		// Each on a vault of its own: a cached answer reads no notes.
		var mu sync.Mutex
		got := map[string][]*sdk.ProgressNotificationParams{}
		cs, dir := newMCPSessionWith(t, nil, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			tok, _ := r.Params.ProgressToken.(string)
			got[tok] = append(got[tok], r.Params)
			mu.Unlock()
		}})
		writeNote(t, dir, "All.base", "views:\n  - type: table\n    name: All\n")
		params := &sdk.CallToolParams{Name: tc.tool, Arguments: tc.args}
		params.SetProgressToken(tc.tool)
		res, err := cs.CallTool(context.Background(), params)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tc.tool, err, res)
		}
		// Notifications travel apart from the answer: wait for the last.
		var ps []*sdk.ProgressNotificationParams
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			ps = append([]*sdk.ProgressNotificationParams(nil), got[tc.tool]...)
			mu.Unlock()
			if n := len(ps); n > 0 && ps[n-1].Progress == ps[n-1].Total || time.Now().After(deadline) {
				break
			}
		}
		if len(ps) == 0 {
			t.Errorf("%s: no progress notification", tc.tool)
			continue
		}
		for i := 1; i < len(ps); i++ {
			if ps[i].Progress <= ps[i-1].Progress {
				t.Errorf("%s: progress %v after %v: each must be above the last", tc.tool, ps[i].Progress, ps[i-1].Progress)
			}
		}
		if last := ps[len(ps)-1]; last.Progress != last.Total || last.Total < float64(notes) || last.Message == "" {
			t.Errorf("%s: last progress %+v, want all of at least %d notes read", tc.tool, last, notes)
		}
	}
}

// The notes listed as resources follow the vault: a note the new tool
// creates is listed, a note the move tool moves is listed at its new URI
// and no more at its old, and the client is told each time that the list
// changed (the listChanged capability the server advertises); a note
// written outside zk is listed at the client's next listing.
func TestMCPResourcesFollowTheVault(t *testing.T) {
	changed := make(chan struct{}, 10)
	cs, dir := newMCPSessionWith(t, nil, &sdk.ClientOptions{ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
		changed <- struct{}{}
	}})
	ctx := context.Background()
	if !cs.InitializeResult().Capabilities.Resources.ListChanged {
		t.Fatal("the server does not advertise resources.listChanged")
	}
	listed := func() map[string]bool {
		t.Helper()
		out := map[string]bool{}
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			out[r.URI] = true
		}
		return out
	}
	// Told, not only listed anew when asked.
	waitChanged := func(after string) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(30 * time.Second):
			t.Fatalf("after %s, no notifications/resources/list_changed", after)
		}
	}
	if got := listed(); len(got) != 2 {
		t.Fatalf("resources = %v, want the two notes", got)
	}
	time.Sleep(50 * time.Millisecond) // the SDK sends its notification 10 ms after a change
	if len(changed) > 0 {
		t.Error("the first listing, of the notes listed at start, was told as a change")
	}

	var made newOutput
	callTool(t, cs, "new", map[string]any{"title": "Fresh"}, &made, false)
	waitChanged("new")
	if got := listed(); !got[noteURI(made.Path)] || len(got) != 3 {
		t.Errorf("after new %s: resources = %v", made.Path, got)
	}

	var plan moveOutput
	callTool(t, cs, "move", map[string]any{"from": "Speedups.md", "to": "Moved/Speedups.md"}, &plan, false)
	callTool(t, cs, "move", map[string]any{"from": "Speedups.md", "to": "Moved/Speedups.md", "confirm": plan.Confirm}, nil, false)
	waitChanged("move")
	got := listed()
	if got["zk://note/Speedups.md"] || !got["zk://note/Moved/Speedups.md"] {
		t.Errorf("after move: resources = %v, want Moved/Speedups.md and not Speedups.md", got)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "zk://note/Moved/Speedups.md"}); err != nil {
		t.Errorf("read the moved note: %v", err)
	}

	writeNote(t, dir, "Outside.md", "# Outside\n")
	if got := listed(); !got["zk://note/Outside.md"] {
		t.Errorf("a note written outside zk: resources = %v", got)
	}
}

// A vault zk cannot open (its .zk/config.toml does not parse) still gets
// a server that answers initialize: each tool, and the resources' list,
// says what is wrong, where the server exited before the client's
// initialize and the client saw a dead server.
func TestMCPMalformedConfigAnswered(t *testing.T) {
	cs, _ := newMCPSessionWith(t, func(dir string) {
		writeNote(t, dir, ".zk/config.toml", "[claims\n")
	})
	if text := callTool(t, cs, "check", nil, nil, true); !strings.Contains(text, "config.toml") {
		t.Errorf("check on a malformed config: %q, want it to name config.toml", text)
	}
	_, err := cs.ListResources(context.Background(), nil)
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != jsonrpc.CodeInternalError || !strings.Contains(e.Message, "config.toml") {
		t.Errorf("resources/list on a malformed config: %v, want an internal error naming config.toml", err)
	}
}
