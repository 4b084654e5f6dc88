package main

// Output: what every command prints goes through here. Data goes to
// stdout, messages to stderr, decoration (colour, progress) only to a
// terminal; text derived from notes and file names is made printable
// first, so that a note can neither split a line of output nor send an
// escape sequence to the user's terminal.

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zk-claims/zk/internal/english"
	"github.com/zk-claims/zk/internal/printable"
)

// choiceFlag is a flag value that must be one of a few words (--format,
// --fail-on): a bad value is refused while the flags are parsed, and the
// shell completes the good ones.
type choiceFlag struct {
	value   *string
	noun    string // what a value is, for the error: "format"
	allowed []string
}

func (f *choiceFlag) String() string { return *f.value }
func (f *choiceFlag) Type() string   { return "string" }

func (f *choiceFlag) Set(s string) error {
	if !slices.Contains(f.allowed, s) {
		return fmt.Errorf("unknown %s %q (want %s)", f.noun, s, orList(f.allowed))
	}
	*f.value = s
	return nil
}

// addChoiceFlag adds the flag name to cmd, whose values are nouns: p
// starts as allowed[0], the default.
func addChoiceFlag(cmd *cobra.Command, p *string, name, noun, usage string, allowed ...string) {
	addChoiceFlagTo(cmd, cmd.Flags(), p, name, noun, usage, allowed...)
}

// addChoiceFlagTo is addChoiceFlag into flags, cmd's own or persistent.
func addChoiceFlagTo(cmd *cobra.Command, flags *pflag.FlagSet, p *string, name, noun, usage string, allowed ...string) {
	*p = allowed[0]
	flags.Var(&choiceFlag{value: p, noun: noun, allowed: allowed}, name, fmt.Sprintf("%s: %s", usage, orList(allowed)))
	_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(allowed, cobra.ShellCompDirectiveNoFileComp))
}

// addFormatFlag adds --format, whose first value is the default.
func addFormatFlag(cmd *cobra.Command, p *string, usage string, allowed ...string) {
	addChoiceFlag(cmd, p, "format", "format", usage, allowed...)
}

// orList is "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// writeJSON prints v as indented JSON, without HTML escaping, C1 controls
// and bidirectional overrides escaped (printable.JSON): the one JSON
// encoder of every --format json.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(printableJSON{w})
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printableJSON writes each JSON text it is given through printable.JSON:
// json.Encoder.Encode writes a value's whole text in one Write, so no
// character is cut between two.
type printableJSON struct{ w io.Writer }

func (p printableJSON) Write(b []byte) (int, error) {
	if _, err := p.w.Write(printable.JSON(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// writeJSONArray prints what writeJSON prints for doc with its array
// field key holding n elements, elem(i) each, where doc holds it empty:
// the elements encoded and written one at a time. writeJSON of a whole
// document holds it in memory twice over (encoded, then indented): a
// SARIF log of 700,000 findings, 337 MB, died so under a 4 GB address
// limit.
func writeJSONArray(w io.Writer, doc any, key string, n int, elem func(int) any) error {
	var skel bytes.Buffer
	if err := writeJSON(&skel, doc); err != nil {
		return err
	}
	head, tail, ok := bytes.Cut(skel.Bytes(), []byte(strconv.Quote(key)+": []"))
	if !ok || bytes.Contains(tail, []byte(strconv.Quote(key)+": []")) {
		return fmt.Errorf("json: no one empty array %q to fill", key)
	}
	if n == 0 {
		_, err := w.Write(skel.Bytes())
		return err
	}
	// The elements are indented one step past the key's own line.
	indent := string(head[bytes.LastIndexByte(head, '\n')+1:]) + "  "
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head)
	bw.WriteString(strconv.Quote(key) + ": [")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent(indent, "  ")
	enc.SetEscapeHTML(false)
	for i := range n {
		buf.Reset()
		if err := enc.Encode(elem(i)); err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n" + indent)
		if _, err := bw.Write(printable.JSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))); err != nil {
			return err // a closed pipe: the rest is not encoded for nothing
		}
	}
	bw.WriteString("\n" + indent[:len(indent)-2] + "]")
	bw.Write(tail)
	return bw.Flush()
}

// quantity is "1 note", "2 notes".
func quantity(n int, word string) string { return english.Plural(n, word) }

// ANSI colours for text on a terminal.
const (
	ansiBold    = "\x1b[1m"
	ansiRed     = "\x1b[31m"
	ansiYellow  = "\x1b[33m"
	ansiDim     = "\x1b[2m"
	ansiReverse = "\x1b[7m"
	ansiReset   = "\x1b[0m"
)

// color reports whether output to a terminal (tty) may be coloured.
func (o *rootOptions) color(tty bool) bool {
	return tty && !o.noColor && o.getenv("NO_COLOR") == "" && o.getenv("TERM") != "dumb"
}

// writeDelimited prints a table as csv or tsv, a header row first, for
// zk list and zk base. CSV is RFC 4180: values quoted where CSV needs it,
// their line breaks and tabs as they are, any other control character
// escaped (printable.Lines: a CSV file is shown on terminals too), and
// wholly printable on a terminal. TSV has no quoting (a tab or a newline
// could not be told from the table's own), so every value is printable
// there: each line one row, each tab one column, for cut and awk.
func writeDelimited(w io.Writer, format string, tty bool, header []string, rows [][]string) error {
	if format == "tsv" {
		var b strings.Builder
		for _, row := range append([][]string{header}, rows...) {
			for i, c := range row {
				if i > 0 {
					b.WriteByte('\t')
				}
				b.WriteString(printable.Of(c))
			}
			b.WriteByte('\n')
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	cw := csv.NewWriter(w)
	clean := printable.Lines
	if tty {
		clean = printable.Of
	}
	for _, row := range append([][]string{header}, rows...) {
		row = slices.Clone(row)
		for i := range row {
			row[i] = clean(row[i])
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// markdownTable is a Markdown table to paste into a note, each cell
// printable, on one line, its pipes escaped so they do not end the cell.
func markdownTable(header []string, rows [][]string) string {
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + strings.ReplaceAll(printable.Of(c), "|", `\|`) + " |")
		}
		b.WriteString("\n")
	}
	line(header)
	b.WriteString("|" + strings.Repeat(" --- |", len(header)) + "\n")
	for _, r := range rows {
		line(r)
	}
	return b.String()
}
