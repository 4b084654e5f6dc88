package trust

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault/vaulttest"
)

// treeVault is a vault holding a Go module, a Rust crate, a Python
// project and a JavaScript package, with what each tool runs and what it
// does not.
func treeVault(t *testing.T) string {
	t.Helper()
	return vaulttest.Dir(t, map[string]string{
		"note.md": "# n\n",
		"go.mod":  "module example.com/m // the module\n\ngo 1.22\n", "go.sum": "",
		"a/a.go":      "package a\n\nimport (\n\t\"fmt\"\n\t\"example.com/m/b\"\n)\n\nvar _ = fmt.Sprint(b.B)\n",
		"a/a_test.go": "package a\n", "a/testdata/x.txt": "x\n", "a/embed/t.tmpl": "t\n", "a/e.go": "package a\n\n//go:embed embed\nvar fs embed.FS\n",
		"a/notes.md": "not code\n", "a/other/data.txt": "not embedded\n",
		"b/b.go": "package b\n\nconst B = 1\n", "b/b_test.go": "package b\n\nimport _ \"example.com/m/c\"\n", "b/testdata/y.txt": "y\n",
		"c/c.go": "package c\n", "_skip/x.go": "package x\n", ".hidden/x.go": "package x\n",
		"nested/go.mod": "module example.com/n\n", "nested/n.go": "package n\n",
		"rust/Cargo.toml": "[package]\nname = \"r\"\n", "rust/Cargo.lock": "", "rust/build.rs": "fn main() {}\n",
		"rust/src/lib.rs": "", "rust/tests/t.rs": "", "rust/README.md": "", "rust/target/debug/x": "",
		"py/pyproject.toml": "[project]\n", "py/conftest.py": "", "py/tests/test_x.py": "", "py/pkg/m.py": "",
		"py/data.csv": "", "py/.venv/pyvenv.cfg": "", "py/.venv/lib/x.py": "", "py/env/pyvenv.cfg": "", "py/env/y.py": "",
		"py/pkg/__pycache__/m.cpython-312.pyc": "",
		"web/package.json":                     `{"scripts": {"test": "jest"}}`, "web/src/a.js": "", "web/test/t.test.js": "",
		"web/README.md": "", "web/node_modules/x/index.js": "", "web/.jest/setup.js": "", "web/.config/vitest.config.ts": "",
		"web/.git/hooks.js": "", "web/.next/server.js": "",
		"mk/Makefile": "include rules.mk\ntest:\n\t@sh scripts/test.sh $(ARGS)\n\t$(CC) -o x x.c\n", "mk/rules.mk": "",
		"mk/scripts/test.sh": "echo\n", "mk/x.c": "",
		// cgo compiles C from outside the package's folder.
		"cg/go.mod": "module example.com/cg\n",
		"cg/p/p.go": "package p\n\n// #cgo CFLAGS: -I${SRCDIR}/../inc\n// #cgo LDFLAGS: ../lib/libx.a\n// #include \"../shared/x.h\"\nimport \"C\"\n",
		"cg/p/q.c":  "#include \"../deep/y.h\"\n", "cg/shared/x.h": "#include \"../deep/z.h\"\n", "cg/deep/y.h": "", "cg/deep/z.h": "",
		"cg/inc/i.h": "", "cg/lib/libx.a": "", "cg/lib/other": "",
		"cg/o/o.go": "package o\n\n/*\n#cgo CPPFLAGS: -I ../../mk\n*/\nimport \"C\"\n",
	})
}

// A build or test tool's tree of code is bound: each tool's own files,
// none it does not run.
func TestInspectTrees(t *testing.T) {
	dir := treeVault(t)
	goMod := []string{"go.mod", "go.sum"}
	pkgA := []string{"a/a.go", "a/a_test.go", "a/e.go", "a/embed/t.tmpl", "a/testdata/x.txt"}
	pkgB := []string{"b/b.go", "b/b_test.go", "b/testdata/y.txt"}
	py := []string{"py/conftest.py", "py/pkg/m.py", "py/pyproject.toml", "py/tests/test_x.py"}
	cat := func(lists ...[]string) []string {
		out := slices.Concat(lists...)
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		argv   []string
		tree   string   // its name; "" for none
		files  []string // its files
		files2 []string // the named files (Scope.Files)
		opaque string
	}{
		// Named: tests and testdata; imported only (b): its code alone.
		{[]string{"go", "test", "./a"}, "the Go code of the module in .", cat(goMod, pkgA, []string{"b/b.go"}), nil, ""},
		{[]string{"go", "test", "-run", "X", "-count=1", "-v", "./a", "-args", "./c"}, "the Go code of the module in .", cat(goMod, pkgA, []string{"b/b.go"}), nil, ""},
		{[]string{"go", "test", "example.com/m/b"}, "the Go code of the module in .", cat(goMod, pkgB, []string{"c/c.go"}), nil, ""},
		// ./... enters no _, dot, testdata folder or other module.
		{[]string{"go", "test", "./..."}, "the Go code of the module in .", cat(goMod, pkgA, pkgB, []string{"c/c.go"}), nil, ""},
		{[]string{"go", "test"}, "the Go code of the module in .", goMod, nil, ""},
		{[]string{"go", "-C", "a", "test"}, "the Go code of the module in .", cat(goMod, pkgA, []string{"b/b.go"}), nil, ""},
		{[]string{"go", "run", "./c", "./a"}, "the Go code of the module in .", cat(goMod, []string{"c/c.go"}), nil, ""},
		{[]string{"sh", "-c", "go vet ./c && go test ./b"}, "the Go code of the module in .", cat(goMod, pkgB, []string{"c/c.go"}), nil, ""},
		{[]string{"go", "test", "-exec", "x", "./c"}, "the Go code of the module in .", cat(goMod, []string{"c/c.go"}), nil, "`go test -exec` runs a program"},
		{[]string{"go", "build", "./..."}, "", nil, nil, ""},
		{[]string{"go", "test", "../elsewhere/..."}, "the Go code of the module in .", goMod, nil, "outside the module"},
		// From the vault's folder and the one env -C runs it in.
		{[]string{"env", "-C", "nested", "go", "test", "."}, "the Go code of the module in nested", []string{"nested/go.mod", "nested/n.go"}, nil, ""},
		// Cargo: a crate's manifests, build.rs, src and tests; not target.
		{[]string{"cargo", "test", "--manifest-path", "rust/Cargo.toml"}, "the Rust code of the crates in rust",
			[]string{"rust/Cargo.lock", "rust/Cargo.toml", "rust/build.rs", "rust/src/lib.rs", "rust/tests/t.rs"}, []string{"rust/Cargo.toml"}, ""},
		{[]string{"env", "-C", "rust/src", "cargo", "test"}, "the Rust code of the crates in rust",
			[]string{"rust/Cargo.lock", "rust/Cargo.toml", "rust/build.rs", "rust/src/lib.rs", "rust/tests/t.rs"}, nil, ""},
		// pytest: from its configuration's folder, no virtual environment.
		{[]string{"env", "-C", "py/tests", "pytest"}, "the Python code in py", py, nil, ""},
		{[]string{"env", "-C", "py/tests", "sh", "-c", "sh ../../mk/scripts/test.sh"}, "", nil, []string{"mk/scripts/test.sh"}, ""},
		{[]string{"env", "-C", "py", "python3", "-m", "pytest", "tests"}, "the Python code in py", py, nil, ""},
		// uv run runs mytool from the project's .venv: installed code, opaque.
		{[]string{"env", "-C", "py", "uv", "run", "mytool"}, "the Python code in py", py, []string{"py/pyproject.toml"}, "py/.venv is a virtual environment"},
		{[]string{"env", "-C", "py", "python3", "-m", "json.tool"}, "", nil, nil, "`python3 -m` runs code"},
		// npm test: the package's code and configuration, not node_modules,
		// which is opaque: the vault ships the programs its scripts run.
		{[]string{"npm", "--prefix", "web", "test"}, "the JavaScript code in web", []string{"web/.config/vitest.config.ts", "web/.jest/setup.js", "web/package.json", "web/src/a.js", "web/test/t.test.js"}, []string{"web/package.json"}, "web/.next holds built or cached output"},
		{[]string{"env", "-C", "cg", "go", "test", "./p"}, "the Go code of the module in cg",
			[]string{"cg/deep/y.h", "cg/deep/z.h", "cg/go.mod", "cg/inc/i.h", "cg/lib/libx.a", "cg/p/p.go", "cg/p/q.c", "cg/shared/x.h"}, nil, ""},
		{[]string{"env", "-C", "cg", "go", "test", "./o"}, "the Go code of the module in cg", []string{"cg/go.mod", "cg/o/o.go"}, nil,
			"`#cgo CPPFLAGS: -I ../../mk` in cg/o/o.go names a folder outside the module in cg"},
		// make: the files its recipes and includes name.
		{[]string{"make", "-C", "mk", "test"}, "", nil, []string{"mk/Makefile", "mk/rules.mk", "mk/scripts/test.sh", "mk/x.c"}, ""},
	} {
		cmd := strings.Join(tc.argv, " ")
		s, err := Inspect(dir, tc.argv)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		names := fileNames(s)
		if !slices.Equal(names, tc.files2) {
			t.Errorf("%s: files %v, want %v", cmd, names, tc.files2)
		}
		switch {
		case tc.tree == "" && len(s.Trees) > 0:
			t.Errorf("%s: trees %q, want none", cmd, s.Trees[0].Name)
		case tc.tree != "":
			// Others may be found from the vault's folder too.
			k := slices.IndexFunc(s.Trees, func(tr Tree) bool { return tr.Name == tc.tree })
			if k < 0 {
				t.Errorf("%s: no tree %q in %d", cmd, tc.tree, len(s.Trees))
				break
			}
			var got []string
			for n := range manifestLines(s.Trees[k].Manifest) {
				got = append(got, n)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.files) || s.Trees[k].Files != len(tc.files) {
				t.Errorf("%s: tree files %v (%d), want %v", cmd, got, s.Trees[k].Files, tc.files)
			}
		}
		checkOpaque(t, cmd, s, tc.opaque)
	}
}

// A changed file of a tree voids its approval, and the check names it;
// the tree is bound whoever reads it, as its manifest's hash.
func TestTreeChange(t *testing.T) {
	dir := treeVault(t)
	s := Open(filepath.Join(t.TempDir(), "zk", "trust.json"))
	argv := []string{"go", "test", "./a"}
	approval := func() Approval {
		t.Helper()
		sc, err := Inspect(dir, argv)
		if err != nil {
			t.Fatal(err)
		}
		return sc.Bind(Approval{Vault: dir, Note: "note.md", Command: strings.Join(argv, " ")})
	}
	if err := s.Approve(approval()); err != nil {
		t.Fatal(err)
	}
	write := func(p, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		change  func()
		changed []string
	}{
		{"unchanged", func() {}, nil},
		{"an imported package's code", func() { write("b/b.go", "package b\n\nconst B = 2\n") }, []string{"b/b.go"}},
		{"a test added", func() { write("a/new_test.go", "package a\n") }, []string{"a/new_test.go"}},
		{"testdata removed", func() { os.Remove(filepath.Join(dir, "a/testdata/x.txt")) }, []string{"a/testdata/x.txt"}},
		{"go.sum", func() { write("go.sum", "x\n") }, []string{"go.sum"}},
		{"an import added brings its package", func() { write("a/a.go", "package a\n\nimport _ \"example.com/m/c\"\n") }, []string{"a/a.go", "b/b.go", "c/c.go"}},
	} {
		// Each starts from the approved tree.
		dir = treeVault(t)
		s = Open(filepath.Join(t.TempDir(), "zk", "trust.json"))
		if err := s.Approve(approval()); err != nil {
			t.Fatal(err)
		}
		tc.change()
		v, err := s.Check(approval())
		if err != nil {
			t.Fatal(err)
		}
		if v.Approved != (tc.changed == nil) || !slices.Equal(v.Changed, tc.changed) {
			t.Errorf("%s: %+v, want changed %v", tc.name, v, tc.changed)
		}
	}
	// With its manifest gone, or approved before trees were bound, the
	// tree itself is named.
	dir = treeVault(t)
	s = Open(filepath.Join(t.TempDir(), "zk", "trust.json"))
	a := approval()
	old := a
	old.Trees = nil
	if err := s.Approve(old); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Check(a); v.Approved || !slices.Equal(v.Changed, []string{"the Go code of the module in ."}) {
		t.Errorf("approved before trees were bound: %+v", v)
	}
	if err := s.Approve(a); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Check(a); !v.Approved {
		t.Errorf("approved again: %+v", v)
	}
	os.RemoveAll(s.manifests())
	write("c/c.go", "package c // changed\n")
	write("a/a.go", "package a\n\nimport _ \"example.com/m/c\"\n")
	if v, _ := s.Check(approval()); v.Approved || !slices.Equal(v.Changed, []string{"the Go code of the module in ."}) {
		t.Errorf("manifest gone: %+v", v)
	}
}

// Manifests no approval holds are removed when approvals are written.
func TestManifestsPruned(t *testing.T) {
	dir := treeVault(t)
	s := Open(filepath.Join(t.TempDir(), "zk", "trust.json"))
	argv := []string{"go", "test", "./c"}
	for i := range 3 {
		os.WriteFile(filepath.Join(dir, "c", "c.go"), []byte("package c\n"+strings.Repeat("\n", i)), 0o644)
		sc, err := Inspect(dir, argv)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Approve(sc.Bind(Approval{Vault: dir, Note: "note.md", Command: "go test ./c"})); err != nil {
			t.Fatal(err)
		}
	}
	if es, _ := os.ReadDir(s.manifests()); len(es) != 1 {
		t.Errorf("%d manifests kept, want the one approved", len(es))
	}
}

// A tree over its bounds is not approved, and the error says which; a
// symlink out of a tree is bound by its text, and opaque.
func TestTreeBounds(t *testing.T) {
	dir := treeVault(t)
	argv := []string{"go", "test", "./..."}
	for _, tc := range []struct {
		limits treeLimits
		want   string
	}{
		{treeLimits{files: 5, entries: 1000, bytes: 1 << 20}, "over 5 files"},
		{treeLimits{files: 1000, entries: 1000, bytes: 100}, "over 100 B"},
		{treeLimits{files: 1000, entries: 10, bytes: 1 << 20}, "over 10 files and folders to walk"},
	} {
		_, err := inspect(dir, argv, nil, tc.limits)
		if err == nil || !strings.Contains(err.Error(), "the Go code of the module in . holds "+tc.want) {
			t.Errorf("%+v: %v, want %q", tc.limits, err, tc.want)
		}
	}
	outside := filepath.Join(t.TempDir(), "x.go")
	os.WriteFile(outside, []byte("package c\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "c", "link.go")); err != nil {
		t.Fatal(err)
	}
	s, err := Inspect(dir, []string{"go", "test", "./c"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Opaque) != 1 || !strings.Contains(s.Opaque[0], "c/link.go leads out of the Go code of the module in .") {
		t.Errorf("a symlink out of the tree: opaque %q", s.Opaque)
	}
	if m := manifestLines(s.Trees[0].Manifest); m["c/link.go"] != "link:"+`"`+outside+`"` {
		t.Errorf("the symlink bound as %q", m["c/link.go"])
	}
}
