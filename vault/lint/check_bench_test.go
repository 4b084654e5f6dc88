package lint

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/zk-claims/zk/bench/vaultgen"
	"github.com/zk-claims/zk/vault"
)

// BenchmarkCheck checks a generated vault of 10k notes: the walk's files
// read, parsed and checked, as zk check does without its cache.
//
//	go test ./vault/lint -run '^$' -bench Check -benchtime 3x
func BenchmarkCheck(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "vault")
	if err := vaultgen.Generate(dir, 10_000, 1); err != nil {
		b.Fatal(err)
	}
	v, err := vault.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	files, skips, err := v.Files(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	schema, err := vault.ParseSchema([]byte("# {{title}}\n## Claim\n## Scope & conditions\n## Evidence\n## Links\n## Tests / falsifiers\n## Maintenance\n- Last tended: {{date}}\n"))
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{
		Today: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC),
		Types: []*vault.NoteType{{Name: "permanent", Schema: schema, Paths: vault.DefaultTypePaths, Property: "type", Value: "permanent"}},
	}
	b.ResetTimer()
	var notes int
	for b.Loop() {
		r, err := Check(context.Background(), v, files, skips, opts, nil)
		if err != nil {
			b.Fatal(err)
		}
		notes = r.Notes
	}
	b.ReportMetric(float64(notes*b.N)/b.Elapsed().Seconds(), "notes/s")
}
