package main

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zk-claims/zk/config"
	"github.com/zk-claims/zk/vault/lint"
)

// The README is the user's manual; these tests hold it to the code, so that
// a rule, a command or a flag cannot change without the README saying so.

const readmePath = "../../README.md"

func readREADME(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadmeLength keeps the README a user's guide: design notes, figures
// and their history go to docs/.
func TestReadmeLength(t *testing.T) {
	if n := strings.Count(readREADME(t), "\n"); n >= 400 {
		t.Errorf("README.md has %d lines; keep it under 400 and move detail to docs/", n)
	}
}

// TestReadmeRules holds the README's rule table to lint.Rules(): every rule,
// in the order zk reports them, with its default severity, its summary and
// the anchor SARIF's helpUri points at; no rule that zk does not have.
func TestReadmeRules(t *testing.T) {
	rows, err := readmeRuleRows(readREADME(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range compareRules(rows, lint.Rules()) {
		t.Error(p)
	}
}

// ruleRow is one row of the README's rule table.
type ruleRow struct {
	line                          int
	anchor, id, severity, summary string
}

var ruleCell = regexp.MustCompile("^<a id=\"([^\"]+)\"></a>`([^`]+)`$")

// readmeRuleRows reads the table whose header is | rule | default | summary |.
func readmeRuleRows(readme string) ([]ruleRow, error) {
	lines := strings.Split(readme, "\n")
	start := -1
	for i, l := range lines {
		if cells := tableCells(l); slices.Equal(cells, []string{"rule", "default", "summary"}) {
			if start >= 0 {
				return nil, fmt.Errorf("README.md:%d: a second rule table (the first is at line %d)", i+1, start+1)
			}
			start = i
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("README.md has no table headed | rule | default | summary |")
	}
	var rows []ruleRow
	for i := start + 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
		cells := tableCells(lines[i])
		if len(cells) != 3 {
			return nil, fmt.Errorf("README.md:%d: a rule row needs 3 cells, has %d", i+1, len(cells))
		}
		m := ruleCell.FindStringSubmatch(cells[0])
		if m == nil {
			return nil, fmt.Errorf("README.md:%d: the rule cell %q is not <a id=\"rule-…\"></a>`id`", i+1, cells[0])
		}
		rows = append(rows, ruleRow{line: i + 1, anchor: m[1], id: m[2], severity: cells[1], summary: cells[2]})
	}
	return rows, nil
}

func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || len(line) < 2 {
		return nil
	}
	// A cell holds a | escaped as \|, as GitHub reads tables (even in a
	// code span).
	var cells []string
	var cell strings.Builder
	body := line[1 : len(line)-1]
	for i := 0; i < len(body); i++ {
		switch {
		case body[i] == '\\' && i+1 < len(body) && body[i+1] == '|':
			cell.WriteByte('|')
			i++
		case body[i] == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(body[i])
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
}

// compareRules says every way the README's rows differ from the rules.
func compareRules(rows []ruleRow, rules []lint.Rule) []string {
	var problems []string
	byID := map[string]ruleRow{}
	for _, r := range rows {
		if prev, dup := byID[r.id]; dup {
			problems = append(problems, fmt.Sprintf("README.md:%d: rule %s listed twice (also line %d)", r.line, r.id, prev.line))
		}
		byID[r.id] = r
	}
	known := map[string]bool{}
	for i, rule := range rules {
		known[rule.ID] = true
		row, ok := byID[rule.ID]
		if !ok {
			problems = append(problems, fmt.Sprintf("README.md: the rule table lacks %s (%s: %s)", rule.ID, rule.Default, rule.Summary))
			continue
		}
		if row.severity != rule.Default.String() {
			problems = append(problems, fmt.Sprintf("README.md:%d: %s is %q by default, the README says %q", row.line, rule.ID, rule.Default, row.severity))
		}
		if row.summary != rule.Summary {
			problems = append(problems, fmt.Sprintf("README.md:%d: %s's summary is %q, the README says %q", row.line, rule.ID, rule.Summary, row.summary))
		}
		if want := ruleAnchor(rule.ID); row.anchor != want {
			problems = append(problems, fmt.Sprintf("README.md:%d: %s's anchor is %q, SARIF links to %q", row.line, rule.ID, row.anchor, want))
		}
		if i < len(rows) && rows[i].id != rule.ID && ok {
			problems = append(problems, fmt.Sprintf("README.md:%d: rule %d is %s; zk reports %s there (the table follows zk's order)", rows[i].line, i+1, rows[i].id, rule.ID))
		}
	}
	for _, r := range rows {
		if !known[r.id] {
			problems = append(problems, fmt.Sprintf("README.md:%d: %s is not a rule of zk check", r.line, r.id))
		}
	}
	return problems
}

func TestCompareRulesCatches(t *testing.T) {
	rules := []lint.Rule{
		{ID: "a/one", Default: lint.Error, Summary: "one"},
		{ID: "a/two", Default: lint.Warning, Summary: "two"},
	}
	row := func(id, sev, sum string) ruleRow {
		return ruleRow{line: 1, anchor: ruleAnchor(id), id: id, severity: sev, summary: sum}
	}
	good := []ruleRow{row("a/one", "error", "one"), row("a/two", "warning", "two")}
	if p := compareRules(good, rules); len(p) != 0 {
		t.Fatalf("a matching table: %q", p)
	}
	for name, rows := range map[string][]ruleRow{
		"missing":  {row("a/one", "error", "one")},
		"extra":    {row("a/one", "error", "one"), row("a/two", "warning", "two"), row("a/three", "warning", "three")},
		"severity": {row("a/one", "warning", "one"), row("a/two", "warning", "two")},
		"summary":  {row("a/one", "error", "one!"), row("a/two", "warning", "two")},
		"order":    {row("a/two", "warning", "two"), row("a/one", "error", "one")},
		"anchor":   {{line: 1, anchor: "x", id: "a/one", severity: "error", summary: "one"}, row("a/two", "warning", "two")},
		"twice":    {row("a/one", "error", "one"), row("a/two", "warning", "two"), row("a/two", "warning", "two")},
	} {
		if p := compareRules(rows, rules); len(p) == 0 {
			t.Errorf("%s: no problem reported", name)
		}
	}
}

// TestReadmeConfigKeys: every key of the [claims] table and of a type's
// table is in the README's Configuration section.
func TestReadmeConfigKeys(t *testing.T) {
	readme := readREADME(t)
	start := strings.Index(readme, "\n## Configuration\n")
	if start < 0 {
		t.Fatal("README.md has no ## Configuration section")
	}
	section := readme[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[config.Config](), reflect.TypeFor[config.Type]()} {
		for f := range typ.Fields() {
			key, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if key == "" || key == "-" {
				continue
			}
			if !strings.Contains(section, "`"+key+"`") {
				t.Errorf("README.md's Configuration section does not name the key `%s` (%s.%s)", key, typ.Name(), f.Name)
			}
		}
	}
}

// TestReadmeCommands: every zk command line in the README's ```sh blocks
// names real commands and flags, and some testscript runs that command
// with each of those flags; and every command zk has is shown.
func TestReadmeCommands(t *testing.T) {
	cmds, err := readmeCommands(readREADME(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) == 0 {
		t.Fatal("found no zk command in the README's ```sh blocks")
	}
	cov, err := scriptCoverage("testdata/script")
	if err != nil {
		t.Fatal(err)
	}
	if len(cov) == 0 {
		t.Fatal("found no exec zk line in testdata/script")
	}
	for _, p := range checkCommands(cmds, cov) {
		t.Error(p)
	}
	shown := map[string]bool{}
	for _, c := range cmds {
		if c.err == nil {
			shown[strings.Fields(c.path)[0]] = true
		}
	}
	for _, sub := range testRoot().Commands() {
		if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
			continue
		}
		if !shown[sub.Name()] {
			t.Errorf("README.md shows no zk %s command line in a ```sh block", sub.Name())
		}
	}
	t.Logf("checked %d zk command lines of the README against %d commands run by testscripts", len(cmds), len(cov))
}

// readmeCommand is one zk command line of the README.
type readmeCommand struct {
	line  int    // 1-based line of README.md
	text  string // as written (continuations joined)
	path  string // the command, "check" or "probe openai"
	flags []string
	err   error // not a command zk has, or a flag it does not take
}

func (c readmeCommand) String() string { return fmt.Sprintf("README.md:%d: `%s`", c.line, c.text) }

// readmeCommands finds the zk command lines in the ```sh blocks: a line
// (or a `&&`, `;`, `|` part of one) that starts with zk or go run ./cmd/zk,
// and a zk command run by zk run after its --.
func readmeCommands(readme string) ([]readmeCommand, error) {
	root := testRoot()
	var cmds []readmeCommand
	inSh, inFence := false, false
	lines := strings.Split(readme, "\n")
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		if strings.HasPrefix(trimmed, "```") {
			if inFence {
				inFence, inSh = false, false
			} else {
				inFence = true
				inSh = strings.TrimSpace(strings.TrimPrefix(trimmed, "```")) == "sh"
			}
			continue
		}
		if !inSh {
			continue
		}
		start, text := i, trimmed
		for strings.HasSuffix(text, `\`) && i+1 < len(lines) {
			i++
			text = strings.TrimSuffix(text, `\`) + " " + strings.TrimSpace(lines[i])
		}
		words, err := shellWords(text)
		if err != nil {
			return nil, fmt.Errorf("README.md:%d: %v", start+1, err)
		}
		for _, part := range splitCommands(words) {
			for args := zkArgs(part); args != nil; {
				c := readmeCommand{line: start + 1, text: text}
				var rest []string
				c.path, c.flags, rest, c.err = resolve(root, args)
				cmds = append(cmds, c)
				args = nil
				if c.err == nil && c.path == "run" {
					args = zkArgs(rest)
				}
			}
		}
	}
	if inFence {
		return nil, fmt.Errorf("README.md: a ``` block is not closed")
	}
	return cmds, nil
}

// zkArgs returns the arguments of a zk command, or nil if words are not one.
func zkArgs(words []string) []string {
	if len(words) > 0 && words[0] == "$" { // a shell prompt
		words = words[1:]
	}
	switch {
	case len(words) >= 1 && words[0] == "zk":
		return append([]string{}, words[1:]...)
	case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/zk":
		return append([]string{}, words[3:]...)
	}
	return nil
}

// splitCommands cuts a line's words at &&, ||, ;, | and a trailing &.
func splitCommands(words []string) [][]string {
	var parts [][]string
	var cur []string
	for _, w := range words {
		switch w {
		case "&&", "||", ";", "|", "&":
			parts = append(parts, cur)
			cur = nil
			continue
		}
		cur = append(cur, w)
	}
	return append(parts, cur)
}

// shellWords splits a line into words as sh would, for what the README and
// the testscripts write: single and double quotes, and # starting a comment.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unclosed %c in %q", c, s)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			i = len(s)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// testRoot is zk's command tree, with the help flag and the completion
// command cobra adds when it runs.
func testRoot() *cobra.Command {
	root := newRootCmd(&streams{in: strings.NewReader(""), out: new(strings.Builder), err: new(strings.Builder)})
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	return root
}

// resolve reads args as zk would: the (sub)command they name, the long
// names of the flags they give, and what follows a bare --. A synopsis's
// brackets ([--format text|json]) and placeholders (NOTE, PATH...) are read
// as the flags and arguments they stand for.
func resolve(root *cobra.Command, args []string) (path string, flags, rest []string, err error) {
	cur, positional := root, false
	lookup := func(name string, short bool) *pflag.Flag {
		for _, fs := range []*pflag.FlagSet{cur.Flags(), cur.InheritedFlags()} {
			if short {
				if len(name) != 1 {
					return nil // -latency: no shorthand (pflag panics on the lookup)
				}
				if f := fs.ShorthandLookup(name); f != nil {
					return f
				}
			} else if f := fs.Lookup(name); f != nil {
				return f
			}
		}
		return nil
	}
	for i := 0; i < len(args); i++ {
		a := strings.TrimRight(strings.TrimLeft(args[i], "["), "]")
		switch {
		case a == "--":
			rest = args[i+1:]
			i = len(args)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			f := lookup(name, !strings.HasPrefix(a, "--"))
			if f == nil {
				return cur.CommandPath(), nil, nil, fmt.Errorf("%s has no flag %s", cur.CommandPath(), a)
			}
			flags = append(flags, f.Name)
			if f.NoOptDefVal == "" && !hasValue {
				i++ // the flag's value
			}
		case !positional && subcommand(cur, a) != nil:
			cur = subcommand(cur, a)
		case cur == root:
			return "", nil, nil, fmt.Errorf("zk has no command %q", a)
		default:
			positional = true
		}
	}
	if cur == root {
		return "", nil, nil, fmt.Errorf("no zk command")
	}
	path = strings.TrimPrefix(cur.CommandPath(), root.Name()+" ")
	return path, flags, rest, nil
}

func subcommand(c *cobra.Command, name string) *cobra.Command {
	for _, sub := range c.Commands() {
		if sub.Name() == name || slices.Contains(sub.Aliases, name) {
			return sub
		}
	}
	return nil
}

// coverage maps a command ("probe openai") to the flags some testscript's
// exec zk line gives it (the command itself maps to a non-nil set).
type coverage map[string]map[string]bool

// scriptCoverage reads every exec zk line of the testscripts in dir.
func scriptCoverage(dir string) (coverage, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	root := testRoot()
	cov := coverage{}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(ar.Comment), "\n") {
			args := execZkArgs(line)
			if args == nil {
				continue
			}
			path, flags, _, err := resolve(root, args)
			if err != nil { // a script that tests a bad command line
				continue
			}
			if cov[path] == nil {
				cov[path] = map[string]bool{}
			}
			for _, f := range flags {
				cov[path][f] = true
			}
		}
	}
	return cov, nil
}

var scriptCond = regexp.MustCompile(`^\[[^\]]*\]\s*`)

// execZkArgs returns the arguments of a testscript line that runs zk.
func execZkArgs(line string) []string {
	line = strings.TrimSpace(line)
	for {
		l := strings.TrimLeft(scriptCond.ReplaceAllString(line, ""), "!? \t")
		if l == line {
			break
		}
		line = l
	}
	words, err := shellWords(line)
	if err != nil || len(words) < 2 || words[0] != "exec" || words[1] != "zk" {
		return nil
	}
	words = words[2:]
	if n := len(words); n > 0 && words[n-1] == "&" { // run in the background
		words = words[:n-1]
	}
	return words
}

// checkCommands says which README commands are wrong, or run by no
// testscript with the flags they show.
func checkCommands(cmds []readmeCommand, cov coverage) []string {
	var problems []string
	for _, c := range cmds {
		if c.err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", c, c.err))
			continue
		}
		flags, ok := cov[c.path]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: no testscript in cmd/zk/testdata/script runs zk %s", c, c.path))
			continue
		}
		for _, f := range c.flags {
			if !flags[f] && f != "help" {
				problems = append(problems, fmt.Sprintf("%s: no testscript in cmd/zk/testdata/script runs zk %s with --%s", c, c.path, f))
			}
		}
	}
	return problems
}

func TestReadmeCommandsCatches(t *testing.T) {
	readme := strings.Join([]string{
		"# x",
		"```sh",
		"zk check --no-cache   # a comment with zk stale --bogus",
		"zk tend NOTE --date 2026-01-01 && zk probe openai \\",
		"  --url http://x --model M",
		"zk run NOTE --falsifier 1 -- zk stale --within 3d",
		"go run ./cmd/zk check examples/vault",
		"zk check --bogus",
		"zk nosuch",
		"zk search -n 3 word",
		"```",
		"```text",
		"zk graph --format nope",
		"```",
	}, "\n")
	cmds, err := readmeCommands(readme)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cmds {
		s := fmt.Sprintf("%d %s %v", c.line, c.path, c.flags)
		if c.err != nil {
			s = fmt.Sprintf("%d error", c.line)
		}
		got = append(got, s)
	}
	want := []string{
		"3 check [no-cache]",
		"4 tend [date]",
		"4 probe openai [url model]",
		"6 run [falsifier]",
		"6 stale [within]",
		"7 check []",
		"8 error",
		"9 error",
		"10 search [limit]",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("readmeCommands:\n got %q\nwant %q", got, want)
	}

	cov := coverage{
		"check":        {"format": true},
		"tend":         {"date": true},
		"probe openai": {"url": true, "model": true},
		"run":          {"falsifier": true},
		"stale":        {},
		"search":       {"limit": true},
	}
	problems := checkCommands(cmds, cov)
	wantProblems := []string{
		"README.md:3: `zk check --no-cache   # a comment with zk stale --bogus`: no testscript in cmd/zk/testdata/script runs zk check with --no-cache",
		"README.md:6: `zk run NOTE --falsifier 1 -- zk stale --within 3d`: no testscript in cmd/zk/testdata/script runs zk stale with --within",
		"README.md:8: `zk check --bogus`: zk check has no flag --bogus",
		"README.md:9: `zk nosuch`: zk has no command \"nosuch\"",
	}
	if !slices.Equal(problems, wantProblems) {
		t.Fatalf("checkCommands:\n got %q\nwant %q", problems, wantProblems)
	}
}

func TestExecZkArgs(t *testing.T) {
	for line, want := range map[string][]string{
		"exec zk check": {"check"},
		"! exec zk --vault v check --format json":    {"--vault", "v", "check", "--format", "json"},
		"[!shared] exec zk run 'A B' -- sh -c 'x y'": {"run", "A B", "--", "sh", "-c", "x y"},
		"[unix] ! exec zk index --wait 1s &":         {"index", "--wait", "1s"},
		"exec cat zk":                                nil,
		"# exec zk check":                            nil,
		"stdout 'exec zk check'":                     nil,
	} {
		if got := execZkArgs(line); !slices.Equal(got, want) {
			t.Errorf("execZkArgs(%q) = %q, want %q", line, got, want)
		}
	}
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// TestReadmeCodeLayout holds the README's Code layout table to the
// module's packages: each package is named there (`vault/evidence`
// (`/criterion`) names vault/evidence/criterion too; everything under
// bench/ is bench's), and each name is a folder of the module.
func TestReadmeCodeLayout(t *testing.T) {
	readme := readREADME(t)
	rows, err := docTableRows(readme, "package", "holds")
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	lines := strings.Split(readme, "\n")
	named := map[string]bool{}
	for _, r := range rows {
		parent := ""
		for _, m := range codeSpan.FindAllStringSubmatch(tableCells(lines[r.line-1])[0], -1) {
			name := m[1]
			if strings.HasPrefix(name, "/") {
				name = parent + name
			} else {
				parent = name
			}
			named[name] = true
			if st, err := os.Stat(filepath.Join("../..", name)); err != nil || !st.IsDir() {
				t.Errorf("README.md:%d: %s is not a folder of the module", r.line, name)
			}
		}
	}
	err = filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, "../.."))
		rel = strings.TrimPrefix(rel, "/")
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "") {
			return filepath.SkipDir
		}
		if d.IsDir() && (rel == "bench" || strings.HasPrefix(rel, "bench/")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		if dir := path.Dir(rel); !named[dir] {
			t.Errorf("README.md: the Code layout table lacks the package %s", dir)
			named[dir] = true // once
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
