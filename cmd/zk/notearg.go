package main

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/zk-claims/zk/vault"
)

// findNote turns a NOTE argument into a vault path. The argument is a file
// path (relative to the working directory, or else to the vault root),
// which names that file exactly, never one whose name differs from it by
// case or Unicode normal form, or a note name as a wikilink would write it.
// An ambiguous or missing name is an error that lists the candidates.
func findNote(v *vault.Vault, files []vault.File, arg string) (string, error) {
	r := vault.ResolverOf(files)
	// A file path, relative to the working directory.
	if abs, err := filepath.Abs(arg); err == nil {
		if rel, err := filepath.Rel(v.Dir, abs); err == nil && !strings.HasPrefix(rel, "..") {
			if p := filepath.ToSlash(rel); r.HasExactly(p) {
				return p, nil
			}
		} else if _, err := os.Stat(abs); err == nil && strings.HasSuffix(strings.ToLower(arg), ".md") {
			return "", fmt.Errorf("%s: %w", arg, vault.ErrOutsideVault)
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
		return "", fmt.Errorf("%q names %d notes: %s; give a path", arg, len(cands), strings.Join(cands, ", "))
	}
	if p, ok := r.Resolve(name, ""); ok && strings.HasSuffix(strings.ToLower(p), ".md") {
		return p, nil
	}
	return "", fmt.Errorf("%q: %w in %s", arg, vault.ErrNotFound, v.Dir)
}

// locateNote lists the vault's files and finds the note a NOTE argument
// names. It returns the note's vault path and the file list, which the
// caller needs to resolve the note's links.
func locateNote(ctx context.Context, v *vault.Vault, arg string) (string, []vault.File, error) {
	files, _, err := v.Files(ctx)
	if err != nil {
		return "", nil, err
	}
	p, err := findNote(v, files, arg)
	return p, files, err
}
