package trust

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestInspectOutputs(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"run.sh": "echo 1\n", "out.txt": "x\n", "bench.json": "{}\n", "Makefile": "bench:\n\techo 1\n",
		"web/package.json": `{"scripts":{"test":"jest"}}`, "web/a.js": "", "go.mod": "module m\n", "p/p.go": "package p\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("run.sh", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		argv  []string
		files []string
		err   string
	}{
		{[]string{"tee", "-a", "out.txt"}, nil, ""},
		{[]string{"sh", "-c", "make bench | tee out.txt new.txt"}, []string{"Makefile"}, ""},
		{[]string{"hyperfine", "--export-json", "bench.json", "--export-csv=b.csv", "make bench"}, []string{"Makefile"}, ""},
		{[]string{"hyperfine", "--output", "null", "sh run.sh"}, []string{"run.sh"}, ""},
		{[]string{"go", "test", "-coverprofile", "out.txt", "--cpuprofile=bench.json", "./p"}, nil, ""},
		{[]string{"script", "-qc", "make bench", "out.txt"}, []string{"Makefile"}, ""},
		{[]string{"strace", "-fo", "out.txt", "make", "bench"}, []string{"Makefile"}, ""},
		{[]string{"curl", "-sSo", "out.txt", "https://example.com"}, nil, ""},
		// Writes what it runs or reads: refused.
		{[]string{"hyperfine", "--export-json", "run.sh", "sh run.sh"}, nil, "writes run.sh (hyperfine --export-json)"},
		{[]string{"sh", "-c", "sh run.sh | tee ./run.sh"}, nil, "writes run.sh (tee)"},
		{[]string{"sh", "-c", "sh run.sh | tee link"}, nil, "writes run.sh (tee)"},
		{[]string{"sh", "-c", "make bench | tee Makefile"}, nil, "writes Makefile (tee)"},
		{[]string{"env", "-C", "web", "npx", "jest", "--outputFile", "new.js"}, nil, "writes web/new.js (jest --outputFile)"},
		{[]string{"env", "-C", "web", "npx", "jest", "--outputFile=a.js"}, nil, "writes web/a.js (jest --outputFile)"},
		{[]string{"go", "test", "-o", "p/x.go", "./p"}, nil, "writes p/x.go (go --o)"},
		// Where the tree keeps nothing of that kind, or does not walk.
		{[]string{"env", "-C", "web", "npx", "jest", "--outputFile=out.txt"}, []string{"web/package.json"}, ""},
		{[]string{"npx", "jest", "--outputFile=out.txt"}, nil, ""},
		{[]string{"go", "test", "-coverprofile", "p/c.out", "./p"}, nil, ""},
	} {
		s, err := Inspect(dir, tc.argv)
		cmd := strings.Join(tc.argv, " ")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", cmd, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", cmd, err)
			continue
		}
		names := fileNames(s)
		if !slices.Equal(names, tc.files) {
			t.Errorf("%s: files %v, want %v", cmd, names, tc.files)
		}
	}
}
