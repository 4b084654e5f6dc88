package workspace

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault"
)

// FindNote turns a note argument into a vault path. The argument is a
// file path (relative to the working directory, or else to the vault
// root), which names that file exactly, never one whose name differs from
// it by case or Unicode normal form, or a note name as a wikilink would
// write it. A name that names several notes is a UsageError listing them;
// one that names none a NotFoundError.
//
// A file of the vault that is not a note (.md) is refused as such
// (vault.ErrNotNote): a .env or a .csv is no note to read or write. What
// lies outside the vault is never looked at: a path that leads out of it
// is refused by its text alone, so that an agent's tool call cannot learn
// whether some file outside the vault exists. files are the vault's,
// sorted by path, as Vault.Files returns them.
func FindNote(v *vault.Vault, files []vault.File, arg string) (string, error) {
	if p, found, err := filePath(v, files, arg); found || err != nil {
		if err == nil && !vault.IsNotePath(p) {
			err = usage(fmt.Errorf("%s: %w", p, vault.ErrNotNote))
		}
		return p, err
	}
	// A name, as a wikilink writes it.
	name := strings.TrimSuffix(strings.TrimSuffix(arg, "]]"), "|")
	name = strings.TrimPrefix(name, "[[")
	paths := vault.Paths(files)
	// The files the name can reach, not an index of them all; Candidates
	// reads a name's last element as it is written, not as a link
	// (relative, with backslashes): those names are looked up in all.
	r := vault.ResolverFor(paths, "", []string{name})
	if strings.ContainsRune(name, '\\') || strings.HasPrefix(strings.TrimSpace(name), ".") {
		r = vault.NewResolver(paths)
	}
	if cands := r.Candidates(name); len(cands) > 1 && !strings.Contains(name, "/") {
		return "", usage(fmt.Errorf("%q names %d notes: %s; give a path", arg, len(cands), strings.Join(cands, ", ")))
	}
	if p, ok := r.Resolve(name, ""); ok && strings.HasSuffix(strings.ToLower(p), ".md") {
		return p, nil
	}
	return "", &NotFoundError{Arg: arg, Vault: v.Dir, Near: Near(files, name, 3)}
}

// filePath is the vault file a path argument names exactly: relative to
// the working directory, else to the vault's root. A path that leads out
// of the vault both ways is a UsageError wrapping vault.ErrOutsideVault,
// told by its text alone, never by a look at the disk. found is false,
// with no error, for a path of the vault that no file has (the caller
// may then read arg as a name). files are sorted by path.
func filePath(v *vault.Vault, files []vault.File, arg string) (p string, found bool, err error) {
	// A file's path exactly, as Resolver.HasExactly tells it, without
	// indexing every file for one argument.
	exact := func(p string) bool {
		_, ok := slices.BinarySearchFunc(files, p, func(f vault.File, p string) int { return strings.Compare(f.Path, p) })
		return ok
	}
	// A file path, relative to the working directory.
	cwdOutside := false
	if abs, err := filepath.Abs(arg); err == nil {
		if rel, ok := vault.Within(v.Dir, abs); ok {
			if exact(rel) {
				return rel, true, nil
			}
		} else {
			cwdOutside = true
		}
	}
	// A path relative to the vault root.
	clean := path.Clean(filepath.ToSlash(arg))
	rootOutside := !vault.Local(clean)
	if !rootOutside && exact(clean) {
		return clean, true, nil
	}
	if cwdOutside && rootOutside {
		return "", false, usage(fmt.Errorf("%s: %w", arg, vault.ErrOutsideVault))
	}
	return "", false, nil
}

// Locate lists the vault's files and finds the note a note argument
// names (FindNote). It returns the note's vault path and the file list,
// which the caller needs to resolve the note's links.
func Locate(ctx context.Context, v *vault.Vault, arg string) (string, []vault.File, error) {
	files, skips, err := v.Files(ctx)
	if err != nil {
		return "", nil, err
	}
	p, err := FindNote(v, files, arg)
	return p, files, skippedNote(v, skips, arg, err)
}

// LocatePaths is Locate for a command that reads the note it finds and
// no other file, or resolves its links: the files are listed without a
// stat of each (vault.FilePaths), their paths alone to be read.
func LocatePaths(ctx context.Context, v *vault.Vault, arg string) (string, []vault.File, error) {
	files, skips, err := v.FilePaths(ctx)
	if err != nil {
		return "", nil, err
	}
	p, err := FindNote(v, files, arg)
	return p, files, skippedNote(v, skips, arg, err)
}

// skippedNote is err, FindNote's answer, unless that is a NotFoundError
// for a path the vault's walk skipped (a named pipe, a socket, a device
// named x.md, a symlink loop): then it says what is there, as the walk
// found it, where "no such note" sent the user looking for a file ls lists.
func skippedNote(v *vault.Vault, skips []vault.Skip, arg string, err error) error {
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		return err
	}
	var paths []string
	if abs, aerr := filepath.Abs(arg); aerr == nil {
		if rel, ok := vault.Within(v.Dir, abs); ok {
			paths = append(paths, rel)
		}
	}
	if clean := path.Clean(filepath.ToSlash(arg)); vault.Local(clean) {
		paths = append(paths, clean)
	}
	for _, s := range skips {
		if !s.Folder && slices.Contains(paths, s.Path) {
			return usage(fmt.Errorf("%s: %s", printable.Of(s.Path), s.Reason))
		}
	}
	return err
}
