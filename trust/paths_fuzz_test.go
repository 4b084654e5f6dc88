package trust

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzPyPath: any expression is read without a panic, in time linear in
// it, to a path no longer than it and the file's name allow.
func FuzzPyPath(f *testing.F) {
	for _, s := range []string{`os.path.join(os.path.dirname(__file__), "..", "lib")`, `str(Path(__file__).resolve().parent / 'x')`, `((((`, `Path(`, `"a`, `r'x'`, `os.getcwd()`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, e string) {
		v, ok := pyPath(e, "/v/f.py")
		if ok && len(v) > len(e)+len("/v/f.py")*len(e) {
			t.Fatalf("%q: path %q longer than it could be", e, v)
		}
		pyArgs(e)
		pyList(e)
	})
}

// FuzzShellSources: a shell script of any bytes is read for what it
// sources without a panic, each name no longer than the script and the
// script's own name allow, and no more names than it has commands.
func FuzzShellSources(f *testing.F) {
	for _, s := range []string{
		`. "$(dirname "$0")/lib.sh"`, `source "${0%/*}/lib.sh"`, `. "$(dirname -- "${BASH_SOURCE[0]}")"/x`,
		". `dirname $0`/'a b'", `. $(dirname $0)/*.sh`, `. "$(dirname "$1")/x"`, `source ${BASH_SOURCE%/*}/$x`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, lang := range []syntax.LangVariant{syntax.LangBash, syntax.LangMirBSDKorn, syntax.LangZsh} {
			in := &inspector{}
			az := argZero{zero: "scripts/t.sh", self: "scripts/lib/x.sh"}
			var names []string
			in.sources([]byte(src), lang, "t.sh", az, func(n string, _ bool) { names = append(names, n) })
			if len(names) > strings.Count(src, ".")+strings.Count(src, "source") {
				t.Fatalf("%q: %d names", src, len(names))
			}
			for _, n := range names {
				if len(n) > len(src)+len(az.self) {
					t.Fatalf("%q: name %q longer than it could be", src, n)
				}
			}
		}
	})
}
