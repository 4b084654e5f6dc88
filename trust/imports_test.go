package trust

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault/vaulttest"
)

// TestScriptLoads: the files a script loads by its own lines are bound,
// those of a search path zk does not bind are not, and a line naming its
// file by what zk cannot tell is opaque.
func TestScriptLoads(t *testing.T) {
	dir := vaulttest.Dir(t, map[string]string{
		"a.pl": "use strict; require 5.010;\nrequire Foo::Bar;\ndo { 1 } while 0;\nmy $x = 1; require './b.pl';\n# require './c.pl';\n",
		"b.pl": "do \"./d.pl\";\n", "c.pl": "", "d.pl": "",
		"inc.pl": "use lib '.';\n", "var.pl": "require $file;\n",
		"r/a.rb": "require 'json'\nrequire_relative 'b'\nload './r/c.rb'\n", "r/b.rb": "require_relative('sub/d')\n",
		"r/c.rb": "", "r/sub/d.rb": "", "r/var.rb": "require File.join(__dir__, 'b')\n", "r/interp.rb": "require_relative \"#{x}\"\n",
		"a.R": "x <- source(\"b.R\")\nsys.source(file = 'c.R')\n", "b.R": "", "c.R": "", "var.R": "source(f)\n",
		"inc2.pl": "BEGIN { unshift @INC, './lib' }\nrequire Foo;\n", "lp.rb": "$LOAD_PATH.unshift File.expand_path('../lib', __dir__)\nrequire 'foo'\n",
		"lp2.rb": "$: << 'lib'\n", "lib.R": ".libPaths(c('lib', .libPaths()))\nlibrary(foo)\n",
		"a.sh": "if [ -f x ]; then . ./b.sh; fi\nsource 'c sh'\n", "b.sh": ". ./a.sh\n", "c sh": "", "var.sh": ". \"$D/b.sh\"\n",
		// A library beside the script, found from its own name.
		"s/t.sh":   ". \"$(dirname \"$0\")/lib.sh\"\nsource \"${0%/*}/lib2.sh\"\n. \"$(dirname -- \"${BASH_SOURCE[0]}\")\"/lib3.sh\n",
		"s/lib.sh": "", "s/lib2.sh": "", "s/lib3.sh": ". \"$(dirname \"${BASH_SOURCE[0]}\")/sub/lib4.sh\"\n. `dirname $0`/'lib5.sh'\n",
		"s/sub/lib4.sh": "", "s/lib5.sh": "",
		"s/arg.sh": ". \"$(dirname \"$1\")/lib.sh\"\n", "s/tail.sh": ". \"$(dirname \"$0\")/$X.sh\"\n",
		"s/pipe.sh": ". \"$(dirname \"$0\" | tr a b)/lib.sh\"\n", "s/glob.sh": ". $(dirname $0)/*.sh\n",
	})
	for _, tc := range []struct {
		argv   []string
		files  []string
		opaque string
	}{
		{[]string{"perl", "a.pl"}, []string{"a.pl", "b.pl", "d.pl"}, ""},
		{[]string{"perl", "inc.pl"}, []string{"inc.pl"}, "adds folders to perl's search path"},
		{[]string{"perl", "inc2.pl"}, []string{"inc2.pl"}, "adds folders to perl's @INC"},
		{[]string{"ruby", "lp.rb"}, []string{"lp.rb"}, "adds folders to ruby's $LOAD_PATH"},
		{[]string{"ruby", "lp2.rb"}, []string{"lp2.rb"}, "adds folders to ruby's $LOAD_PATH"},
		{[]string{"Rscript", "lib.R"}, []string{"lib.R"}, "adds folders to R's library paths"},
		{[]string{"perl", "var.pl"}, []string{"var.pl"}, "`require $file;` in var.pl names a file zk cannot tell"},
		{[]string{"ruby", "r/a.rb"}, []string{"r/a.rb", "r/b.rb", "r/c.rb", "r/sub/d.rb"}, ""},
		{[]string{"ruby", "r/var.rb"}, []string{"r/var.rb"}, "names a file zk cannot tell"},
		{[]string{"ruby", "r/interp.rb"}, []string{"r/interp.rb"}, "names a file zk cannot tell"},
		{[]string{"Rscript", "a.R"}, []string{"a.R", "b.R", "c.R"}, ""},
		{[]string{"Rscript", "var.R"}, []string{"var.R"}, "names a file zk cannot tell"},
		{[]string{"bash", "a.sh"}, []string{"a.sh", "b.sh", "c sh"}, ""},
		{[]string{"sh", "var.sh"}, []string{"var.sh"}, "names a file zk cannot tell"},
		{[]string{"bash", "s/t.sh"}, []string{"s/lib.sh", "s/lib2.sh", "s/lib3.sh", "s/lib5.sh", "s/sub/lib4.sh", "s/t.sh"}, ""},
		// $0 is t.sh, with no slash: ${0%/*} leaves it whole, and the shell
		// sources t.sh/lib2.sh, which cannot be while t.sh is a file.
		{[]string{"env", "-C", "s", "bash", "t.sh"}, []string{"s/lib.sh", "s/lib3.sh", "s/lib5.sh", "s/sub/lib4.sh", "s/t.sh"}, ""},
		// mksh has no BASH_SOURCE: what it names is no file zk can tell.
		{[]string{"mksh", "s/t.sh"}, []string{"s/lib.sh", "s/lib2.sh", "s/t.sh"}, "names a file zk cannot tell"},
		{[]string{"sh", "s/arg.sh"}, []string{"s/arg.sh"}, "names a file zk cannot tell"},
		{[]string{"sh", "s/tail.sh"}, []string{"s/tail.sh"}, "names a file zk cannot tell"},
		{[]string{"sh", "s/pipe.sh"}, []string{"s/pipe.sh"}, "names a file zk cannot tell"},
		{[]string{"sh", "s/glob.sh"}, []string{"s/glob.sh"}, "names a file zk cannot tell"},
		// Inline code is opaque already; its operand is no script.
		{[]string{"perl", "-e", "1", "a.pl"}, []string{"a.pl"}, "runs code zk does not read"},
	} {
		s, err := Inspect(dir, tc.argv)
		if err != nil {
			t.Fatal(err)
		}
		names := fileNames(s)
		cmd := strings.Join(tc.argv, " ")
		if !slices.Equal(names, tc.files) {
			t.Errorf("%s: files %q, want %q", cmd, names, tc.files)
		}
		checkOpaque(t, cmd, s, tc.opaque)
	}
}

// TestScriptTrees: python binds the script's real folder, node its
// package, each as a tree; a script outside the vault binds none.
func TestScriptTrees(t *testing.T) {
	dir := vaulttest.Dir(t, map[string]string{
		"b/bench.py": "import lib\n", "b/lib.py": "", "b/json.py": "",
		"w/package.json": "{}", "w/src/t.js": "require('../lib')\n", "w/lib.js": "",
	})
	for _, tc := range []struct {
		argv []string
		tree string
	}{
		{[]string{"python3", "b/bench.py"}, "the Python code in b"},
		{[]string{"python3", "-X", "dev", "b/bench.py"}, "the Python code in b"},
		{[]string{"node", "w/src/t.js"}, "the JavaScript code in w"},
		{[]string{"python3", "/nonexistent/x.py"}, ""},
	} {
		s, err := Inspect(dir, tc.argv)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tr := range s.Trees {
			names = append(names, tr.Name)
		}
		want := []string{tc.tree}
		if tc.tree == "" {
			want = nil
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s: trees %q, want %q", strings.Join(tc.argv, " "), names, want)
		}
	}
}

// FuzzLoadLines: a line of any bytes is read without a panic, and a
// literal read from it holds no quote and nothing that interpolates.
func FuzzLoadLines(f *testing.F) {
	for _, s := range []string{`require './x.pl';`, `require_relative "#{x}"`, `x <- source(file = 'a.R')`, `do {`, `'`, `"a\"b"`, `require 5.010;`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		for _, k := range []*loader{&perlLoader, &rubyLoader, &rLoader} {
			for _, m := range k.line().FindAllStringSubmatch(line, -1) {
				v, ok := stringLiteral(m[2])
				if ok && (strings.ContainsAny(v, m[2][:1]+`\`) || m[2][0] == '"' && strings.ContainsAny(v, "$@#{")) {
					t.Fatalf("%q: literal %q interpolates or holds its quote", line, v)
				}
				k.resolve(m[1], v)
			}
		}
	})
}

// TestShebangLine: the command a #! line starts, the interpreter by its
// name, env -S's string split; none for a file that is not executable or
// has no #! line.
func TestShebangLine(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		src  string
		mode os.FileMode
		want []string
	}{
		{"#!/usr/bin/env python3\nimport lib\n", 0o755, []string{"env", "python3"}},
		{"#!/usr/bin/env -S FOO=1 node --x\n", 0o755, []string{"env", "FOO=1", "node", "--x"}},
		{"#!/usr/bin/env -Spython3 -m evil\n", 0o755, []string{"env", "python3", "-m", "evil"}},
		{"#! /bin/sh -e\n", 0o755, []string{"sh", "-e"}},
		{"#!/bin/bash", 0o755, []string{"bash"}},
		{"#!/usr/bin/env python3\n", 0o644, nil},
		{"import lib\n", 0o755, nil},
		{"#!\n", 0o755, nil},
		{"#!/usr/bin/env\n", 0o755, []string{"env"}},
	} {
		p := filepath.Join(dir, "x")
		if err := os.WriteFile(p, []byte(tc.src), tc.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, tc.mode); err != nil {
			t.Fatal(err)
		}
		if got := shebangLine(p); !slices.Equal(got, tc.want) {
			t.Errorf("%q (%o): %q, want %q", tc.src, tc.mode, got, tc.want)
		}
	}
}
