package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/workspace"
)

// bashQuoted is appended to cobra's bash completion script. Cobra's
// script hands the word being completed to zk through eval, so a word that
// opens a quote ("Per, 'One) is an unbalanced quote there, zk is never
// asked, and nothing is completed; and it filters zk's answers by the word
// with its quote. Here such a word is completed from inside its quote: zk
// is asked about the text after the quote, and a single answer is left
// unescaped, for readline (which knows the quote is open) inserts it as it
// is and closes the quote.
const bashQuoted = `
# zk: complete a word that opens a quote ("Per, 'One) from inside it.
__zk_def=$(declare -f __zk_get_completion_results)
eval "__zk_cobra_get_completion_results() ${__zk_def#*)}"
__zk_def=$(declare -f __zk_process_completion_results)
eval "__zk_cobra_process_completion_results() ${__zk_def#*)}"
unset __zk_def

__zk_get_completion_results() {
    __zk_quote=
    case ${cur} in
    \"*|\'*)
        __zk_quote=${cur:0:1}
        local text=${cur:1}
        if [[ -n ${text} ]]; then
            printf -v 'words[cword]' '%q' "${text}"
            cur=${words[cword]}
        else
            words[cword]=
            cur=
        fi
        ;;
    esac
    __zk_cobra_get_completion_results
}

__zk_process_completion_results() {
    __zk_cobra_process_completion_results
    if [[ -n ${__zk_quote} ]] && ((${#COMPREPLY[@]} == 1)); then
        # cobra escaped the one answer (printf %q) for an unquoted word:
        # undo it, inside a quote the text goes in as it is.
        eval "COMPREPLY[0]=${COMPREPLY[0]}"
    fi
}
`

// adjustCompletion makes cobra's completion command now (it would make it
// while executing) so that its bash script can take bashQuoted.
func adjustCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		for _, sh := range c.Commands() {
			if sh.Name() != "bash" {
				continue
			}
			gen := sh.RunE
			sh.RunE = func(cmd *cobra.Command, args []string) error {
				out := cmd.OutOrStdout()
				var buf bytes.Buffer
				cmd.SetOut(&buf)
				err := gen(cmd, args)
				cmd.SetOut(out)
				if err != nil {
					return err
				}
				buf.WriteString(bashQuoted)
				_, err = out.Write(buf.Bytes())
				return err
			}
		}
	}
}

// completeFlags gives every flag of every command a completion: cobra
// completes a flag it knows nothing of with file names, which a
// --falsifier or a --within never takes. Flags that name a folder or a
// file keep the shell's own completion of those.
func completeFlags(c *cobra.Command, root *rootOptions, s *streams) {
	fixed := func(values ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
	}
	intervals := fixed("7d", "14d", "30d", "6w", "3m", "1y")
	for name, f := range map[string]cobra.CompletionFunc{
		"falsifier":  completeFalsifier(root, s),
		"within":     intervals,
		"due-within": intervals,
		"date":       completeToday(root),
		"today":      completeToday(root),
		"vault":      dirsOnly,
		"chart":      filesAny,
		"type":       completeTypes(root, s),
		"folder":     completeFolders(root, s),
	} {
		if c.Flags().Lookup(name) != nil || c.PersistentFlags().Lookup(name) != nil {
			if _, ok := c.GetFlagCompletionFunc(name); !ok {
				_ = c.RegisterFlagCompletionFunc(name, f)
			}
		}
	}
	c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
		if fl.Value.Type() == "bool" {
			return
		}
		if _, ok := c.GetFlagCompletionFunc(fl.Name); !ok {
			_ = c.RegisterFlagCompletionFunc(fl.Name, cobra.NoFileCompletions)
		}
	})
	for _, sub := range c.Commands() {
		completeFlags(sub, root, s)
	}
}

func dirsOnly(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
}

func filesAny(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveDefault
}

// completionWorkspace opens the vault quietly: a completion speaks only
// through stdout.
func completionWorkspace(ctx context.Context, root *rootOptions, s *streams, hint string) (*workspace.Workspace, error) {
	quiet := *s
	quiet.err = io.Discard
	return root.open(ctx, &quiet, workspace.Reading, hint)
}

// completionFiles opens the vault quietly (completionWorkspace) and lists
// its files, closing it again if that fails.
func completionFiles(cmd *cobra.Command, root *rootOptions, s *streams, hint string) (*workspace.Workspace, []vault.File, error) {
	w, err := completionWorkspace(cmd.Context(), root, s, hint)
	if err != nil {
		return nil, nil, err
	}
	files, _, err := w.Vault.Files(cmd.Context())
	if err != nil {
		w.Close()
		return nil, nil, err
	}
	return w, files, nil
}

// completeFalsifier offers the falsifiers of the command's NOTE (its
// first argument) by number, each described by its text.
func completeFalsifier(root *rootOptions, s *streams) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		w, files, err := completionFiles(cmd, root, s, args[0])
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		defer w.Close()
		p, err := workspace.FindNote(w.Vault, files, args[0])
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		n, err := w.Vault.ReadNote(p)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, f := range evidence.Falsifiers(n) {
			out = append(out, cobra.CompletionWithDesc(fmt.Sprint(f.N), printable.Of(strings.TrimSpace(f.Text))))
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}

// completeToday offers today's date, as --today would take it.
func completeToday(root *rootOptions) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		t, err := root.now()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return []cobra.Completion{t.Format("2006-01-02")}, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeTypes offers the vault's note types (and none, for zk list).
func completeTypes(root *rootOptions, s *streams) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		w, err := completionWorkspace(cmd.Context(), root, s, "")
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		defer w.Close()
		var out []cobra.Completion
		for _, t := range w.Types {
			out = append(out, t.Name)
		}
		if cmd.Name() == "list" {
			out = append(out, "none")
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFolders offers the vault's folders (those holding a file zk reads).
func completeFolders(root *rootOptions, s *streams) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		w, files, err := completionFiles(cmd, root, s, "")
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		defer w.Close()
		seen := map[string]bool{}
		var out []cobra.Completion
		for _, f := range files {
			for d := path.Dir(f.Path); d != "." && !seen[d]; d = path.Dir(d) {
				seen[d] = true
				if hasPrefixFold(d, toComplete) {
					out = append(out, d)
				}
			}
		}
		slices.Sort(out)
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// completeNote completes a command's NOTE argument (its first) with the
// vault's notes: each by its name where that name is the vault's only note
// of the name, else by its vault path, as a NOTE argument takes them. A
// word with a slash in it is a path: it completes to the notes' paths,
// from the vault's root and from the working directory.
func completeNote(root *rootOptions, s *streams) cobra.CompletionFunc {
	notes := completeNotes(root, s)
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveDefault
		}
		return notes(cmd, args, toComplete)
	}
}

// completeNotes completes every argument of a command taking NOTE... as
// completeNote completes the one.
func completeNotes(root *rootOptions, s *streams) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		w, files, err := completionFiles(cmd, root, s, "")
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		defer w.Close()
		_, notes := vault.SplitFiles(files)
		var out []cobra.Completion
		if strings.Contains(toComplete, "/") {
			fromWD := ""
			if wd, err := os.Getwd(); err == nil {
				if rel, ok := vault.Within(w.Vault.Dir, wd); ok && rel != "." {
					fromWD = rel + "/"
				}
			}
			for _, f := range notes {
				if hasPrefixFold(f.Path, toComplete) {
					out = append(out, f.Path)
				}
				if rel, ok := strings.CutPrefix(f.Path, fromWD); ok && fromWD != "" && hasPrefixFold(rel, toComplete) {
					out = append(out, rel)
				}
			}
			slices.Sort(out)
			return slices.Compact(out), cobra.ShellCompDirectiveNoFileComp
		}
		byName := map[string]int{}
		for _, f := range notes {
			byName[vault.FoldName(noteName(f.Path))]++
		}
		for _, f := range notes {
			c := f.Path
			if name := noteName(f.Path); byName[vault.FoldName(name)] == 1 {
				c = name
			}
			if hasPrefixFold(c, toComplete) {
				out = append(out, c)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
