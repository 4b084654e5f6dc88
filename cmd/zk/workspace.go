package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/workspace"
)

// open finds and opens the vault as every command does
// (workspace.Open): --vault, else the nearest folder holding .obsidian/
// or .zk/ up from hint (a command's first NOTE or PATH argument; "" for
// none), else up from the working directory. Its notices go to stderr.
func (o *rootOptions) open(ctx context.Context, s *streams, how workspace.Access, hint string) (*workspace.Workspace, error) {
	today, err := o.now()
	if err != nil {
		return nil, err
	}
	// MapCache: a command's process ends with it, and the language
	// server opens the model file once (the MCP server opens its own).
	w, err := workspace.Open(ctx, workspace.Options{Dir: o.vaultDir, Hint: hint, Access: how,
		Today: today, Pinned: o.pinned(), Version: buildVersion(), Notify: s.notify, Term: flagTerm, MapCache: true, Graph: &graphJSON})
	if errors.Is(err, workspace.ErrNoVault) {
		return nil, fmt.Errorf("%w; this command writes in the vault (a note, or zk's files under .zk/), so it takes no unmarked folder for one: name the vault with --vault DIR, or make this folder one with zk init", err)
	}
	if err != nil {
		return nil, err
	}
	sizeFirstGC(w.Vault.Dir)
	if p := o.getenv("ZK_TEST_STALL_READ"); p != "" {
		// A read that never returns (a network mount gone away) is what a
		// signal must still stop; zk itself opens nothing that can block,
		// so the signal tests stall here, on a FIFO nothing writes. The
		// stall ends after a minute all the same: a script that failed
		// before its signal (a loaded machine past a wait's bound) leaves
		// this process holding the script's output pipes, and the test
		// binary then hung to its 10-minute timeout instead of failing.
		stalled := make(chan struct{})
		go func() { os.ReadFile(p); close(stalled) }()
		select {
		case <-stalled:
		case <-time.After(time.Minute):
		}
	}
	return w, nil
}

// notify prints a use case's notice on stderr, made printable.
func (s *streams) notify(n workspace.Notice) {
	if n.Warning {
		fmt.Fprintf(s.err, "zk: warning: %s\n", printable.Of(n.Text))
		return
	}
	fmt.Fprintf(s.err, "zk: %s\n", printable.Of(n.Text))
}

// firstArg is a command's first argument, the hint open finds the vault
// from, or "".
func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// markedArg is the first of args from which a vault is found up
// (workspace.Marked), else the first: a commit hook passes a vault's
// notes and the repository's README.md, in git's order, and the vault is
// the notes', whichever comes first.
func markedArg(args []string) string {
	for _, a := range args {
		if _, ok := workspace.Marked(a); ok {
			return a
		}
	}
	return firstArg(args)
}

// noteName is a note's name: its file name without the extension.
func noteName(p string) string { return strings.TrimSuffix(path.Base(p), path.Ext(p)) }
