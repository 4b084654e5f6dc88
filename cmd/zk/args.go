package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zk-claims/zk/internal/lazyre"
)

// nArgs checks a command's positional arguments, from lo to hi (hi < 0:
// any number), and says what is missing by the names its Use line gives
// them ("zk new: missing TITLE"), where cobra says "accepts 1 arg(s),
// received 0".
func nArgs(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		names := argNames(cmd)
		switch {
		case len(args) < lo:
			missing := "an argument"
			if len(args) < len(names) {
				missing = strings.Join(names[len(args):min(len(names), lo)], " ")
			}
			return usageError{fmt.Errorf("%s: missing %s\nusage: %s", cmd.Name(), missing, cmd.UseLine())}
		case hi >= 0 && len(args) > hi:
			quote := ""
			if hi > 0 {
				quote = fmt.Sprintf(" (quote an argument that holds spaces: %q)", strings.Join(args[hi-1:], " "))
			}
			want := fmt.Sprintf("at most %d", hi)
			if lo == hi {
				want = fmt.Sprint(hi)
			}
			return usageError{fmt.Errorf("%s: %d arguments, want %s%s\nusage: %s", cmd.Name(), len(args), want, quote, cmd.UseLine())}
		}
		return nil
	}
}

// argNames are the positional arguments a command's Use line names:
// "new TITLE" → TITLE, "mv <old> <new>" → <old> <new>; options in
// brackets are not among them.
func argNames(cmd *cobra.Command) []string {
	var names []string
	depth, angle := 0, false
	for _, f := range strings.Fields(cmd.Use)[1:] {
		switch {
		case angle: // "<file.base | note>": one name
			names[len(names)-1] += " " + f
		case depth == 0 && !strings.HasPrefix(f, "[") && !strings.HasPrefix(f, "(") && !strings.HasPrefix(f, "-"):
			names = append(names, strings.TrimSuffix(f, "..."))
		}
		if depth == 0 && strings.HasPrefix(f, "<") {
			angle = true
		}
		if angle && strings.Contains(f, ">") {
			angle = false
			names[len(names)-1] = strings.TrimSuffix(names[len(names)-1], "...")
		}
		depth += strings.Count(f, "[") + strings.Count(f, "(") - strings.Count(f, "]") - strings.Count(f, ")")
	}
	return names
}

// unknownFlag finds the word in cobra's "unknown shorthand flag: 'l' in
// -latency" and "unknown flag: --latency".
var unknownFlag = lazyre.New(`^unknown (?:shorthand flag: '.' in (-\S+)|flag: (--\S+))$`)

// flagError is a mistake in a command's flags, with how to get help; a
// word taken for a flag by its leading dash ("zk search -latency", a
// query excluding a word) is told how to pass it: after --.
func flagError(c *cobra.Command, err error) error {
	if m := unknownFlag().FindStringSubmatch(err.Error()); m != nil && len(argNames(c)) > 0 {
		word := m[1] + m[2]
		what := "an argument"
		if c.Name() == "search" {
			what = "a query"
		}
		hint := fmt.Sprintf("%s that starts with - goes after --: %s -- %s", what, c.CommandPath(), word)
		if strings.HasPrefix(word, "--") {
			// "--dry-run" is a flag the user expected far more often than a
			// note or query named so: its help comes first.
			hint = fmt.Sprintf("run '%s --help' for its flags; %s", c.CommandPath(), hint)
		}
		return usageError{fmt.Errorf("%w\n%s", err, hint)}
	}
	return usageError{fmt.Errorf("%w\nrun '%s --help' for usage", err, c.CommandPath())}
}
