// Package mcp is zk's MCP server: the vault served to an AI agent over the
// Model Context Protocol, on the official Go SDK. It is an adapter, as
// package lsp is for an editor and cmd/zk for a shell: each tool turns
// its arguments into the request of the use case of its name in package
// workspace, calls it, and returns the result in the shape of package
// view, the one the command of its name prints with --format json, so
// that an agent and a script read the same shapes; a list-like result is
// one page of it (page.go). Errors are the use case's, worded in the
// tool's terms: its arguments' names, what an agent can do (toolError).
// Writes go through the use cases' write path (vault.EditNote,
// vault.CreateFile), and run_falsifier runs only commands a person has
// approved with zk trust: no tool approves. cmd/zk only starts it (zk
// mcp).
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zk-claims/zk/index"
	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/runner"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/view"
	"github.com/zk-claims/zk/workspace"
)

// Options are what the server needs of its front end: the vault, found
// once, and the day.
type Options struct {
	// Dir is the vault's folder, pinned so that every tool call opens the
	// same one; "" takes the working directory (a folder that is not a
	// vault, which the writing tools then refuse, as the commands do).
	Dir string
	// Today is the day of a call: a server runs past midnight, so it is
	// asked at each call. Pinned says it is a day given (--today,
	// $ZK_TODAY) rather than the clock's.
	Today  func() (time.Time, error)
	Pinned bool
	// Version is zk's, as the server names itself and as the caches key
	// on it.
	Version string
	// IndexDir is where search keeps its index ($ZK_INDEX_DIR); "" for
	// the vault's .zk/index.
	IndexDir string
}

// Serve serves the vault on in and out until the client closes the
// connection.
func Serve(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	srv := New(ctx, opts)
	t := drainTransport{&sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}}
	if err := srv.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// zkServer holds what the tools share: the options, the vault pinned in
// them, and the notes listed as resources.
type zkServer struct {
	opts Options
	srv  *sdk.Server

	// listedMu guards listed, the URIs of the notes the server lists as
	// resources: nil until the client first lists them.
	listedMu sync.Mutex
	listed   map[string]bool
}

// New is the server with its tools, and the vault's notes as resources,
// listed now if the vault opens (before any client connects, so that no
// client is told of a change) and again at each listing. A vault zk
// cannot open (a .zk/config.toml that does not parse) is said so in each
// answer, each tool call opening it anew, rather than by a server that
// exits before the client's initialize.
func New(ctx context.Context, opts Options) *sdk.Server {
	z := &zkServer{opts: opts}
	srv := sdk.NewServer(&sdk.Implementation{Name: "zk", Version: opts.Version}, &sdk.ServerOptions{
		PageSize: resourcePage, // page.go
		Instructions: "zk keeps an Obsidian vault of permanent notes (one falsifiable claim per note). " +
			"Notes are named by vault path or by name as a [[wikilink]] writes it. " +
			"run_falsifier runs only commands the user approved with `zk trust`; you cannot approve one: ask the user.",
	})
	// Arguments are bounded before any tool decodes them (budget.go).
	srv.AddReceivingMiddleware(budgets, inOrder, z.freshResources, notFoundAsJSON)
	z.srv = srv
	readOnly := readOnlyTool // edit.go
	sdk.AddTool(srv, &sdk.Tool{Name: "check", Annotations: readOnly,
		Description: "Lint notes against their type's template and every link against the vault (zk check --format json). " +
			"Without paths, the whole vault."}, z.check)
	sdk.AddTool(srv, &sdk.Tool{Name: "stale", Annotations: readOnly,
		Description: "The notes past their maintenance date, most overdue first, and the undated ones (zk stale --format json)."}, z.stale)
	sdk.AddTool(srv, &sdk.Tool{Name: "search", Annotations: readOnly,
		Description: "Full-text search of the vault, best match first (zk search --format json; bleve query syntax: " +
			`"a phrase", +must, -not, prefix*, claim:word, tag:x, links:"Note"; no parentheses, AND or OR: a word is optional unless +word). ` +
			"Every note is compared with the index first; checked is false only when that took over a second, and unchecked says what hits may miss."}, z.search)
	sdk.AddTool(srv, &sdk.Tool{Name: "links", Annotations: readOnly,
		Description: "A note's outgoing links, each resolved as Obsidian resolves it, with its relation (zk links --format json)."}, z.links)
	sdk.AddTool(srv, &sdk.Tool{Name: "backlinks", Annotations: readOnly,
		Description: "The links into a note from the vault's notes, with each relation (zk backlinks --format json)."}, z.backlinks)
	sdk.AddTool(srv, &sdk.Tool{Name: "read_note", Annotations: readOnly,
		Description: "A note's text, or one section of it (the heading's text, e.g. \"Claim\")."}, z.readNote)
	sdk.AddTool(srv, &sdk.Tool{Name: "tend", Annotations: settingTool,
		Description: "Set a note's Last tended date (default today), changing only that date; the previous version is kept in .zk/backups/."}, z.tend)
	sdk.AddTool(srv, &sdk.Tool{Name: "new", Annotations: addingTool,
		Description: "Create a note from its type's template (zk new); never overwrites a note."}, z.newNote)
	sdk.AddTool(srv, &sdk.Tool{Name: "runs", Annotations: readOnly,
		Description: "The falsifier runs recorded in a note's Evidence section, oldest first (zk runs --format json)."}, z.runs)
	sdk.AddTool(srv, &sdk.Tool{Name: "run_falsifier", Annotations: runningTool, InputSchema: runFalsifierSchema,
		Description: "Run the command written under one of a note's falsifiers and record the result in its Evidence section (zk run NOTE --falsifier N). " +
			"Only a command the user approved with `zk trust` runs; an unapproved one is refused, and only the user can approve it."}, z.runFalsifier)
	sdk.AddTool(srv, rejudgeTool, z.rejudge)
	addListTool(srv, z)
	addVerdictsTool(srv, z)
	addEditTools(srv, z)
	srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: noteURIPrefix + "{+path}", Name: "note",
		Description: "a note of the vault, by its vault path", MIMEType: "text/markdown"}, z.readResource)
	z.syncNotes(ctx) //nolint:errcheck // the first resources/list lists them again, and says what failed
	return srv
}

// with opens the workspace for one tool call and runs f over it. A
// tool's result has no stderr: the notices of the call, which a command
// prints there, are added to the error f returns, and that error is worded
// in the tool's terms (toolError). A success drops them: answer gives
// them to a result that has warnings.
func (z *zkServer) with(ctx context.Context, how workspace.Access, f func(*workspace.Workspace) error) error {
	return z.withTold(ctx, how, f, nil)
}

// withTold is with, telling a success's notices to tell.
func (z *zkServer) withTold(ctx context.Context, how workspace.Access, f func(*workspace.Workspace) error, tell func([]string)) error {
	today, err := z.opts.Today()
	if err != nil {
		return err
	}
	var notes, told []string
	w, err := workspace.Open(ctx, workspace.Options{Dir: z.opts.Dir, Access: how, Today: today, Pinned: z.opts.Pinned,
		Version: z.opts.Version, Term: toolTerm,
		Notify: func(n workspace.Notice) {
			notes, told = append(notes, noticeLine(n)), append(told, printable.Of(n.Text))
		}})
	if err == nil {
		err = f(w)
		w.Close()
	}
	if err == nil {
		if tell != nil && len(told) > 0 {
			tell(told)
		}
		return nil
	}
	err = toolError(err)
	if len(notes) > 0 {
		err = fmt.Errorf("%w\n%s", err, strings.Join(notes, "\n"))
	}
	return err
}

// teller is a result with warnings: what the command prints on stderr
// (a types.json zk cannot read, a move a crash cut short, finished) is
// told there, where a success dropped it and the agent never learned
// that property types went unchecked.
type teller interface{ tell(lines []string) }

// told is the warnings of a result that has none of its own.
type told struct {
	Warnings []string `json:"warnings,omitempty" jsonschema:"what zk warned of while answering, as zk prints it on stderr"`
}

func (t *told) tell(lines []string) { t.Warnings = append(t.Warnings, lines...) }

// answer is a tool's answer: f fills its result over the workspace
// opened for the call (with), else the call's error, with no result.
func answer[T any](ctx context.Context, z *zkServer, how workspace.Access, f func(w *workspace.Workspace, out *T) error) (*sdk.CallToolResult, T, error) {
	var out T
	var tell func([]string)
	if t, ok := any(&out).(teller); ok {
		tell = t.tell
	}
	if err := z.withTold(ctx, how, func(w *workspace.Workspace) error { return f(w, &out) }, tell); err != nil {
		var none T
		return nil, none, err
	}
	// The text is the result in the command's key order (path first, as
	// zk's --format json has it): the SDK's own, from the structured
	// content it checks against the schema as a map, had the keys
	// sorted, a finding's column before its path. The structured content
	// is these bytes too (inOrder).
	b, err := json.Marshal(out)
	if err != nil {
		var none T
		return nil, none, err
	}
	if o, ok := ctx.Value(orderedKey{}).(*ordered); ok {
		o.json = b
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, out, nil
}

// ordered holds a tool's result as answer marshalled it, in the
// command's key order, for inOrder.
type ordered struct{ json []byte }

type orderedKey struct{}

// inOrder sends a tool's structured content as answer marshalled it:
// the SDK marshals the result, checks it against the tool's output
// schema as a map and sends that map, every object's keys sorted, where
// the text has the command's order. The two are the same value (no
// output schema zk declares has a default for the SDK to add), so the
// SDK's check stands for the bytes sent.
func inOrder(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if _, ok := req.(*sdk.CallToolRequest); !ok {
			return next(ctx, method, req)
		}
		o := &ordered{}
		res, err := next(context.WithValue(ctx, orderedKey{}, o), method, req)
		if r, ok := res.(*sdk.CallToolResult); ok && err == nil && !r.IsError && r.StructuredContent != nil && o.json != nil {
			r.StructuredContent = json.RawMessage(o.json)
		}
		return res, err
	}
}

// noticeLine is a notice as a command prints it on stderr.
func noticeLine(n workspace.Notice) string {
	if n.Warning {
		return "zk: warning: " + printable.Of(n.Text)
	}
	return "zk: " + printable.Of(n.Text)
}

// toolTerm names a use case's request field as a tool's argument: the
// field's own name, but for the run's timeout, which a tool takes in
// seconds.
func toolTerm(field string) string {
	if field == "timeout" {
		return "timeout_s"
	}
	return field
}

// toolError words a use case's error for an agent: what only the user can
// do is said to be the user's.
func toolError(err error) error {
	var na *workspace.NotApprovedError
	switch {
	case errors.As(err, &na):
		flag := ""
		if na.Opaque {
			flag = " --opaque"
		}
		return fmt.Errorf("%w\n(an agent cannot approve a command: ask the user to read it and run zk trust %s --falsifier %d%s)",
			err, printable.Of(runner.Quote([]string{na.Note})), na.Falsifier, flag)
	case errors.Is(err, workspace.ErrNoVault):
		return fmt.Errorf("%w; start zk mcp with --vault DIR, or ask the user to make the folder a vault (zk init)", err)
	}
	return err
}

type checkInput struct {
	Paths []string `json:"paths,omitempty" jsonschema:"notes (vault path or name) or folders to check; none checks the whole vault"`
	pageInput
}

// checkPage is a page of zk check --format json's findings; its summary
// counts them all.
type checkPage struct {
	view.Check
	pageOutput
	told
}

func (z *zkServer) check(ctx context.Context, req *sdk.CallToolRequest, in checkInput) (*sdk.CallToolResult, checkPage, error) {
	ctx = readingProgress(ctx, req)
	return answer(ctx, z, workspace.Reading, func(w *workspace.Workspace, out *checkPage) error {
		res, err := w.Check(ctx, workspace.CheckRequest{Paths: in.Paths, InVault: true})
		if err != nil {
			return err
		}
		// What zk check PATH says on stderr of a path it leaves out: a
		// result without it reads as that file checked and clean.
		for _, p := range res.PassedOver {
			out.tell([]string{printable.Of(p.Arg + ": not checked: " + p.Why)})
		}
		out.Check = view.NewCheck(res, toolCall)
		out.Findings, out.pageOutput, err = pageOf(out.Findings, in.pageInput)
		return err
	})
}

type staleInput struct {
	Within string `json:"within,omitempty" jsonschema:"also list notes due within this interval (14d, 2w, 1m)"`
	pageInput
}

// stalePage is zk stale --format json with a page of its notes, the most
// overdue first (the undated ones and the problems whole).
type stalePage struct {
	view.Stale
	pageOutput
	told
}

func (z *zkServer) stale(ctx context.Context, req *sdk.CallToolRequest, in staleInput) (*sdk.CallToolResult, stalePage, error) {
	ctx = readingProgress(ctx, req)
	return answer(ctx, z, workspace.Reading, func(w *workspace.Workspace, out *stalePage) error {
		r, err := w.Stale(ctx, workspace.StaleRequest{Within: in.Within})
		if err != nil {
			return err
		}
		out.Stale = view.NewStale(w.Today, r.StaleReport)
		out.Notes, out.pageOutput, err = pageOf(out.Notes, in.pageInput)
		return err
	})
}

type searchInput struct {
	Query  string `json:"query" jsonschema:"the query, in bleve's query-string syntax"`
	Limit  int32  `json:"limit,omitempty" jsonschema:"at most this many notes (default 10, at most 1000)"`
	Offset int32  `json:"offset,omitempty" jsonschema:"skip this many of the best matches: the next_offset of the page before"`
}

// searchPage is zk search --format json, a page of its hits; total
// counts every note that matched.
type searchPage struct {
	view.Search
	NextOffset int `json:"next_offset,omitempty"`
	told
}

// search searches, building or updating the index first when it must:
// a client that gave a progress token is told how far the build is (the
// first search of a 6,500-note vault took 22 s).
func (z *zkServer) search(ctx context.Context, req *sdk.CallToolRequest, in searchInput) (*sdk.CallToolResult, searchPage, error) {
	limit, offset, err := pageInput{Limit: in.Limit, Offset: in.Offset}.bounds()
	if err != nil {
		return nil, searchPage{}, fmt.Errorf("search: %w", err)
	}
	if in.Limit == 0 {
		limit = 10
	}
	return answer(ctx, z, workspace.Writing, func(w *workspace.Workspace, out *searchPage) error {
		res, err := w.Search(ctx, workspace.SearchRequest{Query: in.Query, Limit: offset + limit, EveryNote: true,
			Index: workspace.IndexOptions{Dir: z.opts.IndexDir, Wait: index.DefaultWait,
				Progress: progressOf(ctx, req, "indexing the vault's notes")}})
		if err != nil {
			return err
		}
		out.Search = view.NewSearch(res)
		out.Hits = out.Hits[min(offset, len(out.Hits)):]
		if next := offset + len(out.Hits); uint64(next) < out.Total && len(out.Hits) == limit {
			out.NextOffset = next
		}
		return nil
	})
}

// notePageInput is a note and a page of what is listed of it.
type notePageInput struct {
	Note string `json:"note" jsonschema:"the note: its vault path (Folder/Note.md) or its name as a wikilink writes it"`
	pageInput
}

// linksPage and backlinksPage are zk links and zk backlinks --format
// json, a page of them.
type linksPage struct {
	view.Links
	pageOutput
	told
}

type backlinksPage struct {
	view.Backlinks
	pageOutput
	told
}

func (z *zkServer) links(ctx context.Context, req *sdk.CallToolRequest, in notePageInput) (*sdk.CallToolResult, linksPage, error) {
	ctx = readingProgress(ctx, req)
	return answer(ctx, z, workspace.Reading, func(w *workspace.Workspace, out *linksPage) error {
		p, edges, err := w.Links(ctx, in.Note)
		if err != nil {
			return err
		}
		out.Note = p
		out.Edges, out.pageOutput, err = pageOf(view.NewEdges(edges), in.pageInput)
		return err
	})
}

func (z *zkServer) backlinks(ctx context.Context, req *sdk.CallToolRequest, in notePageInput) (*sdk.CallToolResult, backlinksPage, error) {
	ctx = readingProgress(ctx, req)
	return answer(ctx, z, workspace.Reading, func(w *workspace.Workspace, out *backlinksPage) error {
		got, err := w.Backlinks(ctx, in.Note)
		if err != nil {
			return err
		}
		out.Note, out.Unresolved = got.Note, got.Unwritten
		if n := got.Notice(); n != "" {
			out.tell([]string{n})
		}
		out.Edges, out.pageOutput, err = pageOf(view.NewEdges(got.Edges), in.pageInput)
		return err
	})
}

// runsPage is zk runs --format json with a page of its runs, oldest
// first (each falsifier's history whole).
type runsPage struct {
	view.NoteRuns
	pageOutput
	told
}

func (z *zkServer) runs(ctx context.Context, _ *sdk.CallToolRequest, in notePageInput) (*sdk.CallToolResult, runsPage, error) {
	return answer(ctx, z, workspace.Reading, func(w *workspace.Workspace, out *runsPage) error {
		nr, err := w.Runs(ctx, in.Note)
		if err != nil {
			return err
		}
		out.NoteRuns = view.NewRuns(nr, toolCall)
		out.Runs, out.pageOutput, err = pageOf(out.Runs, in.pageInput)
		return err
	})
}

type readNoteInput struct {
	Note    string `json:"note" jsonschema:"the note: its vault path or its name"`
	Section string `json:"section,omitempty" jsonschema:"a heading's text (any level, case ignored): return only that section, heading line included"`
}

type readNoteOutput struct {
	Path     string   `json:"path"`
	Section  string   `json:"section,omitempty"`
	Text     string   `json:"text"`
	Headings []string `json:"headings"`
	told
}

func (z *zkServer) readNote(ctx context.Context, _ *sdk.CallToolRequest, in readNoteInput) (*sdk.CallToolResult, readNoteOutput, error) {
	return answer(ctx, z, workspace.Reading, func(w *workspace.Workspace, out *readNoteOutput) error {
		n, err := w.ReadNote(ctx, in.Note, in.Section)
		*out = readNoteOutput{Path: n.Path, Section: n.Section, Text: n.Text, Headings: n.Headings}
		return err
	})
}

type tendInput struct {
	Note string `json:"note" jsonschema:"the note: its vault path or its name"`
	Date string `json:"date,omitempty" jsonschema:"the YYYY-MM-DD to set (default: today)"`
}

// tendOutput is what the tend tool did.
type tendOutput struct {
	Path      string `json:"path"`
	Date      string `json:"date"`
	Was       string `json:"was,omitempty"`
	Unchanged bool   `json:"unchanged"`
	told
}

func (z *zkServer) tend(ctx context.Context, _ *sdk.CallToolRequest, in tendInput) (*sdk.CallToolResult, tendOutput, error) {
	req := workspace.TendRequest{Note: in.Note, Date: in.Date}
	if err := workspace.CheckTend(req, toolTerm); err != nil {
		return nil, tendOutput{}, err // before the vault is opened
	}
	return answer(ctx, z, workspace.Writing, func(w *workspace.Workspace, out *tendOutput) error {
		t, err := w.Tend(ctx, req)
		*out = tendOutput{Path: t.Path, Date: t.Date, Was: t.Was, Unchanged: t.Unchanged}
		return err
	})
}

type newInput struct {
	Title string `json:"title" jsonschema:"the note's title; its file name is the title without the characters a file name cannot hold"`
	Type  string `json:"type,omitempty" jsonschema:"the note type, as named in .zk/config.toml (default permanent)"`
}

type newOutput struct {
	Path string `json:"path"`
	told
}

func (z *zkServer) newNote(ctx context.Context, _ *sdk.CallToolRequest, in newInput) (*sdk.CallToolResult, newOutput, error) {
	var out newOutput
	err := z.withTold(ctx, workspace.Writing, func(w *workspace.Workspace) error {
		p, err := w.New(ctx, workspace.NewRequest{Type: in.Type, Title: in.Title, Now: time.Now()})
		out.Path = p
		return err
	}, out.tell)
	if err != nil {
		return nil, newOutput{}, err
	}
	z.notesChanged(ctx)
	return nil, out, nil
}

type runFalsifierInput struct {
	Note string `json:"note"`
	// Falsifier is a number (1) or a string ("1", a piece of its text).
	Falsifier any     `json:"falsifier,omitempty"`
	TimeoutS  float64 `json:"timeout_s,omitempty"`
	Tend      bool    `json:"tend,omitempty"`
}

// runFalsifierSchema is run_falsifier's input schema, written out: its
// falsifier is an integer (its number) or a string (its number, or a
// piece of its text), which a Go type's inferred schema cannot say; an
// agent reading "its number" sends 1, and a schema of string alone
// refused it.
var runFalsifierSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"note": map[string]any{"type": "string", "description": "the note: its vault path or its name"},
		"falsifier": map[string]any{"type": []string{"integer", "string"},
			"description": "the falsifier: its number (1 is the first), or a piece of its text; may be left out when the note lists one"},
		"timeout_s": map[string]any{"type": "number", "description": "kill the command after this many seconds (default 600)"},
		"tend":      map[string]any{"type": "boolean", "description": "also set the note's Last tended date to today"},
	},
	"required":             []string{"note"},
	"additionalProperties": false,
}

// falsifierArg is a tool's falsifier as zk run's --falsifier takes it: a
// number as its digits.
func falsifierArg(tool string, v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case float64:
		if x != math.Trunc(x) || x < 1 || x > 1e9 {
			return "", fmt.Errorf("%s: falsifier %v is not a falsifier's number (1 is the first)", tool, x)
		}
		return strconv.Itoa(int(x)), nil
	}
	return "", fmt.Errorf("%s: falsifier is a number or a piece of its text, not %T", tool, v)
}

// maxTimeoutS is the longest timeout_s a time.Duration holds (about 292
// years): past it the seconds overflowed into a negative duration, and
// an agent asking for 1e12 was told that its timeout was not positive.
const maxTimeoutS = math.MaxInt64 / int64(time.Second)

// timeoutArg is run_falsifier's timeout_s as the run's timeout: 0 for
// the default. A positive timeout_s is rounded up to the nanosecond, so
// that a tiny one is not taken for 0, the default of ten minutes; a
// negative one is left for the use case to refuse in its terms.
func timeoutArg(s float64) (time.Duration, error) {
	if s > float64(maxTimeoutS) {
		return 0, fmt.Errorf("run_falsifier: timeout_s %g is over the %d seconds (292 years) a timeout can be", s, maxTimeoutS)
	}
	return time.Duration(math.Ceil(s * float64(time.Second))), nil
}

type runFalsifierOutput struct {
	Note string   `json:"note"`
	Run  view.Run `json:"run"`
	// Output is the command's output, its last 64 KiB.
	Output string `json:"output"`
	told
}

// maxToolOutput bounds the command output a run_falsifier result carries;
// the full log stays in .zk/runs/.
const maxToolOutput = 64 << 10

// runFalsifier is zk run NOTE --falsifier N without a command after --:
// the use case takes the command written in the note and runs it only if
// the trust store approves that text for that note. No argv from the
// agent ever reaches the runner.
func (z *zkServer) runFalsifier(ctx context.Context, _ *sdk.CallToolRequest, in runFalsifierInput) (*sdk.CallToolResult, runFalsifierOutput, error) {
	falsifier, err := falsifierArg("run_falsifier", in.Falsifier)
	if err != nil {
		return nil, runFalsifierOutput{}, err
	}
	timeout, err := timeoutArg(in.TimeoutS)
	if err != nil {
		return nil, runFalsifierOutput{}, err
	}
	live := &tail{max: maxToolOutput}
	return answer(ctx, z, workspace.Writing, func(w *workspace.Workspace, res *runFalsifierOutput) error {
		ran, err := w.Run(ctx, workspace.RunRequest{Note: in.Note, Falsifier: falsifier,
			Timeout: timeout, MaxLog: 1 << 20, Tend: in.Tend, Live: live})
		if err != nil {
			return err
		}
		// The run as the note now holds it, as the runs tool returns it.
		nr, err := w.Runs(ctx, ran.Note)
		if err != nil {
			return err
		}
		for _, r := range nr.Runs {
			if r.ID == ran.Run.ID {
				res.Run = view.NewRun(r)
			}
		}
		if res.Run.ID == "" {
			return errors.New("run_falsifier: the run was not recorded in the note (see .zk/runs/)")
		}
		res.Note, res.Output = ran.Note, live.String()
		return nil
	})
}

// tail keeps the last max bytes written to it.
type tail struct {
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string { return string(t.b) }

// vaultFiles walks the vault (a test counts the walks).
var vaultFiles = func(ctx context.Context, v *vault.Vault) ([]vault.File, []vault.Skip, error) { return v.Files(ctx) }

// noteURIPrefix is the scheme of a note's resource: zk://note/PATH, the
// vault path percent-encoded segment by segment.
const noteURIPrefix = "zk://note/"

func noteURI(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return noteURIPrefix + strings.Join(segs, "/")
}

// syncNotes lists each note of the vault as it is now as a resource: a
// note created, moved or deleted since the last listing, by a tool or
// outside zk, is added or removed, and the SDK tells the client the list
// changed (notifications/resources/list_changed, which the server's
// listChanged capability promises). Any note, one created since too, is
// read through the template zk://note/{+path}.
func (z *zkServer) syncNotes(ctx context.Context) error {
	var files []vault.File
	err := z.with(ctx, workspace.Reading, func(w *workspace.Workspace) error {
		var err error
		files, _, err = vaultFiles(ctx, w.Vault)
		return err
	})
	if err != nil {
		return err
	}
	_, notes := vault.SplitFiles(files)
	z.listedMu.Lock()
	defer z.listedMu.Unlock()
	now := make(map[string]bool, len(notes))
	for _, f := range notes {
		uri := noteURI(f.Path)
		now[uri] = true
		if !z.listed[uri] { // AddResource says the list changed even when it replaces one alike
			z.srv.AddResource(&sdk.Resource{URI: uri, Name: f.Path, Title: strings.TrimSuffix(path.Base(f.Path), path.Ext(f.Path)), MIMEType: "text/markdown"}, z.readResource)
		}
	}
	var gone []string
	for uri := range z.listed {
		if !now[uri] {
			gone = append(gone, uri)
		}
	}
	if len(gone) > 0 {
		z.srv.RemoveResources(gone...)
	}
	z.listed = now
	return nil
}

// notesChanged lists the notes again after a tool that may have created
// or moved some, once the client has listed them: it is then told the
// list changed, and a moved note's old URI is listed no more. A failure
// leaves the list to the client's next listing, which walks the vault
// again.
func (z *zkServer) notesChanged(ctx context.Context) {
	z.listedMu.Lock()
	listed := z.listed != nil
	z.listedMu.Unlock()
	if listed {
		z.syncNotes(ctx) //nolint:errcheck // the tool's answer stands; the next resources/list says what failed
	}
}

// freshResources lists the notes again at the first page of each
// resources/list, so that the list is the vault's as it is now (notes
// created or moved outside zk since, too); the later pages are read from
// the same list, as the cursor of the first names it.
func (z *zkServer) freshResources(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if r, ok := req.(*sdk.ListResourcesRequest); ok && (r.Params == nil || r.Params.Cursor == "") {
			if err := z.syncNotes(ctx); err != nil {
				// In the protocol's terms: a bare error goes out as code 0.
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
			}
		}
		return next(ctx, method, req)
	}
}

// notFoundAsJSON gives a resource read's not-found error data that is
// JSON: the SDK's (ResourceNotFoundError, ours and its own for a URI no
// resource matches) quotes the URI with Go's %q, whose "\x1b" is no
// JSON, and a URI holding a control character or a byte that is not
// UTF-8 made the server fail to write the answer and end the session.
func notFoundAsJSON(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		var e *jsonrpc.Error
		if r, ok := req.(*sdk.ReadResourceRequest); ok && errors.As(err, &e) && e.Data != nil && !json.Valid(e.Data) {
			var uri string
			if r.Params != nil {
				uri = strings.ToValidUTF8(r.Params.URI, "\uFFFD")
			}
			data, merr := json.Marshal(map[string]string{"uri": uri})
			if merr != nil {
				data = nil
			}
			return res, &jsonrpc.Error{Code: e.Code, Message: e.Message, Data: data}
		}
		return res, err
	}
}

// resourceWarnings is the _meta key of a resource read's warnings, what
// zk warned of while reading the note (a tool's result has them as its
// warnings). A read's contents are the resource's own, each named by its
// URI, so a warning there would pass for part of the note or for
// another resource; _meta is where the protocol lets a server add to a
// result, its key prefixed in reverse DNS as the protocol asks.
const resourceWarnings = "io.github.zk-claims/warnings"

func (z *zkServer) readResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	rest, ok := strings.CutPrefix(uri, noteURIPrefix)
	if !ok {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	p, err := url.PathUnescape(rest)
	if err != nil || path.Clean(p) != p || !vault.Local(p) {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	// A note the last listing listed is read by its path: a walk to find
	// it cost the whole vault's each read. Any other (one created since,
	// a URI in another case) is looked for among the vault's files.
	z.listedMu.Lock()
	listed := z.listed[uri]
	z.listedMu.Unlock()
	var src []byte
	var warnings []string
	found := true
	err = z.withTold(ctx, workspace.Reading, func(w *workspace.Workspace) error {
		got := p
		if !listed {
			files, _, err := vaultFiles(ctx, w.Vault)
			if err != nil {
				return err
			}
			var ok bool
			if got, ok = vault.ResolverOf(files).Has(p); !ok || !strings.EqualFold(path.Ext(got), ".md") {
				found = false
				return nil
			}
		}
		var err error
		src, err = w.Vault.ReadFile(got, w.Vault.MaxNoteSize)
		if listed && errors.Is(err, fs.ErrNotExist) { // deleted since the listing
			found = false
			return nil
		}
		return err
	}, func(lines []string) { warnings = lines })
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	res := &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: string(src)}}}
	if len(warnings) > 0 {
		res.Meta = sdk.Meta{resourceWarnings: warnings}
	}
	return res, nil
}
