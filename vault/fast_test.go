package vault

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/zk-claims/zk/bench/vaultgen"
)

// sameAsGoldmark fails the test when the fast path accepts src but reads it
// differently from goldmark. It reports whether the fast path accepted.
func sameAsGoldmark(t *testing.T, name string, src []byte) bool {
	t.Helper()
	fast, ok := fastParse("a/x.md", src, readHead(src))
	if !ok {
		return false
	}
	slow := NewParser().parseGoldmark("a/x.md", src, readHead(src))
	if !reflect.DeepEqual(fast, slow) {
		fj, _ := json.MarshalIndent(newDiffView(fast), "", " ")
		sj, _ := json.MarshalIndent(newDiffView(slow), "", " ")
		t.Fatalf("%s: the fast path and goldmark disagree on %q\nfast:     %s\ngoldmark: %s", name, src, fj, sj)
	}
	return true
}

type diffView struct {
	Headings  []Heading
	Blocks    []Block
	ListItems []ListItem
	Links     []Link
	Embeds    []Link
	Tags      []Tag
	BlockIDs  []BlockID
	Sections  []Section
}

func newDiffView(n *Note) diffView {
	return diffView{n.Headings, n.Blocks, n.ListItems, n.Links, n.Embeds, n.Tags, n.BlockIDs, n.Sections}
}

// TestFastParseAgrees holds the fast path to goldmark on real and
// generated notes, and checks that it takes the ordinary ones.
func TestFastParseAgrees(t *testing.T) {
	accepted := 0
	cases := []string{
		"# Title\n\n## Claim\n\nOne claim with [[A Link]] and #tag.\n\n## Links\n\n- [[A]] — extends: why.\n- [[B|Bee]] -- contrasts: why not.\n",
		"- a\n  - b\n    - c\n- d\n\n1. x\n2. y\n",
		"- [ ] task #t\n- [x] done [[L]]\n\t- [ ] nested [[M]]\n\t\t1. deeper #u\n",
		"> [!tip] Steps\n> - one [[A]] ^s1\n> - [ ] two #t\n>\n> 1. three\n> 2) four\n>\n> after\n> - five\n\n> - six\n",
		"# H\n***\npara [[a]]\n* * *\n- b\n\n- - -\n_ _ _ #t\n___\n",
		"| Name | Link |\n|------|:----:|\n| one | [[A]] #t |\n| two | [b](B.md) |\n\nafter ^p\n",
		"| Key | Note |\n| --- | --- |\n| `a\\|b` | [[Note\\|alias]] \\| [[B]] |\n\nNot \\[[a link]], \\`code\\`, \\<b> \\\\[[C]] \\#tag \\*x\\*\\\n",
		"| Flag | What |\n| - | - |\n| `-a` | the [[Sync history|history]] #t |\n| b ![[c|d]] [e | [f](g.md) |\n",
		"> [!info]- SVG\n> Text [[a]]\n> ```html\n> <b>[[no]] #no</b>\n>\n>   ```\n> after [[b]] #t ^c\n>\n> ~~~\n>\n> ~~~~ \n\n> [!tip] T\n> ```\n> ```\n",
		"Text [[a]]\n<div style=\"p:1%\"><iframe src=\"x\"></iframe></div>\n[[no]] #no\n\t\n\n- b\n</DIV >\n\n<hr/> [[c]]\n",
		"> [!question] Nested? [[a]]\n> > [!todo] Yes #t\n> > > [!example] Deeper ^d\n> lazy [[b]]\n>\n> > c\n> >\n> d ^e\n> > f\n\n> [!warning]-\n>  ```md\n> > [!x] [[no]]\n>    ```\n",
		"Para ^blk1\n\n^own-line\n\n- item ^b2\n",
		"See [text](Note%20x.md#H) and ![img](a.png) and [ext](https://e.com).\n",
		"## Heading #tag ##\n# C#\ntext\n# Next\n",
		"---\ntags: [a]\nlink: \"[[X]]\"\n---\n# T\nbody\n",
		"no final newline [[x]]",
		"**bold [[x]]** *em* ~~s~~ #a-b/c",
		"# \u00a0#t\n",
		"Use `code [[x]] #no` and ``a`b`` then [[y]] #yes.\n\n```go\n# not a heading [[z]]\n```\n\nafter #t\n",
		"- item\n\n~~~\n[[in fence]]\n  ~~~~\n# H `x` #\n[`c`](d.md)",
		"%% inline [[c]] %% costs $5, or $ 6\n",
		"<span>[Edit](https://e.com/a%20b \"git-hub\") | [Copy](x(1).md 'c')</span> [e]() [w](https://w.org/A_(b))\n" +
			"- item\n<!-- - [[Hidden]]: <https://> ^h-->\n- [<button id=HH>Open</button>](obsidian://x) and [[y]]\n```\nz\n```\n" +
			"a <span title=\"[[hidden]] #no\">[[shown]]</span> <https://x.y/#no> <a@b.c> <!-- [[no]] --> x <3 y #yes\n<!--\n[[no]]\n\n-->\n<!-- one [[no]] --> [[no]]\n",
		"Text\n> [!tip] Title [[a]] #t\n> more [x] and [^1] ^q1\n>\n> next [[b|B]]\n>\n\n> plain quote\n# H\n" +
			"```\n\tif a \\\\ b { [[no]] }\n```\n<!--\n\t\\ [[no]]\n-->\n",
		"- a\n  b [[x]] #t\n  - c\n    d ^id\nlazy #u [[y]]\n- e\n# H\n1. f\n   g ^g\n\ntext\n- [ ] h\n\t%% i %%\n",
		" [[a]] one\n   two ^p\n\n   \\- L\n- b\n\n  c [[d]] #t\n    e ^c\n  - f\n\n    g\nlazy\n\n  h\n# H\n1. i\n\n   ![[j.png]]\n  \n k\n",
		"See [a](<My Note.md>) ![i](<p q.png> \"t\") [u](<https://e.com/#x>)**x**, [e](<>) and [f](<g<h>) #t\n",
		"- #camelCase [[a]]\n- #t/u\n\n# H\n1.  Select **b** ![[c.svg#icon]] ^d\n2.  Type\n    - e\n\n    more\n",
		"1. a\n   ```bash\n   x [[no]] #no\n\n   ```\n2. b\n\n   ```\n   y\n   ```\n   after ^c\n3. c\n   - d\n   ~~~\n   z\n      \n   ~~~\n\n   more [[e]]\n",
		" > [!todo]- T\n > text [[a]] ^q\n\n  > b #t\n  >\n  > - c\n   > - d\n",
		"> [!tip] T [x] [^1] [[a]]\n\n| a | b |\n| - | - |\n\n**Windows**]: x [y]: z `[`a]: b [[c]]: d\n[e](f.md): [g][h]\n",
	}
	for i, c := range cases {
		if sameAsGoldmark(t, "case "+string(rune('0'+i)), []byte(c)) {
			accepted++
		}
	}
	if accepted < len(cases)-1 || !sameAsGoldmark(t, "code", []byte(cases[len(cases)-12])) ||
		!sameAsGoldmark(t, "fence", []byte(cases[len(cases)-11])) || !sameAsGoldmark(t, "comment", []byte(cases[len(cases)-10])) ||
		!sameAsGoldmark(t, "html", []byte(cases[len(cases)-9])) || !sameAsGoldmark(t, "quote", []byte(cases[len(cases)-8])) ||
		!sameAsGoldmark(t, "item text", []byte(cases[len(cases)-7])) || !sameAsGoldmark(t, "indented", []byte(cases[len(cases)-6])) ||
		!sameAsGoldmark(t, "angle destination", []byte(cases[len(cases)-5])) || !sameAsGoldmark(t, "item content", []byte(cases[len(cases)-4])) ||
		!sameAsGoldmark(t, "item fence", []byte(cases[len(cases)-3])) || !sameAsGoldmark(t, "indented quote", []byte(cases[len(cases)-2])) ||
		!sameAsGoldmark(t, "no definition", []byte(cases[len(cases)-1])) {
		t.Errorf("the fast path took %d of %d ordinary notes", accepted, len(cases))
	}
	dir := t.TempDir()
	if err := vaultgen.Generate(dir, 50, 7); err != nil {
		t.Fatal(err)
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".md") {
			b, _ := os.ReadFile(p)
			if !sameAsGoldmark(t, p, b) {
				t.Errorf("%s: the fast path gave up on a generated note", p)
			}
		}
		return nil
	})
	if cdir := os.Getenv("ZK_CONFORMANCE_DIR"); cdir != "" {
		files, _ := filepath.Glob(filepath.Join(cdir, "*.json"))
		took := 0
		for _, f := range files {
			var d struct {
				FileContents string `json:"fileContents"`
			}
			readJSON(t, f, &d)
			if sameAsGoldmark(t, filepath.Base(f), []byte(d.FileContents)) {
				took++
			}
		}
		t.Logf("the fast path took %d of %d conformance notes", took, len(files))
	}
}

// FuzzFastParse: wherever the fast path accepts a note, it must read it
// exactly as goldmark does.
func FuzzFastParse(f *testing.F) {
	for _, s := range []string{
		"# T\n\n- [[a]] — x: y\n  - b #t\n\npara [l](d.md) ^id\n",
		"1. a\n2) b\n- c\n* d\n+ e\n",
		"- a\n\n- b\n\n  c\n",
		"text\n- interrupt\n2. no\n",
		"[[a|]] [[|b]] [[]] [x] [y](z) ![w](v) !x #_a_ #1 #a_b",
		"## h #\n####### seven\n#tag\n",
		"- a\n\t- b [[x]]\n\t\t1. c\n\t\t2. d\n\n\t- e\n10. f\n\t- g\n\t\t- h\n\t\n",
		"\\[[a]] \\![[b]] ![\\[[c]] [d\\](e) [f](g\\)) \\\\[[h]]\n| [[i\\|j]] | k\\|\n|-|-|\n\\|x|y\\\\|z\n",
		"| a | [[b]] |\n| --- | :-: |\n| #t | [c](d.md) | [[e]] |\n|x\n| |\n[[f|g]] | `h|i` ^j\n- k\n",
		"| a | b |\n|-|-|\n| [[c|d]] | ![[e|f]] [g |\n| [[h]|i]] | [[j|k]]] [l|m](n) |\n",
		"> [!x] T\n> ```md\n> [[a]]\n>    ```\n>\t```\n> ``` x\n  > ```\n> b\n\n> c\n>```\n>\n> - d\n> ~~~\n> e\n",
		"a\n<div class=\"x\">\n[[b]]\n \n<p>c #t\n<divx>\n\n<table/>\n- d\n  <ul>\n</ul\n< div>\n",
		"> a\n> > b ^c\n>>d\n> > > e\n>\n>> f\nlazy\n> >\n> > - g\n>   ~~~\n> ~~~\n> >  ```\n\n> > h\n>\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		sameAsGoldmark(t, "fuzz", src)
	})
}

// FuzzOtherSpaceAtEnds holds otherSpaceAtEnds to the two trims it
// stands for.
func FuzzOtherSpaceAtEnds(f *testing.F) {
	for _, s := range []string{"", " ", "a", " \ta\t ", "\u00a0a", "a\u2003", " \u0085", "\xe2\x80", "\v", "a\r", "\xa0 x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if got, want := otherSpaceAtEnds(line), len(bytes.TrimSpace(line)) != len(bytes.Trim(line, " \t")); got != want {
			t.Errorf("otherSpaceAtEnds(%q) = %v, want %v", line, got, want)
		}
	})
}

// fastTokens are the pieces FuzzFastParseTokens builds notes from: each
// construct the fast path reads or gives up on, and the bytes around them
// that change how goldmark reads them.
var fastTokens = []string{
	"\n", "\n\n", " ", "  ", "    ", "a", "b c", "#", "#t", "# ", "## ", "- ", "* ", "1. ", "2) ",
	"`", "``", "```", "````", "~~~", "```go", "~~~`", "[", "]", "[[", "]]", "![[", "(", ")", "](",
	"[[a]]", "[[a|b]]", "[x](y.md)", "![i](p.png)", "[`c`](d)", "`[[a]]`", "`#t`", "` `",
	"%%", "%% c %%", "$", "$x$", "$$", "$5", "^id", " ^b1", "[!note]", "> ", "---", "===", "|", "|-|",
	"_", "*", "]:", "[a]: b", "é", "\u00a0",
	"<", ">", "<b>", "</b>", "<b c=\"", "\">", "<a href='[[x]]'>", "<!--", "-->", "<!-->", "<?", "?>", "<!D", "<![CDATA[", "]]>",
	"<https://a.b/#c>", "<a@b.c>", "<3", "<span class=\"f\">", "<div>", "<br/>", "\t",
	"\"", "'", "[l](d \"t\")", "[l](d.md 'a [[b]]')", "[l](a(b)c (t))", "](x&amp;y", "[e]()", "<pre>", "<!-- x -->\n",
	"[<b>x</b>](y)", "[<b c=']'>](y)", "- a\n<!--", "- a\n```\n",
	">", "\n>", "\n> ", "> [!tip] T", "[!x]", "[^1]", "[a][b]", "[x]:", "\n> a ^q\n",
	"\\", "\\|", "\\`", "\\#", "\t```", "```\t", "\n```\n\t\\x #t [[y]]\n",
	"\n\t- ", "\n\t\t- ", "\n \t", "\n\t1. ", "\n  \t* ",
	"\n[^1]: n", "- [a]: b", "\\]:", "x]:", "[a\n", "\n> [b]:",
	"\n  c ^d", "\n   ", "\n  # ", "\n  2. ", "\n  ***", "\n  ```\n",
	"\n\n  d ^e", "\n\n   ", "\n \\- f", "\n\n\t", "\n\n     ",
	"](<a b.md>)", "(<", "<x>", "](<y> 'z')", "](<>)",
	"\n-  #a ", "\n1.   b", "\n-    ", "\n  -  ",
	"\n   ~~~\n", "\n  \n", "\n   ```", "\n    ```\n",
	"\n > ", "\n  >", "\n   > - ", "\n    > ",
	"<www.a.b>", "<a.b", "</a.b>", "<a_b c>", "<a-b.c", "<a\\", "<a=", "<a\t", "<a/", "<ab", "</a ", "www.x.com",
}

// FuzzFastParseTokens holds the fast path to goldmark on notes made of
// the constructs it reads (code spans, fences, links, tags, lists, %%
// and $ that mask nothing) and those it must give up on, in any order:
// each input byte picks a token.
func FuzzFastParseTokens(f *testing.F) {
	for _, s := range []string{
		"\x0f\x00\x06\x10\x00\x10",
		"\x11\x00\x06\x00\x11\x00",
		"\x06\x20\x05\x06\x21\x05\x00\x15\x00\x22",
		"\x13\x06\x00\x11\x00\x0f\x01\x0f\x00",
		"\x2a\x06\x2b\x00\x2d\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, picks []byte) {
		var b strings.Builder
		for _, p := range picks {
			b.WriteString(fastTokens[int(p)%len(fastTokens)])
		}
		sameAsGoldmark(t, "tokens", []byte(b.String()))
	})
}

// TestFastParseVaults holds the fast path to goldmark on every note of
// the vaults in ZK_FAST_VAULTS (a list of folders, as PATH is), and counts
// the notes it gives to goldmark by where it refused (the first refusal
// of each note), so that the next construct to read is the one most notes
// stop at; ZK_FAST_LINES=1 logs each refusal's line too. It runs only
// when asked: ZK_FAST_VAULTS=/a:/b go test -run FastParseVaults -v.
func TestFastParseVaults(t *testing.T) {
	roots := filepath.SplitList(os.Getenv("ZK_FAST_VAULTS"))
	if len(roots) == 0 {
		t.Skip("ZK_FAST_VAULTS names no vault")
	}
	src, _ := os.ReadFile("fast.go")
	lines := strings.Split(string(src), "\n")
	for _, root := range roots {
		counts, examples := map[string]int{}, map[string][]string{}
		notes := 0
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir // as the vault's walk does
			}
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			notes++
			if sameAsGoldmark(t, p, b) {
				return nil
			}
			h := readHead(b)
			why := ""
			switch {
			case containsByte(b, fastBail):
				why = "a byte of fastBail"
			case !unmasked(b, h.fmEnd):
				why = "a %% comment or math to mask"
			default:
				fastParseCounted(p, b, h, func(at int) {
					_, file, line, _ := runtime.Caller(2)
					why = fmt.Sprintf("%s:%d %s", filepath.Base(file), line, strings.TrimSpace(lines[line-1]))
					if os.Getenv("ZK_FAST_LINES") != "" {
						end := bytes.IndexByte(b[at:], '\n')
						if end < 0 {
							end = len(b) - at
						}
						from := max(0, bytes.LastIndexByte(b[:max(at-1, 0)], '\n')+1)
						t.Logf("%s %q", why, b[from:at+end])
					}
				})
			}
			counts[why]++
			examples[why] = append(examples[why], p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		keys := make([]string, 0, len(counts))
		total := 0
		for k, n := range counts {
			keys = append(keys, k)
			total += n
		}
		sort.Slice(keys, func(i, j int) bool { return counts[keys[i]] > counts[keys[j]] })
		t.Logf("%s: %d of %d notes to goldmark", root, total, notes)
		for _, k := range keys {
			t.Logf("%5d %s (e.g. %s)", counts[k], k, strings.Join(examples[k][:min(2, len(examples[k]))], ", "))
		}
	}
}

// TestNoRefsIn: a "]:" that may end a link reference definition's label
// keeps the fast path from reading brackets as plain text; one that
// cannot leaves it free to.
func TestNoRefsIn(t *testing.T) {
	for body, want := range map[string]bool{
		"[a]: b":                 false,
		"x\n  [a]: b":            false,
		"- [a]: b":               false,
		"> 1. [a]: b":            false,
		"\t[a]: b":               false,
		"[a\nb]: c":              false,
		"[a \\[b]: c":            false,
		"[a\\]: b]: c":           false,
		"[^1]: note":             false,
		"`[`a]: b":               true,
		"x [a]: b":               true,
		"[a]]: b":                true,
		"**Windows**]: x":        true,
		"> [!tip] T\n> [x] [^1]": true,
		"]: at the start":        true,
		"![a]: b":                true,
	} {
		if got := noRefsIn([]byte(body)); got != want {
			t.Errorf("noRefsIn(%q) = %v, want %v", body, got, want)
		}
	}
}
