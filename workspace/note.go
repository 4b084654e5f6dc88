package workspace

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/zk-claims/zk/vault"
)

// FindNote turns a note argument into a vault path. The argument is a
// file path (relative to the working directory, or else to the vault
// root), which names that file exactly, never one whose name differs from
// it by case or Unicode normal form, or a note name as a wikilink would
// write it. A name that names several notes is a UsageError listing them;
// one that names none a NotFoundError.
func FindNote(v *vault.Vault, files []vault.File, arg string) (string, error) {
	r := vault.ResolverOf(files)
	// A file path, relative to the working directory.
	if abs, err := filepath.Abs(arg); err == nil {
		if rel, err := filepath.Rel(v.Dir, abs); err == nil && !strings.HasPrefix(rel, "..") {
			if p := filepath.ToSlash(rel); r.HasExactly(p) {
				return p, nil
			}
		} else if _, err := os.Stat(abs); err == nil && strings.HasSuffix(strings.ToLower(arg), ".md") {
			return "", usage(fmt.Errorf("%s: %w", arg, vault.ErrOutsideVault))
		}
	}
	// A path relative to the vault root.
	if p := path.Clean(filepath.ToSlash(arg)); r.HasExactly(p) {
		return p, nil
	}
	// A name, as a wikilink writes it.
	name := strings.TrimSuffix(strings.TrimSuffix(arg, "]]"), "|")
	name = strings.TrimPrefix(name, "[[")
	if cands := r.Candidates(name); len(cands) > 1 && !strings.Contains(name, "/") {
		return "", usage(fmt.Errorf("%q names %d notes: %s; give a path", arg, len(cands), strings.Join(cands, ", ")))
	}
	if p, ok := r.Resolve(name, ""); ok && strings.HasSuffix(strings.ToLower(p), ".md") {
		return p, nil
	}
	return "", &NotFoundError{Arg: arg, Vault: v.Dir}
}

// Locate lists the vault's files and finds the note a note argument
// names (FindNote). It returns the note's vault path and the file list,
// which the caller needs to resolve the note's links.
func Locate(ctx context.Context, v *vault.Vault, arg string) (string, []vault.File, error) {
	files, _, err := v.Files(ctx)
	if err != nil {
		return "", nil, err
	}
	p, err := FindNote(v, files, arg)
	return p, files, err
}
