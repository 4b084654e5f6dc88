package trust

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"

	"github.com/zk-claims/zk/internal/lazyre"
)

// A script an interpreter runs loads code of its own, named by no word of
// the command: python3 bench.py imports lib.py beside it (and a json.py
// there before the standard library's: the script's folder is first on
// sys.path), node t.js requires ./lib, sh t.sh sources lib.sh. Binding the
// script alone let an edit of what it loads run unasked. Python's and
// node's lookups are too rich to read from the source (a package, a
// relative import, an index.js), so the script's folder (Python) or
// package (node) is bound as a tree, within the trees' bounds; a shell's,
// perl's, ruby's and R's are a few kinds of line, read for the files they
// name, transitively, each bound as a named file, and the command opaque
// where one names a file zk cannot tell without running it. What a script
// runs as a command in turn (sh other.sh, system("...")) is not followed.

// scriptCode binds what the script name, which the interpreter base runs
// (shells: lang's), loads of the vault.
func (in *inspector) scriptCode(base, name string, lang syntax.LangVariant, depth int) {
	if name == "" || name == "-" || strings.ContainsRune(name, 0) {
		return
	}
	for _, d := range in.dirs {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(d.path, name)
		}
		// Python and node look up beside the script's real path.
		real, err := filepath.EvalSymlinks(p)
		if err != nil || !within(real, in.realDir) {
			continue // not there, or not the vault's
		}
		dir := filepath.Dir(real)
		if st, err := os.Stat(real); err == nil && st.IsDir() {
			// python3 DIR runs DIR/__main__.py, DIR first on sys.path;
			// node DIR its index.js or its package's main.
			dir = real
		}
		switch {
		case strings.HasPrefix(base, "python"), strings.HasPrefix(base, "pypy"):
			in.request(pythonTree, dir)
		case base == "node", base == "nodejs":
			root, _ := up(dir, "package.json")
			if root == "" || !within(root, in.realDir) {
				root = dir
			}
			in.request(nodeTree, root)
			if !reaches(root, dir, treeFilesOf[nodeTree]) {
				// A script in a folder the package's walk skips (.cache,
				// node_modules): what it requires beside it is bound too.
				in.request(nodeTree, dir)
			}
		default:
			if k := loaderOf(base, lang); k != nil {
				in.loads(k, real, d, depth, argZero{zero: name, self: name})
			}
		}
	}
}

// maxLoaded bounds the bytes of scripts read for the files they load, a
// command's together: a shell script is parsed whole, and a 33 MB one took
// 7.4 s and 1.2 GB. Real ones are a few kB; past it, the command is opaque.
const maxLoaded = 1 << 20

// loader is how one language's lines name a file they load.
type loader struct {
	// line matches a line that loads a file, its first group the word
	// that loads, its second the rest of the line.
	line func() *regexp.Regexp
	// resolve is the file the loading word lw and its literal argument
	// arg name, relative to the script's folder (true) or the working
	// folder (false); "" for none of the vault's (a library on a search
	// path zk does not bind, as it binds no installed code).
	resolve func(lw, arg string) (string, bool)
	lang    syntax.LangVariant // a shell's, whose script is parsed
	// search matches a line adding a folder to the language's search path
	// (ruby's $LOAD_PATH.unshift, perl's unshift @INC, R's .libPaths()):
	// a module found there is the vault's, not installed code, and zk
	// does not follow the search; opaque, as perl's use lib is.
	search func() *regexp.Regexp
	what   string // the search path's name, for the message
}

// loaderOf is the loader of the interpreter base, or nil.
func loaderOf(base string, lang syntax.LangVariant) *loader {
	if _, ok := shells[base]; ok {
		return &loader{lang: lang} // parsed, not matched
	}
	switch {
	case strings.HasPrefix(base, "perl"):
		return &perlLoader
	case strings.HasPrefix(base, "ruby"):
		return &rubyLoader
	case base == "Rscript":
		return &rLoader
	}
	return nil
}

// relative is a name that starts ./ or ../: perl's do and require, and
// ruby's require, read those from the working folder, and any other on
// their search paths.
func relative(n string) bool {
	return strings.HasPrefix(n, "./") || strings.HasPrefix(n, "../")
}

var perlLoader = loader{
	search: lazyre.New(`\b(?:unshift|push|splice)\s*\(?\s*@INC\b|@INC\s*=`), what: "perl's @INC",
	line: lazyre.New(`(?:^|[;{}])\s*(require|do|use\s+lib)\b\s*\(?\s*([^;]*)`),
	resolve: func(lw, arg string) (string, bool) {
		if relative(arg) {
			return arg, false
		}
		return "", false
	},
}

var rubyLoader = loader{
	search: lazyre.New(`\$(?:LOAD_PATH|:|-I)\s*(?:\.\s*(?:unshift|push|insert|concat|prepend|append)\b|<<|\+=|=[^=~])`), what: "ruby's $LOAD_PATH",
	line: lazyre.New(`(?:^|[;{}])\s*(require_relative|require|load)\b\s*\(?\s*([^;]*)`),
	resolve: func(lw, arg string) (string, bool) {
		switch {
		case lw == "require_relative":
			return rbExt(arg), true
		case lw == "load" && !filepath.IsAbs(arg):
			return arg, false // load reads a relative name from the working folder
		case relative(arg):
			return rbExt(arg), false
		}
		return "", false
	},
}

var rLoader = loader{
	search: lazyre.New(`\.libPaths\s*\(\s*[^)\s]`), what: "R's library paths",
	line:    lazyre.New(`(?:^|[\s;({=])((?:sys\.)?source)\s*\(\s*(?:file\s*=\s*)?([^;]*)`),
	resolve: func(_, arg string) (string, bool) { return arg, false },
}

// rbExt is ruby's name for a file required without its extension.
func rbExt(n string) string {
	if filepath.Ext(n) == "" {
		return n + ".rb"
	}
	return n
}

// argZero is what a shell script knows of its own name, which a script
// sourcing a file beside it builds the file's name from: $0, the script
// the shell was given, and ${BASH_SOURCE[0]}, the file being read (the
// script, or a file it sources, as it was named). Each is the name as the
// shell holds it: absolute, or relative to the working folder.
type argZero struct{ zero, self string }

// loads reads the script at p (run from folder d, named as az says) for
// the files it loads, binds each, and reads those in turn.
func (in *inspector) loads(k *loader, p string, d folder, depth int, az argZero) {
	if in.err != nil || in.loaded[p] {
		return
	}
	if in.loaded == nil {
		in.loaded = map[string]bool{}
	}
	in.loaded[p] = true
	if depth >= maxDepth {
		in.opaque("%s loads files nested over %d deep", in.display(p, in.realDir), maxDepth)
		return
	}
	shown := in.display(p, in.realDir)
	// Stat before reading: the bound is on what is held, not only parsed.
	if st, err := os.Stat(p); err == nil {
		if in.loadedBytes += st.Size(); in.loadedBytes > maxLoaded {
			in.opaque("%s and the scripts it loads are over %d MiB; zk does not read them all for the files they load", shown, maxLoaded>>20)
			return
		}
	}
	src, err := readFile(p)
	if err != nil || src == nil || int64(len(src)) > maxLoaded {
		return // hash reports it; or it grew since the stat, and is read no more
	}
	bind := func(name string, script bool) {
		if !in.readName(p) || name == "" {
			return
		}
		sourced := argZero{zero: az.zero, self: name}
		if k.lang == syntax.LangZsh {
			sourced.zero = name // zsh's $0 in a sourced file is that file
		}
		// Joined as the kernel joins them: hash reads a .. after a
		// symlink from where it leads, which filepath.Join would clean away.
		q := name
		if !filepath.IsAbs(q) {
			if script {
				q = filepath.Dir(p) + string(filepath.Separator) + name
			} else {
				q = d.path + string(filepath.Separator) + name
			}
		}
		in.hash(q, d.base)
		if real, err := filepath.EvalSymlinks(q); err == nil && within(real, in.realDir) {
			in.loads(k, real, d, depth+1, sourced)
		}
	}
	if k.line == nil {
		in.sources(src, k.lang, shown, az, bind)
		return
	}
	for line := range bytes.Lines(src) {
		s := strings.TrimSpace(string(line))
		if strings.HasPrefix(s, "#") {
			continue
		}
		if k.search != nil && k.search().MatchString(s) {
			in.opaque("%s in %s adds folders to %s, whose modules zk does not bind", quoteSrc(s), shown, k.what)
		}
		for _, m := range k.line().FindAllStringSubmatch(s, -1) {
			lw := strings.Join(strings.Fields(m[1]), " ")
			if lw == "use lib" {
				in.opaque("%s in %s adds folders to perl's search path, whose modules zk does not bind", quoteSrc(s), shown)
				continue
			}
			arg, ok := stringLiteral(m[2])
			switch {
			case ok:
				bind(k.resolve(lw, arg))
			case lw == "do" && strings.HasPrefix(m[2], "{"),
				lw == "require" && bareword().MatchString(m[2]):
				// perl's do BLOCK; a module or version on the search path
				// (Foo::Bar, 5.010), not the vault's.
			default:
				in.opaque("%s in %s names a file zk cannot tell without running it", quoteSrc(s), shown)
			}
		}
	}
}

// sources parses a shell script and binds what its . and source commands
// name, from the working folder (a name with no slash: as well, bash looks
// there after PATH); a name built from the script's own folder (scriptDir)
// too, as the shell builds it from az.
func (in *inspector) sources(src []byte, lang syntax.LangVariant, shown string, az argZero, bind func(string, bool)) {
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(bytes.NewReader(src), "")
	if err != nil {
		in.opaque("cannot parse %s as a shell script: %v", shown, err)
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || len(c.Args) < 2 {
			return true
		}
		if w, _ := literal(c.Args[0], lang); w != "." && w != "source" {
			return true
		}
		s, why := literal(c.Args[1], lang)
		if why != "" {
			s, why = scriptDir(c.Args[1], src, lang, az)
		}
		if why != "" {
			in.opaque("%s in %s names a file zk cannot tell without running it", quoteSrc(string(src[c.Pos().Offset():c.End().Offset()])), shown)
			return true
		}
		bind(s, false)
		return true
	})
}

// bareword is a perl module's name, which require looks up on @INC.
var bareword = lazyre.New(`^([A-Za-z_][A-Za-z0-9_]*(::[A-Za-z0-9_]+)*|v?[0-9][0-9._]*)\s*\)?\s*$`)

// stringLiteral is the string a line's argument s starts with, quoted,
// and false when it is no quoted string or one that interpolates (a
// variable, an expression zk cannot tell without running it).
func stringLiteral(s string) (string, bool) {
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return "", false
	}
	end := strings.IndexByte(s[1:], s[0])
	if end < 0 {
		return "", false
	}
	v := s[1 : 1+end]
	if strings.ContainsAny(v, "\\") || s[0] == '"' && strings.ContainsAny(v, "$@#{") {
		return "", false
	}
	return v, true
}

// shebang inspects the command the kernel runs for the script name when
// it is run as a program (./bench.py, or after a wrapper: timeout 5
// ./bench.py): the interpreter its #! line names, that line's argument
// (one word, as the kernel passes it), and the script, as if written so:
// #!/usr/bin/env python3 is python3 bench.py, binding what it loads, and
// #!/usr/bin/env -S python3 -m evil runs a module zk does not read,
// opaque. The interpreter is taken by its name, not hashed: an approval
// does not bind the system's /usr/bin/env. Only a name with a slash runs
// a file of the vault (a bare one is looked up on PATH), and only an
// executable one runs at all.
func (in *inspector) shebang(name string, depth int) {
	if !strings.ContainsRune(name, '/') || strings.ContainsRune(name, 0) {
		return
	}
	for _, d := range in.dirs {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(d.path, name)
		}
		line := shebangLine(p)
		if len(line) == 0 || in.shebangs[p] || depth >= maxDepth {
			continue
		}
		if in.shebangs == nil {
			in.shebangs = map[string]bool{}
		}
		in.shebangs[p] = true // a script that is its own interpreter
		in.argv(append(line, p), depth+1, false)
	}
}

// shebangLine is the command the #! line of the executable file at p
// starts, the interpreter by its name (/usr/bin/env is env), before the
// script's name; nil when p runs no interpreter. Its words are split at
// blanks, as BSD's and macOS's kernels split them (Linux passes the rest
// of the line as one word; a split there binds more, never less), and
// env -S's string is its words.
func shebangLine(p string) []string {
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
		return nil
	}
	f, err := openRegular(p)
	if f == nil || err != nil {
		return nil
	}
	defer f.Close()
	// The kernel reads at most 256 bytes of the line.
	buf := make([]byte, 256)
	n, _ := io.ReadFull(f, buf)
	line, ok := bytes.CutPrefix(buf[:n], []byte("#!"))
	if !ok {
		return nil
	}
	line, _, _ = bytes.Cut(line, []byte("\n"))
	words := strings.Fields(string(line))
	if len(words) == 0 {
		return nil
	}
	words[0] = filepath.Base(words[0])
	if words[0] == "env" && len(words) > 1 && strings.HasPrefix(words[1], "-S") {
		if rest := words[1][2:]; rest != "" {
			words[1] = rest
		} else {
			words = append(words[:1], words[2:]...)
		}
	}
	return words
}

// scriptDir is the name a word of a script builds from the script's own
// folder, the commonest way a script sources a library beside it
// (. "$(dirname "$0")/lib.sh", source "${0%/*}/lib.sh",
// . "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"), as the shell builds it
// from az; else why zk cannot tell it. Only these spellings are read: the
// folder first, as $(dirname [--] X) or ${X%/*} with X one of $0 and
// ${BASH_SOURCE[0]} (bash's alone), then literal text. Anything else with
// a variable is a name zk cannot tell without running the script.
func scriptDir(w *syntax.Word, src []byte, lang syntax.LangVariant, az argZero) (string, string) {
	const cannot = "names a file zk cannot tell"
	type part struct {
		syntax.WordPart
		quoted bool
	}
	var parts []part
	for _, p := range w.Parts {
		if dq, ok := p.(*syntax.DblQuoted); ok && !dq.Dollar {
			for _, q := range dq.Parts {
				parts = append(parts, part{q, true})
			}
			continue
		}
		parts = append(parts, part{p, false})
	}
	if len(parts) == 0 {
		return "", cannot
	}
	text := func(n syntax.Node) string {
		s, e := int(n.Pos().Offset()), int(n.End().Offset())
		if s < 0 || e > len(src) || s > e {
			return ""
		}
		return string(src[s:e])
	}
	// The variable a word names, exactly: its value as the shell has it.
	value := func(t string) (string, bool) {
		switch strings.Trim(t, `"`) {
		case "$0", "${0}":
			return az.zero, true
		case "$BASH_SOURCE", "${BASH_SOURCE}", "${BASH_SOURCE[0]}":
			return az.self, lang == syntax.LangBash
		}
		return "", false
	}
	var dir string
	switch p := parts[0].WordPart.(type) {
	case *syntax.CmdSubst:
		if len(p.Stmts) != 1 || len(p.Last) > 0 {
			return "", cannot
		}
		st := p.Stmts[0]
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 {
			return "", cannot
		}
		args := call.Args
		if len(args) == 3 && text(args[1]) == "--" {
			args = []*syntax.Word{args[0], args[2]}
		}
		if len(args) != 2 || text(args[0]) != "dirname" {
			return "", cannot
		}
		t := text(args[1])
		if len(t) > 1 && t[0] == '"' && t[len(t)-1] == '"' {
			t = t[1 : len(t)-1]
		}
		v, ok := value(t)
		if !ok {
			return "", cannot
		}
		dir = dirname(v)
	case *syntax.ParamExp:
		t := text(p)
		stem, ok := strings.CutSuffix(t, "%/*}")
		if !ok {
			return "", cannot
		}
		v, ok := value(stem + "}")
		if !ok {
			return "", cannot
		}
		if i := strings.LastIndexByte(v, '/'); i >= 0 {
			v = v[:i]
		}
		dir = v
	default:
		return "", cannot
	}
	// Unquoted, the folder is split and globbed: only a plain one is read.
	if !parts[0].quoted && (strings.ContainsAny(dir, " \t\n") || pattern.HasMeta(dir, 0)) {
		return "", cannot
	}
	var b strings.Builder
	b.WriteString(dir)
	for _, p := range parts[1:] {
		switch q := p.WordPart.(type) {
		case *syntax.Lit:
			if !p.quoted && pattern.HasMeta(q.Value, 0) {
				return "", cannot
			}
			b.WriteString(unescape(q.Value, p.quoted))
		case *syntax.SglQuoted:
			if q.Dollar {
				return "", cannot
			}
			b.WriteString(q.Value)
		default:
			return "", cannot
		}
	}
	return b.String(), ""
}

// dirname is the folder of the name s as dirname(1) gives it: textual, so
// that a .. after a symlink is read as the kernel reads it (hash).
func dirname(s string) string {
	if s == "" {
		return "."
	}
	t := strings.TrimRight(s, "/")
	if t == "" {
		return "/"
	}
	i := strings.LastIndexByte(t, '/')
	if i < 0 {
		return "."
	}
	if t = strings.TrimRight(t[:i], "/"); t == "" {
		return "/"
	}
	return t
}
