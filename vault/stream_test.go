package vault

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Each under WithProgress reports every note read, a skipped one too,
// from 0 to all of them, one at a time: what zk mcp's progress
// notifications count for check, base and the other long tools.
func TestEachReportsProgress(t *testing.T) {
	dir := t.TempDir()
	for i := range 9 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("N%d.md", i)), []byte("# N\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "binary.md"), []byte("# x\x00\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := v.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, notes := SplitFiles(files)
	var got []int
	ctx := WithProgress(context.Background(), func(done, total int) {
		if total != len(notes) {
			t.Errorf("total %d, want %d", total, len(notes))
		}
		got = append(got, done)
	})
	v.Each(ctx, notes, func(int, *Note) {})
	if len(got) != len(notes)+1 {
		t.Fatalf("reports %v, want 0..%d", got, len(notes))
	}
	for i, d := range got {
		if d != i {
			t.Fatalf("reports %v, want 0..%d in order", got, len(notes))
		}
	}
	// Without it, nothing is reported and nothing breaks.
	v.Each(context.Background(), notes, func(int, *Note) {})
}
