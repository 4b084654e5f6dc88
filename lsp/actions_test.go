package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/vaulttest"
)

var actionVault = map[string]string{
	"Permanent Notes/Rates.md": "# Rates\n\n## Claim\n\nRates need denominators.\n\n## Links\n\n" +
		"- [[speed ups]] — extends: a near miss.\n" +
		"- [[Speedups]]\n" +
		"- [[Speedups#Baseline]] because it says so\n" +
		"- [[Brand New]] — refines: to be written.\n" +
		"- [[wrong/Deep]] — extends: wrong folder.\n" +
		"\n## Maintenance\n\n- Last tended: 2025-01-01\n",
	"Permanent Notes/Speedups.md": "---\ntags: [measurement]\n---\n# Speedups\n\n## Claim\n\nA speedup needs a baseline. #perf/latency\n\n## Links\n\n" +
		"- [[Rates]] — cites: it does.\n\n## Maintenance\n\n- Last tended: 2026-12-01\n",
	"other/Deep.md": "# Deep\n\n#perf/latency #draft\n",
}

// actionOptions type the notes under Permanent Notes/ by a small template,
// with today fixed, and render a new note as zk new would: its folder and
// its title as H1.
func actionOptions(o *Options) {
	schema, err := vault.ParseSchema([]byte("# {{title}}\n## Claim\n## Links\n## Maintenance\n- Last tended: {{date}}\n"))
	if err != nil {
		panic(err)
	}
	o.Lint.Types = []*vault.NoteType{{Name: "permanent", Schema: schema, Paths: []string{"Permanent Notes/**"}}}
	o.Lint.Today = time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	o.NewNote = func(typ, title string) (string, []byte, error) {
		return "Permanent Notes/" + title + ".md", []byte("# " + title + "\n\n(" + typ + ")\n"), nil
	}
}

var canCreate = map[string]any{"workspace": map[string]any{"workspaceEdit": map[string]any{
	"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"}}}}

// action is a code action as the client decodes it (see published for
// why not glsp's types).
type action struct {
	Title       string `json:"title"`
	Kind        string `json:"kind"`
	Diagnostics []struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"diagnostics"`
	Edit struct {
		Changes         map[string][]protocol.TextEdit `json:"changes"`
		DocumentChanges []json.RawMessage              `json:"documentChanges"`
	} `json:"edit"`
}

func (c *client) codeActions(p string, rng protocol.Range) []action {
	c.t.Helper()
	var out []action
	c.call(protocol.MethodTextDocumentCodeAction, map[string]any{"textDocument": map[string]any{"uri": c.uri(p)}, "range": rng,
		"context": map[string]any{"diagnostics": []any{}}}, &out)
	return out
}

// apply applies one document's edits to text.
func apply(text string, edits []protocol.TextEdit) string {
	slices.SortFunc(edits, func(a, b protocol.TextEdit) int { return offset(text, b.Range.Start) - offset(text, a.Range.Start) })
	for _, e := range edits {
		text = text[:offset(text, e.Range.Start)] + e.NewText + text[offset(text, e.Range.End):]
	}
	return text
}

func lineRange(text, containing string) protocol.Range {
	i := strings.Index(text, containing)
	p := position(text, i)
	return protocol.Range{Start: p, End: position(text, i+len(containing))}
}

func byTitle(as []action, prefix string) []action {
	var out []action
	for _, a := range as {
		if strings.HasPrefix(a.Title, prefix) {
			out = append(out, a)
		}
	}
	return out
}

func TestCodeActions(t *testing.T) {
	c := startServerWith(t, actionVault, actionOptions, canCreate)
	const p = "Permanent Notes/Rates.md"
	text := actionVault[p]
	c.openText(p, text)
	c.nextDiags(p)
	uri := c.uri(p)

	// Stale: set Last tended to today, the one date changed.
	as := c.codeActions(p, lineRange(text, "Last tended"))
	tend := byTitle(as, "Set Last tended to 2026-12-03")
	if len(tend) != 1 || len(tend[0].Diagnostics) != 1 || tend[0].Diagnostics[0].Code != lint.RuleStale || tend[0].Kind != "quickfix" {
		t.Fatalf("actions on the Last tended line: %+v", as)
	}
	if e := tend[0].Edit.Changes[uri]; len(e) != 1 || e[0].Range.Start.Line != 16 || e[0].Range.End.Line != 16 {
		t.Errorf("tend edit %+v, want one edit in the date's line", e)
	} else if got := apply(text, e); got != strings.Replace(text, "2025-01-01", "2026-12-03", 1) {
		t.Errorf("tended:\n%s", got)
	}

	// A near miss: [[speed ups]] is fixed to [[Speedups]], and the
	// missing note can be created too.
	as = c.codeActions(p, lineRange(text, "[[speed ups]]"))
	fix := byTitle(as, `Link to "Speedups"`)
	if len(fix) != 1 || fix[0].Diagnostics[0].Code != lint.RuleBrokenLink {
		t.Fatalf("actions on [[speed ups]]: %+v", as)
	}
	if got := apply(text, fix[0].Edit.Changes[uri]); !strings.Contains(got, "- [[Speedups]] — extends: a near miss.\n") {
		t.Errorf("relinked:\n%s", got)
	}
	// The wrong folder: the one note of that name.
	as = c.codeActions(p, lineRange(text, "[[wrong/Deep]]"))
	if fix := byTitle(as, `Link to "Deep"`); len(fix) != 1 || !strings.Contains(apply(text, fix[0].Edit.Changes[uri]), "- [[Deep]] — extends") {
		t.Errorf("actions on [[wrong/Deep]]: %+v", as)
	}

	// A note nothing almost names: only created, from the template.
	as = c.codeActions(p, lineRange(text, "[[Brand New]]"))
	if len(byTitle(as, "Link to")) != 0 {
		t.Errorf("a relink offered for [[Brand New]]: %+v", as)
	}
	create := byTitle(as, `Create "Brand New"`)
	if len(create) != 1 || len(create[0].Edit.DocumentChanges) != 2 {
		t.Fatalf("create action: %+v", as)
	}
	var cf struct {
		Kind, URI string
		Options   struct{ Overwrite, IgnoreIfExists bool }
	}
	var te struct {
		TextDocument struct{ URI string }
		Edits        []protocol.TextEdit
	}
	json.Unmarshal(create[0].Edit.DocumentChanges[0], &cf)
	json.Unmarshal(create[0].Edit.DocumentChanges[1], &te)
	want := c.uri("Permanent Notes/Brand New.md")
	if cf.Kind != "create" || cf.URI != want || cf.Options.Overwrite || te.TextDocument.URI != want ||
		len(te.Edits) != 1 || te.Edits[0].NewText != "# Brand New\n\n(permanent)\n" {
		t.Errorf("create: %+v then %+v", cf, te)
	}

	// Untyped entries: one action per relation, the vocabulary first and
	// the vault's own ("cites") after it; text after the link is kept as
	// the justification.
	as = c.codeActions(p, lineRange(text, "- [[Speedups]]"))
	rel := byTitle(as, "Add")
	if len(rel) != len(lint.DefaultRelations)+1 || rel[0].Title != `Add "— extends:"` || rel[len(rel)-1].Title != `Add "— cites:"` {
		var titles []string
		for _, a := range as {
			titles = append(titles, a.Title)
		}
		t.Fatalf("actions on the untyped entry: %q", titles)
	}
	if got := apply(text, rel[0].Edit.Changes[uri]); !strings.Contains(got, "\n- [[Speedups]] — extends: \n") {
		t.Errorf("typed:\n%s", got)
	}
	as = c.codeActions(p, lineRange(text, "because it says so"))
	if rel := byTitle(as, `Add "— supports:"`); len(rel) != 1 || !strings.Contains(apply(text, rel[0].Edit.Changes[uri]), "- [[Speedups#Baseline]] — supports: because it says so\n") {
		t.Errorf("actions on the entry with text after its link: %+v", as)
	}

	// Nothing to fix on the Claim.
	if as := c.codeActions(p, lineRange(text, "Rates need")); len(as) != 0 {
		t.Errorf("actions on the title: %+v", as)
	}
}

// A client that cannot create files is offered no create action.
func TestNoCreateWithoutTheClientsSupport(t *testing.T) {
	c := startServerWith(t, actionVault, actionOptions, map[string]any{})
	const p = "Permanent Notes/Rates.md"
	c.openText(p, actionVault[p])
	c.nextDiags(p)
	if as := byTitle(c.codeActions(p, lineRange(actionVault[p], "[[Brand New]]")), "Create"); len(as) != 0 {
		t.Errorf("create offered: %+v", as)
	}
}

// A broken link into a folder that is a symlink leading outside the
// vault is offered no create action: the client would write outside.
func TestNoCreateThroughALinkOutside(t *testing.T) {
	const p = "Permanent Notes/A.md"
	files := map[string]string{p: "# A\n\n[[out/Brand New]] and [[Brand New]]\n"}
	c := startServerWith(t, files, actionOptions, canCreate)
	if err := os.Symlink(t.TempDir(), filepath.Join(c.dir, "out")); err != nil {
		t.Skip(err)
	}
	c.openText(p, files[p])
	c.nextDiags(p)
	as := byTitle(c.codeActions(p, lineRange(files[p], "[[out/Brand New]]")), "Create")
	if len(as) != 1 || !strings.Contains(as[0].Title, "(Permanent Notes/Brand New.md)") {
		t.Errorf("create actions: %+v, want only the one inside the vault", as)
	}
}

// A broken link into a dot folder (.git, .obsidian, .zk) is offered no
// create action: zk new makes no note there, nor does zk mv move one there.
func TestNoCreateInADotFolder(t *testing.T) {
	const p = "Permanent Notes/A.md"
	links := []string{"[[.git/hooks/pre-commit]]", "[[.obsidian/Evil]]", "[[.zk/Evil]]", "[[notes/.hidden/Evil]]"}
	files := map[string]string{p: "# A\n\n" + strings.Join(links, "\n\n") + "\n"}
	c := startServerWith(t, files, actionOptions, canCreate)
	c.openText(p, files[p])
	c.nextDiags(p)
	for _, l := range links {
		if as := byTitle(c.codeActions(p, lineRange(files[p], l)), "Create"); len(as) != 0 {
			t.Errorf("%s: create offered: %+v", l, as)
		}
	}
}

func TestDiffEdit(t *testing.T) {
	for _, tc := range []struct{ old, new string }{
		{"a 2025-01-01 b", "a 2026-12-03 b"},
		{"é1", "è1"}, // a shared first byte of two runes
		{"x", "x\n- Last tended: 2026-12-03\n"},
		{"😀a", "😁a"},
	} {
		e, ok := diffEdit(tc.old, tc.new)
		if !ok {
			t.Fatalf("%q → %q: no edit", tc.old, tc.new)
		}
		if got := apply(tc.old, []protocol.TextEdit{e}); got != tc.new {
			t.Errorf("%q → %q: the edit %+v gives %q", tc.old, tc.new, e, got)
		}
	}
	if _, ok := diffEdit("same", "same"); ok {
		t.Error("an edit of nothing")
	}
}

func TestTagAndRelationCompletion(t *testing.T) {
	c := startServerWith(t, actionVault, actionOptions, map[string]any{})
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"inline tag", "# T\n\nSee #per", []string{"perf/latency"}},
		{"every tag, most used first", "# T\n\n#", []string{"perf/latency", "draft", "measurement"}},
		{"frontmatter list", "---\ntags: [dr|]\n---\n# T\n", []string{"draft"}},
		{"frontmatter item", "---\ntags:\n  - mea|\n---\n# T\n", []string{"measurement"}},
		{"not a tag: another property", "---\nup: dr|\n---\n# T\n", nil},
		{"not a tag: inside a word", "# T\n\nC#", nil},
		{"relation", "# T\n\n## Links\n\n- [[Rates]] — ex", []string{"extends", "example-of"}},
		{"relation, the vault's own", "# T\n\n## Links\n\n- [[Rates]] -- ci", []string{"cites"}},
		{"no relation outside Links", "# T\n\n## Claim\n\n- [[Rates]] — ex", nil},
		{"no relation after the colon", "# T\n\n## Links\n\n- [[Rates]] — extends: ex", nil},
	} {
		// The cursor is at "|", else at the end.
		at := strings.Index(tc.text, "|")
		if at < 0 {
			at = len(tc.text)
		}
		text := strings.Replace(tc.text, "|", "", 1)
		c.openText("New.md", text)
		var list protocol.CompletionList
		c.call(protocol.MethodTextDocumentCompletion, protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: c.uri("New.md")}, Position: position(text, at)}}, &list)
		var got []string
		for _, it := range list.Items {
			got = append(got, it.Label)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: %q gives %v, want %v", tc.name, tc.text, got, tc.want)
		}
		if tc.name == "relation" && len(list.Items) > 0 {
			b, _ := json.Marshal(list.Items[0].TextEdit)
			if !strings.Contains(string(b), `"newText":"extends: "`) {
				t.Errorf("relation edit %s", b)
			}
		}
	}
}

// Saving a refutation of C re-publishes the diagnostics of the notes
// that rest on it, open or not: B directly, A through B.
func TestSaveRechecksTheNotesRestingOnIt(t *testing.T) {
	chain := map[string]string{
		"A.md": "# A\n\n## Links\n\n- [[B]] — extends: A builds on B.\n",
		"B.md": "# B\n\n## Links\n\n- [[C]] — evidence-for: B's data is C's.\n",
		"C.md": "# C\n\n## Tests / falsifiers\n\n- The suite fails.\n",
		"D.md": "# D\n\n## Links\n\n- [[C]] — contrasts: not resting on it.\n",
	}
	c := startServerWith(t, chain, nil, map[string]any{})
	c.openText("C.md", chain["C.md"])
	c.nextDiags("C.md")
	save := func(text string) {
		if err := os.WriteFile(filepath.Join(c.dir, "C.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		c.conn.Notify(context.Background(), protocol.MethodTextDocumentDidChange, map[string]any{
			"textDocument":   map[string]any{"uri": c.uri("C.md"), "version": 2},
			"contentChanges": []map[string]any{{"text": text}},
		})
		c.conn.Notify(context.Background(), protocol.MethodTextDocumentDidSave, map[string]any{"textDocument": map[string]any{"uri": c.uri("C.md")}})
	}
	// until collects diagnostics until A's and B's have come.
	until := func() map[string]published {
		got := map[string]published{}
		for got[c.uri("A.md")].URI == "" || got[c.uri("B.md")].URI == "" {
			select {
			case d := <-c.diags:
				got[d.URI] = d
			case <-time.After(30 * time.Second):
				t.Fatalf("no diagnostics for A and B: %+v", got)
			}
		}
		return got
	}
	save(vaulttest.RefutedC)
	got := until()
	a, b := got[c.uri("A.md")], got[c.uri("B.md")]
	if codes(a)[0] != lint.RuleRestsOnRefuted || len(a.Diagnostics) != 1 ||
		!strings.Contains(a.Diagnostics[0].Message, "[[B]] → [[C]]") {
		t.Errorf("A: %+v", a)
	}
	if codes(b)[0] != lint.RuleRestsOnRefuted || len(b.Diagnostics) != 1 {
		t.Errorf("B: %+v", b)
	}
	if d, ok := got[c.uri("D.md")]; ok {
		t.Errorf("D, unchanged, published: %+v", d)
	}
	// C answered: A's and B's findings are gone, and said so.
	save(chain["C.md"])
	got = until()
	if a, b := got[c.uri("A.md")], got[c.uri("B.md")]; len(a.Diagnostics) != 0 || len(b.Diagnostics) != 0 {
		t.Errorf("after C's refutation is gone: A %+v, B %+v", a, b)
	}
}

// pathSpan finds the path of every kind of link, which a relink replaces.
func TestPathSpan(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"[[Speed ups#H|shown]]", "Speed ups"},
		{"![[img.png]]", "img.png"},
		{"[[#Local]]", ""},
		{"[text](Speed%20ups.md#h)", "Speed%20ups.md"},
		{"[text](<Speed ups.md>)", "Speed ups.md"},
		{"![alt](a/b.png)", "a/b.png"},
	} {
		n := vault.NewParser().Parse("n.md", []byte("x "+tc.src+"\n"))
		links := n.AllLinks()
		if len(links) != 1 {
			t.Fatalf("%s: %d links", tc.src, len(links))
		}
		text := string(n.Src)
		start, end, ok := pathSpan(text, links[0])
		if !ok || text[start:end] != tc.want {
			t.Errorf("%s: %q (%v), want %q", tc.src, text[start:min(max(end, start), len(text))], ok, tc.want)
		}
	}
}

// A broken markdown link is relinked to the vault path, escaped.
func TestRelinkAMarkdownLink(t *testing.T) {
	c := startServerWith(t, actionVault, actionOptions, map[string]any{})
	text := "# Other\n\nSee [the speedups](speed_ups.md#Claim).\n"
	c.openText("Other.md", text)
	c.nextDiags("Other.md")
	as := byTitle(c.codeActions("Other.md", lineRange(text, "See")), `Link to "Speedups"`)
	if len(as) != 1 {
		t.Fatalf("actions: %+v", as)
	}
	if got := apply(text, as[0].Edit.Changes[c.uri("Other.md")]); !strings.Contains(got, "[the speedups](Permanent%20Notes/Speedups.md#Claim)") {
		t.Errorf("relinked:\n%s", got)
	}
}

// Today is the clock's at each check, not the server's first day: a
// server running past midnight measures maintenance, and tends, with the
// new day.
func TestTodayMovesOnAtMidnight(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC)
	c := startServerWith(t, actionVault, func(o *Options) {
		actionOptions(o)
		o.Lint.Today = time.Time{} // not pinned
		o.Clock = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	}, canCreate)
	const p = "Permanent Notes/Speedups.md" // Last tended: 2026-12-01
	text := actionVault[p]
	c.openText(p, text)
	if got := codes(c.nextDiags(p)); !slices.Contains(got, lint.RuleFutureDate) {
		t.Fatalf("on 2026-11-30: %v, want %s", got, lint.RuleFutureDate)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	c.conn.Notify(context.Background(), protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": c.uri(p), "version": 2},
		"contentChanges": []map[string]any{{"text": text}},
	})
	if got := codes(c.nextDiags(p)); slices.Contains(got, lint.RuleFutureDate) {
		t.Errorf("on 2026-12-01: %v, want no %s", got, lint.RuleFutureDate)
	}
	const r = "Permanent Notes/Rates.md"
	c.openText(r, actionVault[r])
	c.nextDiags(r)
	if tend := byTitle(c.codeActions(r, lineRange(actionVault[r], "Last tended")), "Set Last tended to 2026-12-01"); len(tend) != 1 {
		t.Errorf("no action to tend on the clock's day, 2026-12-01")
	}
}

// TestCodeActionsOnALongLine: a line of 3,000 broken links asked about
// whole gets a create action for each diagnostic the note publishes (the
// first maxDiagnostics findings), each creating the note its own link
// names. Each finding's place and link were found from the top of the
// note: 40,000 such links made a request quadratic.
func TestCodeActionsOnALongLine(t *testing.T) {
	const n = 3000
	var b strings.Builder
	b.WriteString("# Many\n\n")
	for i := range n {
		b.WriteString("[[Missing " + strconv.Itoa(i) + "]] ")
	}
	b.WriteString("\n")
	files := map[string]string{"Many.md": b.String()}
	c := startServerWith(t, files, actionOptions, canCreate)
	text := files["Many.md"]
	c.openText("Many.md", text)
	c.nextDiags("Many.md")
	as := c.codeActions("Many.md", protocol.Range{Start: protocol.Position{Line: 2, Character: 5}, End: protocol.Position{Line: 2, Character: 5}})
	creates := byTitle(as, "Create")
	if len(creates) != maxDiagnostics {
		t.Fatalf("%d create actions, want %d", len(creates), maxDiagnostics)
	}
	for i, a := range creates {
		if !strings.Contains(a.Title, `"Missing `+strconv.Itoa(i)+`"`) {
			t.Fatalf("action %d: %q, want the note of link %d", i, a.Title, i)
		}
	}
}
