package trust

import "testing"

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
