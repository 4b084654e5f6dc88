package main

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/runner"
	"github.com/zk-claims/zk/trust"
	"github.com/zk-claims/zk/vault"
)

type trustOptions struct {
	root      *rootOptions
	falsifier string
	note      string
}

func newTrustCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &trustOptions{root: root}
	cmd := &cobra.Command{
		Use:   "trust <note> [--falsifier N|TEXT]",
		Short: "Approve a note's falsifier commands",
		Long: `Show the commands written under a note's falsifiers (- run: ` + "`CMD`" + ` or
a zk-run fenced block) and, when you answer y, approve them, so that
zk run NOTE --falsifier N may run them.

An approval is for that exact command text, in that note, in that vault: edit
the command and it must be approved again. It also covers the content of
every vault file the command names (an argument, a word of one, or the
value of --flag=FILE, taken from the vault root: sh run.sh names run.sh):
edit such a file and zk run asks for a new approval. A file the command
only reaches some other way (a script that runs another) is not covered.
Control characters in what is shown are printed escaped (\x1b, \n), so
that a note cannot make one command look like another.

Approvals are kept in the user's config folder (zk/trust.json), never in
the vault, so a vault someone shares with you cannot approve its own
commands. The answer is read from stdin.

EXIT STATUS
  0  approved, or nothing to approve
  2  not approved (any answer but y or yes), or an error`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.note = args[0]
			return runTrust(cmd.Context(), opts, s)
		},
	}
	cmd.Flags().StringVar(&opts.falsifier, "falsifier", "", "approve only this falsifier's command: its `number` or a piece of its text")
	return cmd
}

func runTrust(ctx context.Context, opts *trustOptions, s *streams) error {
	v, err := opts.root.openVault()
	if err != nil {
		return err
	}
	defer v.Close()
	p, _, err := locateNote(ctx, v, opts.note)
	if err != nil {
		return err
	}
	n, err := v.ReadNote(p)
	if err != nil {
		return err
	}
	fs := vault.Falsifiers(n)
	if opts.falsifier != "" {
		f, err := pickFalsifier(n, opts.falsifier)
		if err != nil {
			return err
		}
		fs = []vault.Falsifier{f}
	}
	var (
		store   *trust.Store
		pending []trust.Approval
	)
	for _, f := range fs {
		if f.Command == "" {
			continue
		}
		argv, err := runner.Split(f.Command)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", safeText(p), f.CommandLine+1, err)
		}
		st, a, err := approvalOf(v, p, f.Command, argv)
		if err != nil {
			return err
		}
		store = st
		verdict, err := store.Check(a)
		if err != nil {
			return err
		}
		if verdict.Approved {
			fmt.Fprintf(s.err, "falsifier %d: already approved: %s\n", f.N, safeText(runner.Quote(argv)))
			continue
		}
		if len(verdict.Changed) > 0 {
			fmt.Fprintf(s.err, "falsifier %d: approved before, but %s since\n", f.N, changedFiles(verdict.Changed))
		}
		fmt.Fprintf(s.err, "falsifier %d (%s:%d) runs, in %s, without a shell:\n  %s\n", f.N, safeText(p), f.CommandLine+1, safeText(v.Dir), safeText(runner.Quote(argv)))
		if len(a.Files) > 0 {
			fmt.Fprintf(s.err, "  approving it approves these vault files as they are now; if one changes, zk asks again:\n")
			for _, name := range slices.Sorted(maps.Keys(a.Files)) {
				fmt.Fprintf(s.err, "    %s (%s)\n", safeText(name), a.Files[name][:len("sha256:")+12])
			}
		}
		pending = append(pending, a)
	}
	if len(pending) == 0 {
		if store == nil {
			fmt.Fprintf(s.err, "%s: no falsifier has a command written under it\n", safeText(p))
		}
		return nil
	}
	fmt.Fprintf(s.err, "Approve %s? [y/N] ", plural(len(pending), "command", "these commands"))
	answer, _ := bufio.NewReader(s.in).ReadString('\n')
	fmt.Fprintln(s.err)
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		return fmt.Errorf("not approved: %s unchanged", store.Path())
	}
	now := time.Now().UTC()
	for i := range pending {
		pending[i].Approved = now
	}
	if err := store.Approve(pending...); err != nil {
		return err
	}
	fmt.Fprintf(s.err, "approved %d in %s\n", len(pending), store.Path())
	return nil
}

// plural names one thing or several.
func plural(n int, one, many string) string {
	if n == 1 {
		return "this " + one
	}
	return many
}

// changedFiles says which approved files changed: "run.sh changed", "a.sh
// and b.sh changed".
func changedFiles(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = safeText(n)
	}
	if len(quoted) == 1 {
		return quoted[0] + " changed"
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " and " + quoted[len(quoted)-1] + " changed"
}

// safeText is s with every character that could move the cursor, recolour
// or rewrite the terminal, or reorder what is shown (C0 and C1 controls,
// DEL, bidirectional overrides, invalid UTF-8) written as a Go escape
// (\x1b, \n, \u202e), so that text from a note or a file name is shown as
// what it is: an ESC sequence cannot make one command look like another,
// nor a newline split a line in two.
func safeText(s string) string {
	clean := true
	for _, r := range s {
		if unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func unsafeRune(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == utf8.RuneError ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}
