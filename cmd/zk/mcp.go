package main

// zk mcp starts the MCP server (package mcp) on stdin and stdout, over
// the vault found once, at start.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/mcp"
	"github.com/zk-claims/zk/workspace"
)

func newMCPCmd(root *rootOptions, s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the vault to an AI agent (MCP over stdio)",
		Long: `Serve the vault over the Model Context Protocol on stdin and stdout, for
an AI agent's client to start as a subprocess.

Tools: check, stale, search, links, backlinks, read_note, tend, new, runs,
run_falsifier, list, properties, base and move, each returning the JSON its
command prints with --format json (move is a dry run until called again
with the dry run's confirm token), and append_section and set_property,
which edit a note. Every write goes through zk's safe write path.
run_falsifier runs only a command written under a falsifier that you
approved with zk trust; an agent cannot approve one.
Each note is also a resource, zk://note/PATH.

The vault is found once, at start (--vault, else up from the working
directory). Messages go to stderr; stdout carries only the protocol.

EXIT STATUS
  0  the client closed the connection
  2  the vault could not be opened, or a protocol error`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCP(cmd.Context(), root, s)
		},
	}
}

func runMCP(ctx context.Context, root *rootOptions, s *streams) error {
	pinned, err := pinVault(root, s)
	if err != nil {
		return err
	}
	opts := mcpOptions(pinned)
	if opts.IndexDir != "" {
		if opts.IndexDir, err = filepath.Abs(opts.IndexDir); err != nil {
			return err
		}
	}
	// An agent names notes by vault path, and the use cases read a
	// relative path from the working directory first (a command's user
	// types it from where they stand): started in a folder of the vault,
	// tend "Rates.md" tended Archive/Rates.md. The server stands at the
	// vault's root, where a vault path and a relative one are one.
	if pinned.vaultDir != "" {
		if err := os.Chdir(pinned.vaultDir); err != nil {
			return fmt.Errorf("mcp: %w", err)
		}
	}
	return mcp.Serve(ctx, opts, s.in, s.out)
}

// mcpOptions are the server's options from the global ones.
func mcpOptions(root *rootOptions) mcp.Options {
	return mcp.Options{Dir: root.vaultDir, Today: root.now, Pinned: root.pinned(), Version: buildVersion(),
		IndexDir: root.getenv("ZK_INDEX_DIR")}
}

// pinVault finds the vault once, so that every tool call opens the same
// one. A folder without .obsidian/ or .zk/ is not pinned: the writing
// tools then refuse it, as the commands do.
func pinVault(root *rootOptions, s *streams) (*rootOptions, error) {
	dir, err := workspace.Find(root.vaultDir, "", workspace.Reading, s.notify)
	if err != nil {
		return nil, err
	}
	pinned := *root
	if _, marked := workspace.Marked(dir); marked || root.vaultDir != "" {
		pinned.vaultDir = dir
	}
	return &pinned, nil
}
