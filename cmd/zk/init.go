package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"
	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/config"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/workspace"
)

type initOptions struct {
	root *rootOptions
}

func newInitCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &initOptions{root: root}
	return &cobra.Command{
		Use:   "init",
		Short: "Write .zk/config.toml with every default, commented",
		Long: `Write zk's settings to .zk/config.toml in the vault (--vault, else the
working directory's vault), every one at its default and commented out.

zk's settings live in their own [claims] table. When .zk/config.toml
already exists (zk-org/zk keeps its config there too) and has no [claims]
table, the table is appended and every byte already there is kept; a file
that has one is left alone.

EXIT STATUS
  0  written
  2  the file already holds zk's settings, or could not be written`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInit(opts, s)
		},
	}
}

func runInit(opts *initOptions, s *streams) error {
	// zk init is how a folder becomes a vault: --vault, else the vault the
	// working directory is in, else the working directory itself.
	dir := opts.root.vaultDir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		dir = wd
		if up, ok := workspace.Marked(wd); ok {
			dir = up
		}
	}
	v, err := vault.Open(dir)
	if err != nil {
		return err
	}
	defer v.Close()
	old, err := config.Read(v.Root())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("init: %w", err)
	}
	table := config.Commented()
	if old == nil {
		if err := v.CreateFile(config.File, table); err != nil {
			return fmt.Errorf("init: %w", err)
		}
		fmt.Fprintf(s.err, "wrote %s\n", filepath.Join(v.Dir, filepath.FromSlash(config.File)))
		return nil
	}
	var doc map[string]any
	if _, err := toml.Decode(string(old), &doc); err != nil {
		return fmt.Errorf("init: %s does not parse, so zk leaves it alone: %w", config.File, err)
	}
	if _, ok := doc[config.Table]; ok {
		return fmt.Errorf("init: %s already has a [%s] table; zk leaves it alone", config.File, config.Table)
	}
	add := append([]byte("\n"), table...)
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		add = append([]byte("\n"), add...)
	}
	_, err = v.EditOwnFile(config.File, func(src []byte) ([]byte, error) {
		return append(src[:len(src):len(src)], add...), nil
	}, vault.WriteOptions{})
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	fmt.Fprintf(s.err, "added [%s] to %s\n", config.Table, filepath.Join(v.Dir, filepath.FromSlash(config.File)))
	return nil
}
