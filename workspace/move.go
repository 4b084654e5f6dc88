package workspace

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/internal/shutdown"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/move"
)

// MovePlan is a move planned (move.Plan) and what it does: the files it
// renames, the heading it renames (or the H1 renamed with its note), and
// every link it rewrites, each edit's line 1-based.
type MovePlan struct {
	Plan                 *move.Plan
	Moved                []move.Rename
	Heading, Retitled    *HeadingMove
	Files, Links         int
	Edits                []MoveEdit
	Captured, Unwritable []string
	// Retyped are the notes whose type the move changes: a type's folder
	// makes a note of it (the documented promotion, Inbox/Idea.md to
	// Permanent Notes/), which a user should not learn from zk check.
	Retyped []Retype
}

// Retype is a note whose type a move changes; "" is no type.
type Retype struct{ Note, From, To string }

// HeadingMove is a heading renamed in a note.
type HeadingMove struct{ Note, From, To string }

// MoveEdit is one line a move rewrites: a link, or a heading's own line.
type MoveEdit struct {
	Path     string
	Line     int
	Old, New string
}

// PlanMove plans zk mv's move of old to new (a file or folder, or
// NOTE#Heading to NOTE#New): zk mv, and the MCP move tool's dry run and
// its move. Nothing is written.
func (w *Workspace) PlanMove(ctx context.Context, old, new string) (MovePlan, error) {
	v := w.Vault
	files, _, err := v.Files(ctx)
	if err != nil {
		return MovePlan{}, err
	}
	var out MovePlan
	var plan *move.Plan
	if oldNote, oldH, ok := strings.Cut(old, "#"); ok {
		newH, err := newHeading(new)
		if err != nil {
			return MovePlan{}, err
		}
		p, err := FindNote(v, files, oldNote)
		if err != nil {
			return MovePlan{}, err
		}
		if newNote, _, _ := strings.Cut(new, "#"); newNote != "" {
			if q, err := FindNote(v, files, newNote); err != nil || q != p {
				return MovePlan{}, usage(fmt.Errorf("move: a heading is renamed within its note; %q is not %s", newNote, printable.Of(p)))
			}
		}
		if plan, err = move.Heading(ctx, v, files, p, oldH, newH); err != nil {
			return MovePlan{}, err
		}
		out.Heading = &HeadingMove{Note: p, From: oldH, To: newH}
	} else {
		oldP, folder, err := mvSource(v, files, old)
		if err != nil {
			return MovePlan{}, err
		}
		newP, err := mvDest(v, oldP, folder, new)
		if err != nil {
			return MovePlan{}, err
		}
		f, err := move.ReadFormat(v)
		if err != nil {
			return MovePlan{}, err
		}
		if plan, err = move.Move(ctx, v, files, oldP, newP, f); err != nil {
			return MovePlan{}, err
		}
		out.Moved = plan.Renames
		out.Retyped = w.retyped(ctx, files, plan.Renames)
		for _, fe := range plan.Files {
			for _, e := range fe.Edits {
				if e.Link == "" { // the H1, the one heading a move edits
					out.Retitled = &HeadingMove{Note: fe.Path, From: e.Old, To: e.New}
				}
			}
		}
	}
	out.Plan, out.Files, out.Links = plan, len(plan.Files), plan.Links
	out.Captured, out.Unwritable = plan.Captured, plan.Unwritable
	for _, fe := range plan.Files {
		for _, e := range fe.Edits {
			old, new := e.Link, e.NewLink
			if old == "" { // the heading's own line
				old, new = e.Old, e.New
			}
			out.Edits = append(out.Edits, MoveEdit{Path: fe.Path, Line: e.Line + 1, Old: old, New: new})
		}
	}
	return out, nil
}

// retyped are the moved notes whose type differs at their new path,
// those of a folder moved too: each is read once, as the move reads
// every note for its links.
func (w *Workspace) retyped(ctx context.Context, files []vault.File, renames []move.Rename) []Retype {
	var out []Retype
	retype := func(from, to string) {
		n, err := w.Vault.ReadNote(from)
		if err != nil {
			return // the move itself says what is wrong with it
		}
		moved := *n
		moved.Path = to
		if a, b := typeName(vault.TypeOf(w.Types, n)), typeName(vault.TypeOf(w.Types, &moved)); a != b {
			out = append(out, Retype{Note: to, From: a, To: b})
		}
	}
	for _, r := range renames {
		if !r.Folder {
			if vault.IsNotePath(r.From) {
				retype(r.From, r.To)
			}
			continue
		}
		for _, f := range files {
			if ctx.Err() != nil {
				return out
			}
			if rest, ok := strings.CutPrefix(f.Path, r.From+"/"); ok && vault.IsNotePath(f.Path) {
				retype(f.Path, r.To+"/"+rest)
			}
		}
	}
	return out
}

func typeName(t *vault.NoteType) string {
	if t == nil {
		return ""
	}
	return t.Name
}

// ApplyMove applies a plan as zk mv does: journalled under the user's
// sealing key. A stop (Ctrl-C, SIGTERM: ctx ending) interrupts the move,
// which is undone (move.Apply) and says so with move.ErrInterrupted; the
// exit is held off (shutdown.Hold) only until the files under way are
// whole and the undo has had its time, never until the move is done. A
// move made is the command's result, whatever signal lands after it
// (shutdown.Done).
func (w *Workspace) ApplyMove(ctx context.Context, p MovePlan, ao move.ApplyOptions) error {
	key, err := JournalKey(true)
	if err != nil {
		return fmt.Errorf("move: %w", err)
	}
	ao.Key = key
	release := shutdown.Hold(ctx)
	defer release()
	// The ledger's entries are by note path: read before the move, they
	// are moved with their notes after it (evidence.LedgerMove), else the
	// refutations of a note moved would no longer be checked against it.
	ledger := w.ledger(nil)
	if err := move.Apply(ctx, w.Vault, p.Plan, ao); err != nil {
		return err
	}
	shutdown.Done(ctx)
	if len(ledger) == 0 {
		return nil
	}
	var moves []evidence.LedgerMove
	for _, r := range p.Plan.Renames {
		moves = append(moves, evidence.LedgerMoves(ledger, r.From, r.To, r.Folder)...)
	}
	if err := evidence.AppendLedgerMoves(w.Vault, moves); err != nil {
		// The move is done; what is lost is the ledger following it, which
		// zk check then finds by the run's block or falsifier id.
		w.warn("%s not updated: %s", evidence.LedgerFile, err)
	}
	return nil
}

// newHeading is the heading a "NOTE#New" (or "#New") argument names.
func newHeading(arg string) (string, error) {
	_, h, ok := strings.Cut(arg, "#")
	if !ok || strings.TrimSpace(h) == "" {
		return "", usage(fmt.Errorf("move: a heading is renamed from Note#Old to Note#New (or #New); %q has no #heading", arg))
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
		if rel, ok := vault.Within(v.Dir, abs); ok {
			cands = append(cands, rel)
		} else if _, err := os.Stat(abs); err == nil {
			return "", false, fmt.Errorf("%s: %w", printable.Of(arg), vault.ErrOutsideVault)
		}
	}
	cands = append(cands, path.Clean(filepath.ToSlash(arg)))
	for _, p := range cands {
		if p == "." || !vault.Local(p) {
			continue
		}
		if r.HasExactly(p) {
			return p, false, nil
		}
		if st, err := v.Root().Lstat(filepath.FromSlash(p)); err == nil && st.IsDir() {
			return p, true, nil
		}
	}
	if p, err := FindNote(v, files, arg); err == nil {
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
	if !vault.Local(p) {
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
	_, ok := vault.Within(v.Dir, wd)
	return ok
}
