package trust

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// runners start a command their operands give, after a subcommand (uv run
// python -m x runs python -m x), each with options of its own that may
// take a value (conda run -n NAME, uv run --with X): the command is
// inspected as one at position 0 is. Where it is unsure of an option
// (one it does not know, with no value after =), the next word may be its
// value or the command, and zk inspects both: a command missed is code run
// unread, a value read as a command at worst a warning (uv run --frozen
// pytest -m slow would be uv run -m were --frozen not known to take none).
var runners = map[string]runner{
	"uv": {sub: []string{"run"}, valued: "p", code: []string{"-m", "--module"},
		long: []string{"--with", "--with-editable", "--with-requirements", "--python", "--directory", "--project", "--package", "--extra", "--group", "--env-file", "--index"},
		flags: []string{"-q", "-v", "-n", "-s", "-U", "--frozen", "--locked", "--no-sync", "--isolated", "--no-project", "--active", "--all-extras", "--no-dev",
			"--only-dev", "--all-groups", "--all-packages", "--offline", "--exact", "--no-editable", "--no-cache", "--quiet", "--verbose", "--script", "--refresh", "--upgrade"}},
	"poetry":     {sub: []string{"run"}, valued: "CP", long: []string{"--directory", "--project"}, flags: []string{"-q", "-v", "-n", "--quiet", "--verbose", "--no-interaction", "--no-ansi", "--no-plugins", "--no-cache"}},
	"pipenv":     {sub: []string{"run"}, long: []string{"--python"}, flags: []string{"-q", "-v", "--quiet", "--verbose", "--site-packages"}},
	"pdm":        {sub: []string{"run"}, valued: "p", long: []string{"--project", "--venv"}, flags: []string{"-g", "-s", "-q", "-v", "--global", "--site-packages", "--quiet", "--verbose"}},
	"hatch":      {sub: []string{"run"}, valued: "e", long: []string{"--env"}, flags: []string{"-q", "-v", "--quiet", "--verbose", "--force-continue", "--ignore-compat"}, env: true},
	"rye":        {sub: []string{"run"}, long: []string{"--pyproject"}, flags: []string{"-q", "-v", "--quiet", "--verbose"}},
	"conda":      {sub: []string{"run"}, valued: "np", long: []string{"--name", "--prefix", "--cwd"}, flags: condaFlags},
	"mamba":      {sub: []string{"run"}, valued: "np", long: []string{"--name", "--prefix", "--cwd"}, flags: condaFlags},
	"micromamba": {sub: []string{"run"}, valued: "np", long: []string{"--name", "--prefix", "--cwd"}, flags: condaFlags},
	"npx":        {valued: "pw", long: []string{"--package", "--workspace", "--prefix"}, script: []string{"-c", "--call"}, flags: npmFlags},
	"npm":        {sub: []string{"exec", "x"}, valued: "Cpw", long: []string{"--package", "--workspace", "--prefix"}, script: []string{"-c", "--call"}, flags: npmFlags},
	"bunx":       {valued: "p", long: []string{"--package"}, flags: []string{"--bun", "--silent", "--verbose"}},
	"bun":        {sub: []string{"x"}, valued: "p", long: []string{"--package", "--cwd"}, flags: []string{"--bun", "--silent", "--verbose"}},
	"pnpm": {sub: []string{"exec", "dlx"}, valued: "CF", long: []string{"--dir", "--filter", "--package"}, shell: []string{"-c", "--shell-mode"},
		flags: []string{"-r", "-s", "-w", "--recursive", "--parallel", "--silent", "--workspace-root", "--stream"}},
	"yarn":      {sub: []string{"exec", "dlx"}, valued: "p", long: []string{"--cwd", "--package"}, flags: []string{"-q", "--quiet", "--silent"}},
	"bundle":    {sub: []string{"exec"}, long: []string{"--gemfile"}, flags: []string{"--keep-file-descriptors", "--verbose", "--no-color"}},
	"nix":       {sub: []string{"develop", "shell"}, after: []string{"-c", "--command"}},
	"nix-shell": {script: []string{"--run", "--command"}, none: true},
	"direnv":    {sub: []string{"exec"}, dirs: 1},
}

var (
	condaFlags = []string{"-v", "--no-capture-output", "--live-stream", "--dev", "--debug-wrapper-scripts"}
	npmFlags   = []string{"-y", "-q", "--yes", "--no", "--quiet", "--silent", "--ws", "--workspaces"}
)

// runner is one program of runners.
type runner struct {
	sub    []string // the subcommands that start a command; none: the program itself
	valued string   // option letters that take a value (the rest of their word, or the next)
	long   []string // long options that take one (after =, or the next word)
	code   []string // options that run code zk does not read (uv run -m MODULE)
	script []string // options whose value is a shell string (npx -c, nix-shell --run)
	shell  []string // options that have the command run as a shell string (pnpm exec -c)
	flags  []string // options known to take no value
	after  []string // options the command follows (nix develop -c); none: its first operand
	dirs   int      // operands before the command naming the folder it is run for (direnv exec DIR)
	none   bool     // its operands name no command (nix-shell's are files)
	env    bool     // the command may be ENV:COMMAND (hatch run test:pytest)
}

// runner reads the arguments of the runner r, named name: the folders it
// runs in, its options that run code or shell strings, and where in args
// the command it starts may begin. ok is false when args start none (uv
// pip, npm install).
func (in *inspector) runner(r runner, name string, args []string, depth int) (starts []int, ok bool) {
	matched, sub := len(r.sub) == 0, ""
	dirs, value, shell := r.dirs, false, false
	done := func() ([]int, bool) {
		if shell && len(starts) > 0 {
			// The words are one string the shell reads, joined as pnpm joins them.
			in.script(strings.Join(args[starts[0]:], " "), syntax.LangBash, depth)
		}
		return starts, matched
	}
	// option handles an option, given as opt: code, a shell string (its
	// value v, or the next word), or a value it takes. It says whether opt
	// was one it knows.
	option := func(opt, v string, hasV bool, j *int) bool {
		is := func(opts []string) bool {
			return slices.ContainsFunc(opts, func(o string) bool { return o == opt || len(opt) > 2 && abbreviates(opt, o) })
		}
		next := func() string {
			if hasV {
				return v
			}
			if *j+1 < len(args) {
				*j++
				return args[*j]
			}
			return ""
		}
		switch {
		case matched && is(r.code):
			in.opaque("`%s %s %s` runs code zk does not read", name, sub, opt)
			next()
			*j = len(args) // the rest are the module's arguments
		case is(r.script):
			if src := next(); src != "" {
				in.script(src, syntax.LangBash, depth)
			}
		case is(r.shell):
			shell = true
		case slices.Contains(r.flags, opt):
			// Spelt out: an abbreviation may be of a valued one too.
		case is(r.long) || len(opt) == 2 && strings.Contains(r.valued, opt[1:]):
			next()
		default:
			return false
		}
		return true
	}
	for j := 0; j < len(args); j++ {
		a := args[j]
		if matched && slices.Contains(r.after, a) {
			if j+1 < len(args) {
				starts = append(starts, j+1)
			}
			return done()
		}
		if a == "--" {
			if matched && !r.none && len(r.after) == 0 && j+1 < len(args) {
				starts = append(starts, j+1)
			}
			return done()
		}
		if a == "-" || !strings.HasPrefix(a, "-") {
			switch {
			case !matched && slices.Contains(r.sub, a):
				matched, sub = true, a
			case !matched && !value:
				return nil, false // not a subcommand that starts one
			case !matched:
			case dirs > 0:
				in.chdir(a)
				dirs--
			case r.none || len(r.after) > 0:
				// A file or a package, not the command.
			default:
				starts = append(starts, j)
				if !value {
					return done()
				}
				// Or the value of the option before it.
			}
			value = false
			continue
		}
		value = false
		if strings.HasPrefix(a, "--") {
			opt, v, eq := strings.Cut(a, "=")
			if !option(opt, v, eq, &j) {
				value = !eq // one zk does not know may take a value
			}
			continue
		}
		for k := 1; k < len(a); k++ {
			opt, rest := "-"+a[k:k+1], a[k+1:]
			if !option(opt, rest, rest != "", &j) {
				value = k == len(a)-1 // as a long one zk does not know
			} else if !slices.Contains(r.shell, opt) && !slices.Contains(r.flags, opt) {
				break // it took the rest of the word, or the next
			}
		}
	}
	return done()
}

// reads lists programs that run code from files they find by name in the
// folder they run in, no argument naming them: make's Makefile, a
// justfile, package.json's scripts, pyproject.toml, a flake, an .envrc,
// a repository's .git/config,
// and the configuration beside them that says what runs (.npmrc,
// .yarnrc.yml's yarnPath, bunfig.toml's preload). They are hashed as a
// named file is, from every folder names are read from, so that approving
// make test approves the Makefile as it is; one not there is bound by its
// absence (a file that appears later is a change). An option naming
// another file instead (make -f FILE) names it, and the files are not
// looked for.
var reads = map[string]reading{
	"make":      {files: []string{"GNUmakefile", "makefile", "Makefile"}, unless: "f", unlessLong: []string{"--file", "--makefile"}, recipes: true},
	"gmake":     {files: []string{"GNUmakefile", "makefile", "Makefile"}, unless: "f", unlessLong: []string{"--file", "--makefile"}, recipes: true},
	"bmake":     {files: []string{"BSDmakefile", "makefile", "Makefile"}, unless: "f", recipes: true},
	"just":      {files: []string{"justfile", ".justfile"}, fold: true, up: true, unless: "f", unlessLong: []string{"--justfile"}, recipes: true, own: true},
	"rake":      {files: []string{"rakefile", "Rakefile", "rakefile.rb", "Rakefile.rb"}, up: true, unless: "f", unlessLong: []string{"--rakefile"}},
	"npm":       {files: []string{"package.json"}, also: []string{".npmrc"}, up: true, scripts: true, tree: nodeTree},
	"npx":       {files: []string{"package.json"}, also: []string{".npmrc"}, up: true, tree: nodeTree},
	"pnpm":      {files: []string{"package.json"}, also: []string{".npmrc", ".pnpmfile.cjs"}, up: true, scripts: true, tree: nodeTree},
	"yarn":      {files: []string{"package.json"}, also: []string{".yarnrc.yml", ".yarnrc"}, up: true, scripts: true, tree: nodeTree},
	"bun":       {files: []string{"package.json"}, also: []string{"bunfig.toml"}, up: true, scripts: true, tree: nodeTree},
	"bunx":      {files: []string{"package.json"}, also: []string{"bunfig.toml"}, up: true, tree: nodeTree},
	"uv":        {files: []string{"pyproject.toml"}, also: []string{"uv.toml"}, up: true, tree: pythonTree},
	"poetry":    {files: []string{"pyproject.toml"}, also: []string{"poetry.toml"}, up: true, tree: pythonTree},
	"pdm":       {files: []string{"pyproject.toml"}, also: []string{"pdm.toml"}, up: true, tree: pythonTree},
	"hatch":     {files: []string{"pyproject.toml"}, also: []string{"hatch.toml"}, up: true, tree: pythonTree},
	"rye":       {files: []string{"pyproject.toml"}, up: true, tree: pythonTree},
	"pipenv":    {files: []string{"Pipfile"}, up: true, tree: pythonTree},
	"bundle":    {files: []string{"Gemfile", "gems.rb"}, also: []string{".bundle/config"}, up: true, unlessLong: []string{"--gemfile"}},
	"nix":       {files: []string{"flake.nix"}, also: []string{"flake.lock"}, up: true},
	"nix-shell": {files: []string{"shell.nix", "default.nix"}},
	"direnv":    {files: []string{".envrc", ".env"}, up: true},
	// JavaScript test runners run directly (not through npm test) run the
	// package's tests and their configuration: the package's tree.
	"jest": {files: []string{"package.json"}, up: true, tree: nodeTree}, "vitest": {files: []string{"package.json"}, up: true, tree: nodeTree},
	"mocha": {files: []string{"package.json"}, up: true, tree: nodeTree}, "ava": {files: []string{"package.json"}, up: true, tree: nodeTree},
	// A repository's config runs programs of its own (core.fsmonitor on
	// git status and git diff, core.pager, diff.external, an alias, a
	// filter's clean command); a vault unzipped or copied with its .git
	// brings one. A .git that is a file (a worktree's, gitdir: PATH) is
	// bound as it is.
	"git": {files: []string{".git/config", ".git"}, up: true, git: true},
}

// reading is one program of reads.
type reading struct {
	files []string // what it looks for: the first found is the one it reads
	also  []string // what it reads beside it, or in the folder it runs in
	fold  bool     // the names match whatever their case (just's)
	up    bool     // looked for in the folders above too, up to the first holding one
	// unless and unlessLong are options naming the file to read instead.
	unless     string
	unlessLong []string
	// scripts: package.json's scripts the arguments name are shell strings
	// that run, inspected as sh -c's (npm test runs pretest, test and
	// posttest).
	scripts bool
	// recipes: the file's recipes are shell lines that may name files
	// (a Makefile's sh scripts/x.sh), bound as named ones (recipeFiles).
	recipes bool
	// own: the recipes run in the folder of the file read (just's), where
	// their names are read from too.
	own bool
	// git: the file is a repository's, whose includes, named programs and
	// hooks run too (gitRepo).
	git bool
	// tree: the code under the found file's folder that what runs there
	// imports (a project's Python modules, a package's JavaScript), bound
	// whole (trees.go).
	tree treeKind
}

// reads hashes the files the program rd describes reads on its own, and
// inspects the scripts its arguments name.
func (in *inspector) reads(rd reading, args []string, depth int) {
	if len(rd.files) == 0 {
		return
	}
	if rd.recipes && !rd.own {
		in.makeInclude = append(in.makeInclude, optionValues(args, "I", []string{"--include-dir"})...)
	}
	if named := optionValues(args, rd.unless, rd.unlessLong); len(named) > 0 {
		// make -f FILE, just --justfile FILE: that file is read instead,
		// its recipes as the one found would be (hashed by names).
		for _, n := range named {
			for _, d := range slices.Clone(in.dirs) {
				if f := in.join(d.path, n); rd.recipes && n != "" {
					if rd.own {
						in.chdir(filepath.Dir(f))
					}
					in.recipeFiles(f, d.base, 0)
				}
			}
		}
		return
	}
	for _, d := range slices.Clone(in.dirs) {
		for p := d.path; ; {
			names := rd.files
			if rd.fold {
				names = folded(p, rd.files)
			}
			var found string
			for _, n := range names {
				f := p + string(filepath.Separator) + n
				in.hash(f, d.base)
				if st, err := os.Stat(f); found == "" && err == nil && st.Mode().IsRegular() {
					found = f
				}
			}
			if p == d.path || found != "" {
				// Beside the file, or where it runs: not the user's own
				// ~/.npmrc on the way up.
				for _, n := range rd.also {
					f := p + string(filepath.Separator) + filepath.FromSlash(n)
					in.hash(f, d.base)
					in.configNames(f, p, d.base)
				}
			}
			if found != "" && rd.scripts {
				in.scripts(found, d.base, args, depth)
			}
			if found != "" && rd.recipes {
				if rd.own {
					in.chdir(filepath.Dir(found))
				}
				in.recipeFiles(found, d.base, 0)
			}
			if found != "" && rd.git {
				in.gitRepo(p, d.base)
			}
			if found != "" && rd.tree != noTree {
				if real, err := filepath.EvalSymlinks(filepath.Dir(found)); err == nil {
					// Python's are runners' (uv run), run in its venv.
					in.request(rd.tree, real).venv = rd.tree == pythonTree
				}
			}
			parent := filepath.Dir(p)
			if p == in.dir {
				parent = filepath.Dir(in.realDir) // the program looks up from where it really is
			}
			if found != "" || !rd.up || parent == p || in.err != nil {
				break
			}
			p = parent
		}
	}
}

// folded is the entries of dir whose names are one of names, whatever
// their case, as just finds its justfile.
func folded(dir string, names []string) []string {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	entries, _ := f.Readdirnames(-1)
	var out []string
	for _, e := range entries {
		if slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(e, n) }) {
			out = append(out, e)
		}
	}
	slices.Sort(out)
	return out
}

// scriptAliases are npm's other names for a script's (npm t is npm test).
var scriptAliases = map[string][]string{"t": {"test"}, "tst": {"test"}, "restart": {"stop", "start"}}

// scripts inspects, as sh -c strings run in its folder, the scripts of
// the package.json at p that args may name, with their pre and post
// scripts. Every word is taken for a script's name when one has it, so
// that no option's value hides the script (npm --prefix web test).
func (in *inspector) scripts(p, base string, args []string, depth int) {
	b, err := readFile(p)
	if err != nil || b == nil {
		return // hashing it said why, or it is gone
	}
	var pkg struct {
		Scripts map[string]any `json:"scripts"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		in.opaque("cannot read the scripts of %s: %v", in.display(p, base), err)
		return
	}
	if len(pkg.Scripts) == 0 {
		return
	}
	in.chdir(filepath.Dir(p))
	for _, a := range args {
		for _, name := range append([]string{a}, scriptAliases[a]...) {
			for _, s := range []string{"pre" + name, name, "post" + name} {
				// Once each: scripts running each other (a: npm run a b)
				// would be read again at every level, their count the
				// power of the depth.
				if src, ok := pkg.Scripts[s].(string); ok && !in.parsed[src] {
					in.script(src, syntax.LangBash, depth)
				}
			}
		}
	}
}

// maxRecipes bounds the bytes of makefiles and justfiles a command's
// recipeFiles reads, together.
const maxRecipes = 16 << 20

// recipeFiles binds the files the Makefile or justfile at p names: each
// word of every line (a recipe's sh scripts/test.sh, a $(shell sh
// gen.sh), a justfile's `sh gen.sh`), split at blanks, quotes, parens and
// the shell's operators, read as a name from every folder names are read
// from; and, through its include lines, the makefiles it includes, read
// the same way (to maxDepth). A word with a variable ($(X), {{x}}) names
// nothing zk can tell; a recipe is make's or just's to run, not read as a
// shell string (its variables would make every make command opaque).
func (in *inspector) recipeFiles(p, base string, depth int) {
	if depth > maxDepth {
		return
	}
	// Once a file, however it is named (include ./x.mk .//x.mk, the same
	// Makefile from two folders), and within maxRecipes bytes in all: a
	// 23 MB Makefile including itself by 2,000 spellings was read 2,000
	// times (27 s).
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return // not there
	}
	if in.recipesRead[real+"\x00"+base] {
		return
	}
	if in.recipesRead == nil {
		in.recipesRead = map[string]bool{}
	}
	in.recipesRead[real+"\x00"+base] = true
	if st, err := os.Stat(real); err == nil && st.Mode().IsRegular() {
		if in.recipeBytes += st.Size(); in.recipeBytes > maxRecipes {
			in.opaque("%s and the makefiles it includes are over %d MiB; zk does not read them all for the files they name", in.display(p, base), maxRecipes>>20)
			return
		}
	}
	b, err := readFile(p)
	if err != nil || b == nil {
		return // hashing it said why, or it is gone
	}
	dotenv := ""
	for line := range strings.Lines(string(b)) {
		words := strings.FieldsFunc(line, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == '\r' || strings.ContainsRune("()'\"`;|&<>,", r)
		})
		include := len(words) > 0 && (words[0] == "include" || words[0] == "-include" || words[0] == "sinclude")
		if len(words) > 1 {
			switch strings.TrimSuffix(words[0], "?") {
			case "import", "mod":
				in.justModule(p, base, words, depth)
			case "set":
				if v, ok := strings.CutPrefix(words[1], "dotenv-"); ok {
					if dotenv == "" {
						dotenv = ".env"
					}
					if len(words) > 3 && words[2] == ":=" && (v == "filename" || v == "path") {
						dotenv = v + "\x00" + words[3]
					}
				}
			}
		}
		for _, w := range words {
			w = strings.TrimLeft(w, "@-+")
			if w == "" || strings.ContainsAny(w, "$`{}") {
				continue
			}
			if !in.readName(p) {
				return
			}
			in.file(w)
			if include && w != "include" && w != "sinclude" {
				// make looks for an include in the folder it runs in,
				// then in each -I folder.
				var cands []string
				for _, d := range slices.Clone(in.dirs) {
					cands = append(cands, in.join(d.path, w))
					for _, inc := range in.makeInclude {
						f := in.join(in.join(d.path, inc), w)
						in.hash(f, d.base)
						cands = append(cands, f)
					}
				}
				for _, f := range cands {
					if !in.included[f] {
						if in.included == nil {
							in.included = map[string]bool{}
						}
						in.included[f] = true
						in.recipeFiles(f, base, depth+1)
					}
				}
			}
		}
	}
	if dotenv != "" {
		in.justDotenv(filepath.Dir(p), base, dotenv)
	}
}

// justModule reads a justfile's import or mod line, split into words, as
// just reads it: the file named, from the folder of the justfile p
// naming it (import 'x.just'; mod NAME 'PATH'), or, for mod NAME with no
// path, NAME.just, NAME/mod.just or NAME/justfile (whatever its case)
// beside p: each is bound (one not there by its absence) and read as a
// justfile is, and a module's recipes run in its folder, where their
// names are read from too. Before, the module's recipes ran unbound.
func (in *inspector) justModule(p, base string, words []string, depth int) {
	dir := filepath.Dir(p)
	var files []string
	name := words[1]
	switch {
	case strings.HasPrefix(words[0], "import"):
		files = []string{in.join(dir, name)}
	case len(words) > 2:
		f := in.join(dir, words[2])
		if st, err := os.Stat(f); err == nil && st.IsDir() {
			in.chdir(f)
			files = append([]string{filepath.Join(f, "mod.just")}, joinAll(f, folded(f, []string{"justfile", ".justfile"}))...)
		} else {
			in.chdir(filepath.Dir(f))
			files = []string{f}
		}
	default:
		m := filepath.Join(dir, name)
		in.chdir(m)
		files = append([]string{m + ".just", filepath.Join(m, "mod.just")}, joinAll(m, folded(m, []string{"justfile", ".justfile"}))...)
	}
	for _, f := range files {
		in.hash(f, base)
		if in.included[f] {
			continue
		}
		if in.included == nil {
			in.included = map[string]bool{}
		}
		in.included[f] = true
		in.recipeFiles(f, base, depth+1)
	}
}

// joinAll is each of names in dir.
func joinAll(dir string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = filepath.Join(dir, n)
	}
	return out
}

// justDotenv binds the .env file a justfile's set dotenv-load (or
// dotenv-filename, dotenv-path) has just load into its recipes'
// environment: dotenv-path's from dir, else the first of the file's name
// in dir or a folder above (one not there by its absence). An assignment
// in it that changes where commands are looked up or has a tool run a
// program (PATH=./bin, LD_PRELOAD=) is opaque, as env's is; the files its
// values name are bound.
func (in *inspector) justDotenv(dir, base, how string) {
	kind, v, _ := strings.Cut(how, "\x00")
	var f string
	switch kind {
	case "path":
		f = in.join(dir, v)
		in.hash(f, base)
	default:
		name := ".env"
		if kind == "filename" {
			name = v
		}
		for d := dir; ; d = filepath.Dir(d) {
			f = filepath.Join(d, name)
			in.hash(f, base)
			if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() || filepath.Dir(d) == d {
				break
			}
		}
	}
	in.envFile(f, dir, base)
}

// envFile reads the file of assignments at p (a .env) a program loads
// into the environment of what it runs, configuring dir: an assignment
// that changes where commands are looked up or has a tool run a program
// (PATH=./bin, NODE_OPTIONS=--require ./setup.js) is opaque, as env's is,
// and the files its values name are bound. The file itself is bound by
// whoever names it.
func (in *inspector) envFile(f, dir, base string) {
	b, err := readFile(f)
	if err != nil || b == nil {
		return
	}
	for line := range strings.Lines(string(b)) {
		line = strings.TrimPrefix(strings.TrimSpace(line), "export ")
		name, val, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		switch {
		case !ok:
		case searchVar(name):
			in.opaque("`%s` in %s changes where commands are looked up", strings.TrimSpace(line), in.display(f, base))
		case runVar(name, val):
			in.opaque("`%s` in %s has the command run a program or read a file zk does not", strings.TrimSpace(line), in.display(f, base))
		}
	}
	in.configNames(f, dir, base)
}

// configNames binds the files the values of a tool's configuration at p
// name (.npmrc's script-shell=, .yarnrc.yml's yarnPath:, a plugin's path,
// .cargo/config.toml's runner = and linker =): each value of a key = value
// or key: value line, and its words, read as names from every folder
// names are read from and from dir, the folder the file configures.
func (in *inspector) configNames(p, dir, base string) {
	b, err := readFile(p)
	if err != nil || b == nil {
		return
	}
	for line := range strings.Lines(string(b)) {
		i := strings.IndexAny(line, "=:")
		if i < 0 {
			continue
		}
		v := strings.Trim(strings.TrimSpace(line[i+1:]), `"'[],`)
		if !in.readName(p) {
			return
		}
		in.names(v)
		for _, w := range append([]string{v}, strings.Fields(v)...) {
			if w = strings.Trim(w, `"'[],`); w != "" && !strings.ContainsRune(w, 0) {
				in.hash(in.join(dir, w), base)
			}
		}
	}
}

// unbound are build and test tools that run a project's code from files
// no word of the command names, and whose trees zk does not know how to
// bind (a JVM build's sources, a .NET project's, a task file's tasks): by
// what they read. Approving one bound nothing it ran, and said nothing;
// now it is opaque, saying what.
var unbound = map[string]string{
	"gradle": "build.gradle and the sources it builds", "gradlew": "build.gradle, the sources it builds and the Gradle its wrapper properties download",
	"mvn": "pom.xml and the sources it builds", "mvnw": "pom.xml, the sources it builds and the Maven its wrapper properties download",
	"sbt": "build.sbt and the sources it builds", "ant": "build.xml", "lein": "project.clj and the sources it builds",
	"bazel": "BUILD files and the sources they build", "bazelisk": "BUILD files and the sources they build", "buck2": "BUCK files and the sources they build",
	"dotnet": "the project's files and the sources they build", "mix": "mix.exs and the sources it builds", "rebar3": "rebar.config and the sources it builds",
	"cabal": "the package's .cabal file and sources", "stack": "stack.yaml and the sources it builds", "dune": "dune files and the sources they build",
	"cmake": "CMakeLists.txt or the build files it generated", "ctest": "the build folder's test definitions", "meson": "meson.build and the sources it builds",
	"ninja": "build.ninja's commands", "scons": "SConstruct, Python code", "xmake": "xmake.lua",
	"tox": "tox.ini's commands, in environments under .tox", "nox": "noxfile.py, Python code", "invoke": "tasks.py, Python code", "inv": "tasks.py, Python code",
	"task": "Taskfile.yml's commands", "mage": "magefiles, Go code", "earthly": "the Earthfile's commands",
	"composer": "composer.json's scripts", "phpunit": "the project's tests and bootstrap", "rspec": "the spec folder's Ruby code", "rails": "the application's Ruby code",
	"ts-node": "the TypeScript the script imports", "tsx": "the TypeScript the script imports",
}
