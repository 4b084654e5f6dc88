package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/base"
)

// BaseRequest names a base to evaluate: Base is a .base file (a path, or
// a name as a wikilink writes it) or a note that embeds bases; Embed
// picks one of a note's ("" the first, N the Nth, else the one showing
// that view); View names the view ("" the first, or the one the embed
// names); This is the note this refers to ("" the base file or the note
// embedding it). Outside lets Base name a .base file outside the vault,
// as the command line's user may; a front end serving someone else (an
// agent) leaves it false, and a path out of the vault is then refused by
// its text alone, as a note's is (FindNote).
type BaseRequest struct {
	Base, View, Embed, This string
	Outside                 bool
}

// BaseResult is a base evaluated: where it is (for messages), the view's
// result, and the warnings to tell (the result's own, each prefixed with
// where, and the rows skipped), not made printable.
type BaseResult struct {
	Where    string
	Result   *base.Result
	Warnings []string
	// Others are the warnings of Warnings not the result's own, as
	// given: how the base was read, the rows skipped. A front end with
	// no stderr adds them to the result's.
	Others []string
}

// Base evaluates a base as Obsidian's Bases plugin does (vault/base),
// over every file of the vault. On an error, the result still holds the
// warnings found before it.
func (w *Workspace) Base(ctx context.Context, req BaseRequest) (BaseResult, error) {
	var warns []string
	bs, err := w.readBase(ctx, req.Base, req.Embed, req.Outside)
	if err != nil {
		return BaseResult{}, err
	}
	where := bs.where
	if bs.warn != "" {
		warns = append(warns, bs.warn)
	}
	b, err := base.Parse(bs.src)
	if err != nil {
		return BaseResult{Where: where, Warnings: warns}, fmt.Errorf("%s: %w", printable.Of(where), err)
	}
	thisPath := bs.thisPath
	if req.This != "" {
		p, _, err := LocatePaths(ctx, w.Vault, req.This)
		if err != nil {
			return BaseResult{Where: where, Warnings: warns}, fmt.Errorf("%s: %w", w.field("this"), err)
		}
		thisPath = p
	}
	snap, err := w.baseSnapshot(ctx)
	if err != nil {
		return BaseResult{Where: where, Warnings: warns}, err
	}
	for _, p := range slices.Sorted(maps.Keys(snap.Skipped)) {
		warns = append(warns, fmt.Sprintf("%s: skipped (%s): a row without properties, tags or links", p, snap.Skipped[p]))
	}
	now := time.Now()
	if w.Pinned {
		t := w.Today
		now = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, w.zone())
	}
	view := req.View
	if view == "" {
		view = bs.view
	}
	res, err := base.Evaluate(ctx, snap, b, base.Options{View: view, Now: now, This: snap.File(thisPath)})
	if err != nil {
		var fe *base.FilterError
		if errors.As(err, &fe) {
			return BaseResult{Where: where, Warnings: warns}, fmt.Errorf("%s: the view cannot be evaluated: %s", printable.Of(where), printable.Of(strings.ReplaceAll(err.Error(), "\n", "; ")))
		}
		return BaseResult{Where: where, Warnings: warns}, fmt.Errorf("%s: %w", printable.Of(where), err)
	}
	others := slices.Clip(warns)
	for _, warn := range res.Warnings {
		warns = append(warns, where+": "+warn)
	}
	return BaseResult{Where: where, Result: res, Warnings: warns, Others: others}, nil
}

// basePurpose names Bases' section of the model file in its key.
const basePurpose = "zk base notes v2"

// baseNote is how Bases' entries of the notes among files are cached;
// its read is baseSnapshot's.
func (w *Workspace) baseNote() perNote[*base.File] {
	loc := w.zone()
	return perNote[*base.File]{
		folder: "base", purpose: basePurpose, inputs: baseInputs,
		one: func(n *vault.Note, r func() *vault.Resolver) *base.File {
			return base.Entry(n, r, loc, w.PropTypes)
		},
		encode:     base.EncodeNotes,
		decode:     func(b []byte) ([]*base.File, error) { return base.DecodeNotes(b, loc) },
		decodeText: func(b string) ([]*base.File, error) { return base.DecodeNotesText(b, loc) },
		path:       func(f *base.File) string { return f.Path },
		// base.Read gives an entry of every note it reads, in the files'
		// order, and a snapshot besides, made below when read is not
		// called (perNoteCache.current).
		keeps: func(string) bool { return true },
		names: true, // its links' targets
	}
}

// baseSnapshot is the vault as a base sees it (base.Read), every note's
// entry through the model file (cachedNotes, section "base"): on an
// unchanged vault a base parses no note, and every file's birth time is
// the walk's (vault.File.Birth), never the cache's.
func (w *Workspace) baseSnapshot(ctx context.Context) (*base.Snapshot, error) {
	files, _, err := w.Vault.Files(ctx)
	if err != nil {
		return nil, err
	}
	loc := w.zone()
	var snap *base.Snapshot
	c := w.baseNote()
	c.read = func(reuse func(string) (*base.File, bool), hashed func(*vault.Note)) ([]*base.File, error) {
		s, err := base.Read(ctx, w.Vault, files, loc, w.PropTypes, reuse, hashed)
		if err != nil {
			return nil, err
		}
		snap = s
		return s.Notes(), nil
	}
	notes, err := cachedNotes(w, ctx, files, c)
	if err != nil || snap != nil {
		return snap, err
	}
	// Every note's entry as decoded, in the files' order: each one
	// reused in turn, without the tables that find an entry by path.
	k := 0
	return base.Read(ctx, w.Vault, files, loc, w.PropTypes, func(p string) (*base.File, bool) {
		if k < len(notes) && notes[k].Path == p {
			k++
			return notes[k-1], true
		}
		return nil, false
	}, nil)
}

// baseSource is the base an argument names: its YAML, where it is (for
// messages), the vault path this refers to ("" for a .base file outside
// the vault), and a warning to print ("" for none).
type baseSource struct {
	src                   []byte
	where, thisPath, warn string
	// view is the view an embed names (![[File.base#View]]), or "".
	view string
}

// readBase reads the base an argument names: a .base file (in the vault,
// or, when outside allows, anywhere), or a base a note embeds (the first,
// or the one embed names).
func (w *Workspace) readBase(ctx context.Context, arg, embed string, outside bool) (*baseSource, error) {
	v := w.Vault
	if !strings.EqualFold(filepath.Ext(arg), ".base") {
		p, files, err := Locate(ctx, v, arg)
		if errors.Is(err, vault.ErrNotFound) {
			// No note of the name: a base of the name, as a wikilink
			// names one ([[Books.base]]), written without its extension.
			if bp, ok := vault.ResolverOf(files).Resolve(arg+".base", ""); ok {
				if embed != "" {
					return nil, usage(fmt.Errorf("%s chooses among the bases a note embeds; %s is a base file", w.field("embed"), printable.Of(bp)))
				}
				src, err := v.ReadFile(bp, base.MaxSize)
				return &baseSource{src: src, where: bp, thisPath: bp}, err
			}
		}
		if err != nil {
			return nil, err
		}
		n, err := v.ReadNote(p)
		if err != nil {
			return nil, err
		}
		return w.pickEmbedded(files, n, embed)
	}
	if embed != "" {
		return nil, usage(fmt.Errorf("%s chooses among the bases a note embeds; %s is a base file", w.field("embed"), printable.Of(arg)))
	}
	if !outside {
		return w.vaultBase(ctx, arg)
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return nil, err
	}
	if p, ok := vault.Within(v.Dir, abs); ok {
		if _, err := os.Stat(abs); err == nil {
			src, err := v.ReadFile(p, base.MaxSize)
			return &baseSource{src: src, where: p, thisPath: p}, err
		}
	}
	if p := filepath.ToSlash(filepath.Clean(arg)); !filepath.IsAbs(arg) {
		if src, err := v.ReadFile(p, base.MaxSize); err == nil {
			return &baseSource{src: src, where: p, thisPath: p}, nil
		}
	}
	f, err := os.Open(arg)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, base.MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	return &baseSource{src: src, where: arg}, nil
}

// vaultBase reads the .base file of the vault that arg names: by its
// path (filePath: one out of the vault is refused by its text, so that an
// agent cannot read a file outside it, nor learn whether one is there),
// else by its name as a wikilink writes it.
func (w *Workspace) vaultBase(ctx context.Context, arg string) (*baseSource, error) {
	v := w.Vault
	files, _, err := v.FilePaths(ctx)
	if err != nil {
		return nil, err
	}
	p, found, err := filePath(v, files, arg)
	if err != nil {
		return nil, err
	}
	if !found {
		p, found = vault.ResolverOf(files).Resolve(arg, "")
		found = found && strings.EqualFold(path.Ext(p), ".base")
	}
	if !found {
		return nil, usage(fmt.Errorf("%q: no .base file of that path or name in %s", arg, printable.Of(v.Dir)))
	}
	src, err := v.ReadFile(p, base.MaxSize)
	return &baseSource{src: src, where: p, thisPath: p}, err
}

// noteBase is a base a note embeds, where the note has it: a ```base
// block (src), or a .base file (file) and the view the embed names.
type noteBase struct {
	line       int
	src        []byte
	file, view string
}

func (nb noteBase) String() string {
	if nb.file == "" {
		return fmt.Sprintf("a base code block at line %d", nb.line)
	}
	if nb.view != "" {
		return fmt.Sprintf("![[%s#%s]] at line %d", nb.file, nb.view, nb.line)
	}
	return fmt.Sprintf("![[%s]] at line %d", nb.file, nb.line)
}

// noteBases are the bases a note embeds, in the order the note has them:
// its ```base blocks and its embeds of .base files, as Obsidian shows
// each where it is.
func noteBases(files []vault.File, n *vault.Note) []noteBase {
	var out []noteBase
	for _, b := range base.Blocks(n.Src) {
		out = append(out, noteBase{line: b.Line, src: []byte(b.Source)})
	}
	r := vault.ResolverOf(files)
	for _, e := range n.Embeds {
		target, ok := r.Resolve(e.Path, n.Path)
		if !ok || !strings.EqualFold(path.Ext(target), ".base") {
			continue
		}
		out = append(out, noteBase{line: e.Span.Start.Line, file: target, view: strings.TrimPrefix(e.Subpath, "#")})
	}
	slices.SortStableFunc(out, func(a, b noteBase) int { return a.line - b.line })
	return out
}

// pickEmbedded is the base of a note that embed names: "" the first, a
// number N the Nth (1 is the first), else the embed showing that view, or
// the first base that has a view of that name. This is the note.
func (w *Workspace) pickEmbedded(files []vault.File, n *vault.Note, embed string) (*baseSource, error) {
	v := w.Vault
	all := noteBases(files, n)
	if len(all) == 0 {
		return nil, fmt.Errorf("%s has no base code block (```base) and embeds no .base file", printable.Of(n.Path))
	}
	read := func(nb noteBase) (*baseSource, error) {
		bs := &baseSource{src: nb.src, where: n.Path, thisPath: n.Path, view: nb.view}
		if nb.file != "" {
			src, err := v.ReadFile(nb.file, base.MaxSize)
			if err != nil {
				return nil, err
			}
			bs.src, bs.where = src, nb.file
		}
		return bs, nil
	}
	list := func() string {
		var out []string
		for i, nb := range all {
			out = append(out, fmt.Sprintf("%d: %s", i+1, nb))
		}
		return strings.Join(out, "; ")
	}
	if embed == "" {
		bs, err := read(all[0])
		if err == nil && len(all) > 1 {
			bs.warn = fmt.Sprintf("%s embeds %d bases; evaluating the first (%s N or VIEW chooses: %s)", n.Path, len(all), w.field("embed"), list())
		}
		return bs, err
	}
	if i, err := strconv.Atoi(embed); err == nil {
		if i < 1 || i > len(all) {
			return nil, usage(fmt.Errorf("%s %d: %s embeds %d bases (%s)", w.field("embed"), i, printable.Of(n.Path), len(all), printable.Of(list())))
		}
		return read(all[i-1])
	}
	for _, exact := range []bool{true, false} {
		for _, nb := range all {
			if nb.view != "" && (nb.view == embed || !exact && strings.EqualFold(nb.view, embed)) {
				return read(nb)
			}
		}
	}
	for _, nb := range all {
		bs, err := read(nb)
		if err != nil {
			return nil, err
		}
		if b, err := base.Parse(bs.src); err == nil && slices.ContainsFunc(b.ViewNames(), func(name string) bool { return strings.EqualFold(name, embed) }) {
			bs.view = embed
			return bs, nil
		}
	}
	return nil, usage(fmt.Errorf("%s %q: no base %s embeds shows that view (%s)", w.field("embed"), embed, printable.Of(n.Path), printable.Of(list())))
}
