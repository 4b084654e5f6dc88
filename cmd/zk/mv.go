package main

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/internal/shutdown"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/move"
	"github.com/zk-claims/zk/workspace"
)

type mvOptions struct {
	root   *rootOptions
	old    string
	new    string
	dryRun bool
	format string
	// killAfter, from $ZK_TEST_MV_KILL_AFTER, kills the process with
	// SIGKILL after that many steps of the move: how the tests leave a
	// move half done for the next zk command to finish.
	killAfter int
}

func newMvCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &mvOptions{root: root}
	cmd := &cobra.Command{
		Use:   "mv <old> <new>",
		Short: "Move or rename a note, attachment, folder or heading, rewriting every link to it",
		Long: `Move or rename a note, an attachment or a folder, and rewrite every link
the move would break, across the vault: wikilinks, embeds, markdown links
(percent-encoded or in angle brackets) and frontmatter links, each keeping
its heading or block suffix and its display text. A link that no longer
reaches its file is written as Obsidian writes a new link, in the vault's
"New link format" (.obsidian/app.json newLinkFormat: shortest, the default,
is the file's name where no other file has it, else its full path;
relative; absolute). A link that reached another file keeps reaching it,
lengthened where the move would make it reach the moved file; a link that
reached nothing is left as written.

OLD is a path (relative to the working directory or to the vault) or a
note's name. NEW is a path; a NEW without a folder renames in place (one
that is OLD's own name is a path from the working directory: zk mv
"3. Resources/MOCs" MOCs), a NEW that is a folder (or ends in /) moves into
it, and a note keeps its .md. A renamed note whose H1 was its old name
gets the new name as its H1, and links to that heading follow.

  zk mv "Old Title" "New Title"
  zk mv Inbox/Idea.md "Permanent Notes/"
  zk mv "Note#Old heading" "Note#New heading"

The last form renames a heading and rewrites every link to it.

The move is all or nothing: a journal under .zk/journal/ is written before
any file changes, each file is written atomically (the previous version
kept under .zk/backups/), and a move cut short by a crash is finished by
the next zk command. A file changed by another program meanwhile undoes
the move. zk refuses when NEW exists, and a path outside the vault.

EXIT STATUS
  0  moved (or, with --dry-run, planned)
  2  refused, not found, or a usage error`,
		Args: nArgs(2, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.old, opts.new = args[0], args[1]
			if k := root.getenv("ZK_TEST_MV_KILL_AFTER"); k != "" {
				n, err := strconv.Atoi(k)
				if err != nil {
					return usageError{fmt.Errorf("ZK_TEST_MV_KILL_AFTER: %w", err)}
				}
				opts.killAfter = n
			}
			return runMv(cmd.Context(), opts, s)
		},
		ValidArgsFunction: completeNote(root, s),
	}
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "print the plan (the renames and each link, old → new), write nothing")
	addFormatFlag(cmd, &opts.format, "output `format`", "text", "json")
	return cmd
}

// mvOutput is what zk mv did or, with --dry-run, would do.
type mvOutput struct {
	DryRun  bool          `json:"dry_run"`
	Moved   []move.Rename `json:"moved"`
	Heading *headingMove  `json:"heading,omitempty"`
	// Retitled is the renamed note's H1, renamed with it when it was the
	// note's old name.
	Retitled   *headingMove `json:"retitled,omitempty"`
	Files      int          `json:"files"`
	Links      int          `json:"links"`
	Edits      []mvEdit     `json:"edits"`
	Captured   []string     `json:"captured"`
	Unwritable []string     `json:"unwritable"`
}

type headingMove struct {
	Note string `json:"note"`
	From string `json:"from"`
	To   string `json:"to"`
}

type mvEdit struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

func runMv(ctx context.Context, opts *mvOptions, s *streams) error {
	w, err := opts.root.open(s, workspace.Writing, strings.SplitN(opts.old, "#", 2)[0])
	if err != nil {
		return err
	}
	defer w.Close()
	plan, out, err := planMv(ctx, w.Vault, opts.old, opts.new)
	if err != nil {
		return err
	}
	out.DryRun = opts.dryRun
	if len(plan.Unwritable) > 0 && !opts.dryRun {
		return fmt.Errorf("mv: %s the move would break that zk cannot rewrite (reference-style or unusual frontmatter links); nothing was moved:\n  %s",
			quantity(len(plan.Unwritable), "link"), printable.Of(strings.Join(plan.Unwritable, "\n  ")))
	}
	if !opts.dryRun {
		ao := move.ApplyOptions{AfterFile: opts.kill}
		if opts.killAfter > 0 {
			ao.Workers = 1 // killed after exactly that many files
		}
		if err := applyMv(ctx, w.Vault, plan, ao); err != nil {
			return err
		}
	}
	if opts.format == "json" {
		return writeJSON(s.out, out)
	}
	printMv(s, out)
	return nil
}

// planMv is zk mv's plan for OLD → NEW (a file or folder, or NOTE#Heading
// → NOTE#New), and what it does as --format json says it: zk mv, and the
// MCP move tool's dry run and its move.
func planMv(ctx context.Context, v *vault.Vault, old, new string) (*move.Plan, mvOutput, error) {
	files, _, err := v.Files(ctx)
	if err != nil {
		return nil, mvOutput{}, err
	}
	var out mvOutput
	var plan *move.Plan
	if oldNote, oldH, ok := strings.Cut(old, "#"); ok {
		newH, err := newHeading(new)
		if err != nil {
			return nil, mvOutput{}, err
		}
		p, err := workspace.FindNote(v, files, oldNote)
		if err != nil {
			return nil, mvOutput{}, err
		}
		if newNote, _, _ := strings.Cut(new, "#"); newNote != "" {
			if q, err := workspace.FindNote(v, files, newNote); err != nil || q != p {
				return nil, mvOutput{}, usageError{fmt.Errorf("mv: a heading is renamed within its note; %q is not %s", newNote, printable.Of(p))}
			}
		}
		if plan, err = move.Heading(ctx, v, files, p, oldH, newH); err != nil {
			return nil, mvOutput{}, err
		}
		out.Heading = &headingMove{Note: p, From: oldH, To: newH}
	} else {
		oldP, folder, err := mvSource(v, files, old)
		if err != nil {
			return nil, mvOutput{}, err
		}
		newP, err := mvDest(v, oldP, folder, new)
		if err != nil {
			return nil, mvOutput{}, err
		}
		f, err := move.ReadFormat(v)
		if err != nil {
			return nil, mvOutput{}, err
		}
		if plan, err = move.Move(ctx, v, files, oldP, newP, f); err != nil {
			return nil, mvOutput{}, err
		}
		out.Moved = plan.Renames
		for _, fe := range plan.Files {
			for _, e := range fe.Edits {
				if e.Link == "" { // the H1, the one heading a move edits
					out.Retitled = &headingMove{Note: fe.Path, From: e.Old, To: e.New}
				}
			}
		}
	}
	out.Files, out.Links = len(plan.Files), plan.Links
	out.Captured, out.Unwritable = nonNil(plan.Captured), nonNil(plan.Unwritable)
	if out.Moved == nil {
		out.Moved = []move.Rename{}
	}
	out.Edits = []mvEdit{}
	for _, fe := range plan.Files {
		for _, e := range fe.Edits {
			old, new := e.Link, e.NewLink
			if old == "" { // the heading's own line
				old, new = e.Old, e.New
			}
			out.Edits = append(out.Edits, mvEdit{Path: fe.Path, Line: e.Line + 1, Old: old, New: new})
		}
	}
	return plan, out, nil
}

// applyMv applies a plan as zk mv does: journalled under the user's
// sealing key, a stop (Ctrl-C, SIGTERM) held off until the files are
// moved and the links written.
func applyMv(ctx context.Context, v *vault.Vault, plan *move.Plan, ao move.ApplyOptions) error {
	key, err := workspace.JournalKey(true)
	if err != nil {
		return fmt.Errorf("mv: %w", err)
	}
	ao.Key = key
	release := shutdown.Hold(ctx)
	defer release()
	return move.Apply(v, plan, ao)
}

// nonNil is s, or an empty list for JSON's [] rather than null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// kill ends the process after step opts.killAfter, as a crash would.
func (opts *mvOptions) kill(step int) {
	if opts.killAfter > 0 && step == opts.killAfter {
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Kill()
		}
		select {} // until the signal lands
	}
}

func printMv(s *streams, out mvOutput) {
	verb, rewrote := "moved", "rewrote"
	if out.DryRun {
		verb, rewrote = "would move", "would rewrite"
	}
	if h := out.Heading; h != nil {
		fmt.Fprintf(s.out, "%s heading %s#%s → #%s\n", strings.Replace(verb, "move", "rename", 1), printable.Of(h.Note), printable.Of(h.From), printable.Of(h.To))
	}
	for _, r := range out.Moved {
		fmt.Fprintf(s.out, "%s %s → %s\n", verb, printable.Of(r.From), printable.Of(r.To))
	}
	if t := out.Retitled; t != nil {
		fmt.Fprintf(s.out, "%s its H1: # %s → # %s\n", strings.Replace(verb, "move", "retitle", 1), printable.Of(t.From), printable.Of(t.To))
	}
	if out.DryRun {
		for _, e := range out.Edits {
			fmt.Fprintf(s.out, "%s:%d: %s → %s\n", printable.Of(e.Path), e.Line, printable.Of(e.Old), printable.Of(e.New))
		}
	}
	fmt.Fprintf(s.out, "%s %s in %s\n", rewrote, quantity(out.Links, "link"), quantity(out.Files, "file"))
	for _, c := range out.Captured {
		fmt.Fprintf(s.err, "zk: warning: a link that reached nothing now reaches the moved file: %s\n", printable.Of(c))
	}
	for _, u := range out.Unwritable {
		fmt.Fprintf(s.err, "zk: warning: cannot rewrite %s\n", printable.Of(u))
	}
}

// newHeading is the heading a "NOTE#New" (or "#New") argument names.
func newHeading(arg string) (string, error) {
	_, h, ok := strings.Cut(arg, "#")
	if !ok || strings.TrimSpace(h) == "" {
		return "", usageError{fmt.Errorf("mv: renaming a heading takes NOTE#Old NOTE#New (or #New); %q has no #heading", arg)}
	}
	return h, nil
}

// mvSource is the vault path OLD names, and whether it is a folder: a file
// or folder by path (from the working directory, else the vault's root),
// else a note's or attachment's name as a link writes it.
func mvSource(v *vault.Vault, files []vault.File, arg string) (string, bool, error) {
	r := vault.ResolverOf(files)
	var cands []string
	if abs, err := filepath.Abs(arg); err == nil {
		if rel, err := filepath.Rel(v.Dir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			cands = append(cands, filepath.ToSlash(rel))
		} else if _, err := os.Stat(abs); err == nil {
			return "", false, fmt.Errorf("%s: %w", printable.Of(arg), vault.ErrOutsideVault)
		}
	}
	cands = append(cands, path.Clean(filepath.ToSlash(arg)))
	for _, p := range cands {
		if p == "." || strings.HasPrefix(p, "../") {
			continue
		}
		if r.HasExactly(p) {
			return p, false, nil
		}
		if st, err := v.Root().Lstat(filepath.FromSlash(p)); err == nil && st.IsDir() {
			return p, true, nil
		}
	}
	if p, err := workspace.FindNote(v, files, arg); err == nil {
		return p, false, nil
	} else if path.Ext(arg) == "" || vault.IsNotePath(arg) {
		return "", false, err
	}
	if p, ok := r.Resolve(arg, ""); ok {
		return p, false, nil
	}
	return "", false, fmt.Errorf("%q: %w in %s", arg, vault.ErrNotFound, v.Dir)
}

// mvDest is the vault path NEW names for a move of old: a bare name
// renames in place (unless it is old's own name: then it is a path), an
// existing folder (or a path ending in /) receives old under its own
// name, and a note keeps its .md.
func mvDest(v *vault.Vault, old string, folder bool, arg string) (string, error) {
	slash := filepath.ToSlash(arg)
	bare := !strings.Contains(slash, "/") && !filepath.IsAbs(arg)
	inPlace := path.Join(path.Dir(old), slash)
	if !folder && vault.IsNotePath(old) && !vault.IsNotePath(inPlace) {
		inPlace += ".md"
	}
	var p string
	switch {
	case bare && inPlace != old:
		p = path.Join(path.Dir(old), slash)
	// A bare NEW that is OLD's own name ("3. Resources/MOCs" MOCs) would
	// rename nothing: it is a path, from the working directory, as mv
	// takes it.
	case filepath.IsAbs(arg) || cwdInVault(v):
		abs, err := filepath.Abs(arg)
		if err != nil {
			return "", err
		}
		rel, err := filepath.Rel(v.Dir, abs)
		if err != nil {
			return "", fmt.Errorf("%s: %w", printable.Of(arg), vault.ErrOutsideVault)
		}
		p = filepath.ToSlash(rel)
	default:
		p = path.Clean(slash)
	}
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", fmt.Errorf("%s: %w; zk never writes outside the vault", printable.Of(arg), vault.ErrOutsideVault)
	}
	if err := v.Inside(p); err != nil {
		return "", fmt.Errorf("%s: %w", printable.Of(arg), vault.ErrOutsideVault)
	}
	if st, err := v.Root().Lstat(filepath.FromSlash(p)); strings.HasSuffix(slash, "/") || p == "." || (err == nil && st.IsDir() && !strings.EqualFold(p, old)) {
		p = path.Join(p, path.Base(old))
	}
	if !folder && vault.IsNotePath(old) && !vault.IsNotePath(p) {
		p += ".md"
	}
	return p, nil
}

// cwdInVault reports whether the working directory is inside the vault:
// then a path argument is taken from it, as a shell would.
func cwdInVault(v *vault.Vault) bool {
	wd, err := os.Getwd()
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(v.Dir, wd)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
