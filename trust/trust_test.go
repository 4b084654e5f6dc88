package trust

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault/vaulttest"
)

func TestStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "zk", "trust.json")
	s := Open(path)
	a := Approval{Vault: "/v", Note: "n.md", Command: "go test ./..."}
	if ok, err := s.Trusted(a); ok || err != nil {
		t.Fatalf("empty store: %v, %v", ok, err)
	}
	if err := s.Approve(a); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Trusted(a); !ok || err != nil {
		t.Fatalf("after Approve: %v, %v", ok, err)
	}
	for name, other := range map[string]Approval{
		"edited command": {Vault: "/v", Note: "n.md", Command: "go test ./... "},
		"other note":     {Vault: "/v", Note: "m.md", Command: "go test ./..."},
		"other vault":    {Vault: "/w", Note: "n.md", Command: "go test ./..."},
		"shifted parts":  {Vault: "/v", Note: "n.mdgo test ./...", Command: ""},
	} {
		if ok, _ := Open(path).Trusted(other); ok {
			t.Errorf("%s: trusted", name)
		}
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, %v", st.Mode(), err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Trusted(a); !errors.Is(err, ErrUnsafe) {
		t.Errorf("world-writable file: err %v, want ErrUnsafe", err)
	}
}

func TestCorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trust.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path).Trusted(Approval{}); err == nil {
		t.Error("corrupt file read without error")
	}
}

// An approval binds the content of the vault files its command names: a
// changed, added or removed file makes it unapproved, and Check says which.
func TestCheckFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trust.json")
	s := Open(path)
	a := Approval{Vault: "/v", Note: "n.md", Command: "sh run.sh", Files: map[string]string{"run.sh": "sha256:aa"}}
	if err := s.Approve(a); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		files   map[string]string
		changed []string
	}{
		"same":    {map[string]string{"run.sh": "sha256:aa"}, nil},
		"edited":  {map[string]string{"run.sh": "sha256:bb"}, []string{"run.sh"}},
		"removed": {nil, []string{"run.sh"}},
		"added":   {map[string]string{"run.sh": "sha256:aa", "lib.sh": "sha256:cc"}, []string{"lib.sh"}},
	} {
		b := a
		b.Files = tc.files
		v, err := s.Check(b)
		if err != nil {
			t.Fatal(err)
		}
		if v.Approved != (tc.changed == nil) || !slices.Equal(v.Changed, tc.changed) {
			t.Errorf("%s: %+v, want changed %v", name, v, tc.changed)
		}
	}
}

// Inspect names every file a command runs that can be told from its text,
// through symlinks wherever they lead and through sh -c strings as the
// shell reads them, and calls opaque what cannot be told.
func TestInspect(t *testing.T) {
	dir := vaulttest.Dir(t, map[string]string{"run.sh": "echo 1\n", "lib/x.sh": "x\n", "data.csv": "1,2\n", "out.txt": "o\n",
		"sub/x.sh": "y\n", "sub/deep/keep": "",
		// Files programs read on their own, not named by the command.
		"Makefile": "test:\n\tsh run.sh\n", "Justfile": "test:\n  sh run.sh\n",
		"j/justfile": "set dotenv-load\nimport 'lib/common.just'\nmod tools\nmod? web 'w'\n", "j/lib/common.just": "x:\n  sh c.sh\n", "j/c.sh": "",
		"j/tools/mod.just": "t:\n  sh t.sh\n", "j/tools/t.sh": "", "j/w/JUSTFILE": "w:\n  cat w.txt\n", "j/w/w.txt": "", "j/.env": "X=1\n",
		"k/justfile": "set dotenv-filename := '.env.k'\n", "k/.env.k": "PATH=./bin\n", "other.mk": "x:\n\tsh lib/x.sh\n",
		"h/pre-commit": "", "other/.git/config": "[core]\n\tfsmonitor = sh fs.sh\n", "other/fs.sh": "", "g.cfg": "[core]\n\tpager = sh lib/x.sh\n",
		"mkI/Makefile": "include rules.mk\n", "mkI/inc/rules.mk": "x:\n\tsh ../run.sh\n",
		"ws/package.json": `{"workspaces": ["a"]}`, "ws/a/package.json": `{"scripts": {"test": "sh t.sh"}}`, "ws/a/t.sh": "",
		"cargo.toml.x": "[target.x86_64-unknown-linux-gnu]\nrunner = \"sh lib/x.sh\"\n",
		"n/.env":       "NODE_OPTIONS=--require ./setup.js\n", "n/ok.env": "X=lib/x.sh\n", "pyproject.toml": "[project]\n",
		"pkg/tool.py": "", "Gemfile": "", "flake.nix": "{}\n", ".git/config": "[core]\n\tfsmonitor = sh run.sh\n", "flake.lock": "{}\n", "web/.npmrc": "", "lib/.envrc": "export X=1\n", "web/src/keep": "",
		"fan/package.json": `{"scripts": {"a": "npm run a b c d", "b": "npm run a b c d", "c": "npm run a b c d", "d": "npm run a b c d"}}`,
		"web/package.json": `{"scripts": {"test": "sh ../run.sh", "pretest": "cat ../data.csv", "bench": "python3 -m pkg.tool", "var": "sh $X"}}`})
	elsewhere := t.TempDir()
	outside := filepath.Join(elsewhere, "out.sh")
	os.WriteFile(outside, []byte("x"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "link.sh"))
	// lib/d/../x.sh is sub/x.sh to the kernel, lib/x.sh to filepath.Clean.
	os.Symlink(filepath.Join("..", "sub", "deep"), filepath.Join(dir, "lib", "d"))
	if err := mkfifo(filepath.Join(dir, "fifo")); err != nil {
		t.Fatal(err)
	}
	nested := "sh lib/x.sh"
	for range 3 {
		nested = "sh -c '" + strings.ReplaceAll(nested, "'", `'\''`) + "'"
	}
	deep := "sh run.sh"
	for range maxDepth {
		deep = "sh -c '" + strings.ReplaceAll(deep, "'", `'\''`) + "'"
	}
	sh := func(s string) []string { return []string{"sh", "-c", s} }
	for _, tc := range []struct {
		argv   []string
		files  []string
		opaque string // a piece of the first reason; "" for none
	}{
		{[]string{"sh", "run.sh"}, []string{"run.sh"}, ""},
		{sh("sh lib/x.sh && cat ./run.sh"), []string{"lib/x.sh", "run.sh"}, ""},
		{[]string{"tool", "--input=data.csv", filepath.Join(dir, "run.sh")}, []string{"data.csv", "run.sh"}, ""},
		{[]string{"sh", "link.sh"}, []string{"link.sh"}, ""},
		{[]string{"sh", "../" + filepath.Base(elsewhere) + "/out.sh"}, []string{outside}, ""},
		{[]string{"sh", outside}, []string{outside}, ""},
		{[]string{"sh", "lib/d/../x.sh"}, []string{"sub/x.sh"}, ""},
		{sh("sh lib/d/../x.sh"), []string{"sub/x.sh"}, ""},
		{[]string{"ls", "lib", ".", "fifo", "missing.sh"}, nil, ""},
		{[]string{"go", "test", "./..."}, nil, ""},
		{sh(`sh r""un.sh`), []string{"run.sh"}, ""},
		{sh(`sh r\un.sh`), []string{"run.sh"}, ""},
		{sh(`sh "lib/"'x.sh'`), []string{"lib/x.sh"}, ""},
		{sh(`echo hi > out.txt 2>/dev/null; sh < run.sh`), []string{"run.sh"}, "runs what it reads from its input"},
		{sh(`awk '{print $1}' data.csv`), []string{"data.csv"}, ""},
		{[]string{"sh", "-c", nested}, []string{"lib/x.sh"}, ""},
		{[]string{"sh", "-c", deep}, nil, "nested over"},
		{sh(`sh $ZK_VAULT/run.sh`), nil, "`$ZK_VAULT/run.sh` expands a variable"},
		{sh(`sh "${ZK_VAULT}/run.sh"`), nil, "expands a variable"},
		{sh(`sh ru?.sh`), nil, "`ru?.sh` is a glob"},
		{sh(`sh r[u]n.sh`), nil, "is a glob"},
		{sh(`sh r{u,x}n.sh`), nil, "brace expansion"},
		{sh(`sh ~/run.sh`), nil, "~"},
		{sh(`sh $'run.sh'`), nil, "ANSI-C"},
		{sh("sh `echo run.sh`"), nil, "runs a command"},
		{sh(`X=$(cat f) sh run.sh`), []string{"run.sh"}, "runs a command"},
		{sh(`cd lib && sh x.sh`), []string{"lib/x.sh"}, "`cd` changes the folder"},
		{sh(`cd lib; cd d/..; sh x.sh`), []string{"lib/x.sh", "sub/x.sh"}, "`cd` changes the folder"},
		{[]string{"env", "-C", "lib", "sh", "x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"env", "-iC", "lib", "./x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"env", "-Clib", "sh", "x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"env", "--chdir=lib", "sh", "x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"env", "--chdir", "lib", "sh", "x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"env", "--ch=lib", "sh", "x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"env", "-C", "lib/d/..", "sh", "x.sh"}, []string{"sub/x.sh"}, ""},
		{[]string{"env", "-C", filepath.Join(dir, "lib"), "sh", "x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"sudo", "-D", "lib", "sh", "x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"sudo", "--chdir=lib", "sh", "x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"nice", "-n", "5", "env", "-C", "lib", "sh", "x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"timeout", "9", "env", "-C", "lib", "sh", "-c", "sh x.sh"}, []string{"lib/x.sh"}, ""},
		{sh(`env -C lib sh -c 'sh x.sh'`), []string{"lib/x.sh"}, ""},
		{[]string{"env", "-S", "env -C lib sh x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"env", "-iS", `sh r""un.sh`}, []string{"run.sh"}, ""},
		{[]string{"env", "--split=sh $X"}, nil, "expands a variable"},
		{[]string{"git", "-C", "lib", "apply", "x.sh"}, []string{".git/config", "lib/x.sh", "run.sh"}, ""},
		{[]string{"make", "-C", "lib", "-f", "x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"make", "--directory=lib", "-f", "x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"go", "-C=lib", "run", "x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"npm", "--prefix", "lib", "exec", "./x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"ruby", "-C", "lib", "x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"chroot", "lib", "sh", "x.sh"}, nil, "`chroot` runs the command under another root"},
		{[]string{"sudo", "--chroot=lib", "sh", "x.sh"}, nil, "`sudo` runs the command under another root"},
		{sh(`echo run.sh | xargs -I X sh X`), []string{"run.sh"}, "`xargs` adds"},
		{[]string{"xargs", "-a", "data.csv", "sh"}, []string{"data.csv"}, "`xargs` adds"},
		{sh(`eval "sh run.sh"`), []string{"run.sh"}, "`eval`"},
		{sh(`cat run.sh | sh`), []string{"run.sh"}, "runs what it reads"},
		{sh(`PATH=. run.sh`), []string{"run.sh"}, "`PATH=.`"},
		{sh(`export PATH=.; run.sh`), []string{"run.sh"}, "`PATH=.`"},
		{[]string{"env", "PATH=.", "run.sh"}, []string{"run.sh"}, "`PATH=.`"},
		{sh(`sh run.sh; if`), nil, "cannot parse"},
		{[]string{"python3", "-c", "import os"}, nil, "`python3 -c` runs code"},
		// A vault's json/tool.py would run in place of the standard one.
		{[]string{"python3", "-m", "json.tool", "data.csv"}, []string{"data.csv"}, "`python3 -m` runs code"},
		{[]string{"python3", "-Im", "json.tool"}, nil, "`python3 -m` runs code"},
		{[]string{"python3", "-mjson.tool"}, nil, "`python3 -m` runs code"},
		{[]string{"python3", "-Ic", "import os"}, nil, "`python3 -c` runs code"},
		{[]string{"python3", "-Wignore::DeprecationWarning", "run.sh"}, []string{"run.sh"}, ""},
		{[]string{"perl", "-ne", "print", "data.csv"}, []string{"data.csv"}, "`perl -e` runs code"},
		{[]string{"perl", "-Ilib", "-Mx", "run.sh"}, []string{"run.sh"}, "`perl -I` runs code"},
		{[]string{"ruby", "-rjson", "run.sh"}, []string{"run.sh"}, "`ruby -r` runs code"},
		{[]string{"ruby", "-I", "lib", "run.sh"}, []string{"run.sh"}, "`ruby -I` runs code"},
		{[]string{"node", "-pe", "1"}, nil, "`node -p` runs code"},
		{[]string{"node", "--eval=1"}, nil, "`node --eval` runs code"},
		{[]string{"node", "-r", "x", "run.sh"}, []string{"run.sh"}, "`node -r` runs code"},
		{[]string{"node", "--import=x", "run.sh"}, []string{"run.sh"}, "`node --import` runs code"},
		{[]string{"lua5.4", "-l", "x", "run.sh"}, []string{"run.sh"}, "`lua5.4 -l` runs code"},
		{[]string{"php", "-B", "echo 1;"}, nil, "`php -B` runs code"},
		{[]string{"julia", "--print", "1"}, nil, "`julia --print` runs code"},
		{[]string{"pwsh", "-Com", "Get-Item"}, nil, "`pwsh -command` runs code"},
		{[]string{"pwsh", "-e", "ZQBjAGgAbwA="}, nil, "`pwsh -encodedcommand` runs code"},
		{[]string{"timeout", "9", "sh", "-c", "sh $X"}, nil, "expands a variable"},
		{[]string{"flock", "f", "-c", "sh $X"}, nil, "expands a variable"},
		{[]string{"env", "-S", "sh ${X}"}, nil, "expands a variable"},
		{[]string{"find", ".", "-exec", "sh", "{}", ";"}, nil, "`find -exec`"},
		// Options after an interpreter's script are the script's.
		{[]string{"python3", "run.sh", "-m", "5"}, []string{"run.sh"}, ""},
		{[]string{"python3", "-u", "-W", "ignore", "run.sh", "-c", "1"}, []string{"run.sh"}, ""},
		{[]string{"python3", "-", "-m"}, nil, ""},
		{[]string{"python3", "-W", "ignore", "-m", "json.tool"}, nil, "`python3 -m` runs code"},
		{[]string{"perl", "-w", "run.sh", "-e", "1"}, []string{"run.sh"}, ""},
		{[]string{"ruby", "run.sh", "-r", "x"}, []string{"run.sh"}, ""},
		{[]string{"node", "run.sh", "-e", "1"}, []string{"run.sh"}, ""},
		{[]string{"node", "--title", "t", "run.sh", "--import=x"}, []string{"run.sh"}, ""},
		{[]string{"php", "run.sh", "-r", "1"}, []string{"run.sh"}, ""},
		{[]string{"lua", "run.sh", "-e", "1"}, []string{"run.sh"}, ""},
		{[]string{"julia", "run.sh", "-e", "1"}, []string{"run.sh"}, ""},
		{[]string{"Rscript", "run.sh", "-e", "1"}, []string{"run.sh"}, ""},
		{[]string{"deno", "run", "run.sh", "eval"}, []string{"run.sh"}, ""},
		{[]string{"deno", "eval", "1"}, nil, "`deno eval` runs code"},
		// A wrapper's option value is no command: the one after it is.
		{[]string{"sudo", "-u", "python3", "python3", "-m", "json.tool"}, nil, "`python3 -m` runs code"},
		{[]string{"sudo", "-u", "sh", "sh", "-c", "sh $X"}, nil, "expands a variable"},
		{[]string{"nice", "-n", "5", "python3", "run.sh", "-m", "5"}, []string{"run.sh"}, ""},
		// Runners start the command their operands give.
		{[]string{"uv", "run", "python", "-m", "pkg.tool"}, []string{"pyproject.toml"}, "`python -m` runs code"},
		{[]string{"uv", "run", "--with", "pytest", "python3", "-m", "pkg.tool"}, []string{"pyproject.toml"}, "`python3 -m` runs code"},
		{[]string{"uv", "run", "--frozen", "python3", "run.sh", "-m", "5"}, []string{"pyproject.toml", "run.sh"}, ""},
		{[]string{"uv", "run", "-m", "pkg.tool", "python3", "run.sh", "-c", "1"}, []string{"pyproject.toml", "run.sh"}, "`uv run -m` runs code"},
		{[]string{"uv", "run", "--frozen", "pytest", "-m", "slow"}, []string{"pyproject.toml"}, ""},
		{[]string{"uv", "--directory", "lib", "run", "sh", "x.sh"}, []string{"lib/x.sh", "pyproject.toml"}, ""},
		{[]string{"uv", "run", "sh", "-c", "sh $X"}, []string{"pyproject.toml"}, "expands a variable"},
		{[]string{"timeout", "9", "uv", "run", "python", "-m", "x"}, []string{"pyproject.toml"}, "`python -m` runs code"},
		{sh("uv run python -m x"), []string{"pyproject.toml"}, "`python -m` runs code"},
		{[]string{"uv", "pip", "install", "python"}, []string{"pyproject.toml"}, ""},
		{[]string{"poetry", "run", "python", "-m", "x"}, []string{"pyproject.toml"}, "`python -m` runs code"},
		{[]string{"poetry", "-C", "lib", "run", "sh", "x.sh"}, []string{"lib/x.sh", "pyproject.toml"}, ""},
		{[]string{"pipenv", "run", "python", "-m", "x"}, nil, "`python -m` runs code"},
		{[]string{"pdm", "run", "-p", ".", "python", "-m", "x"}, []string{"pyproject.toml"}, "`python -m` runs code"},
		{[]string{"hatch", "run", "test:python", "-m", "x"}, []string{"pyproject.toml"}, "`python -m` runs code"},
		{[]string{"rye", "run", "python", "-m", "x"}, []string{"pyproject.toml"}, "`python -m` runs code"},
		{[]string{"conda", "run", "-n", "python3", "python3", "-m", "x"}, nil, "`python3 -m` runs code"},
		{[]string{"micromamba", "run", "--cwd", "lib", "sh", "x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"npx", "node", "-e", "1"}, nil, "`node -e` runs code"},
		{[]string{"npx", "-p", "x", "-c", "sh $X"}, nil, "expands a variable"},
		{[]string{"npm", "exec", "--call", "sh $X"}, nil, "expands a variable"},
		{[]string{"bunx", "python3", "-m", "x"}, nil, "`python3 -m` runs code"},
		{[]string{"pnpm", "exec", "python3", "-m", "x"}, nil, "`python3 -m` runs code"},
		{[]string{"pnpm", "dlx", "-c", "sh $X"}, nil, "expands a variable"},
		{[]string{"yarn", "exec", "python3", "-m", "x"}, nil, "`python3 -m` runs code"},
		{[]string{"yarn", "dlx", "-p", "x", "node", "-e", "1"}, nil, "`node -e` runs code"},
		{[]string{"bundle", "exec", "ruby", "-rjson", "run.sh"}, []string{"Gemfile", "run.sh"}, "`ruby -r` runs code"},
		{[]string{"nix", "develop", "-c", "python3", "-m", "x"}, []string{"flake.lock", "flake.nix"}, "`python3 -m` runs code"},
		{[]string{"nix", "shell", "nixpkgs#python3", "--command", "sh", "run.sh"}, []string{"flake.lock", "flake.nix", "run.sh"}, ""},
		{[]string{"nix-shell", "--run", "sh $X"}, nil, "expands a variable"},
		{[]string{"direnv", "exec", "lib", "sh", "x.sh"}, []string{"lib/.envrc", "lib/x.sh"}, ""},
		{[]string{"direnv", "exec", "lib", "python3", "-m", "x"}, []string{"lib/.envrc"}, "`python3 -m` runs code"},
		// Files a program reads by itself are bound as named ones are.
		{[]string{"make", "test"}, []string{"Makefile", "run.sh"}, ""}, // its recipe runs run.sh
		{[]string{"make", "-f", "lib/x.sh", "test"}, []string{"lib/x.sh"}, ""},
		{[]string{"just", "test"}, []string{"Justfile", "run.sh"}, ""},
		{[]string{"env", "-C", "lib", "just", "test"}, []string{"Justfile", "run.sh"}, ""},
		{[]string{"just", "--justfile", "lib/x.sh", "test"}, []string{"lib/x.sh"}, ""},
		{[]string{"uv", "run", "pytest"}, []string{"pyproject.toml"}, ""},
		{[]string{"npm", "--prefix", "web", "test"}, []string{"data.csv", "run.sh", "web/.npmrc", "web/package.json"}, ""},
		{[]string{"env", "-C", "web/src", "npm", "run", "test"}, []string{"data.csv", "run.sh", "web/.npmrc", "web/package.json"}, ""},
		{[]string{"pnpm", "-C", "web", "bench"}, []string{"web/.npmrc", "web/package.json"}, "`python3 -m` runs code"},
		{[]string{"yarn", "--cwd", "web", "run", "var"}, []string{"web/package.json"}, "expands a variable"},
		{[]string{"go", "test", "-bench", "."}, nil, ""},
		// A repository's config runs programs (core.fsmonitor on git status).
		// The config's fsmonitor = sh run.sh runs run.sh.
		{[]string{"git", "status"}, []string{".git/config", "run.sh"}, ""},
		{sh("git diff --stat | wc -l"), []string{".git/config", "run.sh"}, ""},
		// Behind what measures, traces or limits a command: its Makefile
		// (and run.sh, which a recipe of it runs: every recipe is read).
		{[]string{"prlimit", "--as=4000000000", "make", "bench"}, []string{"Makefile", "run.sh"}, ""},
		{[]string{"perf", "stat", "-x,", "make", "bench"}, []string{"Makefile", "run.sh"}, ""},
		{[]string{"strace", "-f", "-o", "/dev/null", "make", "bench"}, []string{"Makefile", "run.sh"}, ""},
		{[]string{"flock", "data.csv", "make", "bench"}, []string{"Makefile", "data.csv", "run.sh"}, ""},
		{[]string{"valgrind", "python3", "-m", "x"}, nil, "`python3 -m` runs code"},
		// hyperfine runs its operands and --prepare's (and the like)
		// through a shell: read as sh -c strings, once per parameter value.
		{[]string{"hyperfine", "--runs", "3", "make bench"}, []string{"Makefile", "run.sh"}, ""},
		{[]string{"timeout", "60", "hyperfine", "-w2", "make bench"}, []string{"Makefile", "run.sh"}, ""},
		{[]string{"hyperfine", "sh ru?.sh"}, nil, "`ru?.sh` is a glob"},
		{[]string{"hyperfine", "-N", `sh r""un.sh`}, []string{"run.sh"}, ""},
		{[]string{"hyperfine", "--prepare", "sh lib/x.sh", "true"}, []string{"lib/x.sh"}, ""},
		{[]string{"hyperfine", "-c", "sh lib/x.sh", "true"}, []string{"lib/x.sh"}, ""},
		{[]string{"hyperfine", "--setup=sh $X", "true"}, nil, "expands a variable"},
		{[]string{"hyperfine", "--export-json", "/dev/stdout", "python3 -m x"}, nil, "`python3 -m` runs code"},
		{[]string{"hyperfine", "-L", "s", "run.sh,lib/x.sh", "sh {s}"}, []string{"lib/x.sh", "run.sh"}, ""},
		{[]string{"hyperfine", "-P", "n", "1", "3", "sh run.sh {n}"}, []string{"run.sh"}, ""},
		{[]string{"hyperfine", "-P", "n", "1", "100000", "sh run.sh {n}"}, nil, "parameters make"},
		{[]string{"hyperfine", "-P", "n", "-9223372036854775808", "9223372036854775807", "sh {n}"}, nil, "parameters make"},
		{[]string{"hyperfine", "-P", "n", "0", "1", "-D", "0.5", "sh {n}"}, nil, "parameters make"},
		{[]string{"hyperfine", "--shell=python3", "import os"}, nil, "`hyperfine --shell python3` runs"},
		{[]string{"hyperfine", "-S", "bash --norc", "sh run.sh"}, []string{"run.sh"}, ""},
		// Programs that run another: read, or opaque; and after a program
		// zk does not know, the first that reads files on its own.
		{[]string{"watch", "-n", "1", "make", "bench"}, []string{"Makefile", "run.sh"}, ""},
		{[]string{"watch", "-gx", "make", "bench"}, []string{"Makefile", "run.sh"}, ""},
		{[]string{"watch", "--interval", "2", "sh r\\un.sh"}, []string{"run.sh"}, ""},
		{[]string{"entr", "-c", "make", "bench"}, []string{"Makefile", "run.sh"}, ""},
		{[]string{"entr", "-s", "sh $X"}, nil, "expands a variable"},
		{[]string{"script", "-qfc", "make bench", "/dev/null"}, []string{"Makefile", "run.sh"}, ""},
		{[]string{"script", "--command=sh lib/x.sh", "/dev/null"}, []string{"lib/x.sh"}, ""},
		{[]string{"retry", "-t", "3", "make", "bench"}, []string{"Makefile", "run.sh"}, ""},
		{[]string{"retry", "bash", "-lc", "sh lib/x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"parallel", "-j2", "sh {}", ":::", "run.sh"}, []string{"run.sh"}, "`parallel` makes the commands"},
		{[]string{"sem", "make", "bench"}, []string{"Makefile", "run.sh"}, "`sem` makes the commands"},
		{[]string{"tmux", "new-session", "-d", "make bench"}, nil, "`tmux` runs its commands"},
		{[]string{"sudo", "-u", "bob", "-i", "make", "bench"}, []string{"Makefile", "run.sh"}, "`sudo -i` runs"},
		{[]string{"sudo", "make", "-i", "bench"}, []string{"Makefile", "run.sh"}, ""},
		{[]string{"su", "-", "bob", "-c", "make bench"}, []string{"Makefile", "run.sh"}, "`su -l` runs"},
		// In a container, on another machine, in a cluster: what runs is
		// not the vault's files as zk reads them (run.sh is /w/run.sh).
		{[]string{"docker", "run", "--rm", "-v", ".:/w", "-w", "/w", "alpine", "sh", "/w/run.sh"}, nil, "`docker run` runs code in a container"},
		{[]string{"docker", "compose", "up"}, nil, "`docker compose` runs code in a container"},
		{[]string{"podman", "build", "."}, nil, "`podman build` runs code in a container"},
		{sh("docker-compose run app make bench"), []string{"Makefile", "run.sh"}, "`docker-compose` runs code in containers"},
		{[]string{"docker", "ps", "-a"}, nil, ""},
		{[]string{"docker", "--config", "lib", "ps"}, nil, "`docker` runs code in a container"},
		{[]string{"ssh", "host", "sh", "run.sh"}, []string{"run.sh"}, "`ssh` runs its command on another machine"},
		{[]string{"kubectl", "exec", "pod", "--", "sh", "run.sh"}, []string{"run.sh"}, "`kubectl exec` runs code in a cluster"},
		{[]string{"kubectl", "get", "pods"}, nil, ""},
		{[]string{"kubectl", "get", "pods", "--kubeconfig=data.csv"}, []string{"data.csv"}, "`kubectl get` runs code in a cluster"},
		{[]string{"env", "KUBECONFIG=data.csv", "kubectl", "get", "pods"}, []string{"data.csv"}, "`KUBECONFIG=data.csv` has the command run"},
		// systemd-run's service runs in / or the home folder, but for these.
		{[]string{"systemd-run", "--user", "--wait", "sh", "run.sh"}, []string{"run.sh"}, "`systemd-run` runs its command in / or the home folder"},
		{[]string{"systemd-run", "--user", "--scope", "-p", "MemoryMax=1G", "make", "bench"}, []string{"Makefile", "run.sh"}, ""},
		{[]string{"systemd-run", "-dqp", "CPUQuota=50%", "--unit", "x", "make", "bench"}, []string{"Makefile", "run.sh"}, ""},
		{[]string{"systemd-run", "--working-directory=lib", "sh", "x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"systemd-run", "-p", "WorkingDirectory=-" + dir + "/lib", "sh", "x.sh"}, []string{"lib/x.sh"}, ""},
		{[]string{"systemd-run", "-d", "-pExecStartPre=/bin/true", "make", "bench"}, []string{"/bin/true", "Makefile", "run.sh"}, "`systemd-run -p ExecStartPre` is a unit setting"},
		{[]string{"systemd-run", "--same-dir", "-E", "LD_PRELOAD=x.so", "true"}, nil, "`systemd-run -E LD_PRELOAD=x.so` changes where"},
		{[]string{"systemd-run", "--same-dir", "--mach", "box", "make", "bench"}, []string{"Makefile", "run.sh"}, "`systemd-run --mach` runs its command on another machine"},
		// just's imports and modules, its .env, and a file named by -f are
		// read as the justfile or Makefile found is.
		{[]string{"just", "-f", "j/justfile", "x"}, []string{"j/.env", "j/c.sh", "j/justfile", "j/lib/common.just", "j/tools/mod.just", "j/tools/t.sh", "j/w/JUSTFILE", "j/w/w.txt"}, ""},
		{[]string{"just", "--justfile", "k/justfile"}, []string{"k/.env.k", "k/justfile"}, "`PATH=./bin` in k/.env.k changes where commands are looked up"},
		{[]string{"make", "-f", "other.mk", "x"}, []string{"lib/x.sh", "other.mk"}, ""},
		// An env file node loads may have it run code (NODE_OPTIONS).
		{[]string{"node", "--env-file=n/.env", "run.sh"}, []string{"n/.env", "run.sh"}, "`NODE_OPTIONS=--require ./setup.js` in n/.env changes where"},
		{[]string{"node", "--env-file", "n/ok.env", "run.sh"}, []string{"lib/x.sh", "n/ok.env", "run.sh"}, ""},
		{[]string{"uv", "run", "--env-file", "n/.env", "sh", "run.sh"}, []string{"n/.env", "pyproject.toml", "run.sh"}, "`NODE_OPTIONS=--require ./setup.js` in n/.env changes where"},
		{[]string{"go", "build", "-ldflags=-extld=./run.sh", "./..."}, []string{"run.sh"}, ""},
		{[]string{"go", "test", "-overlay", "data.csv", "./..."}, []string{"data.csv"}, "`go test -overlay` builds code a file names"},
		{[]string{"go", "test", "--modfile=data.csv", "./..."}, []string{"data.csv"}, "`go test -modfile` builds code a file names"},
		// git's options naming what it runs, which no config file says.
		{[]string{"git", "-c", "core.hooksPath=h", "commit", "-m", "x"}, []string{".git/config", "h/pre-commit", "run.sh"}, ""},
		{[]string{"git", "-c", "include.path=../g.cfg", "-C", "other", "log"}, []string{".git/config", "g.cfg", "lib/x.sh", "other/.git/config", "other/fs.sh", "run.sh"}, ""},
		{[]string{"git", "--git-dir=other/.git", "status"}, []string{".git/config", "other/.git/config", "run.sh"}, ""},
		{[]string{"git", "--exec-path=lib", "status"}, []string{".git/config", "run.sh"}, "`--exec-path=lib` has git run its commands"},
		// make looks for an include in its -I folders too.
		{[]string{"make", "-C", "mkI", "-I", "inc", "x"}, []string{"Makefile", "mkI/Makefile", "mkI/inc/rules.mk", "run.sh"}, ""},
		// A workspace package's scripts, run in its folder.
		{[]string{"npm", "--prefix", "ws", "test", "-w", "a"}, []string{"ws/a/package.json", "ws/a/t.sh", "ws/package.json"}, ""},
		{[]string{"npm", "--prefix", "ws", "test", "--workspaces"}, []string{"ws/package.json"}, "`npm --workspaces` runs the scripts of every package"},
		{[]string{"pnpm", "-r", "test"}, nil, "`pnpm -r` runs the scripts"},
		// cargo --config FILE: its runner = binds what it names.
		{[]string{"cargo", "--config", "cargo.toml.x", "build"}, []string{"cargo.toml.x", "lib/x.sh"}, ""},
		// Scripts that run each other are read once each, not 12^8 times.
		{[]string{"npm", "--prefix", "fan", "run", "a"}, []string{"fan/package.json"}, ""},
	} {
		s, err := Inspect(dir, tc.argv)
		if err != nil {
			t.Fatal(err)
		}
		names := fileNames(s)
		cmd := strings.Join(tc.argv, " ")
		if len(cmd) > 80 {
			cmd = cmd[:80] + "..."
		}
		if !slices.Equal(names, tc.files) {
			t.Errorf("%s: files %v, want %v", cmd, names, tc.files)
		}
		checkOpaque(t, cmd, s, tc.opaque)
	}
	s, _ := Inspect(dir, []string{"sh", "link.sh"})
	if len(s.Files) != 1 || s.Files[0].Target != outside {
		t.Errorf("link.sh: %+v, want its target %s", s.Files, outside)
	}
	a, _ := Inspect(dir, []string{"sh", "link.sh"})
	os.WriteFile(outside, []byte("y"), 0o644)
	if b, _ := Inspect(dir, []string{"sh", "link.sh"}); a.Files[0].Sum == b.Files[0].Sum {
		t.Error("the hash did not follow the symlink's target")
	}
}

// An approval made before zk could tell a command is opaque does not cover
// it: the user must approve it as such.
func TestCheckOpaque(t *testing.T) {
	s := Open(filepath.Join(t.TempDir(), "trust.json"))
	a := Approval{Vault: "/v", Note: "n.md", Command: "sh -c 'sh $X'"}
	if err := s.Approve(a); err != nil {
		t.Fatal(err)
	}
	a.Opaque = true
	if v, _ := s.Check(a); v.Approved || !v.Opaque {
		t.Errorf("an approval not made as opaque: %+v", v)
	}
	if err := s.Approve(a); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Check(a); !v.Approved {
		t.Errorf("approved as opaque: %+v", v)
	}
}

// A Memo reads a file once however many commands name it, and gives each
// the hash of the bytes it read then; an edit after is seen by Inspect and
// a new Memo, not by the Memo that read the file before it.
func TestMemo(t *testing.T) {
	const size = 1 << 20
	dir := vaulttest.Dir(t, map[string]string{"b.bin": strings.Repeat("x", size), "run.sh": "echo 1\n"})
	m := NewMemo()
	commands := [][]string{{"cat", "b.bin"}, {"sh", "-c", "cat b.bin"}, {"env", "-C", ".", "cat", "b.bin"}, {"cat", "./b.bin", "run.sh"}}
	before := vaulttest.BytesRead(t)
	var first string
	for range 10 {
		for _, argv := range commands {
			s, err := m.Inspect(dir, argv)
			if err != nil {
				t.Fatal(err)
			}
			if first == "" {
				first = s.Files[0].Sum
			}
			if s.Files[0].Name != "b.bin" || s.Files[0].Sum != first {
				t.Fatalf("%s: %+v, want b.bin as first read", strings.Join(argv, " "), s.Files)
			}
		}
	}
	if read := vaulttest.BytesRead(t) - before; read > 2*size {
		t.Errorf("40 commands naming a %d-byte file read %d bytes, want it read once", size, read)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.bin"), []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, _ := m.Inspect(dir, []string{"cat", "b.bin"}); s.Files[0].Sum != first {
		t.Errorf("the memo read b.bin again: %s, want %s", s.Files[0].Sum, first)
	}
	for name, inspect := range map[string]func(string, []string) (Scope, error){"Inspect": Inspect, "a new Memo": NewMemo().Inspect} {
		if s, _ := inspect(dir, []string{"cat", "b.bin"}); s.Files[0].Sum == first {
			t.Errorf("%s: the edit to b.bin not seen", name)
		}
	}
}

// TestHyperfineBounded: a command of many placeholders, each given a long
// value, is not built: its size would be their product.
func TestHyperfineBounded(t *testing.T) {
	c := strings.Repeat("{n}", 100_000)
	if _, ok := substitute(c, map[string][]string{"n": {strings.Repeat("x", 1000)}}); ok {
		t.Error("100,000 placeholders of 1,000 bytes were substituted")
	}
	runs, ok := substitute("sh {a} {b}", map[string][]string{"a": {"1", "2"}, "b": {"x", "y"}, "c": nil})
	if !ok || !slices.Equal(runs, []string{"sh 1 x", "sh 1 y", "sh 2 x", "sh 2 y"}) {
		t.Errorf("runs %q, %v", runs, ok)
	}
}

// Each reason a command is opaque is kept once, at the cost of a look-up:
// a script of distinct variables or a tree of symlinks out gives one a
// word or a file. A linear scan of those kept made this quadratic: 40,000
// reasons took 5 s, and the million here would run past go test's
// ten-minute timeout; kept in a set, they take a fraction of a second.
func TestOpaqueReasonsLinear(t *testing.T) {
	const n = 1_000_000
	in := &inspector{}
	for i := range n + 1000 {
		in.opaque("`$a%d` expands a variable", i%n)
	}
	if len(in.scope.Opaque) != n || in.scope.Opaque[n-1] != fmt.Sprintf("`$a%d` expands a variable", n-1) {
		t.Fatalf("%d reasons kept, the last %q; want %d, each once, in order", len(in.scope.Opaque), in.scope.Opaque[len(in.scope.Opaque)-1], n)
	}
}

// fileNames are the names of the files s binds, in its order.
func fileNames(s Scope) []string {
	var names []string
	for _, f := range s.Files {
		names = append(names, f.Name)
	}
	return names
}

// checkOpaque fails t unless s is opaque as want says: not at all for
// "", else first for a reason holding want.
func checkOpaque(t *testing.T, cmd string, s Scope, want string) {
	t.Helper()
	switch {
	case want == "" && len(s.Opaque) > 0:
		t.Errorf("%s: opaque %q, want none", cmd, s.Opaque)
	case want != "" && (len(s.Opaque) == 0 || !strings.Contains(s.Opaque[0], want)):
		t.Errorf("%s: opaque %q, want %q", cmd, s.Opaque, want)
	}
}
