package trust

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/zk-claims/zk/internal/lazyre"
)

// A tree's code may load code from outside the tree: a Python file adds a
// folder to sys.path (sys.path.insert(0, "lib"), site.addsitedir(...)) and
// imports from it; a JavaScript file requires "../shared/x" above its
// package. A tree walked alone left that code unbound, run unasked once
// edited. So a tree's Python and JavaScript files are read as they are
// hashed: a folder added to sys.path, named by a literal or built from
// __file__ (pyPath), is walked into the tree; a relative require or import
// leading out of the tree binds the files it may load. Either one outside
// the vault, or a sys.path zk cannot tell, is opaque.

// scanExts are the files of a tree read for what they load from outside
// it, by kind.
var scanExts = map[treeKind][]string{
	pythonTree: {".py"},
	nodeTree:   {".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"},
}

// scan reads the file p of a tree of kind k, its content data, for the
// code it loads from outside the tree, and binds it into the tree.
func (b *treeBuilder) scan(k treeKind, p string, data []byte) {
	if b.err != nil {
		return
	}
	switch k {
	case pythonTree:
		b.pythonPaths(p, data)
	case nodeTree:
		b.nodeRequires(p, data)
	}
}

// pySysPath finds where a Python file changes sys.path: a call adding to
// it (its first group; the arguments follow the match), or another change
// (an assignment, a slice), which zk does not read.
var pySysPath = lazyre.New(`\b(?:(sys\.path\.(?:insert|append|extend)|site\.addsitedir)\s*\(|sys\.path\s*(?:\+=|=[^=]|\[[^\]\n]*\]\s*=[^=]))`)

// pythonPaths binds the folders the Python file p (content data) adds to
// sys.path.
func (b *treeBuilder) pythonPaths(p string, data []byte) {
	if !bytes.Contains(data, []byte("sys.path")) && !bytes.Contains(data, []byte("addsitedir")) {
		return
	}
	src := string(data)
	shown := b.in.display(p, b.in.realDir)
	// Each line's start is found walking forward, once: a file of one long
	// line of matches must not be read back from each.
	at, comment := 0, false
	for _, m := range pySysPath().FindAllStringSubmatchIndex(src, -1) {
		if nl := strings.LastIndexByte(src[at:m[0]], '\n'); nl >= 0 || at == 0 {
			start := at + nl + 1
			first := strings.TrimLeft(src[start:m[0]], " \t")
			comment = strings.HasPrefix(first, "#")
		}
		at = m[0]
		if comment {
			continue
		}
		call := ""
		if m[2] >= 0 {
			call = src[m[2]:m[3]]
		}
		args, ok := pyArgs(src[m[1]:])
		switch {
		case call == "":
			ok = false // an assignment, a slice
		case !ok:
		case call == "sys.path.insert":
			if ok = len(args) == 2; ok {
				args = args[1:]
			}
		case call == "sys.path.extend":
			if ok = len(args) == 1; ok {
				args, ok = pyList(args[0])
			}
		default:
			ok = len(args) == 1
		}
		if !ok {
			b.opaque = append(b.opaque, fmt.Sprintf("%s changes sys.path as zk cannot tell without running it (%s)", shown, quoteSrc(strings.TrimSpace(src[m[0]:min(len(src), m[1]+40)]))))
			return // once a file: the rest would say it again
		}
		for _, a := range args {
			v, ok := pyPath(a, p)
			if !ok {
				b.opaque = append(b.opaque, fmt.Sprintf("%s adds to sys.path a folder zk cannot tell without running it (%s)", shown, quoteSrc(strings.TrimSpace(a))))
				return
			}
			for _, d := range b.pathDirs(v) {
				b.bindFolder(d, pythonTree, shown)
			}
		}
	}
}

// pathDirs is the paths v names: itself when absolute, else from each
// folder the command runs in.
func (b *treeBuilder) pathDirs(v string) []string {
	if filepath.IsAbs(v) {
		return []string{v}
	}
	var out []string
	for _, d := range b.in.realDirs() {
		out = append(out, d+string(filepath.Separator)+v)
	}
	return out
}

// bindFolder walks the folder dir, which the file shown puts on a search
// path, into the tree as a tree of kind k is walked: opaque when it is
// outside the vault; nothing when it is not there (its files, appearing,
// change the manifest) or the tree's walk covers it.
func (b *treeBuilder) bindFolder(dir string, k treeKind, shown string) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		if !within(filepath.Clean(dir), b.in.realDir) {
			b.opaque = append(b.opaque, fmt.Sprintf("%s loads code from %s, outside the vault, which zk does not bind", shown, filepath.Clean(dir)))
		}
		return
	}
	if !within(real, b.in.realDir) {
		b.opaque = append(b.opaque, fmt.Sprintf("%s loads code from %s, outside the vault, which zk does not bind", shown, real))
		return
	}
	f := treeFilesOf[k]
	if st, err := os.Stat(real); err != nil || !st.IsDir() || b.covers(real, f) || b.walked[real] {
		return
	}
	if len(b.walked) == maxAddedFolders {
		// Each one walked may add the next: a chain of them is a walk
		// nested as deep, its stack too.
		b.opaque = append(b.opaque, fmt.Sprintf("%s's files add over %d folders to its search path; zk does not walk them all", b.name, maxAddedFolders))
		return
	}
	if b.walked == nil {
		b.walked = map[string]bool{}
	}
	b.walked[real] = true
	if err := b.walk(real, f); err != nil && b.err == nil {
		b.err = err
	}
}

// maxAddedFolders bounds the folders outside its root a tree's files add
// to it (bindFolder).
const maxAddedFolders = 256

// covers says whether the walk of the tree's root, by f, enters dir.
func (b *treeBuilder) covers(dir string, f treeFiles) bool { return reaches(b.root, dir, f) }

// reaches says whether a walk of root by f enters dir.
func reaches(root, dir string, f treeFiles) bool {
	rel, ok := under(dir, root)
	if !ok {
		return false
	}
	parent := root
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		if c == "." {
			continue
		}
		if f.skipDir(parent, c) {
			return false
		}
		parent = filepath.Join(parent, c)
	}
	return true
}

// pyArgs splits the arguments of a call whose text, after its opening
// parenthesis, is s, at its top-level commas; false when they do not end
// within maxPyArgs bytes or hold a string zk does not read.
func pyArgs(s string) ([]string, bool) {
	const maxPyArgs = 1000
	depth, start := 0, 0
	var args []string
	for i := 0; i < len(s) && i < maxPyArgs; i++ {
		switch c := s[i]; c {
		case '\'', '"':
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				return nil, false
			}
			i += end + 1
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				if a := strings.TrimSpace(s[start:i]); a != "" || len(args) > 0 {
					args = append(args, a)
				}
				return args, true
			}
			depth--
		case ',':
			if depth == 0 {
				args = append(args, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return nil, false
}

// pyList is the elements of a list or tuple literal's text s.
func pyList(s string) ([]string, bool) {
	if len(s) < 2 || !(s[0] == '[' && s[len(s)-1] == ']' || s[0] == '(' && s[len(s)-1] == ')') {
		return nil, false
	}
	args, ok := pyArgs(s[1:len(s)-1] + ")")
	if len(args) > 0 && args[len(args)-1] == "" {
		args = args[:len(args)-1] // a trailing comma
	}
	return args, ok
}

// pyPath is the path the Python expression e names in the file p, as an
// absolute path or one relative to the working folder, when it is one of
// the spellings a script builds a folder with: a string literal, __file__,
// os.getcwd(), os.path.join, dirname, abspath, realpath, normpath, str(),
// Path(...) and its .parent, .resolve(), .absolute(), .joinpath() and /.
// False for anything else (a variable, an f-string).
func pyPath(e string, p string) (string, bool) {
	ps := &pyParser{src: e, file: p}
	v, ok := ps.expr()
	ps.space()
	return v, ok && ps.i == len(ps.src)
}

type pyParser struct {
	src, file string
	i         int
	depth     int
}

func (ps *pyParser) space() {
	for ps.i < len(ps.src) && strings.IndexByte(" \t\r\n\\", ps.src[ps.i]) >= 0 {
		ps.i++
	}
}

func (ps *pyParser) eat(s string) bool {
	ps.space()
	if strings.HasPrefix(ps.src[ps.i:], s) {
		ps.i += len(s)
		return true
	}
	return false
}

// expr is a term, joined with / to the terms after it.
func (ps *pyParser) expr() (string, bool) {
	if ps.depth++; ps.depth > 32 {
		return "", false
	}
	defer func() { ps.depth-- }()
	v, ok := ps.term()
	for ok && ps.eat("/") {
		var w string
		if w, ok = ps.term(); ok {
			v = pyJoin(v, w)
		}
	}
	return v, ok
}

// term is an atom and its trailers.
func (ps *pyParser) term() (string, bool) {
	v, ok := ps.atom()
	for ok {
		switch {
		case ps.eat(".parent"):
			v = pyDirname(v)
		case ps.eat(".resolve()"), ps.eat(".absolute()"):
		case ps.eat(".joinpath("):
			var args []string
			if args, ok = ps.args(); ok {
				for _, a := range args {
					v = pyJoin(v, a)
				}
			}
		default:
			return v, true
		}
	}
	return v, ok
}

// atom is a string, __file__, a call of a known function, or a
// parenthesised expression.
func (ps *pyParser) atom() (string, bool) {
	ps.space()
	rest := ps.src[ps.i:]
	if q := strings.TrimLeft(rest, "rR"); len(q) > 0 && (q[0] == '\'' || q[0] == '"') && len(rest)-len(q) <= 1 {
		end := strings.IndexByte(q[1:], q[0])
		if end < 0 || strings.ContainsRune(q[1:1+end], '\\') {
			return "", false
		}
		ps.i += len(rest) - len(q) + end + 2
		return q[1 : 1+end], true
	}
	if ps.eat("(") {
		v, ok := ps.expr()
		return v, ok && ps.eat(")")
	}
	n := 0
	for n < len(rest) && (rest[n] == '_' || rest[n] == '.' || rest[n] >= 'a' && rest[n] <= 'z' || rest[n] >= 'A' && rest[n] <= 'Z' || rest[n] >= '0' && rest[n] <= '9') {
		n++
	}
	name := rest[:n]
	ps.i += n
	if name == "__file__" {
		return ps.file, true
	}
	if !ps.eat("(") {
		return "", false
	}
	args, ok := ps.args()
	if !ok {
		return "", false
	}
	switch name {
	case "os.getcwd", "pathlib.Path.cwd", "Path.cwd":
		return "", len(args) == 0
	case "os.path.join", "Path", "pathlib.Path", "PurePath", "pathlib.PurePath":
		if len(args) == 0 {
			return "", name != "os.path.join"
		}
		v := args[0]
		for _, a := range args[1:] {
			v = pyJoin(v, a)
		}
		return v, true
	case "os.path.dirname":
		if len(args) == 1 {
			return pyDirname(args[0]), true
		}
	case "os.path.abspath", "os.path.realpath", "os.path.normpath", "os.fspath", "str":
		if len(args) == 1 {
			return args[0], true
		}
	}
	return "", false
}

// args is the paths a call's arguments name, after its (.
func (ps *pyParser) args() ([]string, bool) {
	var vs []string
	if ps.eat(")") {
		return vs, true
	}
	for {
		v, ok := ps.expr()
		if !ok {
			return nil, false
		}
		vs = append(vs, v)
		if ps.eat(")") {
			return vs, true
		}
		if !ps.eat(",") {
			return nil, false
		}
	}
}

// pyJoin is os.path.join's: an absolute b starts again.
func pyJoin(a, b string) string {
	switch {
	case filepath.IsAbs(b) || a == "":
		return b
	case strings.HasSuffix(a, "/"):
		return a + b
	}
	return a + "/" + b
}

// pyDirname is os.path.dirname's: the text before the last slash.
func pyDirname(s string) string {
	i := strings.LastIndexByte(s, '/')
	if i < 0 {
		return ""
	}
	if d := strings.TrimRight(s[:i], "/"); d != "" {
		return d
	}
	return "/"
}

// jsRelative finds a JavaScript file's relative require(), import() and
// import/export ... from specifiers: its second group.
var jsRelative = lazyre.New(`(?:\brequire\s*\(\s*|\bimport\s*\(\s*|\bfrom\s*|\bimport\s+)(['"])(\.\.?/[^'"\n]*)['"]`)

// nodeExtsTried are the names node and TypeScript's loaders try for a
// specifier with no extension, besides the folder's index files (a folder
// is walked whole).
var nodeExtsTried = []string{"", ".js", ".mjs", ".cjs", ".json", ".node", ".ts", ".mts", ".cts", ".tsx", ".jsx"}

// nodeRequires binds what the JavaScript file p (content data) requires
// by a relative name leading out of the tree.
func (b *treeBuilder) nodeRequires(p string, data []byte) {
	if within(p, b.root) && !bytes.Contains(data, []byte("../")) {
		return // all it requires is in the tree
	}
	shown := b.in.display(p, b.in.realDir)
	for _, m := range jsRelative().FindAllStringSubmatch(string(data), -1) {
		target := filepath.Dir(p) + string(filepath.Separator) + m[2]
		clean := filepath.Clean(target)
		if within(clean, b.root) {
			continue // the walk binds it
		}
		if !within(clean, b.in.realDir) {
			b.opaque = append(b.opaque, fmt.Sprintf("%s requires %q, outside the vault, which zk does not bind", shown, m[2]))
			return // once a file
		}
		if st, err := os.Stat(target); err == nil && st.IsDir() {
			b.bindFolder(target, nodeTree, shown)
			continue
		}
		for _, ext := range nodeExtsTried {
			b.addScanned(target+ext, nodeTree)
		}
	}
}

// addScanned binds the file at p, if it is there, as a file of a tree of
// kind k, and reads it for what it loads in turn.
func (b *treeBuilder) addScanned(p string, k treeKind) {
	st, err := os.Lstat(p)
	if err != nil || b.err != nil {
		return
	}
	var use func([]byte)
	if scanned(k, p) {
		use = func(data []byte) { b.scan(k, p, data) }
	}
	if err := b.add(p, fs.FileInfoToDirEntry(st), use); err != nil && b.err == nil {
		b.err = err
	}
}

// scanned says whether the file p of a tree of kind k is read for what it
// loads.
func scanned(k treeKind, p string) bool {
	for _, e := range scanExts[k] {
		if strings.HasSuffix(p, e) {
			return true
		}
	}
	return false
}
