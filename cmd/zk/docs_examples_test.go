package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/zk-claims/zk/runner"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
)

// The documents whose examples a user copies: every falsifier shown in
// them (its command and criterion) and every zk probe command line.
var exampleDocs = []string{"../../README.md", "../../docs/falsifiers.md", "../../docs/design.md", "../../templates/permanent.md", "../../examples/README.md"}

// docFalsifier is a falsifier shown in a document: its list item and the
// items nested under it, as written.
type docFalsifier struct {
	doc   string
	line  int // 1-based, of the falsifier's item
	lines []string
}

var nestedItemRe = regexp.MustCompile(`^(\s*)- (run|refuted if|capture|numbers|confidence):`)

// docFalsifiers finds, in a document, each list item with a nested
// "refuted if:" item, and its nested items.
func docFalsifiers(doc string, src []byte) []docFalsifier {
	lines := strings.Split(string(src), "\n")
	var out []docFalsifier
	for i := 0; i < len(lines); i++ {
		m := nestedItemRe.FindStringSubmatch(lines[i])
		if m == nil || m[2] != "refuted if" {
			continue
		}
		indent := len(m[1])
		// The falsifier is the nearest item above that is less indented.
		top := i - 1
		for top >= 0 && !(strings.HasPrefix(strings.TrimLeft(lines[top], " "), "- ") && len(lines[top])-len(strings.TrimLeft(lines[top], " ")) < indent) {
			top--
		}
		if top < 0 {
			continue
		}
		end := i + 1
		for end < len(lines) && nestedItemRe.MatchString(lines[end]) {
			end++
		}
		base := len(lines[top]) - len(strings.TrimLeft(lines[top], " "))
		var item []string
		for _, l := range lines[top:end] {
			item = append(item, l[min(base, len(l)-len(strings.TrimLeft(l, " "))):])
		}
		out = append(out, docFalsifier{doc: doc, line: top + 1, lines: item})
		i = end - 1
	}
	return out
}

// docProbeCommands finds the zk probe openai command lines of a
// document's sh blocks (continuations joined, comments cut), leaving out
// synopses ([--flag] placeholders).
func docProbeCommands(src []byte) []string {
	var out []string
	inSh := false
	var cur string
	for l := range strings.SplitSeq(string(src), "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "```sh"):
			inSh = true
			continue
		case strings.HasPrefix(t, "```"):
			inSh = false
			continue
		}
		if !inSh {
			continue
		}
		if cur != "" {
			t = cur + " " + t
			cur = ""
		}
		if c, ok := strings.CutSuffix(t, `\`); ok {
			cur = strings.TrimSpace(c)
			continue
		}
		if i := strings.Index(t, " # "); i >= 0 {
			t = strings.TrimSpace(t[:i])
		}
		if strings.HasPrefix(t, "zk probe openai ") && !strings.Contains(t, "[") {
			out = append(out, t)
		}
	}
	return out
}

// captureLine is a line of output a capture's pattern matches: the
// pattern with its first group replaced by a number.
func captureLine(pattern string) string {
	_, re, _ := strings.Cut(pattern, "=")
	re = strings.Trim(strings.TrimSpace(re), "`")
	open := strings.Index(re, "(")
	closing := strings.Index(re, ")")
	if open < 0 || closing < open {
		return ""
	}
	line := re[:open] + "120" + re[closing+1:]
	line = strings.NewReplacer(`\.`, ".", `\s`, " ", `\(`, "(", `\)`, ")", "^", "", "$", "").Replace(line)
	return strings.TrimSpace(line)
}

// scriptArgs writes argv as a testscript command line, each argument
// quoted.
func scriptArgs(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		if strings.HasPrefix(a, "$") || strings.HasPrefix(a, "--url=$") {
			q[i] = a // the script's variable, expanded
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
	}
	return strings.Join(q, " ")
}

// shellArgs quotes argv for sh, leaving the script's variables to it.
// zk run exits 1 on a refutation and 2 on a verdict within noise, so the
// script runs it through sh and reads the verdict from what it printed.
func shellArgs(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		if strings.HasPrefix(a, "$") || strings.HasPrefix(a, "--url=$") {
			q[i] = `"` + a + `"`
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// forSimulator points a zk probe command at the script's simulator and
// bounds it, so a test runs it in seconds; every other flag is the
// document's.
func forSimulator(argv []string) []string {
	out := make([]string, 0, len(argv)+8)
	for i := 0; i < len(argv); i++ {
		switch {
		case argv[i] == "--url" && i+1 < len(argv):
			out = append(out, "--url", "$SIM_URL")
			i++
		case strings.HasPrefix(argv[i], "--url="):
			out = append(out, "--url=$SIM_URL")
		case argv[i] == "--chart" && i+1 < len(argv):
			out = append(out, "--chart", "$WORK/"+filepath.Base(argv[i+1]))
			i++
		default:
			out = append(out, argv[i])
		}
	}
	// Twice the six samples a 95% verdict needs: on a loaded machine a
	// request whose tokens the client read in a burst (descheduled) is
	// left untimed (probe's burstChunksPerRead), and six requests gave
	// five samples, "too few samples to judge", once under load.
	return append(out, "--duration", "0", "--requests", "12", "--max-tokens", "8")
}

// TestDocumentedExamplesRun runs every falsifier shown in the README,
// docs/ and the templates, as written (a zk probe command pointed at the
// simulator and bounded), and every zk probe openai command line shown,
// against zk probe simulate: each must run and reach a verdict, never
// inconclusive but for noise (a loaded machine can spread the simulator's
// few requests until 95% of resamples no longer agree: that is the judge
// working, not the example failing). An example that needs a flag it does not show, or a
// criterion that does not read what its command prints, fails here.
func TestDocumentedExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every documented example")
	}
	dir := t.TempDir()
	gocache, _ := exec.Command("go", "env", "GOCACHE").Output()
	n := 0
	for _, doc := range exampleDocs {
		src, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(doc), ".md")
		if strings.Contains(doc, "examples/") {
			name = "examples-" + name
		}
		for k, df := range docFalsifiers(doc, src) {
			note := "# Note\n\n## Evidence\n\n## Tests / falsifiers\n\n" + strings.Join(df.lines, "\n") + "\n"
			fs := evidence.Falsifiers(vault.NewParser().Parse("note.md", []byte(note)))
			if len(fs) != 1 || fs[0].Criterion == "" {
				t.Errorf("%s:%d: the example is not read as one falsifier with a criterion: %+v", doc, df.line, fs)
				continue
			}
			f := fs[0]
			var argv []string
			var files string
			switch {
			case f.Command != "":
				if argv, err = runner.Split(f.Command); err != nil {
					t.Errorf("%s:%d: %v", doc, df.line, err)
					continue
				}
				if len(argv) > 2 && argv[0] == "zk" && argv[1] == "probe" {
					argv = forSimulator(argv)
				}
				if len(argv) > 1 && argv[0] == "go" && argv[1] == "test" {
					// A module of one passing test is what it runs on.
					files = "-- go.mod --\nmodule example\n\ngo 1.22\n-- x_test.go --\npackage example\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n"
				}
			case len(f.Captures) > 0:
				argv = []string{"echo", captureLine(f.Captures[0])}
			default:
				argv = []string{"true"}
			}
			script := fmt.Sprintf("# %s:%d\nenv GOCACHE=%s\nenv GOFLAGS=-mod=mod\nsimulate budget=500 per-stream=100 prefill=1ms\nmtime note.md 60\nexec sh run.sh\nstderr 'exit 0, (supports|refutes)|: within noise, '\n-- .zk/keep --\n-- run.sh --\nzk run note.md --falsifier 1 -- %s || true\n-- note.md --\n%s%s",
				doc, df.line, strings.TrimSpace(string(gocache)), shellArgs(argv), note, files)
			write(t, filepath.Join(dir, fmt.Sprintf("%s-falsifier-%d.txtar", name, k+1)), script)
			n++
		}
		for k, cmd := range docProbeCommands(src) {
			argv, err := runner.Split(cmd)
			if err != nil {
				t.Errorf("%s: %q: %v", doc, cmd, err)
				continue
			}
			script := fmt.Sprintf("# %s: %s\nsimulate budget=500 per-stream=100 prefill=1ms\nexec %s\n", doc, cmd, scriptArgs(forSimulator(argv)))
			write(t, filepath.Join(dir, fmt.Sprintf("%s-probe-%d.txtar", name, k+1)), script)
			n++
		}
	}
	// The documents show these; if one goes, this test must be told.
	if n < 8 {
		t.Fatalf("found %d examples in %v, expected at least 8", n, exampleDocs)
	}
	testscript.Run(t, scriptParams(t, dir))
}

func write(t *testing.T, name, s string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDocExampleHelpers: the extraction finds a falsifier and its nested
// items, and a capture's pattern gives a line it matches.
func TestDocExampleHelpers(t *testing.T) {
	src := "text\n\n```markdown\n- If slow, wrong.\n  - run: `zk probe openai --url http://x:1`\n  - refuted if: `level(1).aggregate < 1`\n- Other.\n```\n"
	fs := docFalsifiers("d.md", []byte(src))
	if len(fs) != 1 || fs[0].line != 4 || len(fs[0].lines) != 3 {
		t.Fatalf("docFalsifiers = %+v", fs)
	}
	if got := captureLine("`rate = ([0-9.]+) tok/s`"); got != "120 tok/s" {
		t.Errorf("captureLine = %q", got)
	}
	got := docProbeCommands([]byte("```sh\nzk probe openai --url U --model m \\\n  --format json   # a comment\nzk probe openai --url U [--model M]\n```\n"))
	if len(got) != 1 || got[0] != "zk probe openai --url U --model m --format json" {
		t.Errorf("docProbeCommands = %q", got)
	}
}
