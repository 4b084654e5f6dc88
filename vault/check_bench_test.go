package vault

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/zk-claims/zk/bench/vaultgen"
)

// BenchmarkCheck runs the rules over a scanned, generated vault of 10k
// notes; the scan itself is BenchmarkScan's.
//
//	go test ./vault -run '^$' -bench Check -benchtime 3x
func BenchmarkCheck(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "vault")
	if err := vaultgen.Generate(dir, 10_000, 1); err != nil {
		b.Fatal(err)
	}
	v, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	s, err := v.Scan(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	schema, err := ParseSchema([]byte("# {{title}}\n## Claim\n## Scope & conditions\n## Evidence\n## Links\n## Tests / falsifiers\n## Maintenance\n- Last tended: {{date}}\n"))
	if err != nil {
		b.Fatal(err)
	}
	opts := CheckOptions{
		Today: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC),
		Types: []*NoteType{{Name: "permanent", Schema: schema, Paths: DefaultTypePaths, Property: "type", Value: "permanent"}},
	}
	b.ResetTimer()
	for b.Loop() {
		Check(s, opts)
	}
	b.ReportMetric(float64(len(s.Notes)*b.N)/b.Elapsed().Seconds(), "notes/s")
}
