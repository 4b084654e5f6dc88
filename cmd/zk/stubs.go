package main

import "github.com/spf13/cobra"

// Commands whose issues are still open. Each moves to a file of its own
// (newXCmd, xOptions, runX) when it is built.

func newNewCmd(*rootOptions, *streams) *cobra.Command {
	return stub("new", "Create a note from a template")
}
func newInitCmd(*rootOptions, *streams) *cobra.Command { return stub("init", "Write .zk/config.toml") }
