package trust

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/zk-claims/zk/internal/lazyre"
)

// A build or test tool runs a tree of code no word of the command names:
// go test ./... its packages and the module's packages they import, cargo
// test its crates, pytest its test files, their conftest.py files and the
// code they import, npm test what package.json's scripts run. An approval
// binds that tree as it binds a named file: every file of it is hashed,
// and one changed, added or removed needs a new approval. Which files are
// a tool's code is decided per tool (goTree, cargoTree, pythonTree,
// nodeTree); what is bound is a manifest, one line a file, whose hash the
// approval keeps.
//
// A tree is read within bounds, all of a command's trees together: over
// maxTreeFiles files, maxTreeBytes bytes, or maxTreeEntries entries
// walked, the command is not approved (an error saying which tree), where
// hashing it would take minutes and approving it unhashed would run what
// comes. A symlink in a tree is not followed out of it: one leading out is
// bound by its text, and what it leads to is opaque.
const (
	maxTreeFiles   = 20_000
	maxTreeBytes   = 256 << 20
	maxTreeEntries = 200_000
)

// treeLimits are the bounds of a command's trees: the constants, lower in
// tests.
type treeLimits struct {
	files, entries int
	bytes          int64
}

var defaultLimits = treeLimits{files: maxTreeFiles, entries: maxTreeEntries, bytes: maxTreeBytes}

// Tree is the code a tool the command runs finds on its own: its files,
// hashed into one manifest.
type Tree struct {
	// Name says what the tree is and where, as the messages put it: "the
	// Go code of the module in .". An approval keeps a tree by its name.
	Name  string
	Files int
	Bytes int64
	// Sum is "sha256:" and the hex hash of Manifest.
	Sum string
	// Manifest is a line a file, sorted: its content's hash (or, for a
	// symlink leading out of the tree, "link:" and its quoted text), a
	// space, and its name quoted as strconv.Quote does (a vault path, or
	// an absolute path outside the vault).
	Manifest []byte
}

// treeKind is one tool's way of finding its code.
type treeKind int

const (
	noTree treeKind = iota
	goTree
	cargoTree
	pythonTree
	nodeTree
)

// name is how a tree of kind k rooted at root (shown) is called.
func (k treeKind) name(root string) string {
	switch k {
	case goTree:
		return "the Go code of the module in " + root
	case cargoTree:
		return "the Rust code of the crates in " + root
	case pythonTree:
		return "the Python code in " + root
	default:
		return "the JavaScript code in " + root
	}
}

// treeRequest is what the command asked of one tree: its kind and root,
// and for Go, the packages its patterns name.
type treeRequest struct {
	kind treeKind
	root string // its real path
	// Go: the module's path, and the folders its patterns name (all:
	// every package under it).
	module string
	pkgs   map[string]bool
	// venv: a runner runs it (uv run, poetry run), in the project's
	// virtual environment when it has one.
	venv bool
}

// request records that the command runs the tree of kind k at root (a
// real path), and returns its request, to add Go's packages to.
func (in *inspector) request(k treeKind, root string) *treeRequest {
	key := fmt.Sprint(k) + "\x00" + root
	if in.trees == nil {
		in.trees = map[string]*treeRequest{}
	}
	r, ok := in.trees[key]
	if !ok {
		r = &treeRequest{kind: k, root: root, pkgs: map[string]bool{}}
		in.trees[key] = r
	}
	return r
}

// buildTrees hashes the trees the command asked for into the scope, once
// for a Memo's pass; their files count against the one budget.
func (in *inspector) buildTrees() {
	keys := slices.Sorted(maps.Keys(in.trees))
	for _, k := range keys {
		if in.err != nil {
			return
		}
		r := in.trees[k]
		pkgs := make([]string, 0, len(r.pkgs))
		for d, all := range r.pkgs {
			pkgs = append(pkgs, fmt.Sprint(d, all))
		}
		slices.Sort(pkgs)
		key := k + "\x00" + r.module + "\x00" + strings.Join(pkgs, "\x00") + "\x00" + fmt.Sprint(r.venv)
		if r.kind == pythonTree {
			// A relative sys.path entry is read from the folders the
			// command runs in (paths.go): another command's are others.
			key += "\x00" + strings.Join(in.realDirs(), "\x00")
		}
		var bt builtTree
		var ok bool
		if in.memo != nil {
			in.memo.mu.Lock()
			bt, ok = in.memo.trees[key]
			in.memo.mu.Unlock()
		}
		if ok {
			in.budget.files += bt.tree.Files
			in.budget.bytes += bt.tree.Bytes
			if in.budget.files > in.limits.files || in.budget.bytes > in.limits.bytes {
				bt.err = fmt.Errorf("trust: the trees of code the command runs hold over %s files or %s: zk does not approve a command running more code than it can hash; have it run less (name its packages, its test folder)",
					humanize.Comma(int64(in.limits.files)), humanize.IBytes(uint64(in.limits.bytes)))
			}
		} else {
			bt.tree, bt.opaque, bt.err = in.build(r)
			if in.memo != nil {
				in.memo.mu.Lock()
				in.memo.trees[key] = bt
				in.memo.mu.Unlock()
			}
		}
		if bt.err != nil {
			in.err = bt.err
			return
		}
		for _, o := range bt.opaque {
			in.opaque("%s", o)
		}
		in.scope.Trees = append(in.scope.Trees, bt.tree)
	}
	slices.SortFunc(in.scope.Trees, func(a, b Tree) int { return strings.Compare(a.Name, b.Name) })
}

// realDirs is the real path of every folder names are read from.
func (in *inspector) realDirs() []string {
	var out []string
	for _, d := range in.dirs {
		if real, err := filepath.EvalSymlinks(d.path); err == nil && !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

// up is the first folder from dir up that holds one of names as a regular
// file, and that file's name; "" when none does.
func up(dir string, names ...string) (string, string) {
	for p := dir; ; {
		for _, n := range names {
			if st, err := os.Stat(filepath.Join(p, n)); err == nil && st.Mode().IsRegular() {
				return p, n
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", ""
		}
		p = parent
	}
}

// goCode requests the Go packages go test, go run, go vet and go generate
// run (args follow go; go -C is a folder names are read from, chdirs):
// those the patterns name, from each folder, and the module's packages
// they import, found when the tree is built.
func (in *inspector) goCode(args []string) {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if args[i] == "-C" {
			i++
		}
		i++
	}
	if i >= len(args) {
		return
	}
	sub, rest := args[i], args[i+1:]
	switch sub {
	case "test", "run", "vet":
	case "generate":
		in.opaque("`go generate` runs the commands its //go:generate lines name")
	default:
		return
	}
	pats := in.goPatterns(sub, rest)
	if len(pats) == 0 {
		pats = []string{"."}
	}
	for _, cwd := range in.realDirs() {
		root, _ := up(cwd, "go.mod")
		if root == "" {
			continue // no module: go runs the files named, hashed as named
		}
		if w, _ := up(cwd, "go.work"); w != "" {
			in.hash(filepath.Join(w, "go.work"), in.realDir)
			in.opaque("`go.work` in %s has go run the code of the modules it uses, not bound", in.display(w, in.realDir))
		}
		mod, err := readFile(filepath.Join(root, "go.mod"))
		if err != nil {
			in.err = fmt.Errorf("trust: %s: %w", in.display(filepath.Join(root, "go.mod"), in.realDir), err)
			return
		}
		r := in.request(goTree, root)
		r.module = in.goMod(mod, root)
		for _, p := range pats {
			if d, all, ok := goPatternDir(p, cwd, root, r.module); ok {
				r.pkgs[d] = r.pkgs[d] || all
			} else if ok = strings.HasPrefix(p, ".") || filepath.IsAbs(p); ok {
				in.opaque("`go %s %s` runs code outside the module in %s, not bound", sub, p, in.display(root, in.realDir))
			}
		}
	}
}

// goBool are go's build and test flags that take no value.
var goBool = []string{"-a", "-n", "-x", "-v", "-i", "-c", "-race", "-msan", "-asan", "-cover", "-short", "-failfast",
	"-json", "-benchmem", "-trimpath", "-work", "-linkshared", "-modcacherw", "-fullpath", "-buildvcs", "-e"}

// goValued are those that take one.
var goValued = []string{"-run", "-skip", "-bench", "-benchtime", "-count", "-timeout", "-cpu", "-p", "-o", "-tags",
	"-ldflags", "-gcflags", "-asmflags", "-gccgoflags", "-mod", "-modfile", "-overlay", "-pkgdir", "-coverprofile",
	"-covermode", "-coverpkg", "-cpuprofile", "-memprofile", "-memprofilerate", "-blockprofile", "-blockprofilerate",
	"-mutexprofile", "-mutexprofilefraction", "-trace", "-outputdir", "-parallel", "-shuffle", "-list", "-fuzz",
	"-fuzztime", "-fuzzminimizetime", "-vet", "-installsuffix", "-compiler", "-buildmode", "-pgo", "-C"}

// goPatterns is the package patterns of go SUB's arguments: its operands
// before -args (go test), the first one or the .go files (go run: what
// follows is the program's). A flag zk does not know may take a value:
// the next word is read as a pattern too, which binds more at worst.
// A flag that runs a program of its own is opaque.
func (in *inspector) goPatterns(sub string, args []string) []string {
	var pats []string
	for j := 0; j < len(args); j++ {
		a := args[j]
		if a == "-args" || a == "--args" || a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			name, _, eq := strings.Cut("-"+strings.TrimLeft(a, "-"), "=")
			switch name {
			case "-exec", "-toolexec", "-vettool":
				in.opaque("`go %s %s` runs a program zk does not read", sub, name)
			case "-overlay", "-modfile":
				// As in GOFLAGS (runVar): the file is bound, but not the
				// sources it puts in place of the module's, or the
				// replace lines of another go.mod.
				in.opaque("`go %s %s` builds code a file names in place of the module's, not bound", sub, name)
			}
			if eq || slices.Contains(goBool, name) {
				continue
			}
			if j+1 < len(args) && slices.Contains(goValued, name) {
				j++
			}
			continue
		}
		if sub == "run" {
			if strings.HasSuffix(a, ".go") {
				pats = append(pats, filepath.Dir(a))
				continue
			}
			if len(pats) == 0 {
				pats = append(pats, a)
			}
			break
		}
		pats = append(pats, a)
	}
	return pats
}

// goPatternDir is the folder a package pattern names in the module at
// root (its path module), from cwd, and whether it names every package
// under it (./...); ok is false for a pattern outside the module (a
// dependency's, bound by go.sum; std).
func goPatternDir(pat, cwd, root, module string) (dir string, all, ok bool) {
	rel := pat
	if i := strings.Index(pat, "..."); i >= 0 {
		// ./a/.../b reads as all under ./a: more, never less.
		rel, all = strings.TrimSuffix(pat[:i], "/"), true
	}
	switch {
	case pat == "all":
		return root, true, true
	case rel == "." || rel == ".." || strings.HasPrefix(rel, "./") || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) || rel == "" && strings.HasPrefix(pat, "."):
		dir = filepath.Join(cwd, filepath.FromSlash(rel))
		if filepath.IsAbs(rel) {
			dir = filepath.Clean(rel)
		}
	case module != "" && (rel == module || strings.HasPrefix(rel, module+"/")):
		dir = filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(rel, module)))
	default:
		return "", false, false
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir, all, within(dir, root)
}

// within says whether p is root or under it.
func within(p, root string) bool {
	_, ok := under(p, root)
	return ok
}

// under is p relative to root, when p is root or under it: vault.Within's
// rule, kept here since trust does not import vault and its parser.
func under(p, root string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return rel, true
}

// goMod is the module path go.mod's text declares. A replace by a folder
// (=> ../x) runs code outside the module, not bound: opaque.
func (in *inspector) goMod(mod []byte, root string) string {
	var module string
	sc := bufio.NewScanner(bytes.NewReader(mod))
	sc.Buffer(nil, len(mod)+1)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "//")
		line = strings.TrimSpace(line)
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			module = strings.Trim(f[1], "\"`")
		}
		if _, to, ok := strings.Cut(line, "=>"); ok {
			if f := strings.Fields(to); len(f) > 0 && (strings.HasPrefix(f[0], ".") || filepath.IsAbs(f[0])) {
				in.opaque("`%s` in %s's go.mod is replaced by a folder whose code is not bound", strings.TrimSpace(line), in.display(root, in.realDir))
			}
		}
	}
	return module
}

// cargoCode requests the crates cargo builds and runs from each folder:
// the workspace's (the highest Cargo.toml declaring [workspace] above the
// package's), or the package's; --manifest-path names the package.
func (in *inspector) cargoCode(args []string) {
	starts := in.realDirs()
	if m := optionValues(args, "", []string{"--manifest-path"}); len(m) > 0 {
		starts = nil
		for _, p := range m {
			for _, d := range in.dirs {
				q := p
				if !filepath.IsAbs(q) {
					q = filepath.Join(d.path, q)
				}
				if real, err := filepath.EvalSymlinks(filepath.Dir(q)); err == nil {
					starts = append(starts, real)
				}
			}
		}
	}
	// zk runs cargo with a target folder of its own (CARGO_TARGET_DIR), so
	// that it never runs a test binary the vault's target/ holds as fresh;
	// --target-dir overrides that.
	for _, v := range optionValues(args, "", []string{"--target-dir"}) {
		in.opaque("`cargo --target-dir %s` runs what was built before in that folder, not only what the sources build", v)
	}
	// --config FILE is read as .cargo/config.toml is (its runner =
	// ./x.sh ran x.sh unbound); a key=value is a word, read as names.
	for _, v := range optionValues(args, "", []string{"--config"}) {
		for _, d := range slices.Clone(in.dirs) {
			if f := in.join(d.path, v); !strings.ContainsRune(v, 0) {
				in.hash(f, d.base)
				in.configNames(f, d.path, d.base)
			}
		}
	}
	// cargo reads .cargo/config.toml (and .cargo/config) in the folder it
	// runs in and in every one above (runner =, linker =, rustflags, an
	// alias), whatever the manifest: bound, with the files its values name.
	for _, cwd := range in.realDirs() {
		for p := cwd; ; p = filepath.Dir(p) {
			for _, n := range []string{"config.toml", "config"} {
				f := filepath.Join(p, ".cargo", n)
				in.hash(f, in.realDir)
				in.configNames(f, p, in.realDir)
			}
			if filepath.Dir(p) == p {
				break
			}
		}
	}
	for _, cwd := range starts {
		pkg, _ := up(cwd, "Cargo.toml")
		if pkg == "" {
			continue
		}
		root := pkg
		for p := filepath.Dir(pkg); ; p = filepath.Dir(p) {
			if ws, _ := up(p, "Cargo.toml"); ws != "" {
				if b, err := readFile(filepath.Join(ws, "Cargo.toml")); err == nil && bytes.Contains(b, []byte("[workspace]")) {
					root = ws
				}
				p = ws
			} else {
				break
			}
			if filepath.Dir(p) == p {
				break
			}
		}
		in.request(cargoTree, root)
	}
}

// pythonCode requests the Python code run from each folder: under the
// first folder up holding pytest's or a project's configuration, else the
// folder itself.
func (in *inspector) pythonCode() {
	for _, cwd := range in.realDirs() {
		root, _ := up(cwd, "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg", "setup.py")
		if root == "" {
			root = cwd
		}
		in.request(pythonTree, root)
	}
}

// pythonModule is the module python's -m runs, as its words give it.
func pythonModule(args []string) string {
	for j, a := range args {
		if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			continue
		}
		if k := strings.IndexByte(a, 'm'); k > 0 {
			if a[k+1:] != "" {
				return a[k+1:]
			}
			if j+1 < len(args) {
				return args[j+1]
			}
		}
	}
	return ""
}

// testModules are the modules python -m runs that run a tree of tests
// (pythonTree binds it, the folder's own modules that would shadow them
// included).
var testModules = []string{"pytest", "unittest"}

// treeFiles decides, for one kind, which folders a walk enters and which
// files it binds.
type treeFiles struct {
	skipDir func(dir, name string) bool
	keep    func(dir, name string) bool
	// shipped are the skipped folders that, when a vault ships one, hold
	// what a tool runs or replays instead of the project's code: opaque.
	shipped []string
}

// pythonSkip are the dot folders a Python tree's walk does not enter.
var pythonSkip = []string{".git", ".hg", ".svn", ".tox", ".nox", ".eggs", ".mypy_cache", ".pytest_cache", ".ruff_cache",
	".hypothesis", ".cache", ".zk", ".obsidian", ".trash", ".idea", ".vscode", ".npm", ".yarn", ".venv", ".conda", ".pixi"}

// nodeSkip are the dot folders a JavaScript tree's walk does not enter.
var nodeSkip = []string{".git", ".hg", ".svn", ".cache", ".zk", ".obsidian", ".trash", ".idea", ".vscode", ".npm", ".pnpm-store",
	".yarn", ".next", ".nuxt", ".turbo", ".parcel-cache", ".svelte-kit", ".angular", ".venv", ".tox", ".mypy_cache", ".pytest_cache"}

var pythonExts = []string{".py", ".pyi", ".pyc", ".pyx", ".pxd", ".so", ".pyd", ".pth"}

var nodeExts = []string{".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".json", ".node", ".wasm"}

var treeFilesOf = map[treeKind]treeFiles{
	pythonTree: {
		skipDir: func(dir, name string) bool {
			// A dot folder may be code: pytest's pythonpath = .hidden, a
			// .pth file or a conftest.py puts it on the path. Skipped are
			// those that hold none of the project's (a repository, caches,
			// installed eggs, the vault's own).
			if slices.Contains(pythonSkip, name) || name == "__pycache__" || name == "node_modules" || name == "site-packages" {
				return true
			}
			_, err := os.Lstat(filepath.Join(dir, name, "pyvenv.cfg")) // a virtual environment
			return err == nil
		},
		keep: func(_, name string) bool {
			switch name {
			case "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg":
				return true
			}
			return slices.Contains(pythonExts, filepath.Ext(name))
		},
	},
	nodeTree: {
		// A dot folder may be code: a test runner's setup a config names
		// (jest's setupFiles: ['./.jest/setup.js'], vitest's in .config/),
		// .storybook's, .husky's hooks. Skipped are those that hold none
		// of the project's (a repository, caches, build output, the
		// vault's own) and installed code (node_modules).
		skipDir: func(_, name string) bool { return slices.Contains(nodeSkip, name) || name == "node_modules" },
		// next start runs .next's server as built; turbo replays a task's
		// logged output from .turbo's cache instead of running it; parcel
		// and angular build from theirs.
		shipped: []string{".next", ".nuxt", ".svelte-kit", ".turbo", ".parcel-cache", ".angular"},
		keep: func(_, name string) bool {
			switch name {
			case "yarn.lock", "pnpm-lock.yaml", "bun.lockb", "bun.lock", ".babelrc", ".swcrc", ".mocharc.yml", ".mocharc.yaml":
				return true
			}
			return slices.Contains(nodeExts, filepath.Ext(name))
		},
	},
}

// cargoFiles are, in a crate's folder, what is its code: the rest of the
// folder is not.
func cargoFile(rel string) bool {
	first, _, nested := strings.Cut(rel, string(filepath.Separator))
	if !nested {
		return first == "Cargo.toml" || first == "Cargo.lock" || first == "build.rs"
	}
	return first == "src" || first == "tests" || first == "benches" || first == "examples"
}

// treeBuilder hashes the files of one tree into its manifest.
type treeBuilder struct {
	in    *inspector
	name  string
	kind  treeKind
	root  string            // real path
	lines map[string]string // a manifest line by its file's name
	seen  map[string]bool
	tree  Tree
	// opaque says why, for what leads out of the tree.
	opaque []string
	// pathOut: a manifest's path dependency outside the tree was said.
	pathOut bool
	// walked are the folders outside the root's walk walked into the tree
	// (bindFolder), each once.
	walked map[string]bool
	// err is the first error of binding what a file's content names (a
	// C include), found where no error can be returned.
	err error
}

// budget is what the trees of one command have read so far.
type budget struct {
	files, entries int
	bytes          int64
}

// build hashes the tree r asks for.
func (in *inspector) build(r *treeRequest) (Tree, []string, error) {
	b := &treeBuilder{in: in, kind: r.kind, root: r.root, name: r.kind.name(in.display(r.root, in.realDir)), lines: map[string]string{}, seen: map[string]bool{}}
	var err error
	switch r.kind {
	case goTree:
		err = b.goPackages(r)
	case cargoTree:
		err = b.cargo(r.root, r.root)
	default:
		err = b.walk(r.root, treeFilesOf[r.kind])
	}
	if err == nil {
		err = b.err // of what a file loads from outside the tree (paths.go)
	}
	if err != nil {
		return Tree{}, nil, err
	}
	b.installed(r)
	names := slices.Sorted(maps.Keys(b.lines))
	var m strings.Builder
	for _, n := range names {
		m.WriteString(b.lines[n])
	}
	b.tree.Name = b.name
	b.tree.Manifest = []byte(m.String())
	sum := sha256.Sum256(b.tree.Manifest)
	b.tree.Sum = "sha256:" + hex.EncodeToString(sum[:])
	return b.tree, b.opaque, nil
}

// installed says, opaque, where the tree r runs installed code the vault
// ships, which is not bound (it would be over the bounds, and is not the
// project's): a node_modules (or Yarn's .yarn/cache, .yarn/unplugged) in
// the package's folder or one above it in the vault, which node and the
// scripts' programs (.bin/jest) run; a
// virtual environment in the project's folder, which uv run or poetry run
// runs its command in.
func (b *treeBuilder) installed(r *treeRequest) {
	switch {
	case r.kind == nodeTree:
		for p := r.root; ; p = filepath.Dir(p) {
			// Yarn's Plug'n'Play installs into .yarn: zipped packages in
			// its cache, those that build in place unplugged, which its
			// .pnp.cjs has node load.
			for _, n := range []string{"node_modules", filepath.Join(".yarn", "cache"), filepath.Join(".yarn", "unplugged")} {
				if st, err := os.Stat(filepath.Join(p, n)); err == nil && st.IsDir() {
					b.opaque = append(b.opaque, fmt.Sprintf("%s holds installed code zk does not bind", b.in.display(filepath.Join(p, n), b.in.realDir)))
					return
				}
			}
			if p == b.in.realDir || !within(p, b.in.realDir) || filepath.Dir(p) == p {
				return
			}
		}
	case r.kind == pythonTree && r.venv:
		es, _ := os.ReadDir(r.root)
		for _, e := range es {
			if _, err := os.Stat(filepath.Join(r.root, e.Name(), "pyvenv.cfg")); err == nil && e.IsDir() {
				b.opaque = append(b.opaque, fmt.Sprintf("%s is a virtual environment whose installed code zk does not bind", b.in.display(filepath.Join(r.root, e.Name()), b.in.realDir)))
				return
			}
		}
	}
}

// entries lists dir, sorted, counting its entries against the budget.
func (b *treeBuilder) entries(dir string) ([]fs.DirEntry, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil // gone or unreadable: the tool cannot read it either
	}
	b.in.budget.entries += len(es)
	if b.in.budget.entries > b.in.limits.entries {
		return nil, b.tooLarge(fmt.Sprintf("over %s files and folders to walk", humanize.Comma(int64(b.in.limits.entries))))
	}
	return es, nil
}

func (b *treeBuilder) tooLarge(what string) error {
	return fmt.Errorf("trust: %s holds %s: zk does not approve a command running more code than it can hash; have it run less (name its packages, its test folder)", b.name, what)
}

// add binds the file at p, found as the entry e of a walk; use, when not
// nil, is given its content (Go's files, whose imports are read).
func (b *treeBuilder) add(p string, e fs.DirEntry, use func([]byte)) error {
	if b.seen[p] {
		return nil
	}
	b.seen[p] = true
	name := b.in.display(p, b.in.realDir)
	if e.Type()&fs.ModeSymlink != 0 {
		real, err := filepath.EvalSymlinks(p)
		target, _ := os.Readlink(p)
		if err != nil || !within(real, b.root) {
			// Bound by where it points; what is there is not read.
			b.lines[name] = "link:" + strconv.Quote(target) + " " + strconv.Quote(name) + "\n"
			if err == nil {
				b.opaque = append(b.opaque, fmt.Sprintf("%s leads out of %s, to %s, whose content is not bound", name, b.name, target))
			}
			return nil
		}
		if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
			return nil // a folder is walked, if at all, where it is
		}
		p = real
	} else if !e.Type().IsRegular() {
		return nil // a FIFO, a device: no code
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil
	}
	bd := &b.in.budget
	bd.files++
	bd.bytes += st.Size()
	switch {
	case bd.files > b.in.limits.files:
		return b.tooLarge(fmt.Sprintf("over %s files", humanize.Comma(int64(b.in.limits.files))))
	case bd.bytes > b.in.limits.bytes:
		return b.tooLarge("over " + humanize.IBytes(uint64(b.in.limits.bytes)))
	}
	var sum string
	if use != nil {
		data, err := readFile(p)
		if err != nil {
			return fmt.Errorf("trust: %s: %w", name, err)
		}
		h := sha256.Sum256(data)
		sum = "sha256:" + hex.EncodeToString(h[:])
		use(data)
	} else {
		h := b.in.memo.read(p)
		if h.err != nil {
			return fmt.Errorf("trust: %s: %w", name, h.err)
		}
		sum = h.sum
	}
	if sum == "" {
		return nil
	}
	b.tree.Files++
	b.tree.Bytes += st.Size()
	b.lines[name] = sum + " " + strconv.Quote(name) + "\n"
	return nil
}

// walk binds what f keeps under dir.
func (b *treeBuilder) walk(dir string, f treeFiles) error {
	es, err := b.entries(dir)
	if err != nil {
		return err
	}
	for _, e := range es {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			if f.shipped != nil && f.skipDir(dir, e.Name()) && slices.Contains(f.shipped, e.Name()) {
				b.opaque = append(b.opaque, fmt.Sprintf("%s holds built or cached output a tool may run or replay, which zk does not bind", b.in.display(p, b.in.realDir)))
			}
			if !f.skipDir(dir, e.Name()) && p != b.in.storeDir {
				if err := b.walk(p, f); err != nil {
					return err
				}
			}
			continue
		}
		if f.keep(dir, e.Name()) {
			var use func([]byte)
			if scanned(b.kind, p) {
				use = func(data []byte) { b.scan(b.kind, p, data) }
			}
			if err := b.add(p, e, use); err != nil {
				return err
			}
			if b.err != nil {
				return b.err
			}
		}
	}
	return nil
}

// cargo binds the crates under dir, in the workspace at root: in each
// folder holding a Cargo.toml, its Cargo.toml, Cargo.lock, build.rs and
// what is under src, tests, benches and examples; and the workspace's
// .cargo/config.toml and rust-toolchain files. target and dot folders are
// not entered.
func (b *treeBuilder) cargo(dir, crate string) error {
	es, err := b.entries(dir)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(es, func(e fs.DirEntry) bool { return e.Name() == "Cargo.toml" }) {
		crate = dir
	}
	for _, e := range es {
		p := filepath.Join(dir, e.Name())
		rel, _ := filepath.Rel(crate, p)
		switch {
		case dir == b.root && (e.Name() == "rust-toolchain" || e.Name() == "rust-toolchain.toml"):
		case dir == b.root && e.Name() == ".cargo" && e.IsDir():
			for _, n := range []string{"config", "config.toml"} {
				if err := b.addNamed(filepath.Join(p, n)); err != nil {
					return err
				}
			}
			continue
		case e.IsDir():
			if e.Name() != "target" && !strings.HasPrefix(e.Name(), ".") {
				if err := b.cargo(p, crate); err != nil {
					return err
				}
			}
			continue
		case !cargoFile(rel):
			continue
		}
		if err := b.add(p, e, nil); err != nil {
			return err
		}
		if e.Name() == "Cargo.toml" {
			b.cargoPaths(p, dir)
		}
	}
	return nil
}

// cargoPath finds a manifest's keys naming a folder or file of code cargo
// builds: a path dependency's (or patch's) path =, a build script's
// build =, a target's path =.
var cargoPath = lazyre.New(`(?m)(?:^|[{,\s])(path|build)\s*=\s*["']([^"'\n]*)["']`)

// cargoPaths says, opaque, which of the paths the manifest at p (in dir)
// names lead out of the tree: code cargo builds and runs that the
// approval does not bind (../lib's build.rs).
func (b *treeBuilder) cargoPaths(p, dir string) {
	src, err := readFile(p)
	if err != nil || src == nil {
		return
	}
	for _, m := range cargoPath().FindAllSubmatchIndex(src, -1) {
		v := string(src[m[4]:m[5]])
		if v == "" || strings.ContainsRune(v, 0) {
			continue
		}
		q := v
		if !filepath.IsAbs(q) {
			q = filepath.Join(dir, q)
		}
		if real, err := filepath.EvalSymlinks(q); err == nil {
			q = real
		}
		if !within(q, b.root) && !b.pathOut {
			// One said is enough: a manifest of a million such lines
			// must not make a million reasons, each compared with the
			// others.
			b.pathOut = true
			// The line the key is on, as the manifest writes it.
			start := bytes.LastIndexByte(src[:m[2]], '\n') + 1
			end := bytes.IndexByte(src[m[2]:], '\n')
			if end < 0 {
				end = len(src) - m[2]
			}
			line := strings.TrimSpace(string(src[start : m[2]+end]))
			b.opaque = append(b.opaque, fmt.Sprintf("%s in %s is a path dependency outside %s, whose code is not bound",
				quoteSrc(line), b.in.display(p, b.in.realDir), b.in.display(b.root, b.in.realDir)))
		}
	}
}

// goPackages binds the packages r's patterns name and the module's
// packages they import (goPackage), and the module's go.mod, go.sum and
// vendor folder. A pattern's ... enters no folder go's does not: one whose
// name starts with . or _, testdata, vendor, another module's.
func (b *treeBuilder) goPackages(r *treeRequest) error {
	root := r.root
	for _, n := range []string{"go.mod", "go.sum"} {
		if err := b.addNamed(filepath.Join(root, n)); err != nil {
			return err
		}
	}
	if st, err := os.Stat(filepath.Join(root, "vendor", "modules.txt")); err == nil && st.Mode().IsRegular() {
		if err := b.walk(filepath.Join(root, "vendor"), everything); err != nil {
			return err
		}
	}
	// A package named is bound with its tests and testdata; one only
	// imported, without: go test builds no test of it.
	type pkg struct {
		dir   string
		named bool
	}
	var queue []pkg
	done := map[string]bool{} // named ones, and "\x00"+dir for imported ones
	enqueue := func(d string, named bool) {
		key := d
		if !named {
			key = "\x00" + d
		}
		if !done[key] && !done[d] {
			done[key] = true
			queue = append(queue, pkg{d, named})
		}
	}
	named := func(d string) { enqueue(d, true) }
	dirs := slices.Sorted(maps.Keys(r.pkgs))
	for _, d := range dirs {
		if !r.pkgs[d] {
			named(d)
			continue
		}
		if err := b.goFolders(d, root, named); err != nil {
			return err
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		imports, err := b.goPackage(p.dir, root, p.named)
		if err != nil {
			return err
		}
		for _, imp := range imports {
			if r.module != "" && (imp == r.module || strings.HasPrefix(imp, r.module+"/")) {
				enqueue(filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(imp, r.module))), false)
			}
		}
	}
	return nil
}

// addNamed binds the file at p, if there is one.
func (b *treeBuilder) addNamed(p string) error {
	st, err := os.Lstat(p)
	if err != nil {
		return nil
	}
	return b.add(p, fs.FileInfoToDirEntry(st), nil)
}

// goFolders enqueues every folder under dir that ./... reaches.
func (b *treeBuilder) goFolders(dir, root string, enqueue func(string)) error {
	es, err := b.entries(dir)
	if err != nil {
		return err
	}
	if dir != root && slices.ContainsFunc(es, func(e fs.DirEntry) bool { return e.Name() == "go.mod" }) {
		return nil // another module
	}
	if slices.ContainsFunc(es, isGoFile) {
		enqueue(dir)
	}
	for _, e := range es {
		n := e.Name()
		if e.IsDir() && !strings.HasPrefix(n, ".") && !strings.HasPrefix(n, "_") && n != "testdata" && n != "vendor" {
			if err := b.goFolders(filepath.Join(dir, n), root, enqueue); err != nil {
				return err
			}
		}
	}
	return nil
}

// goSources are the files of a package's folder go builds: Go, assembly,
// cgo's C, C++, Objective-C, Fortran, SWIG, and the objects it links. The
// rest of the folder is not the package's (a vault's notes beside a
// main.go), but for what it embeds.
var goSources = []string{".go", ".s", ".S", ".sx", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx",
	".m", ".f", ".F", ".for", ".f90", ".syso", ".swig", ".swigcxx"}

func isGoFile(e fs.DirEntry) bool { return !e.IsDir() && strings.HasSuffix(e.Name(), ".go") }

// goPackage binds the package in dir and returns what its .go files
// import: its source files, what they embed (//go:embed), and, when it
// is named (tests), its tests and testdata; only imported, go test builds
// no test of it. A folder with no .go file is no package.
func (b *treeBuilder) goPackage(dir, root string, tests bool) ([]string, error) {
	es, err := b.entries(dir)
	if err != nil || !slices.ContainsFunc(es, isGoFile) {
		return nil, err
	}
	var imports, embeds []string
	for _, e := range es {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			if e.Name() == "testdata" && tests {
				if err := b.walk(p, everything); err != nil {
					return nil, err
				}
			}
			continue
		}
		if !slices.Contains(goSources, filepath.Ext(e.Name())) || !tests && strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		// A C file's quoted includes, and a Go file's cgo preamble, may
		// name code outside the folder (cgo.go).
		use := func(src []byte) { b.cIncludes(dir, src) }
		if strings.HasSuffix(e.Name(), ".go") {
			use = func(src []byte) {
				if bytes.Contains(src, []byte(`"C"`)) {
					b.cIncludes(dir, src)
					b.cgoFlags(dir, p, root, src)
				}
				embeds = append(embeds, goEmbeds(src)...)
				f, _ := parser.ParseFile(token.NewFileSet(), p, src, parser.ImportsOnly)
				if f == nil {
					return
				}
				for _, s := range f.Imports {
					if v, err := strconv.Unquote(s.Path.Value); err == nil {
						imports = append(imports, v)
					}
				}
			}
		}
		if err := b.add(p, e, use); err != nil {
			return nil, err
		}
		if b.err != nil {
			return nil, b.err
		}
	}
	for _, pat := range embeds {
		matches, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(pat, "all:"))))
		for _, m := range matches {
			st, err := os.Lstat(m)
			switch {
			case err != nil || !within(m, dir):
			case st.IsDir():
				err = b.walk(m, everything)
			default:
				err = b.add(m, fs.FileInfoToDirEntry(st), nil)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return imports, nil
}

// everything walks every folder but dot ones, and keeps every file.
var everything = treeFiles{
	skipDir: func(_, name string) bool { return strings.HasPrefix(name, ".") },
	keep:    func(string, string) bool { return true },
}

// goEmbeds is the patterns of the //go:embed lines of a Go file's source,
// unquoted. A pattern in a _test.go file is a test's.
func goEmbeds(src []byte) []string {
	if !bytes.Contains(src, []byte("//go:embed")) {
		return nil
	}
	var pats []string
	for line := range strings.Lines(string(src)) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "//go:embed")
		if !ok {
			continue
		}
		for _, f := range strings.Fields(rest) {
			if u, err := strconv.Unquote(f); err == nil {
				f = u
			}
			pats = append(pats, f)
		}
	}
	return pats
}

// diffManifests is the names whose lines differ between two manifests,
// sorted: changed, added or removed.
func diffManifests(old, cur []byte) []string {
	a, b := manifestLines(old), manifestLines(cur)
	var out []string
	for n, s := range b {
		if a[n] != s {
			out = append(out, n)
		}
	}
	for n := range a {
		if _, ok := b[n]; !ok {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// manifestLines maps a manifest's names to their hashes.
func manifestLines(m []byte) map[string]string {
	out := map[string]string{}
	for line := range strings.Lines(string(m)) {
		sum, q, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		if strings.HasPrefix(sum, "link:") {
			// link:"target" "name": the target is quoted, and may hold spaces.
			if t, err := strconv.QuotedPrefix(strings.TrimPrefix(line, "link:")); err == nil {
				sum = "link:" + t
				q, ok = strings.CutPrefix(strings.TrimSuffix(strings.TrimPrefix(line, sum), "\n"), " ")
			}
		}
		if !ok {
			continue
		}
		if name, err := strconv.Unquote(q); err == nil {
			out[name] = sum
		}
	}
	return out
}

// environment says, opaque, when the program name runs from a Python
// environment the vault ships (.venv/bin/python, .venv/bin/pytest, a conda
// environment's): its interpreter loads the environment's installed code
// (site-packages, and the .pth files there, which run at every start),
// which zk does not bind.
func (in *inspector) environment(name string) {
	if !strings.ContainsRune(name, '/') || strings.ContainsRune(name, 0) {
		return
	}
	for _, d := range in.dirs {
		p := name
		if !filepath.IsAbs(p) {
			p = d.path + string(filepath.Separator) + name
		}
		// Where the program is named, not where a symlink leads: a
		// venv's bin/python leads out of it, and still loads its code.
		dir, err := filepath.Abs(filepath.Dir(p))
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		for q := dir; within(q, in.realDir); q = filepath.Dir(q) {
			for _, marker := range []string{"pyvenv.cfg", "conda-meta"} {
				if _, err := os.Stat(filepath.Join(q, marker)); err == nil {
					in.opaque("`%s` runs from %s, a Python environment whose installed code zk does not bind", name, in.display(q, in.realDir))
					return
				}
			}
			if q == in.realDir {
				break
			}
		}
	}
}
