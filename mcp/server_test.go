package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/view"
	"github.com/zk-claims/zk/workspace"
)

// mcpVault is a small vault for the MCP tools: two notes linking each
// other, one falsifier with a command written under it.
var mcpVault = map[string]string{
	".obsidian/app.json": "{}",
	"Rates.md": `# Rates

## Claim

A rate without its denominator misleads.

## Links

- [[Speedups]] — extends: a baseline is a denominator.

## Tests / falsifiers

- If the command does not print ok, the claim is wrong.
  - run: ` + "`sh -c 'echo ok'`" + `

## Evidence

Some text.

## Maintenance

- Last tended: 2026-01-01
`,
	"Speedups.md": `# Speedups

## Claim

A speedup without its baseline cannot be checked. See [[Rates]] and [[Missing note]].

## Maintenance

- Last tended: 2026-11-30
`,
}

// newMCPSession starts zk's MCP server on a copy of mcpVault over the
// SDK's in-memory transport and returns a connected client session and
// the vault's folder. Approvals go to a config folder of the test's own.
func newMCPSession(t *testing.T) (*sdk.ClientSession, string) {
	t.Helper()
	return newMCPSessionWith(t, nil, nil)
}

// newMCPSessionWith is newMCPSession with more files, written by add
// before the server starts, and the client's options.
func newMCPSessionWith(t *testing.T, add func(dir string), copts ...*sdk.ClientOptions) (*sdk.ClientSession, string) {
	t.Helper()
	dir := writeMCPVault(t)
	if add != nil {
		add(dir)
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, ".config-home"))
	t.Setenv("HOME", filepath.Join(dir, ".home"))
	ctx := context.Background()
	srv := New(ctx, testOptions(dir))
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	var copt *sdk.ClientOptions
	if len(copts) > 0 {
		copt = copts[0]
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test"}, copt)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, dir
}

// writeMCPVault writes mcpVault into a new folder, its files older than
// the one second a write waits for, and returns the folder.
func writeMCPVault(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	old := time.Now().Add(-time.Minute)
	for p, text := range mcpVault {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(full, old, old); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testOptions are the server's options on the vault in dir, today
// pinned.
func testOptions(dir string) Options {
	return Options{Dir: dir, Today: func() (time.Time, error) { return workspace.ParseDay("2026-12-02") }, Pinned: true, Version: "test"}
}

// callTool calls a tool and decodes its structured result into out; it
// fails the test on a tool error unless wantErr, and returns the error's
// text.
func callTool(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, out any, wantErr bool) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError != wantErr {
		t.Fatalf("%s: IsError = %v, want %v: %s", name, res.IsError, wantErr, text.String())
	}
	if !wantErr && out != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v in %s", name, err, b)
		}
	}
	return text.String()
}

func TestMCPListsEveryTool(t *testing.T) {
	cs, _ := newMCPSession(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, tool := range res.Tools {
		got[tool.Name] = true
		if tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s: input schema %v, output schema %v: want both typed", tool.Name, tool.InputSchema != nil, tool.OutputSchema != nil)
		}
	}
	for _, want := range []string{"check", "stale", "search", "links", "backlinks", "read_note", "tend", "new", "runs", "run_falsifier", "rejudge", "list", "verdicts"} {
		if !got[want] {
			t.Errorf("tool %s not listed", want)
		}
	}
	if got["trust"] {
		t.Error("a trust tool is listed: an agent must never approve a command")
	}
}

func TestMCPCheck(t *testing.T) {
	cs, _ := newMCPSession(t)
	var out view.Check
	callTool(t, cs, "check", nil, &out, false)
	if out.Summary.Notes != 2 {
		t.Errorf("notes checked = %d, want 2", out.Summary.Notes)
	}
	broken := false
	for _, f := range out.Findings {
		if f.Path == "Speedups.md" && f.Rule == "links/broken" {
			broken = true
		}
	}
	if !broken {
		t.Errorf("no links/broken finding for [[Missing note]] in %+v", out.Findings)
	}
	// One note only.
	callTool(t, cs, "check", map[string]any{"paths": []string{"Rates"}}, &out, false)
	if out.Summary.Notes != 1 {
		t.Errorf("check Rates: notes checked = %d, want 1", out.Summary.Notes)
	}
	for _, f := range out.Findings {
		if f.Path != "Rates.md" {
			t.Errorf("check Rates reported %s", f.Path)
		}
	}
}

func TestMCPStale(t *testing.T) {
	cs, _ := newMCPSession(t)
	var out view.Stale
	callTool(t, cs, "stale", nil, &out, false)
	if out.Today != "2026-12-02" || len(out.Notes) != 1 || out.Notes[0].Path != "Rates.md" || out.Notes[0].LastTended != "2026-01-01" {
		t.Errorf("stale = %+v, want only Rates.md, last tended 2026-01-01", out)
	}
	callTool(t, cs, "stale", map[string]any{"within": "bad"}, nil, true)
}

func TestMCPSearch(t *testing.T) {
	cs, _ := newMCPSession(t)
	var out view.Search
	callTool(t, cs, "search", map[string]any{"query": "claim:baseline"}, &out, false)
	if out.Total != 1 || len(out.Hits) != 1 || out.Hits[0].Path != "Speedups.md" {
		t.Errorf("search claim:baseline = %+v, want Speedups.md", out)
	}
	if text := callTool(t, cs, "search", map[string]any{"query": "nofield:word"}, nil, true); !strings.Contains(text, "search") {
		t.Errorf("a bad query's error says %q", text)
	}
	// bleve parses it, and it answered no hits and no reason.
	if text := callTool(t, cs, "search", map[string]any{"query": "claim:("}, nil, true); !strings.Contains(text, "no parentheses") {
		t.Errorf("search claim:( says %q, want the reason", text)
	}
	// JSON carries a NUL, which no argument can: "path:\x00" answered
	// no hits and no reason.
	if text := callTool(t, cs, "search", map[string]any{"query": "path:\x00"}, nil, true); !strings.Contains(text, "control character (U+0000 at byte 5)") {
		t.Errorf("search path:NUL says %q, want the reason", text)
	}
	callTool(t, cs, "search", map[string]any{}, nil, true) // query is required
}

func TestMCPLinksAndBacklinks(t *testing.T) {
	cs, _ := newMCPSession(t)
	var links linksPage
	callTool(t, cs, "links", map[string]any{"note": "Rates"}, &links, false)
	if links.Note != "Rates.md" || len(links.Edges) != 1 || links.Edges[0].To != "Speedups.md" || links.Edges[0].Relation != "extends" {
		t.Errorf("links Rates = %+v", links)
	}
	var back backlinksPage
	callTool(t, cs, "backlinks", map[string]any{"note": "Rates.md"}, &back, false)
	if back.Note != "Rates.md" || len(back.Edges) != 1 || back.Edges[0].From != "Speedups.md" {
		t.Errorf("backlinks Rates = %+v", back)
	}
	if text := callTool(t, cs, "links", map[string]any{"note": "Nowhere"}, nil, true); !strings.Contains(text, "no such note") {
		t.Errorf("links of a missing note says %q", text)
	}
}

func TestMCPReadNote(t *testing.T) {
	cs, _ := newMCPSession(t)
	var out readNoteOutput
	callTool(t, cs, "read_note", map[string]any{"note": "Rates"}, &out, false)
	if out.Path != "Rates.md" || out.Text != mcpVault["Rates.md"] {
		t.Errorf("read_note Rates = %q, want the note's bytes", out.Text)
	}
	callTool(t, cs, "read_note", map[string]any{"note": "Rates", "section": "claim"}, &out, false)
	if out.Section != "Claim" || out.Text != "## Claim\n\nA rate without its denominator misleads.\n\n" {
		t.Errorf("read_note Rates#claim = %q", out.Text)
	}
	if text := callTool(t, cs, "read_note", map[string]any{"note": "Rates", "section": "Nope"}, nil, true); !strings.Contains(text, "Tests / falsifiers") {
		t.Errorf("a missing section's error lists no headings: %q", text)
	}
}

func TestMCPTend(t *testing.T) {
	cs, dir := newMCPSession(t)
	var out tendOutput
	callTool(t, cs, "tend", map[string]any{"note": "Rates"}, &out, false)
	if out.Path != "Rates.md" || out.Date != "2026-12-02" || out.Was != "2026-01-01" || out.Unchanged {
		t.Errorf("tend = %+v", out)
	}
	got, err := os.ReadFile(filepath.Join(dir, "Rates.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(mcpVault["Rates.md"], "2026-01-01", "2026-12-02", 1); string(got) != want {
		t.Errorf("after tend the note is\n%s\nwant only the date changed", got)
	}
	callTool(t, cs, "tend", map[string]any{"note": "Rates", "date": "12/02/2026"}, nil, true)
}

// TestMCPNew: the new tool writes where zk new does, into the folder the
// type's notes live in (workspace's NewNoteFolder), and never overwrites.
func TestMCPNew(t *testing.T) {
	cs, dir := newMCPSession(t)
	home := filepath.Join(dir, "3. Resources", "Permanent Notes")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "Old.md"), []byte("# Old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out newOutput
	callTool(t, cs, "new", map[string]any{"title": "Tails Hide in Means"}, &out, false)
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(out.Path))); err != nil || out.Path != "3. Resources/Permanent Notes/Tails Hide in Means.md" {
		t.Errorf("new: path %q: %v", out.Path, err)
	}
	if text := callTool(t, cs, "new", map[string]any{"title": "Tails Hide in Means"}, nil, true); !strings.Contains(text, "exists") {
		t.Errorf("a second new of the same title says %q, want it refused", text)
	}
	// A control character in a title is refused, no note written: a NUL
	// made a note no zk command reads (a binary file), a line break wrote
	// the rest of the title into the note's text.
	for title, want := range map[string]string{"Nul\x00Note": "U+0000", "Two\nLines": "U+000A", "Esc\x1b[2J": "U+001B"} {
		if text := callTool(t, cs, "new", map[string]any{"title": title}, nil, true); !strings.Contains(text, "the title holds the control character "+want) {
			t.Errorf("new %q: %q, want the control character %s refused", title, text, want)
		}
	}
	if got, _ := os.ReadDir(home); len(got) != 2 {
		t.Errorf("notes in %s after the refusals: %d, want 2", home, len(got))
	}
}

func TestMCPRunFalsifierNeedsApproval(t *testing.T) {
	cs, dir := newMCPSession(t)
	text := callTool(t, cs, "run_falsifier", map[string]any{"note": "Rates"}, nil, true)
	for _, want := range []string{"not approved", "zk trust", "an agent cannot approve"} {
		if !strings.Contains(text, want) {
			t.Errorf("refusal %q does not say %q", text, want)
		}
	}
	var runs view.NoteRuns
	callTool(t, cs, "runs", map[string]any{"note": "Rates"}, &runs, false)
	if len(runs.Runs) != 0 {
		t.Fatalf("an unapproved command was recorded: %+v", runs.Runs)
	}

	// The user approves it, as zk trust would.
	approve(t, dir, "Rates.md", "echo ok")
	var out runFalsifierOutput
	// Its number, as an integer: the schema says "its number", and an
	// agent sends 1.
	callTool(t, cs, "run_falsifier", map[string]any{"note": "Rates", "falsifier": 1}, &out, false)
	if out.Run.Verdict != "none" || out.Run.Exit == nil || *out.Run.Exit != 0 || out.Output != "ok\n" {
		t.Errorf("run_falsifier = %+v", out)
	}
	// The note run, by its vault path as rejudge and runs give it, not
	// the name the agent wrote.
	if out.Note != "Rates.md" {
		t.Errorf("run_falsifier's note = %q, want Rates.md", out.Note)
	}
	callTool(t, cs, "runs", map[string]any{"note": "Rates"}, &runs, false)
	if len(runs.Runs) != 1 || runs.Runs[0].ID != out.Run.ID {
		t.Errorf("runs after the run = %+v, want the run %s", runs.Runs, out.Run.ID)
	}
}

// A run that timed out says so: an agent that gave timeout_s read exit
// null and verdict none, as of a run that ended and was judged nothing.
func TestMCPRunFalsifierTimedOut(t *testing.T) {
	cs, dir := newMCPSession(t)
	note := strings.Replace(mcpVault["Rates.md"], "sh -c 'echo ok'", "sh -c 'sleep 30'", 1)
	writeNote(t, dir, "Rates.md", note)
	approve(t, dir, "Rates.md", "sleep 30")
	var out runFalsifierOutput
	callTool(t, cs, "run_falsifier", map[string]any{"note": "Rates", "timeout_s": 0.2}, &out, false)
	if out.Run.Exit != nil || out.Run.Status != "timed out after 200ms" {
		t.Errorf("run_falsifier, timed out: exit %v, status %q; want no exit and \"timed out after 200ms\"", out.Run.Exit, out.Run.Status)
	}
	var runs view.NoteRuns
	callTool(t, cs, "runs", map[string]any{"note": "Rates"}, &runs, false)
	if len(runs.Runs) != 1 || runs.Runs[0].Status != out.Run.Status {
		t.Errorf("runs = %+v, want the run, its status %q", runs.Runs, out.Run.Status)
	}
}

// approve approves the falsifier command sh -c SCRIPT of the note at
// p, as the user's zk trust would.
func approve(t *testing.T, dir, p, script string) {
	t.Helper()
	store, a, err := workspace.ApprovalOf(mustOpenVault(t, dir), p, "sh -c '"+script+"'", []string{"sh", "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	a.Approved = time.Now()
	if err := store.Approve(a); err != nil {
		t.Fatal(err)
	}
}

func TestMCPNoteResources(t *testing.T) {
	cs, _ := newMCPSession(t)
	ctx := context.Background()
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	uris := map[string]bool{}
	for _, r := range list.Resources {
		uris[r.URI] = true
	}
	if !uris["zk://note/Rates.md"] || !uris["zk://note/Speedups.md"] || len(uris) != 2 {
		t.Errorf("resources = %v, want the two notes", uris)
	}
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "zk://note/Rates.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].Text != mcpVault["Rates.md"] {
		t.Errorf("read zk://note/Rates.md = %+v", res.Contents)
	}
	for _, bad := range []string{"zk://note/..%2F..%2Fetc%2Fpasswd", "zk://note/Nope.md", "zk://note/.obsidian/app.json"} {
		if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: bad}); err == nil {
			t.Errorf("read %s: no error", bad)
		}
	}
}

func mustOpenVault(t *testing.T, dir string) *vault.Vault {
	t.Helper()
	today, _ := workspace.ParseDay("2026-12-02")
	w, err := workspace.Open(context.Background(), workspace.Options{Dir: dir, Access: workspace.Reading, Today: today, Pinned: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w.Vault
}

func TestMCPList(t *testing.T) {
	cs, _ := newMCPSession(t)
	var out view.List
	callTool(t, cs, "list", map[string]any{"links_to": "Rates", "fields": []string{"file.tended"}}, &out, false)
	if len(out.Notes) != 1 || out.Notes[0].Path != "Speedups.md" || out.Notes[0].Fields["file.tended"] != "2026-11-30" || out.Read != 2 {
		t.Errorf("list links_to Rates = %+v, want Speedups.md, tended 2026-11-30, 2 read", out)
	}
	callTool(t, cs, "list", map[string]any{"stale": true, "sort": "name"}, &out, false)
	if len(out.Notes) != 1 || out.Notes[0].Path != "Rates.md" {
		t.Errorf("list stale = %+v, want Rates.md", out)
	}
	// Nothing matches: an empty list, not null.
	callTool(t, cs, "list", map[string]any{"tag": []string{"nothing"}}, &out, false)
	if out.Notes == nil || len(out.Notes) != 0 || out.Matched != 0 {
		t.Errorf("list tag nothing = %+v, want an empty list", out)
	}
	if text := callTool(t, cs, "list", map[string]any{"where": []string{"=x"}}, nil, true); !strings.Contains(text, "no property name") {
		t.Errorf("a bad condition's error says %q", text)
	}
	// What zk list warns of on stderr is the result's warnings here: the
	// tool had no channel for it, and tended for file.tended was an
	// empty column without a word. [], not null, when there is none.
	var page struct {
		view.List
		Warnings []string `json:"warnings"`
	}
	callTool(t, cs, "list", map[string]any{"fields": []string{"tended", "file.tended"}, "limit": 1}, &page, false)
	want := []string{"fields tended: no note listed has the property (the note's own tended is file.tended)"}
	if !slices.Equal(page.Warnings, want) {
		t.Errorf("list fields tended: warnings %q, want %q", page.Warnings, want)
	}
	callTool(t, cs, "list", map[string]any{"fields": []string{"file.tended"}}, &page, false)
	if page.Warnings == nil || len(page.Warnings) != 0 {
		t.Errorf("list fields file.tended: warnings %#v, want []", page.Warnings)
	}
}

// A tool's errors name its arguments, never a flag, a command's name (mv)
// or its arguments' (NOTE), and never ask for a command after --: an
// agent has neither.
func TestMCPErrorsInToolTerms(t *testing.T) {
	cs, _ := newMCPSession(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"run_falsifier", map[string]any{"note": "Rates", "falsifier": "9"}, "has no falsifier 9"},
		{"run_falsifier", map[string]any{"note": "Rates", "falsifier": 9}, "has no falsifier 9"},
		{"run_falsifier", map[string]any{"note": "Rates", "falsifier": 1.5}, "want one of \"integer, string\""},
		{"run_falsifier", map[string]any{"note": "Rates", "falsifier": 0}, "falsifier 0 is not a falsifier's number"},
		{"run_falsifier", map[string]any{"note": "Rates", "timeout_s": -1}, "timeout_s must be positive"},
		// Past a time.Duration's range, not an overflow into a negative one.
		{"run_falsifier", map[string]any{"note": "Rates", "timeout_s": 1e12}, "timeout_s 1e+12 is over the 9223372036 seconds"},
		{"run_falsifier", map[string]any{"note": "Rates", "timeout_s": 9.3e9}, "timeout_s 9.3e+09 is over"},
		{"list", map[string]any{"transitive": true}, "transitive needs links_to or linked_from"},
		{"list", map[string]any{"due_within": "soon"}, "list: due_within:"},
		{"stale", map[string]any{"within": "soon"}, "stale: within:"},
		{"tend", map[string]any{"note": "Rates", "date": "soon"}, "tend: date"},
		{"move", map[string]any{"from": "Rates#Claim", "to": "Speedups#Claim"}, "renamed within its note"},
		{"move", map[string]any{"from": "Rates#Claim", "to": "Claim"}, "has no #heading"},
	} {
		text := callTool(t, cs, tc.tool, tc.args, nil, true)
		if !strings.Contains(text, tc.want) || strings.Contains(text, " --") || strings.Contains(text, "mv:") || strings.Contains(text, "NOTE") {
			t.Errorf("%s %v: %q, want %q and no flag", tc.tool, tc.args, text, tc.want)
		}
	}
}

// A count out of range (limit 1e308, offset 1e20) is refused by the
// tool's input schema, naming the argument and its bound, before it is
// decoded: it was the decoder's "cannot unmarshal number 1e308 into Go
// struct field notePageInput.limit of type int".
func TestMCPCountsOutOfRange(t *testing.T) {
	cs, _ := newMCPSession(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"links", map[string]any{"note": "Rates", "limit": 1e308}, "limit"},
		{"backlinks", map[string]any{"note": "Rates", "offset": 1e20}, "offset"},
		{"runs", map[string]any{"note": "Rates", "limit": -1e19}, "limit"},
		{"list", map[string]any{"limit": 1e308}, "limit"},
		{"search", map[string]any{"query": "speedup", "offset": 1e308}, "offset"},
		{"verdicts", map[string]any{"limit": 1e308}, "limit"},
		{"check", map[string]any{"limit": 1e308}, "limit"},
		{"stale", map[string]any{"offset": 1e308}, "offset"},
		{"properties", map[string]any{"limit": 1e308}, "limit"},
	} {
		text := callTool(t, cs, tc.tool, tc.args, nil, true)
		if !strings.Contains(text, tc.want) || strings.Contains(text, "Go ") || strings.Contains(text, "Input") || strings.Contains(text, "unmarshal") {
			t.Errorf("%s %v: %q, want it to name %s and no Go type", tc.tool, tc.args, text, tc.want)
		}
	}
}

// timeout_s is taken to the nanosecond, up to the longest duration: a
// tiny one stays positive rather than falling to 0, the default.
func TestTimeoutArg(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want time.Duration
	}{
		{0, 0},
		{1.5, 1500 * time.Millisecond},
		{1e-12, time.Nanosecond},
		{float64(maxTimeoutS), time.Duration(maxTimeoutS) * time.Second},
	} {
		if got, err := timeoutArg(tc.s); err != nil || got != tc.want {
			t.Errorf("timeoutArg(%g) = %v, %v, want %v", tc.s, got, err, tc.want)
		}
	}
	if got, err := timeoutArg(float64(maxTimeoutS) + 1); err == nil {
		t.Errorf("timeoutArg past the bound = %v, want an error", got)
	}
}

// TestSearchOfALargeVaultIsChecked: the search of a vault over 5,000
// notes compared only its folders with the index, as zk search does to
// answer a terminal in milliseconds, and answered "checked": false: a
// note edited since the index was updated was not found by its new
// words, and the agent could not tell which hits to trust. The server
// compares every note (up to the search's budget of a second).
func TestSearchOfALargeVaultIsChecked(t *testing.T) {
	const n = 5_100
	old := time.Now().Add(-time.Hour)
	cs, dir := newMCPSessionWith(t, func(dir string) {
		gen := filepath.Join(dir, "gen")
		if err := os.MkdirAll(gen, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			p := filepath.Join(gen, fmt.Sprintf("N%05d.md", i))
			if err := os.WriteFile(p, fmt.Appendf(nil, "# N%05d\n\nWord %d.\n", i, i), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(gen, old, old); err != nil {
			t.Fatal(err)
		}
	})
	var out struct {
		Total   int  `json:"total"`
		Checked bool `json:"checked"`
		Hits    []struct {
			Path string `json:"path"`
		} `json:"hits"`
	}
	callTool(t, cs, "search", map[string]any{"query": "word"}, &out, false) // builds the index
	// An edit in place: the folder's time does not move.
	edited := filepath.Join(dir, "gen", "N00042.md")
	if err := os.WriteFile(edited, []byte("# N00042\n\nZebrafinch.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(dir, "gen"), old, old); err != nil {
		t.Fatal(err)
	}
	callTool(t, cs, "search", map[string]any{"query": "zebrafinch"}, &out, false)
	if !out.Checked || out.Total != 1 || len(out.Hits) != 1 || out.Hits[0].Path != "gen/N00042.md" {
		t.Errorf("search zebrafinch in %d notes, one edited: %+v, want the edited note, checked", n, out)
	}
}

// A tool's error never begins with the name of the command whose use
// case it shares (run, for run_falsifier and rejudge: "run: timeout_s
// must be positive", and rejudge's "run: falsifier 1 of Rates.md has no
// criterion"), a command an agent has not, and asks for an argument,
// never a flag.
func TestMCPErrorsNameTheTool(t *testing.T) {
	cs, _ := newMCPSessionWith(t, func(dir string) {
		two := "# Two\n\n## Claim\n\nTwo ways to be wrong.\n\n## Evidence\n\nNone yet.\n\n## Tests / falsifiers\n\n- One.\n  - run: `true`\n- Two.\n  - run: `true`\n"
		if err := os.WriteFile(filepath.Join(dir, "Two.md"), []byte(two), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"run_falsifier", map[string]any{"note": "Rates", "timeout_s": -1}, "timeout_s must be positive"},
		{"rejudge", map[string]any{"note": "Rates", "falsifier": 1}, "falsifier 1 of Rates.md has no criterion"},
		{"run_falsifier", map[string]any{"note": "Two"}, "say which with falsifier N"},
		{"rejudge", map[string]any{"note": "Two"}, ""},
	} {
		text := callTool(t, cs, tc.tool, tc.args, nil, tc.want != "")
		if !strings.Contains(text, tc.want) || strings.HasPrefix(text, "run: ") || strings.Contains(text, "--") {
			t.Errorf("%s %v: %q, want %q, no run: and no flag", tc.tool, tc.args, text, tc.want)
		}
	}
}

// A resource read of a URI holding a control character or a byte that
// is not UTF-8 is answered "not found", and the session goes on: the
// SDK's not-found error quotes the URI with Go's %q ("\x1b"), which is
// no JSON, and the server failed to write it and closed the session
// ("marshaling jsonrpc message: ... invalid character 'x' in string
// escape code"): one request by an agent ended it.
func TestReadResourceOfAHostileURI(t *testing.T) {
	cs, _ := newMCPSession(t)
	for _, uri := range []string{"zk://note/\x1b[2J.md", "zk://note/\xff.md", "file:///\x1b[2J", "zk://note/Rates.md\x00"} {
		_, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
		var e *jsonrpc.Error
		if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("read %q: %v, want the error resource not found", uri, err)
		}
		if e != nil && !json.Valid(e.Data) {
			t.Errorf("read %q: the error's data %q is no JSON", uri, e.Data)
		}
	}
	if _, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "zk://note/Rates.md"}); err != nil {
		t.Errorf("read a note after them: %v", err)
	}
}

// What zk prints on stderr while it answers is a tool's warnings: a
// success dropped it, and an agent never learned that a types.json zk
// cannot read left property types unchecked.
func TestMCPToolsTellTheirNotices(t *testing.T) {
	cs, dir := newMCPSession(t)
	writeNote(t, dir, ".obsidian/types.json", "{bad")
	const want = "(property types not checked)"
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"check", nil},
		{"stale", nil},
		{"list", nil},
		{"properties", nil},
		{"links", map[string]any{"note": "Rates"}},
		{"backlinks", map[string]any{"note": "Rates"}},
		{"runs", map[string]any{"note": "Rates"}},
		{"search", map[string]any{"query": "rate"}},
		{"read_note", map[string]any{"note": "Rates"}},
		{"tend", map[string]any{"note": "Rates", "date": "2026-12-01"}},
		{"move", map[string]any{"from": "Rates", "to": "Rates 2"}},
		{"new", map[string]any{"title": "Fresh"}},
	} {
		var out struct {
			Warnings []string `json:"warnings"`
		}
		callTool(t, cs, tc.tool, tc.args, &out, false)
		if len(out.Warnings) != 1 || !strings.HasPrefix(out.Warnings[0], "types.json: ") || !strings.HasSuffix(out.Warnings[0], want) {
			t.Errorf("%s: warnings %q, want the types.json one", tc.tool, out.Warnings)
		}
	}
}

// A result's text has the command's key order (zk check --format json's
// path, line, column, …), and says what its structured content says: the
// SDK's text had the keys sorted, a finding's column first.
func TestMCPResultTextInTheCommandsOrder(t *testing.T) {
	cs, _ := newMCPSession(t)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "check", Arguments: map[string]any{}})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("check: %v, %+v", err, res)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if !strings.HasPrefix(text, `{"findings":[{"path":"`) {
		t.Errorf("check's text begins %.60s, want the findings, each path first", text)
	}
	var fromText, structured any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &structured); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromText, structured) {
		t.Errorf("check's text %s\nsays other than its structured content %s", text, b)
	}
}

// zk runs without a note, every falsifier's latest verdict, had no tool:
// verdicts is it, paged, the same as zk runs --format json.
func TestMCPVerdicts(t *testing.T) {
	cs, _ := newMCPSession(t)
	var out struct {
		view.Verdicts
		pageOutput
	}
	callTool(t, cs, "verdicts", nil, &out, false)
	if len(out.Falsifiers) == 0 || out.Items != len(out.Falsifiers) || out.Falsifiers[0].Note != "Rates.md" || out.Falsifiers[0].Verdict != "never-run" {
		t.Errorf("verdicts = %+v, want Rates.md's falsifier, never run", out)
	}
	callTool(t, cs, "verdicts", map[string]any{"offset": 99}, &out, false)
	if out.Falsifiers == nil || len(out.Falsifiers) != 0 {
		t.Errorf("verdicts past the end = %#v, want []", out.Falsifiers)
	}
}

// A resource read tells what zk warned of while reading it, as a tool's
// result does, in the result's _meta (the protocol's place for what is
// not the resource's contents): a read dropped them, and an agent reading
// notes as resources never learned that property types went unchecked.
func TestMCPResourceReadTellsItsNotices(t *testing.T) {
	cs, dir := newMCPSession(t)
	ctx := context.Background()
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "zk://note/Rates.md"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Meta[resourceWarnings]; ok {
		t.Errorf("read of a sound vault: _meta %v, want no %s", res.Meta, resourceWarnings)
	}
	writeNote(t, dir, ".obsidian/types.json", "{bad")
	res, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "zk://note/Rates.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].Text != mcpVault["Rates.md"] {
		t.Errorf("read zk://note/Rates.md = %+v, want the note alone", res.Contents)
	}
	ws, _ := res.Meta[resourceWarnings].([]any)
	if len(ws) != 1 || !strings.HasPrefix(fmt.Sprint(ws[0]), "types.json: ") || !strings.HasSuffix(fmt.Sprint(ws[0]), "(property types not checked)") {
		t.Errorf("read's _meta %v, want %s holding the types.json warning", res.Meta, resourceWarnings)
	}
}

// inOrder sends a result's structured content as zk marshalled it, which
// is what the SDK checked only while no output schema has a default for
// the SDK to fill in: a default would make the two differ.
func TestNoOutputSchemaHasADefault(t *testing.T) {
	cs, _ := newMCPSession(t)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		b, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"default":`) {
			t.Errorf("%s: the output schema has a default: %s", tool.Name, b)
		}
	}
}

// A read of a note the server listed reads that file, not the whole
// vault: each read walked every file to find the one its URI names
// (obsidian-hub, 6,571 notes: 80 ms a read at load 16 on 2 cores), so an
// agent reading the notes it listed cost the vault's size each. A note
// created since the listing is still found by a walk, and one deleted
// since is not found.
func TestMCPReadOfAListedNoteWalksNothing(t *testing.T) {
	cs, dir := newMCPSession(t)
	ctx := context.Background()
	walks := 0
	defer func(f func(context.Context, *vault.Vault) ([]vault.File, []vault.Skip, error)) { vaultFiles = f }(vaultFiles)
	vaultFiles = func(ctx context.Context, v *vault.Vault) ([]vault.File, []vault.Skip, error) {
		walks++
		return v.Files(ctx)
	}
	if _, err := cs.ListResources(ctx, nil); err != nil {
		t.Fatal(err)
	}
	listed := walks
	for range 3 {
		res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "zk://note/Rates.md"})
		if err != nil || res.Contents[0].Text != mcpVault["Rates.md"] {
			t.Fatalf("read Rates.md: %v, %+v", err, res)
		}
	}
	if walks != listed {
		t.Errorf("3 reads of a listed note walked the vault %d times, want none", walks-listed)
	}
	writeNote(t, dir, "Later.md", "# Later\n")
	if res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "zk://note/Later.md"}); err != nil || res.Contents[0].Text != "# Later\n" {
		t.Errorf("read of a note created since the listing: %v, %+v", err, res)
	}
	if err := os.Remove(filepath.Join(dir, "Speedups.md")); err != nil {
		t.Fatal(err)
	}
	var e *jsonrpc.Error
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "zk://note/Speedups.md"}); !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("read of a listed note deleted since: %v, want not found", err)
	}
}
