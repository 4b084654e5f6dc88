package trust

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault/vaulttest"
)

// TestTreeLoadsOutside: a folder a Python file adds to sys.path, and a
// file JavaScript requires above its package, are bound into the tree
// when zk can tell them; a sys.path it cannot tell, or code outside the
// vault, is opaque.
func TestTreeLoadsOutside(t *testing.T) {
	dir := vaulttest.Dir(t, map[string]string{
		"py/t.py":          "import sys, os\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'lib'))\nimport helper\n",
		"lib/helper.py":    "",
		"py2/t.py":         "import sys\nsys.path.append('shared')\n# sys.path.append(HERE)\n",
		"shared/x.py":      "",
		"py3/t.py":         "import sys\nsys.path.insert(0, HERE)\n",
		"py4/t.py":         "from pathlib import Path\nimport sys\nsys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'lib2'))\n",
		"lib2/y.py":        "import sys, site\nsite.addsitedir(\"lib3\")\n",
		"lib3/z.py":        "",
		"py5/t.py":         "import sys\nsys.path += ['x']\n",
		"py6/t.py":         "import sys\nsys.path.extend(['/nonexistent-zk-lib'])\n",
		"js/package.json":  "{}",
		"js/t.js":          "const x = require('../jslib/x')\nimport y from \"../jsdir\"\nrequire('./in')\n",
		"js/in.js":         "",
		"jslib/x.js":       "require('./z')\n",
		"jslib/z.ts":       "",
		"jsdir/index.js":   "",
		"js2/package.json": "{}",
		"js2/t.js":         "require('../../../../../../../../../../nonexistent-zk/x')\n",
	})
	for _, tc := range []struct {
		argv   []string
		files  []string // of the trees, besides the script's own folder
		opaque string
	}{
		{[]string{"python3", "py/t.py"}, []string{"lib/helper.py"}, ""},
		{[]string{"python3", "py2/t.py"}, []string{"shared/x.py"}, ""},
		{[]string{"python3", "py3/t.py"}, nil, "adds to sys.path a folder zk cannot tell"},
		// lib2's own sys.path is read as its files are: lib3, from the
		// folder the command runs in; ../lib3 from the vault's is out of it.
		{[]string{"python3", "py4/t.py"}, []string{"lib2/y.py", "lib3/z.py"}, ""},
		{[]string{"python3", "py5/t.py"}, nil, "changes sys.path as zk cannot tell"},
		{[]string{"python3", "py6/t.py"}, nil, "outside the vault"},
		{[]string{"node", "js/t.js"}, []string{"jsdir/index.js", "jslib/x.js", "jslib/z.ts"}, ""},
		{[]string{"node", "js2/t.js"}, nil, "outside the vault"},
	} {
		cmd := strings.Join(tc.argv, " ")
		s, err := Inspect(dir, tc.argv)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		var got []string
		for _, tr := range s.Trees {
			for line := range strings.Lines(string(tr.Manifest)) {
				_, name, _ := strings.Cut(strings.TrimSpace(line), " ")
				name = strings.Trim(name, `"`)
				if root := strings.TrimPrefix(strings.TrimPrefix(tr.Name, "the Python code in "), "the JavaScript code in "); !strings.HasPrefix(name, root+"/") {
					got = append(got, name)
				}
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.files) {
			t.Errorf("%s: files outside the script's tree %q, want %q", cmd, got, tc.files)
		}
		checkOpaque(t, cmd, s, tc.opaque)
	}
}

// TestMemoSysPathFolders: a relative sys.path entry is read from the
// folders a command runs in, so a Memo does not give one command the tree
// another, run elsewhere, was given.
func TestMemoSysPathFolders(t *testing.T) {
	dir := vaulttest.Dir(t, map[string]string{
		"py/t.py": "import sys\nsys.path.append('lib')\n", "lib/a.py": "", "sub/lib/b.py": "",
	})
	m := NewMemo()
	if _, err := m.Inspect(dir, []string{"python3", "py/t.py"}); err != nil {
		t.Fatal(err)
	}
	argv := []string{"env", "-C", "sub", "python3", "../py/t.py"}
	got, err := m.Inspect(dir, argv)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Inspect(dir, argv)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(got.Trees, want.Trees, func(a, b Tree) bool { return a.Sum == b.Sum }) || len(want.Trees) == 0 {
		t.Errorf("memo: trees %+v, want %+v", got.Trees, want.Trees)
	}
}

// TestShippedCode: a vault may ship code a tool runs that is not the
// project's own: a build's output a start script runs, a cache a tool
// replays, Yarn's installed packages, a Python environment's. zk does not
// bind it, so it says so.
func TestShippedCode(t *testing.T) {
	dir := vaulttest.Dir(t, map[string]string{
		"next/package.json":          `{"scripts": {"start": "next start"}}`,
		"next/.next/server/app.js":   "",
		"turbo/package.json":         `{"scripts": {"test": "turbo run test"}}`,
		"turbo/.turbo/cache/x.tar":   "",
		"pnp/package.json":           "{}",
		"pnp/.pnp.cjs":               "",
		"pnp/t.js":                   "",
		"pnp/.yarn/cache/x-1.0.zip":  "",
		"plain/package.json":         "{}",
		"plain/t.js":                 "",
		"plain/.yarn/releases/y.cjs": "",
		".venv/pyvenv.cfg":           "",
		".venv/bin/python":           "",
		"t.py":                       "",
		"env/conda-meta/history":     "",
		"env/bin/pytest":             "",
	})
	for _, tc := range []struct {
		argv   []string
		opaque string
	}{
		{[]string{"npm", "--prefix", "next", "start"}, "next/.next holds built or cached output"},
		{[]string{"npm", "--prefix", "turbo", "test"}, "turbo/.turbo holds built or cached output"},
		{[]string{"node", "pnp/t.js"}, "pnp/.yarn/cache holds installed code"},
		{[]string{"node", "plain/t.js"}, ""},
		{[]string{".venv/bin/python", "t.py"}, "a Python environment"},
		{[]string{"timeout", "9", "./.venv/bin/python", "t.py"}, "a Python environment"},
		{[]string{"python3", "t.py"}, ""},
		{[]string{"env/bin/pytest"}, "a Python environment"},
	} {
		cmd := strings.Join(tc.argv, " ")
		s, err := Inspect(dir, tc.argv)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		checkOpaque(t, cmd, s, tc.opaque)
	}
}

// TestScriptFolders: python3 DIR runs DIR/__main__.py, and node a script
// in a folder its package's walk skips requires what is beside it: both
// bound.
func TestScriptFolders(t *testing.T) {
	dir := vaulttest.Dir(t, map[string]string{
		"site-packages/__main__.py": "", "w/package.json": "{}", "w/.cache/x.js": "require('./y')\n", "w/.cache/y.js": "",
		"nm/package.json": "{}", "nm/node_modules/m/index.js": "",
	})
	for _, tc := range []struct {
		argv []string
		want string // a file one of the trees binds
	}{
		{[]string{"python3", "site-packages"}, "site-packages/__main__.py"},
		{[]string{"node", "w/.cache/x.js"}, "w/.cache/y.js"},
		{[]string{"node", "nm/node_modules/m"}, "nm/node_modules/m/index.js"},
	} {
		cmd := strings.Join(tc.argv, " ")
		s, err := Inspect(dir, tc.argv)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		found := false
		for _, tr := range s.Trees {
			found = found || strings.Contains(string(tr.Manifest), strconv.Quote(tc.want))
		}
		if !found {
			t.Errorf("%s: no tree binds %s (%d trees)", cmd, tc.want, len(s.Trees))
		}
	}
}

// TestCargoTargetDir: cargo --target-dir overrides the target folder zk
// runs cargo with, where a vault's stale binaries cannot be: opaque.
func TestCargoTargetDir(t *testing.T) {
	dir := vaulttest.Dir(t, map[string]string{"Cargo.toml": "[package]\nname = \"d\"\n", "src/lib.rs": ""})
	for _, tc := range []struct {
		argv   []string
		opaque string
	}{
		{[]string{"cargo", "test"}, ""},
		{[]string{"cargo", "test", "--target-dir", "target"}, "`cargo --target-dir target` runs what was built before"},
		{[]string{"cargo", "test", "--target-dir=/x"}, "`cargo --target-dir /x` runs what was built before"},
	} {
		cmd := strings.Join(tc.argv, " ")
		s, err := Inspect(dir, tc.argv)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		checkOpaque(t, cmd, s, tc.opaque)
	}
}

// TestUnboundTools: a build or test tool whose code zk cannot bind is
// opaque, behind a wrapper or a program zk does not know too; a
// JavaScript test runner run directly binds its package's tree.
func TestUnboundTools(t *testing.T) {
	dir := vaulttest.Dir(t, map[string]string{"pom.xml": "<project/>", "web/package.json": "{}", "web/t.test.js": ""})
	for _, tc := range []struct {
		argv   []string
		opaque string
		tree   string
	}{
		{[]string{"mvn", "-q", "test"}, "`mvn` runs pom.xml", ""},
		{[]string{"timeout", "600", "./gradlew", "test"}, "`gradlew` runs build.gradle", ""},
		{[]string{"retry", "3", "dotnet", "test"}, "`dotnet` runs the project's files", ""},
		{[]string{"tox", "-e", "py"}, "`tox` runs tox.ini's commands", ""},
		{[]string{"mvn", "--version"}, "", ""},
		{[]string{"env", "-C", "web", "jest"}, "", "the JavaScript code in web"},
	} {
		cmd := strings.Join(tc.argv, " ")
		s, err := Inspect(dir, tc.argv)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		checkOpaque(t, cmd, s, tc.opaque)
		if tc.tree != "" && !slices.ContainsFunc(s.Trees, func(tr Tree) bool { return tr.Name == tc.tree }) {
			t.Errorf("%s: trees %v, want %q", cmd, s.Trees, tc.tree)
		}
	}
}

// TestAddedFoldersBounded: a chain of folders, each adding the next to
// sys.path, is walked to a bound, then opaque, not nested without end.
func TestAddedFoldersBounded(t *testing.T) {
	files := map[string]string{"py/t.py": "import sys\nsys.path.append('d0')\n"}
	for i := range 256 + 10 {
		files[fmt.Sprintf("d%d/m.py", i)] = fmt.Sprintf("import sys\nsys.path.append('d%d')\n", i+1)
	}
	dir := vaulttest.Dir(t, files)
	s, err := Inspect(dir, []string{"python3", "py/t.py"})
	if err != nil {
		t.Fatal(err)
	}
	checkOpaque(t, "python3 py/t.py", s, "add over 256 folders")
}
