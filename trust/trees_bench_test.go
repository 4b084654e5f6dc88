package trust

import (
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkInspectTree hashes the tree this repository's own packages are,
// as an approval of go test does and each run checks it again: the bytes
// and files reported are the tree's.
func BenchmarkInspectTree(b *testing.B) {
	root, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	for _, pattern := range []string{"./vault/...", "./..."} {
		b.Run(strings.NewReplacer("./", "", "...", "all").Replace(pattern), func(b *testing.B) {
			var tree Tree
			for b.Loop() {
				s, err := Inspect(root, []string{"go", "test", pattern})
				if err != nil || len(s.Trees) != 1 {
					b.Fatal(err, s.Trees)
				}
				tree = s.Trees[0]
			}
			b.SetBytes(tree.Bytes)
			b.ReportMetric(float64(tree.Files), "files")
		})
	}
}
