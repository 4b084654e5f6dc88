package trust

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/zk-claims/zk/internal/lazyre"
)

// cgo compiles C that a package's folder need not hold: a quoted
// #include "../../x.h" in the preamble or in a .c file is read from the
// including file's folder, wherever that leads; a #cgo CFLAGS: -I../inc
// or LDFLAGS: -L../lib (${SRCDIR} the package's folder) adds a folder
// whose headers or libraries are compiled in, and -include FILE or a
// bare ../lib/x.a names a file. Before, only the package's own folder was
// bound: ../../x.h, edited after approval, was compiled into the test
// and ran unasked. Now an included file is bound (and its own includes,
// transitively), a folder the flags name is bound whole when it is in
// the module, and opaque when not, there or not yet (a system folder
// would be over the bounds, and is not the vault's).

// cInclude finds a quoted #include, in C or in a cgo preamble's comment.
var cInclude = lazyre.New(`(?m)^[ \t]*(?://[ \t]*|/?\*[ \t]*)?#[ \t]*include[ \t]*"([^"\n]+)"`)

// cgoDirective finds a #cgo line's flags: the variable, and its words.
var cgoDirective = lazyre.New(`(?m)^[ \t]*(?://[ \t]*)?#cgo[ \t]+(?:[^:\n]*[ \t])?([A-Z]+FLAGS):(.*)$`)

// cIncludes binds the files the quoted includes of src, a file in dir,
// name, and theirs in turn.
func (b *treeBuilder) cIncludes(dir string, src []byte) {
	for _, m := range cInclude().FindAllSubmatch(src, -1) {
		name := string(m[1])
		if strings.ContainsRune(name, 0) {
			continue
		}
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		b.addC(p)
	}
}

// addC binds the C file at p, if there is one, and what it includes.
func (b *treeBuilder) addC(p string) {
	if b.err != nil || b.seen[p] {
		return
	}
	st, err := os.Lstat(p)
	if err != nil {
		return
	}
	if err := b.add(p, fs.FileInfoToDirEntry(st), func(src []byte) { b.cIncludes(filepath.Dir(p), src) }); err != nil && b.err == nil {
		b.err = err
	}
}

// cgoFlags binds the folders and files the #cgo lines of the Go file at
// p, in the package folder dir of the module at root, name.
func (b *treeBuilder) cgoFlags(dir, p, root string, src []byte) {
	for _, m := range cgoDirective().FindAllSubmatch(src, -1) {
		words := strings.Fields(strings.ReplaceAll(string(m[2]), "${SRCDIR}", dir))
		for j := 0; j < len(words); j++ {
			w, folder := words[j], false
			for _, o := range []string{"-I", "-L", "-iquote", "-isystem", "-idirafter", "-include", "-imacros", "-F"} {
				if v, ok := strings.CutPrefix(w, o); ok {
					if v == "" && j+1 < len(words) {
						j++
						v = words[j]
					}
					w, folder = v, o != "-include" && o != "-imacros"
					break
				}
			}
			if w == "" || strings.HasPrefix(w, "-") || strings.ContainsRune(w, 0) {
				continue
			}
			q := w
			if !filepath.IsAbs(q) {
				q = filepath.Join(dir, q)
			}
			st, err := os.Stat(q)
			switch {
			case !folder:
				b.addC(q)
			case within(q, root):
				// One not there is bound by its absence: its files,
				// appearing, are a change of the manifest.
				if err == nil && st.IsDir() {
					if err := b.walk(q, everything); err != nil && b.err == nil {
						b.err = err
					}
				}
			default:
				b.opaque = append(b.opaque, fmt.Sprintf("`#cgo %s: %s` in %s names a folder outside the module in %s, whose files are not bound",
					m[1], strings.TrimSpace(string(m[2])), b.in.display(p, b.in.realDir), b.in.display(root, b.in.realDir)))
			}
		}
	}
}
