package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault/vaulttest"
)

// TestRecipesReadOnce: a makefile is read once however its include lines
// spell it, not once a spelling.
func TestRecipesReadOnce(t *testing.T) {
	const size, spellings = 1 << 20, 200
	var inc strings.Builder
	for i := 1; i <= spellings; i++ {
		inc.WriteString(" ." + strings.Repeat("/", i) + "Makefile")
	}
	dir := vaulttest.Dir(t, map[string]string{
		"Makefile": "include" + inc.String() + "\n# " + strings.Repeat("x", size) + "\n",
	})
	before := vaulttest.BytesRead(t)
	if _, err := Inspect(dir, []string{"make", "test"}); err != nil {
		t.Fatal(err)
	}
	if read := vaulttest.BytesRead(t) - before; read > 8*size {
		t.Errorf("a %d-byte Makefile including itself by %d spellings: read %d bytes, want it read a few times at most", size, spellings, read)
	}
}

// fuzzBounded fails t when a scope read from input of n bytes says more
// than n can: reasons or files beyond what the input's words could give.
func fuzzBounded(t *testing.T, s Scope, n int, files int) {
	t.Helper()
	total := 0
	for _, o := range s.Opaque {
		total += len(o)
	}
	if total > 400*(n+1) || len(s.Opaque) > n+4 {
		t.Fatalf("%d opaque reasons, %d bytes, from %d bytes of input", len(s.Opaque), total, n)
	}
	if len(s.Files) > files {
		t.Fatalf("%d files bound, the vault holds %d", len(s.Files), files)
	}
}

// FuzzRecipes: a Makefile or justfile of any bytes, and what it includes,
// are read without a panic, each once, into a bounded scope.
func FuzzRecipes(f *testing.F) {
	for _, s := range []string{
		"test:\n\tsh scripts/t.sh\n", "include x.mk\n-include ./x.mk .//x.mk\n", "X := $(shell sh gen.sh)\n",
		"set dotenv-load\nset dotenv-filename := 'x.env'\n", "import 'x.mk'\nmod m\nmod? n 'x.mk'\n",
		"test:\n\t`sh gen.sh` {{x}}\n", "include Makefile\n", "mod x x\nimport x\n",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src string) {
		for _, n := range []string{"Makefile", "justfile", "x.mk"} {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, argv := range [][]string{{"make", "-I", ".", "test"}, {"just", "test"}} {
			before := vaulttest.BytesRead(t)
			s, err := Inspect(dir, argv)
			if err != nil {
				continue // a file zk will not hash: said, not a panic
			}
			// Three files of len(src), each read once to hash and once
			// for its names, and the folder's listing.
			if read := vaulttest.BytesRead(t) - before; read > int64(8*len(src)+64<<10) {
				t.Fatalf("%s: read %d bytes of %d-byte files", strings.Join(argv, " "), read, len(src))
			}
			fuzzBounded(t, s, len(src), 3)
		}
	})
}

// FuzzCgo: a Go file of any bytes, its #cgo lines and its includes, is
// read without a panic into a bounded scope.
func FuzzCgo(f *testing.F) {
	for _, s := range []string{
		"package p\n// #cgo CFLAGS: -I../inc -include x.h\n// #include \"x.h\"\nimport \"C\"\n",
		"package p\n/*\n#cgo LDFLAGS: -L${SRCDIR}/lib ../lib/x.a\n#include \"../p/p.go\"\n*/\nimport \"C\"\n",
		"package p\n// #cgo linux CPPFLAGS: -I\nimport \"C\"\n", "package p\n//go:embed *\nvar x string\n",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	for n, c := range map[string]string{"go.mod": "module m\n", "inc/x.h": "#include \"x.h\"\n", "p/x.h": "", "lib/x.a": ""} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(n)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		if err := os.WriteFile(filepath.Join(dir, "p", "p.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Inspect(dir, []string{"go", "test", "./p"})
		if err != nil {
			return
		}
		fuzzBounded(t, s, len(src), 0)
		for _, tr := range s.Trees {
			if tr.Files > 5 {
				t.Fatalf("%s: %d files, the module holds 5", tr.Name, tr.Files)
			}
		}
	})
}
