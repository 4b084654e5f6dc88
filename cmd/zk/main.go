// Command zk keeps a Zettelkasten of claims honest: it reads an Obsidian
// vault as Obsidian does, lints notes against their templates, lists stale
// notes, records falsifier runs as evidence, and searches the vault.
package main

import (
	"context"
	"os"
)

func main() {
	tuneGC(heapLimit)
	os.Exit(run(context.Background(), os.Args[1:], stdStreams()))
}
