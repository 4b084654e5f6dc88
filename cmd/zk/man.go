package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zk-claims/zk/internal/lazyre"
)

// newManCmd writes a man page per command, made from the same command tree
// as --help, so the two cannot drift apart. The release build runs it to
// put the pages in the archives; a user of a clone runs it to install them.
func newManCmd(_ *rootOptions, s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write zk's man pages (zk.1, zk-check.1, …) to DIR",
		Long: `Write a man page in section 1 for zk and each of its commands to DIR,
creating DIR if need be: zk.1, zk-check.1, and so on. The pages are dated
$SOURCE_DATE_EPOCH when it is set (reproducible builds), else today.

  zk man ~/.local/share/man/man1 && man zk-check

EXIT STATUS
  0  written
  2  DIR could not be created or written, or a bad $SOURCE_DATE_EPOCH`,
		Args: nArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			date := time.Now()
			if e := os.Getenv("SOURCE_DATE_EPOCH"); e != "" {
				sec, err := strconv.ParseInt(e, 10, 64)
				if err != nil {
					return usageError{fmt.Errorf("man: SOURCE_DATE_EPOCH %q is not a number of seconds", e)}
				}
				date = time.Unix(sec, 0).UTC()
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			h := manHeader{date: date, source: "zk " + buildVersion()}
			if err := writeManTree(cmd.Root(), h, dir); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			fmt.Fprintf(s.err, "wrote the man pages to %s\n", dir)
			return nil
		},
	}
}

// manHeader is what every page's .TH line says besides its title.
type manHeader struct {
	date   time.Time
	source string
}

// writeManTree writes c's page and its available subcommands' pages.
// zk writes its own roff rather than cobra/doc's Markdown-through-md2man:
// Markdown reads "<note>" in a synopsis as an HTML tag and drops it, and
// reflows the indented blocks (EXIT STATUS, examples, JSON shapes) that
// --help prints as they are.
func writeManTree(c *cobra.Command, h manHeader, dir string) error {
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
			continue
		}
		if err := writeManTree(sub, h, dir); err != nil {
			return err
		}
	}
	name := strings.ReplaceAll(c.CommandPath(), " ", "-")
	return os.WriteFile(filepath.Join(dir, name+".1"), manPage(c, h), 0o644)
}

// manPage is c's page in roff (man(7)).
func manPage(c *cobra.Command, h manHeader) []byte {
	c.InitDefaultHelpFlag()
	var b bytes.Buffer
	name := strings.ReplaceAll(c.CommandPath(), " ", "-")
	fmt.Fprintf(&b, ".TH %q \"1\" %q %q \"zk manual\"\n", strings.ToUpper(name), h.date.Format("Jan 2006"), h.source)
	b.WriteString(".nh\n.ad l\n") // no hyphenation, ragged right: flags and paths stay whole
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", roffText(name), roffText(c.Short))
	b.WriteString(".SH SYNOPSIS\n")
	synopsis := c.UseLine()
	if c.HasAvailableSubCommands() && !c.Runnable() {
		synopsis = c.CommandPath() + " <command> [flags]"
	}
	fmt.Fprintf(&b, ".B %s\n", roffText(c.CommandPath()))
	if rest := strings.TrimSpace(strings.TrimPrefix(synopsis, c.CommandPath())); rest != "" {
		b.WriteString(roffText(rest) + "\n")
	}
	b.WriteString(".SH DESCRIPTION\n")
	long := c.Long
	if long == "" {
		long = c.Short
	}
	b.WriteString(roffBody(long))
	if c.HasAvailableSubCommands() {
		b.WriteString(".SH COMMANDS\n")
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
				continue
			}
			fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roffText(sub.Name()), roffText(sub.Short))
		}
	}
	if fs := c.NonInheritedFlags(); fs.HasAvailableFlags() {
		b.WriteString(".SH OPTIONS\n")
		manFlags(&b, fs)
	}
	if fs := c.InheritedFlags(); fs.HasAvailableFlags() {
		b.WriteString(".SH OPTIONS INHERITED FROM PARENT COMMANDS\n")
		manFlags(&b, fs)
	}
	var also []string
	if c.HasParent() {
		also = append(also, strings.ReplaceAll(c.Parent().CommandPath(), " ", "-"))
	}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			also = append(also, strings.ReplaceAll(sub.CommandPath(), " ", "-"))
		}
	}
	if len(also) > 0 {
		b.WriteString(".SH SEE ALSO\n")
		for i, a := range also {
			sep := ","
			if i == len(also)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, ".BR %s (1)%s\n", roffText(a), sep)
		}
	}
	return b.Bytes()
}

// manFlags lists flags as --help does: name, value, usage and default.
func manFlags(b *bytes.Buffer, fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		varname, usage := pflag.UnquoteUsage(f)
		b.WriteString(".TP\n")
		head := `\fB`
		if f.Shorthand != "" && f.ShorthandDeprecated == "" {
			head += roffText("-"+f.Shorthand) + `\fR, \fB`
		}
		head += roffText("--"+f.Name) + `\fR`
		if varname != "" {
			head += ` \fI` + roffText(varname) + `\fR`
		}
		b.WriteString(head + "\n")
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		b.WriteString(roffText(usage) + "\n")
	})
}

// sectionLine is a line of a command's Long text that heads a section of
// its own, as "EXIT STATUS" does.
var sectionLine = lazyre.New(`^[A-Z][A-Z ]+[A-Z]$`)

// roffBody turns a command's Long text into roff: a line in capitals
// heads a section (.SH), unindented lines are prose the reader's man fills
// to its width, and indented lines (exit codes, examples, flag tables,
// JSON shapes) are kept exactly as --help prints them (.nf/.fi). A blank
// line starts a paragraph.
func roffBody(text string) string {
	var b strings.Builder
	inPara, nofill := false, false
	fill := func() {
		if nofill {
			b.WriteString(".fi\n")
			nofill = false
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		switch {
		case strings.TrimSpace(l) == "":
			fill()
			inPara = false
		case sectionLine().MatchString(l):
			fill()
			b.WriteString(".SH " + roffText(l) + "\n")
			inPara = false
		default:
			if !inPara {
				b.WriteString(".PP\n")
				inPara = true
			}
			if indented := l[0] == ' ' || l[0] == '\t'; indented && !nofill {
				b.WriteString(".nf\n")
				nofill = true
			} else if !indented {
				fill()
			}
			if nofill {
				// man indents the body already: the two spaces --help
				// indents by would push a 78-column line past 80.
				l = strings.TrimPrefix(strings.TrimRight(l, " \t"), "  ")
				b.WriteString(roffLine(l) + "\n")
			} else {
				b.WriteString(roffLine(strings.TrimSpace(l)) + "\n")
			}
		}
	}
	fill()
	return b.String()
}

// roffLine is a line of text in roff: escaped, and never read as a
// request (a line starting with . or ').
func roffLine(s string) string {
	s = roffText(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// roffText escapes text for roff: a backslash is \e, and a hyphen is \-
// so that flags render as the ASCII hyphen a reader can copy.
func roffText(s string) string {
	return strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
}
