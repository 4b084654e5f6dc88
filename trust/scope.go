package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"

	"github.com/zk-claims/zk/internal/lazyre"
)

// Scope is what approving a command covers: the files it names, as they
// are now, and whether zk could tell them all.
type Scope struct {
	// Files lists, sorted by name, every regular file the command names,
	// wherever it leads.
	Files []File
	// Trees lists, sorted by name, the trees of code the tools the command
	// runs find on their own (go test ./..., cargo test, pytest, npm test),
	// each hashed whole (trees.go).
	Trees []Tree
	// Opaque says, once per cause, why zk cannot tell every file the
	// command runs (a variable, a glob, cd, a string the shell parser
	// refuses). A command with any is approved only on the user's explicit
	// word (zk trust --opaque).
	Opaque []string
}

// File is one file a command names.
type File struct {
	// Name is the file as the command names it, cleaned: a vault path
	// (slash-separated) when it is in the vault, else an absolute path.
	Name string
	// Target is where Name leads through symlinks when that is not Name
	// itself (a vault path, or an absolute path outside the vault); "" if
	// Name is no symlink.
	Target string
	// Sum is "sha256:" and the hex hash of the content.
	Sum string
}

// Sums is s.Files as an Approval's Files map, nil when there are none.
func (s Scope) Sums() map[string]string {
	if len(s.Files) == 0 {
		return nil
	}
	m := make(map[string]string, len(s.Files))
	for _, f := range s.Files {
		m[f.Name] = f.Sum
	}
	return m
}

// TreeSums is s.Trees as an Approval's Trees map, nil when there are none.
func (s Scope) TreeSums() map[string]string {
	if len(s.Trees) == 0 {
		return nil
	}
	m := make(map[string]string, len(s.Trees))
	for _, t := range s.Trees {
		m[t.Name] = t.Sum
	}
	return m
}

// Bind is a with what approving it covers: s's files and trees, and
// whether s is opaque. The trees' manifests go with it, so that the store
// can keep them, and a check say which file of a tree changed.
func (s Scope) Bind(a Approval) Approval {
	a.Files, a.Trees, a.Opaque = s.Sums(), s.TreeSums(), len(s.Opaque) > 0
	a.manifests = nil
	for _, t := range s.Trees {
		if a.manifests == nil {
			a.manifests = map[string][]byte{}
		}
		a.manifests[t.Sum] = t.Manifest
	}
	return a
}

// maxDepth bounds shells inside shells (sh -c "sh -c '...'").
const maxDepth = 8

// Inspect finds the files a command, split into argv and run from the
// vault's folder vaultDir, names and hashes them. It follows the command
// as far as it can be read without running it:
//
//   - every argument, every space-separated word of one and the value of
//     --flag=value that names a regular file, from the vault's folder,
//     through symlinks wherever they lead, inside the vault or not (a ..
//     after a symlink goes up from where it leads, as the kernel reads it),
//     and from the folder a command is run in too (env -C DIR, sudo -D,
//     git, make, go -C: chdirs; and, opaque as it is, cd DIR);
//   - the files a program reads on its own and runs, named by no word:
//     make's Makefile, a justfile, package.json (and the scripts npm test
//     and the like run, read as sh -c strings), pyproject.toml, a Gemfile,
//     a flake, an .envrc (reads), from the folder it runs in, or above it
//     as the program looks; one not there is bound by its absence;
//   - the command a runner starts (uv run, poetry run, conda run -n ENV,
//     npx, pnpm exec, bundle exec, nix develop -c, direnv exec DIR:
//     runners), inspected as the command it is;
//   - the string a shell runs (sh, bash, dash, zsh... -c, found at any
//     position so that env X=1 sh -c and timeout 9 sh -c count), the string
//     after -c of another program (flock -c, su -c) and env -S's string,
//     parsed by mvdan.cc/sh as the shell would: each command in it is
//     inspected like argv, with its words' quotes removed (r""un.sh is
//     run.sh), its input redirections and its assignments' values.
//
// Anything whose files depend on what happens when it runs is opaque and
// said so in Scope.Opaque: a word the shell expands (a variable, a command
// substitution, a glob, a brace expansion, a leading ~), cd, eval and the
// builtins that run strings, an assignment to PATH, a shell or
// interpreter reading its program from its input, xargs adding what it
// reads to the command, chroot, another interpreter's inline code (python
// -c, perl -e, node -e; a script's own options after it are not), find
// -exec, a string the parser refuses. What a file that runs runs in turn
// (a script calling another) is that file's content, hashed, not
// followed; the words of a Makefile's recipes are read as names
// (recipeFiles). The tree of code a build or test tool runs (go test
// ./..., cargo test, pytest, npm test) is hashed whole into Scope.Trees
// (trees.go). A named file over 64 MiB, or a tree over its bounds, is an
// error, not a file left out.
func Inspect(vaultDir string, argv []string) (Scope, error) {
	return inspect(vaultDir, argv, nil, defaultLimits)
}

// Memo remembers the files Inspect hashed over one pass of many commands
// (zk run --due choosing what to run, zk trust listing a note's commands),
// so that a file 200 of them name is read once, not 200 times. What it
// remembers for a path is what reading it gave then: the hash of the
// bytes read, and where the path led when they were. A file edited during
// the pass keeps its first hash, so a Memo must not outlive the pass, and
// nothing about to run a command uses one: zk run checks its approval
// against the files as they are then. Safe for concurrent use.
type Memo struct {
	mu    sync.Mutex
	files map[string]hashed
	trees map[string]builtTree
}

// builtTree is what building one tree gave.
type builtTree struct {
	tree   Tree
	opaque []string
	err    error
}

// hashed is what reading one path gave.
type hashed struct {
	real string // where it led through symlinks; "" if that failed
	sum  string // hashFile's
	err  error
}

// NewMemo returns an empty Memo.
func NewMemo() *Memo { return &Memo{files: map[string]hashed{}, trees: map[string]builtTree{}} }

// Inspect is Inspect, reading only the files m has not read.
func (m *Memo) Inspect(vaultDir string, argv []string) (Scope, error) {
	return inspect(vaultDir, argv, m, defaultLimits)
}

// read resolves and hashes the file at p, or says what that gave before.
// A nil Memo reads it every time.
func (m *Memo) read(p string) hashed {
	if m != nil {
		m.mu.Lock()
		h, ok := m.files[p]
		m.mu.Unlock()
		if ok {
			return h
		}
	}
	var h hashed
	if real, err := filepath.EvalSymlinks(p); err == nil {
		h.real = real
	}
	h.sum, h.err = hashFile(p)
	if m != nil {
		m.mu.Lock()
		m.files[p] = h
		m.mu.Unlock()
	}
	return h
}

func inspect(vaultDir string, argv []string, memo *Memo, limits treeLimits) (Scope, error) {
	in := &inspector{dir: vaultDir, memo: memo, limits: limits, seen: map[string]bool{}, parsed: map[string]bool{}}
	if real, err := filepath.EvalSymlinks(vaultDir); err == nil {
		in.realDir = real
	} else {
		in.realDir = vaultDir
	}
	in.dirs = []folder{{vaultDir, vaultDir}}
	// A tree walked into the folder of the approvals (a vault that is the
	// home folder) would bind them, and every approval would change it.
	if p, err := DefaultPath(); err == nil {
		if real, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			in.storeDir = real
		}
	}
	in.dirSeen = map[string]bool{in.realDir: true}
	in.argv(argv, 0, true)
	in.buildTrees()
	in.checkOutputs()
	if in.err != nil {
		return Scope{}, in.err
	}
	slices.SortFunc(in.scope.Files, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	return in.scope, nil
}

type inspector struct {
	dir, realDir string
	memo         *Memo
	dirs         []folder        // the folders names are read from
	dirSeen      map[string]bool // their real paths
	seen         map[string]bool // names looked at
	parsed       map[string]bool // strings parsed as shell
	trees        map[string]*treeRequest
	outputs      []output          // the files the command writes
	outAt        map[*string]bool  // the words naming them, by where they are
	included     map[string]bool   // makefiles read through include lines
	recipesRead  map[string]bool   // makefiles and justfiles read (recipeFiles), by real path and base
	recipeBytes  int64             // and their bytes
	shebangs     map[string]bool   // scripts read for their #! lines
	loaded       map[string]bool   // scripts read for the files they load (loads)
	loadedBytes  int64             // and their bytes
	makeInclude  []string          // make's -I folders, where includes are looked for
	read         int               // words of files read as names (readName)
	bound        map[string]string // the files hashed, by path: their names
	budget       budget            // what the trees have read
	limits       treeLimits
	scope        Scope
	opaqueSeen   map[string]bool // scope.Opaque's reasons
	storeDir     string          // the real folder of the approvals, not walked
	err          error
}

// folder is one folder a command's names are read from: the vault's, or
// one it runs a command in (env -C DIR, cd DIR).
type folder struct {
	path string // what a name is joined to
	base string // what a file under it is shown relative to
}

// maxRead bounds the words of files (a Makefile's lines, a config's
// values) read as names, over all of a command's files: each is a stat or
// more, and a 30 MB Makefile of them took 90 s and 700 MB. Real ones hold
// a few thousand; past it the rest are not read, and the command is opaque.
const maxRead = 50_000

// readName says whether one more word of a file named p may be read as a
// name; past maxRead, no, and the command is opaque, once.
func (in *inspector) readName(p string) bool {
	in.read++
	if in.read == maxRead+1 {
		in.opaque("%s and the files it reads name over %d words; zk does not read them all", in.display(p, in.realDir), maxRead)
	}
	return in.read <= maxRead
}

// maxDirs bounds the folders names are read from: each is a stat of every
// word.
const maxDirs = 16

// opaque adds a reason the command is opaque, once: a set beside the
// list, since a command may give hundreds of thousands (a script of
// distinct variables, a tree of symlinks out), each compared with all the
// others before, quadratic.
func (in *inspector) opaque(format string, args ...any) {
	why := fmt.Sprintf(format, args...)
	if in.opaqueSeen[why] {
		return
	}
	if in.opaqueSeen == nil {
		in.opaqueSeen = map[string]bool{}
	}
	in.opaqueSeen[why] = true
	in.scope.Opaque = append(in.scope.Opaque, why)
}

// shells run a string given with -c, or their first operand as a script,
// or, with neither, what they read from their input.
var shells = map[string]syntax.LangVariant{
	"sh": syntax.LangBash, "bash": syntax.LangBash, "dash": syntax.LangBash,
	"ash": syntax.LangBash, "ksh": syntax.LangMirBSDKorn, "mksh": syntax.LangMirBSDKorn,
	"zsh": syntax.LangZsh, "rbash": syntax.LangBash,
}

// inline lists interpreters and the options that make them run code zk
// does not read: a program given as an argument (python -c, perl -e), or
// a module found along a search path that starts in the working folder or
// that the option extends (python -m, where a vault's json/tool.py shadows
// the standard library's json.tool; perl -I, -M; ruby -I, -r; node -r,
// --import; lua -l), as PYTHONPATH and its kin are (searchVar).
//
// The words are read up to the interpreter's operand, its script or - (its
// input), or the one after --: what follows are the script's arguments
// (python3 x.py -m 5 runs no module). Where it is unsure, it reads on: a
// word after an option that may take one as its value (code or valued,
// last in its word: python3 -W ignore; any long option it does not know,
// with no =) is taken for that value, not the operand, so that an option
// after it is still read; an option missed is code run unread, a word
// misread only a warning. A letter counts wherever it stands in a word of
// clustered options (perl -ne is -e, python3 -Im is -m), up to one whose
// value is the rest of the word (python3 -Wignore::DeprecationWarning has
// no -c); a long option however abbreviated (--ev=, pwsh's -Com). The
// names are compiled at their first use, not at every zk's start.
var inline = []interp{
	{name: lazyre.New(`^(python|pypy)[0-9.]*$`), short: "cm", valued: "QWX"},
	{name: lazyre.New(`^perl[0-9.]*$`), short: "EIMdem", valued: "DFix"},
	{name: lazyre.New(`^ruby[0-9.]*$`), short: "Ier", valued: "CEFWix"},
	{name: lazyre.New(`^(node|nodejs)$`), short: "epr", valued: "C",
		long: []string{"--eval", "--print", "--require", "--import", "--loader", "--experimental-loader"}},
	{name: lazyre.New(`^bun$`), short: "epr", sub: true,
		long: []string{"--eval", "--print", "--require", "--import", "--preload"}},
	{name: lazyre.New(`^deno$`), long: []string{"--eval"}, words: []string{"eval"}, sub: true},
	{name: lazyre.New(`^php[0-9.]*$`), short: "BERr", valued: "FScdftz"},
	{name: lazyre.New(`^(lua|luajit)[0-9.]*$`), short: "ejl"},
	{name: lazyre.New(`^julia$`), short: "Eem", valued: "CHJLOgpt", long: []string{"--eval", "--print", "--module"}},
	{name: lazyre.New(`^(Rscript|osascript)$`), short: "e", valued: "ls"},
	{name: lazyre.New(`^(pwsh|powershell)$`), long: []string{"-command", "-commandwithargs", "-cwa", "-encodedcommand", "-ec"}, longOnly: true},
}

// interp is one interpreter of inline.
type interp struct {
	name   func() *regexp.Regexp
	short  string   // option letters that run code
	valued string   // other option letters whose value is the rest of their word
	long   []string // long options that run code
	words  []string // words that do, wherever they stand (deno eval)
	// sub: its first operand may be a subcommand (deno run, bun test), the
	// script the next.
	sub bool
	// longOnly: an option of one dash is a word, not letters (pwsh -File).
	longOnly bool
}

// interpreter is the inline entry for name, or -1.
func interpreter(name string) int {
	return slices.IndexFunc(inline, func(e interp) bool { return e.name().MatchString(name) })
}

// code is every option of args, up to the interpreter's operand, that
// runs code the interpreter e does not read, as inline says to read them,
// and the index in args of that operand (its script), or -1.
func (e interp) code(args []string) ([]string, int) {
	var opts []string
	value := false // the word may be the value of the option before it
	sub := e.sub
	for j, a := range args {
		if slices.Contains(e.words, a) {
			opts = append(opts, a)
		}
		if a == "--" {
			if j+1 < len(args) {
				return opts, j + 1
			}
			return opts, -1
		}
		if a == "-" || !strings.HasPrefix(a, "-") {
			switch {
			case value:
				value = false
			case sub:
				sub = false
			default:
				return opts, j
			}
			continue
		}
		value = false
		name, _, eq := strings.Cut(a, "=")
		if k := slices.IndexFunc(e.long, func(l string) bool { return abbreviates(name, l) }); k >= 0 {
			opts = append(opts, e.long[k])
			value = !eq
			continue
		}
		if strings.HasPrefix(a, "--") || e.longOnly {
			value = !eq // one it does not know may take a value
			continue
		}
		for k := 1; k < len(a); k++ {
			code := strings.IndexByte(e.short, a[k]) >= 0
			if code {
				opts = append(opts, "-"+a[k:k+1])
			}
			if code || strings.IndexByte(e.valued, a[k]) >= 0 {
				value = k == len(a)-1 // its value is the next word
				break
			}
		}
	}
	return opts, -1
}

// wrappers run their operands as a command: a shell after one is run as
// a command, its input the wrapper's.
// Those that measure, trace or limit a command (prlimit, perf stat,
// strace, valgrind, numactl, flock FILE) are the ones a falsifier is
// likeliest to put before make bench: missing one left the Makefile
// unbound.
var wrappers = map[string]bool{
	"env": true, "exec": true, "command": true, "nohup": true, "time": true,
	"timeout": true, "nice": true, "xargs": true, "sudo": true, "doas": true,
	"busybox": true, "setsid": true, "stdbuf": true, "ionice": true,
	"chrt": true, "taskset": true, "caffeinate": true, "systemd-run": true,
	"gtime": true, "prlimit": true, "perf": true, "strace": true, "ltrace": true,
	"valgrind": true, "numactl": true, "flock": true, "setpriv": true,
	"runuser": true, "pkexec": true, "sg": true, "chpst": true, "cgexec": true,
	"cpulimit": true, "firejail": true, "bwrap": true, "unshare": true,
	"nsenter": true, "setarch": true, "linux32": true, "linux64": true,
	"faketime": true, "fakeroot": true, "eatmydata": true, "catchsegv": true,
	"rr": true, "heaptrack": true, "uftrace": true, "trickle": true,
	"torsocks": true, "proxychains": true, "proxychains4": true,
	"unbuffer": true, "chronic": true, "xvfb-run": true, "dbus-run-session": true,
	"systemd-inhibit": true, "schedtool": true, "tini": true, "dumb-init": true,
}

// chdirs lists programs that run in a folder one of their options names,
// and that option: the files the command names are read from there as
// well as from the vault's folder (env -C scripts sh run.sh runs
// scripts/run.sh; git -C, make -C, go -C read their arguments there).
// Both are read loosely, so that no spelling getopt takes is missed: the
// letter wherever it stands in a word of clustered options (env -iC), its
// value the rest of the word or the next one; the long option however
// abbreviated (env --ch=DIR), its value after = or the next word. A folder
// read wrongly costs a stat of each word, if it is one at all; a folder
// missed, a file that runs left unhashed.
// A runner's project folder (uv --project, poetry -P) is read as one too:
// what it runs and the files it reads on its own (reads) are found there.
var chdirs = map[string]struct {
	short string // option letters; "" for none
	long  []string
}{
	"env":  {"C", []string{"--chdir"}},
	"sudo": {"D", []string{"--chdir"}},
	"git":  {"C", nil}, "go": {"C", []string{"--C"}}, "cargo": {"C", nil}, "ninja": {"C", nil},
	"make": {"C", []string{"--directory"}}, "gmake": {"C", []string{"--directory"}}, "bmake": {"C", nil},
	"npm": {"Cw", []string{"--prefix", "--workspace"}}, "pnpm": {"C", []string{"--dir"}}, "yarn": {"", []string{"--cwd"}},
	"bun": {"", []string{"--cwd"}}, "just": {"d", []string{"--working-directory"}},
	"gradle": {"p", []string{"--project-dir"}}, "gradlew": {"p", []string{"--project-dir"}},
	"ruby": {"C", nil}, "perl": {"x", nil},
	"systemd-run": {"", []string{"--working-directory"}}, "unshare": {"", []string{"--wd"}},
	"nsenter": {"w", []string{"--wd"}}, "pwsh": {"", []string{"-workingdirectory", "-wd"}},
	"uv": {"", []string{"--directory", "--project"}}, "poetry": {"CP", []string{"--directory", "--project"}},
	"pdm": {"p", []string{"--project"}}, "conda": {"", []string{"--cwd"}}, "mamba": {"", []string{"--cwd"}},
	"micromamba": {"", []string{"--cwd"}},
}

// optionValues is every value args may give an option -short (any of its
// letters) or --long, read loosely as chdirs says.
func optionValues(args []string, short string, long []string) []string {
	var vs []string
	next := func(j int) {
		if j+1 < len(args) {
			vs = append(vs, args[j+1])
		}
	}
	for j, a := range args {
		name, v, eq := strings.Cut(a, "=")
		if slices.ContainsFunc(long, func(l string) bool { return abbreviates(name, l) }) {
			if eq {
				vs = append(vs, v)
			} else {
				next(j)
			}
			continue
		}
		if short == "" || len(a) < 2 || a[0] != '-' || a[1] == '-' {
			continue
		}
		if k := strings.IndexAny(a[1:], short); k >= 0 {
			// go's flag package takes -C=DIR.
			if rest := strings.TrimPrefix(a[k+2:], "="); rest != "" {
				vs = append(vs, rest)
			} else {
				next(j)
			}
		}
	}
	return vs
}

// abbreviates says whether name, an option as written, is the long option
// long or an abbreviation of it as getopt takes one (--ch for --chdir).
// Case is ignored, as pwsh ignores it, and an option pwsh spells with one
// dash may be given two.
func abbreviates(name, long string) bool {
	n, l := strings.TrimLeft(name, "-"), strings.TrimLeft(long, "-")
	dn, dl := len(name)-len(n), len(long)-len(l)
	return n != "" && (dn == dl || dl == 1 && dn == 2) && strings.HasPrefix(strings.ToLower(l), strings.ToLower(n))
}

// argv inspects one command's words. top is true for the command zk runs
// itself, whose input is empty.
func (in *inspector) argv(words []string, depth int, top bool) {
	if len(words) == 0 {
		return
	}
	// The words that are no shell string may name files; a shell string's
	// names are its commands' words, as parsed.
	// A file the command writes (an output option's value) is not read as
	// a name (outputs.go): that word, here or in the words of a command
	// around this one (a runner's: npx jest --outputFile=x), which share
	// its backing array.
	defer func() {
		for i, w := range words {
			if !in.parsed[w] && !in.outAt[&words[i]] {
				in.names(w)
				in.shebang(w, depth)
			}
		}
	}()
	first := filepath.Base(words[0])
	if !top {
		switch first {
		case "cd", "pushd", "popd":
			in.opaque("`%s` changes the folder later paths are read from", first)
			// Where it goes and when is the script's to say; the names of
			// what follows are read from there too, so that an approval
			// made with --opaque still binds cd lib && sh x.sh's lib/x.sh.
			for _, a := range words[1:] {
				if !strings.HasPrefix(a, "-") {
					in.chdir(a)
				}
			}
		case "eval", "alias", "trap", "hash", "enable", "fc", "builtin", "unalias":
			in.opaque("`%s` runs or redefines commands from strings", first)
		}
	}
	loose := false
	for i, w := range words {
		base := filepath.Base(w)
		if i > 0 && (w == "-c" || w == "--command") && i+1 < len(words) {
			// Another program's command string: flock -c, su -c, script -c.
			if !in.parsed[words[i+1]] {
				in.script(words[i+1], syntax.LangBash, depth)
			}
			continue
		}
		// A command is run at position 0, or after a wrapper (a runner's
		// is inspected as words of its own).
		if i > 0 && !wrappers[first] {
			// After a program zk does not know (retry make bench, a
			// wrapper of its own), the first word that is a program
			// reading files on its own is read as the command it may
			// run: a word misread binds more, a command missed runs
			// its Makefile unbound. Once: the rest are its words.
			if !loose && !known(first) && runsFiles(base, words[i+1:]) {
				loose = true
				in.argv(words[i:], depth, top)
			}
			continue
		}
		in.environment(w)
		args := words[i+1:]
		for j := range in.outputWords(base, args) {
			if in.outAt == nil {
				in.outAt = map[*string]bool{}
			}
			in.outAt[&args[j]] = true
		}
		if o, ok := commandOpts[base]; ok {
			for _, src := range optionValues(args, o.short, o.long) {
				if !in.parsed[src] {
					in.script(src, syntax.LangBash, depth)
				}
			}
		}
		if o, ok := chdirs[base]; ok {
			for _, d := range optionValues(args, o.short, o.long) {
				in.chdir(d)
			}
		}
		r, ok := runners[base]
		var starts []int
		if ok {
			starts, ok = in.runner(r, base, args, depth)
		}
		if rd, found := reads[base]; found {
			in.reads(rd, args, depth)
		}
		// An env file node or uv loads: its NODE_OPTIONS=--require
		// ./setup.js ran setup.js unbound.
		if o, ok := envFiles[base]; ok {
			for _, v := range optionValues(args, "", o) {
				for _, d := range slices.Clone(in.dirs) {
					f := in.join(d.path, v)
					in.hash(f, d.base)
					in.envFile(f, d.path, d.base)
				}
			}
		}
		switch base {
		case "git":
			in.gitOptions(args)
		case "go":
			in.goCode(args)
		case "cargo":
			in.cargoCode(args)
		case "pytest", "py.test":
			in.pythonCode()
		}
		if ok {
			for _, s := range starts {
				cmd := args[s:]
				// hatch run test:pytest runs pytest in the environment test.
				if _, c, env := strings.Cut(cmd[0], ":"); r.env && env {
					cmd = append([]string{c}, cmd[1:]...)
				}
				in.argv(cmd, depth, top)
			}
			return
		}
		if base == "hyperfine" {
			in.hyperfine(args, depth)
			return
		}
		if lang, ok := shells[base]; ok {
			in.loose(words, i, in.shell(args, lang, depth, top), depth, top)
			return
		}
		if k := interpreter(base); k >= 0 {
			opts, op := inline[k].code(args)
			if len(opts) == 0 && op >= 0 {
				in.scriptCode(base, args[op], syntax.LangBash, depth)
			}
			if k == 0 && slices.Equal(opts, []string{"-m"}) && slices.Contains(testModules, pythonModule(args)) {
				// python -m pytest: the tree it runs is bound, the
				// folder's modules that would stand for pytest's among it.
				opts = nil
				in.pythonCode()
			}
			for _, o := range opts {
				in.opaque("`%s %s` runs code zk does not read", base, o)
			}
			if !top && !hasOperand(args) {
				in.opaque("`%s` runs what it reads from its input", base)
			}
			in.loose(words, i, op, depth, top)
			return
		}
		switch {
		case base == "env":
			in.env(args, depth)
		case base == "chroot" || base == "sudo" && len(optionValues(args, "R", []string{"--chroot"})) > 0:
			// Every path, absolute ones too, is read under another root.
			in.opaque("`%s` runs the command under another root folder", base)
		case base == "sudo" && slices.ContainsFunc(leadingOptions(args, "ugCDhprtTUR"), loginOption("i", "--login")),
			(base == "su" || base == "runuser") && slices.ContainsFunc(leadingOptions(args, "cgGsw"), func(a string) bool { return a == "-" || loginOption("l", "--login")(a) }):
			// A login shell starts in the user's home folder: the names
			// are read from another folder than the one zk reads.
			opt := "-l"
			if base == "sudo" {
				opt = "-i"
			}
			in.opaque("`%s %s` runs the command in another user's home folder", base, opt)
		case runsElsewhere(base, args) != "":
			in.opaque("%s", runsElsewhere(base, args))
		case base == "systemd-run":
			in.systemdRun(args)
		case workspaces(base, args) != "":
			// Every workspace package's scripts run, each in its folder.
			in.opaque("`%s %s` runs the scripts of every package of the workspace, which zk does not read", base, workspaces(base, args))
		case base == "watch":
			in.watch(args, depth, top)
			return
		case base == "entr":
			in.entr(args, depth, top)
			return
		case base == "parallel" || base == "sem" || base == "parset":
			in.parallel(base, args, depth, top)
			return
		case unbound[base] != "" && !slices.Contains(args, "--version") && !slices.Contains(args, "--help"):
			in.opaque("`%s` runs %s, which zk does not bind", base, unbound[base])
		case base == "tmux" || base == "screen":
			// Its commands run in a server that may be running already
			// (where, and with what, zk cannot tell), after its config.
			in.opaque("`%s` runs its commands in a terminal server zk does not read", base)
			return
		case base == "xargs":
			// Top-level, its input is empty; else it appends to the command
			// words zk cannot see, from its input or -a's file.
			if !top || len(optionValues(args, "a", []string{"--arg-file"})) > 0 {
				in.opaque("`xargs` adds to the command words it reads when it runs")
			}
		case base == "find":
			for _, a := range args {
				switch a {
				case "-exec", "-execdir", "-ok", "-okdir":
					in.opaque("`find %s` runs the files it finds", a)
				}
			}
		}
	}
}

// workspaces is the option of a package manager's arguments that has it
// run a script in every package of a workspace (npm --workspaces, pnpm
// -r, yarn workspaces foreach), or "".
func workspaces(base string, args []string) string {
	for _, a := range args {
		switch {
		case base == "npm" && (a == "--workspaces" || a == "--ws"),
			base == "pnpm" && (a == "-r" || a == "--recursive" || a == "--filter" || strings.HasPrefix(a, "--filter=") || a == "-F"),
			base == "yarn" && a == "foreach",
			base == "lerna" && (a == "run" || a == "exec"):
			return a
		}
	}
	return ""
}

// envFiles are programs an option of which names a file of assignments
// they load into the environment of what they run (envFile).
var envFiles = map[string][]string{
	"node": {"--env-file", "--env-file-if-exists"}, "nodejs": {"--env-file", "--env-file-if-exists"}, "uv": {"--env-file"},
}

// commandOpts are programs an option of which gives a shell string they
// run ($SHELL -c), read with optionValues so that a cluster (script -qc)
// or a long one (--command=) is not missed.
var commandOpts = map[string]struct {
	short string
	long  []string
}{
	"script": {"c", []string{"--command"}}, "flock": {"c", []string{"--command"}},
	"su": {"c", []string{"--command"}}, "runuser": {"c", []string{"--command"}},
}

// loginOption says whether a word is the option -short (in a cluster too)
// or --long, abbreviated as getopt takes it.
func loginOption(short, long string) func(string) bool {
	return func(a string) bool {
		if strings.HasPrefix(a, "--") {
			return abbreviates(a, long)
		}
		return len(a) > 1 && a[0] == '-' && strings.Contains(a[1:], short)
	}
}

// leadingOptions is the options args start with, up to the first operand
// (a word after an option letter of valued, last in its word, is its
// value) or --: sudo make -i's -i is make's.
func leadingOptions(args []string, valued string) []string {
	for j := 0; j < len(args); j++ {
		a := args[j]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			if a == "-" {
				j++ // su -: an option of its own
			}
			return args[:j]
		}
		if k := strings.IndexAny(a[1:], valued); !strings.HasPrefix(a, "--") && k == len(a)-2 {
			j++ // the first valued letter takes the rest of its word, or the next
		}
	}
	return args
}

// known says whether zk reads the program name's arguments: its words
// name what it runs as zk reads them, not as loose commands.
func known(name string) bool {
	_, shell := shells[name]
	_, runner := runners[name]
	_, reading := reads[name]
	_, cmd := commandOpts[name]
	if shell || runner || reading || cmd || wrappers[name] || interpreter(name) >= 0 {
		return true
	}
	switch name {
	case "go", "cargo", "pytest", "py.test", "hyperfine", "find", "watch", "entr", "parallel", "sem", "parset", "tmux", "screen":
		return true
	}
	return false
}

// runsFiles says whether name, with args after it, is a program that runs
// files no word names (a Makefile, a tree of code), or a shell given a
// string (bash -lc '...'), read as a command where it follows a program zk
// does not know.
func runsFiles(name string, args []string) bool {
	if _, ok := reads[name]; ok {
		return true
	}
	switch name {
	case "go", "cargo", "pytest", "py.test":
		return true
	}
	if unbound[name] != "" {
		return true
	}
	_, shell := shells[name]
	return shell && len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && args[0][1] != '-' && strings.Contains(args[0], "c")
}

// watch inspects watch's arguments: the command after its options, its
// words joined into one string sh -c runs, or, with -x, run as they are.
func (in *inspector) watch(args []string, depth int, top bool) {
	exec := false
	for j := 0; j < len(args); j++ {
		a := args[j]
		switch {
		case a == "--":
			j++
		case a == "-x" || abbreviates(a, "--exec") && len(a) > 3:
			exec = true
			continue
		case strings.HasPrefix(a, "--"):
			if _, _, eq := strings.Cut(a, "="); !eq && (abbreviates(a, "--interval") || abbreviates(a, "--equexit")) && len(a) > 3 {
				j++
			}
			continue
		case len(a) > 1 && a[0] == '-':
			if strings.Contains(a, "x") {
				exec = true
			}
			// -n SECS, -q CYCLES: the letter takes the rest of the word, or the next.
			if k := strings.IndexAny(a, "nq"); k == len(a)-1 {
				j++
			}
			continue
		}
		if j >= len(args) {
			return
		}
		if exec {
			in.argv(args[j:], depth, top)
		} else {
			in.script(strings.Join(args[j:], " "), syntax.LangBash, depth)
		}
		return
	}
}

// entr inspects entr's arguments: its command after its options (flags
// all), or with -s its first operand, a string the shell runs.
func (in *inspector) entr(args []string, depth int, top bool) {
	shell := false
	for j, a := range args {
		if a == "--" || !strings.HasPrefix(a, "-") {
			if a == "--" {
				j++
			}
			if j >= len(args) {
				return
			}
			if shell {
				in.script(args[j], syntax.LangBash, depth)
			} else {
				in.argv(args[j:], depth, top)
			}
			return
		}
		shell = shell || strings.Contains(a, "s")
	}
}

// parallel inspects GNU parallel's (or sem's) arguments: it makes the
// commands it runs from its command and the arguments it is given (after
// :::, from files after ::::, from its input), put in at {} or at the end,
// so what runs is opaque. Its command, read as a shell string, binds what
// it can: parallel 'make {}' ::: bench still binds the Makefile.
func (in *inspector) parallel(name string, args []string, depth int, top bool) {
	in.opaque("`%s` makes the commands it runs from its arguments when it runs", name)
	var ops []string
	for _, a := range args {
		if strings.HasPrefix(a, ":::") {
			break
		}
		if !strings.HasPrefix(a, "-") {
			ops = append(ops, a)
		}
	}
	if len(ops) == 0 {
		return
	}
	in.script(strings.Join(ops, " "), syntax.LangBash, depth)
	for k, a := range ops {
		if runsFiles(filepath.Base(a), ops[k+1:]) {
			in.argv(ops[k:], depth, top)
			return
		}
	}
}

// loose inspects, after a shell or interpreter found at words[i] behind a
// wrapper, its operand op (an index in words[i+1:], or -1) as a command
// too when it is one: words[i] may be the value of one of the wrapper's
// options (sudo -u python3 python3 -m x), and what runs the word after it.
func (in *inspector) loose(words []string, i, op, depth int, top bool) {
	if i == 0 || op < 0 {
		return
	}
	rest := words[i+1+op:]
	base := filepath.Base(rest[0])
	_, shell := shells[base]
	_, runner := runners[base]
	if shell || runner || wrappers[base] || interpreter(base) >= 0 {
		in.argv(rest, depth, top)
	}
}

// env inspects env's arguments: -S splits a string as a shell would, and
// an assignment may change where commands are found.
func (in *inspector) env(args []string, depth int) {
	for _, src := range optionValues(args, "S", []string{"--split-string"}) {
		in.script(src, syntax.LangBash, depth)
	}
	// BSD env -P: where the command is looked up.
	for _, p := range optionValues(args, "P", nil) {
		in.opaque("`env -P %s` changes where commands are looked up", p)
	}
	for _, a := range args {
		name, v, ok := strings.Cut(a, "=")
		switch {
		case !ok || strings.HasPrefix(a, "-"):
		case searchVar(name):
			in.opaque("`%s` changes where commands are looked up", a)
		case runVar(name, v):
			in.opaque("`%s` has the command run a program or read a file zk does not", a)
		}
	}
}

// hasOperand says whether args hold a word that is no option.
func hasOperand(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return !strings.HasPrefix(a, "-") })
}

// shell inspects a shell's arguments: its -c string, or its script (a
// named file, hashed by names), or its input. It returns the index in args
// of its operand (the string or the script), or -1.
func (in *inspector) shell(args []string, lang syntax.LangVariant, depth int, inputEmpty bool) int {
	c := false
	for j := 0; j < len(args); j++ {
		a := args[j]
		switch {
		case a == "--":
			j++
			if j < len(args) {
				in.operand(args[j], c, lang, depth)
				return j
			}
			return -1
		case a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file":
			j++ // takes a value
		case strings.HasPrefix(a, "--"):
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			if a[0] == '-' && strings.ContainsRune(a[1:], 'c') {
				c = true
			}
			if a[0] == '-' && strings.ContainsRune(a[1:], 's') && !inputEmpty {
				in.opaque("a shell given -s runs what it reads from its input")
			}
		default:
			in.operand(a, c, lang, depth)
			return j
		}
	}
	if !c && !inputEmpty {
		in.opaque("a shell with no script runs what it reads from its input")
	}
	return -1
}

func (in *inspector) operand(a string, c bool, lang syntax.LangVariant, depth int) {
	if c {
		in.script(a, lang, depth)
		return
	}
	// Else a script file, hashed by names, and what it sources.
	in.scriptCode("sh", a, lang, depth)
}

// runVar says whether assigning name the value v has a tool the command
// runs run a program or read a file of its own choosing, named by no word
// zk reads as one: go's -toolexec in GOFLAGS, a compiler, cargo's and
// rustc's wrappers and runners, git's, npm's and yarn's settings, a
// pager, pytest's options and plugins.
func runVar(name, v string) bool {
	switch name {
	case "GOFLAGS":
		return strings.Contains(v, "exec") || strings.Contains(v, "vettool") || strings.Contains(v, "overlay") || strings.Contains(v, "modfile")
	case "GOENV", "CC", "CXX", "FC", "AR", "LD", "PKG_CONFIG", "RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTDOC",
		"RUSTFLAGS", "RUSTDOCFLAGS", "PAGER", "EDITOR", "VISUAL", "MAKEFLAGS", "MAKEFILES", "PYTEST_ADDOPTS", "PYTEST_PLUGINS",
		"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "GOTOOLCHAIN", "GOROOT",
		"KUBECONFIG", "DOCKER_CONFIG": // a kubeconfig's exec: runs a program, as a Docker config's plugin folders do

		return true
	}
	for _, p := range []string{"CARGO_", "GIT_", "npm_config_", "NPM_CONFIG_", "YARN_", "CGO_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// searchVar says whether assigning name changes which files the commands
// after it run.
func searchVar(name string) bool {
	switch name {
	case "PATH", "CDPATH", "ENV", "BASH_ENV", "IFS", "PS4", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "GLOBIGNORE", "FPATH", "ZDOTDIR", "PYTHONPATH", "PYTHONSTARTUP", "PERL5LIB", "PERL5OPT", "RUBYOPT", "RUBYLIB", "NODE_OPTIONS", "NODE_PATH":
		return true
	}
	return strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_")
}

// script parses src as a shell would and inspects every command in it.
func (in *inspector) script(src string, lang syntax.LangVariant, depth int) {
	in.parsed[src] = true
	if depth >= maxDepth {
		in.opaque("shells nested over %d deep", maxDepth)
		return
	}
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(src), "")
	if err != nil {
		in.opaque("cannot parse %s: %v", quoteSrc(src), err)
		return
	}
	text := func(n syntax.Node) string {
		s, e := int(n.Pos().Offset()), int(n.End().Offset())
		if s < 0 || e > len(src) || s > e {
			return ""
		}
		return src[s:e]
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			// Its words are read here, whole; the walk need not go in.
			in.assigns(n.Assigns, text)
			words := make([]string, 0, len(n.Args))
			for _, w := range n.Args {
				s, why := literal(w, lang)
				if why != "" {
					in.opaque("`%s` %s", text(w), why)
					return false
				}
				words = append(words, s)
			}
			if len(words) > 0 {
				in.argv(words, depth+1, false)
			}
			return false
		case *syntax.DeclClause:
			in.assigns(n.Args, text)
			return false
		case *syntax.Redirect:
			if n.Op == syntax.RdrIn || n.Op == syntax.RdrInOut {
				if s, why := literal(n.Word, lang); why != "" {
					in.opaque("`%s` %s", text(n.Word), why)
				} else {
					in.names(s)
				}
			}
			return true
		case *syntax.ParamExp:
			in.opaque("`%s` expands a variable", text(n))
		case *syntax.CmdSubst:
			in.opaque("`%s` runs a command to make a word", text(n))
		case *syntax.ProcSubst:
			in.opaque("`%s` runs a command to make a file", text(n))
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause:
			in.opaque("`%s` computes with variables", text(n))
		case *syntax.ExtGlob:
			in.opaque("`%s` is a glob", text(n))
		case *syntax.CoprocClause:
			in.opaque("`%s` runs a coprocess", text(n))
		}
		return true
	})
}

// assigns inspects VAR=value words: a value may name a file (BASH_ENV=x),
// and some variables decide which files run.
func (in *inspector) assigns(as []*syntax.Assign, text func(syntax.Node) string) {
	for _, a := range as {
		if a.Name != nil && searchVar(a.Name.Value) {
			in.opaque("`%s` changes where commands are looked up", text(a))
			continue
		}
		if a.Name != nil && a.Value != nil && runVar(a.Name.Value, text(a.Value)) {
			in.opaque("`%s` has the command run a program or read a file zk does not", text(a))
			continue
		}
		if a.Array != nil || a.Index != nil {
			in.opaque("`%s` assigns an array", text(a))
			continue
		}
		if a.Value != nil {
			s, why := literal(a.Value, syntax.LangBash)
			if why != "" {
				in.opaque("`%s` %s", text(a.Value), why)
				continue
			}
			in.names(s)
		}
	}
}

// literal is a word's text after the shell's quote removal, when the word
// is the same text whatever happens at run time; else why it is not.
func literal(w *syntax.Word, lang syntax.LangVariant) (string, string) {
	if w == nil {
		return "", ""
	}
	if syntax.SplitBraces(&syntax.Word{Parts: slices.Clone(w.Parts)}) {
		return "", "is a brace expansion"
	}
	var b strings.Builder
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if pattern.HasMeta(v, 0) {
				return "", "is a glob"
			}
			if i == 0 && strings.HasPrefix(v, "~") {
				return "", "starts with ~, a home folder"
			}
			if i == 0 && lang == syntax.LangZsh && strings.HasPrefix(v, "=") {
				return "", "is a zsh command path"
			}
			b.WriteString(unescape(v, false))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", "is an ANSI-C string"
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", "is a translated string"
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", expands(q)
				}
				b.WriteString(unescape(l.Value, true))
			}
		default:
			return "", expands(p)
		}
	}
	return b.String(), ""
}

// expands says what a word part the shell expands does.
func expands(n syntax.Node) string {
	switch n.(type) {
	case *syntax.ParamExp:
		return "expands a variable"
	case *syntax.CmdSubst:
		return "runs a command to make a word"
	case *syntax.ProcSubst:
		return "runs a command to make a file"
	case *syntax.ArithmExp:
		return "computes with variables"
	case *syntax.ExtGlob:
		return "is a glob"
	}
	return "expands when it runs"
}

// unescape removes the backslashes a shell removes: any before a character
// outside quotes, only those before $ ` " \ inside double quotes.
func unescape(s string, dq bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (!dq || strings.IndexByte("$`\"\\", s[i+1]) >= 0) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// quoteSrc shortens a shell string for a message.
func quoteSrc(s string) string {
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return "`" + s + "`"
}

// names hashes the files an argument may name: itself, each of its
// space-separated words, the value of --flag=value.
func (in *inspector) names(arg string) {
	ns := append([]string{arg}, strings.Fields(arg)...)
	for _, n := range slices.Clone(ns) {
		// Each value after an =, nested too: go test
		// -ldflags=-extld=./ld.sh runs ld.sh as its linker.
		for {
			_, v, ok := strings.Cut(n, "=")
			if !ok {
				break
			}
			ns, n = append(ns, v), v
		}
	}
	for _, n := range ns {
		in.file(strings.Trim(n, `'"`))
	}
}

// file hashes the regular file at name, from each folder names are read
// from, through any symlink.
func (in *inspector) file(name string) {
	if name == "" || in.err != nil || strings.ContainsRune(name, 0) {
		return
	}
	if filepath.IsAbs(name) {
		in.hash(name, in.dir)
		return
	}
	for _, d := range in.dirs {
		in.hash(d.path+string(filepath.Separator)+name, d.base)
	}
}

// chdir adds dir, read from each folder names are read from, to them: a
// command run there names its files from there. dir is resolved as the
// kernel resolves it, through symlinks, a .. after one going up from where
// it leads.
func (in *inspector) chdir(dir string) {
	if dir == "" || strings.ContainsRune(dir, 0) {
		return
	}
	for _, d := range slices.Clone(in.dirs) {
		p := dir
		if !filepath.IsAbs(p) {
			p = d.path + string(filepath.Separator) + dir
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || in.dirSeen[real] {
			continue
		}
		if st, err := os.Stat(real); err != nil || !st.IsDir() {
			continue
		}
		if len(in.dirs) == maxDirs {
			in.opaque("runs commands in over %d folders", maxDirs)
			return
		}
		in.dirSeen[real] = true
		in.dirs = append(in.dirs, folder{real, in.realDir})
	}
}

// hash hashes the regular file at p, shown relative to base when it is
// under it.
func (in *inspector) hash(p, base string) {
	if in.err != nil {
		return
	}
	if dotdot(p) {
		// The kernel reads lib/link/../x.sh in the folder above where the
		// symlink lib/link leads, not lib/x.sh as filepath.Clean has it:
		// the file hashed must be the one that runs.
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return // not there
		}
		p, base = real, in.realDir
	}
	p = filepath.Clean(p)
	if in.seen[p] {
		return
	}
	in.seen[p] = true
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() {
		return // not there, a folder, a device, a FIFO: nothing to hash
	}
	key := in.display(p, base)
	h := in.memo.read(p)
	target := ""
	if h.real != "" {
		if t := in.display(h.real, in.realDir); t != key {
			target = t
		}
	}
	sum := h.sum
	if h.err != nil {
		in.err = fmt.Errorf("trust: %s: %w", key, h.err)
		return
	}
	// Two names may lead to one key (run.sh, lib/../run.sh): it is listed once.
	if sum != "" && !slices.ContainsFunc(in.scope.Files, func(f File) bool { return f.Name == key }) {
		in.scope.Files = append(in.scope.Files, File{Name: key, Target: target, Sum: sum})
		if in.bound == nil {
			in.bound = map[string]string{}
		}
		in.bound[p] = key
	}
}

// dotdot says whether name has a .. element.
func dotdot(name string) bool {
	return slices.Contains(strings.Split(filepath.ToSlash(name), "/"), "..")
}

// display is p as a vault path when it is under dir, else as it is.
func (in *inspector) display(p, dir string) string {
	if rel, ok := under(p, dir); ok {
		return filepath.ToSlash(rel)
	}
	return p
}

// hashFile is "sha256:HEX" of the regular file at p, or "" when p is no
// regular file.
func hashFile(p string) (string, error) {
	f, err := openRegular(p)
	if f == nil || err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxHashed+1)); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// readFile is the content of the regular file at p, nil when p is no
// regular file, as hashFile reads it.
func readFile(p string) ([]byte, error) {
	f, err := openRegular(p)
	if f == nil || err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxHashed+1))
}

// openRegular opens the regular file at p of at most maxHashed bytes, or
// gives nil when p is none. It opens without blocking: a FIFO swapped in
// after the stat must not hang zk.
func openRegular(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil, nil
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, nil
	}
	if st.Size() > maxHashed {
		f.Close()
		return nil, fmt.Errorf("over %d MiB; zk does not approve a command naming it", maxHashed>>20)
	}
	return f, nil
}
