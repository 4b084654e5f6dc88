package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault/vaulttest"
)

// zk trust, showing a note's commands, hashes a file many of them name
// once, not once per command.
func TestTrustHashesEachFileOnce(t *testing.T) {
	const n, size = 20, 1 << 20
	var note strings.Builder
	note.WriteString("# Note\n\n## Tests / falsifiers\n\n")
	for i := range n {
		fmt.Fprintf(&note, "- Falsifier %d.\n  - run: `cat b.bin`\n", i+1)
	}
	dir := vaulttest.Dir(t, map[string]string{".zk/keep": "", "note.md": note.String(), "b.bin": strings.Repeat("x", size)})
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	var out, errOut strings.Builder
	s := &streams{in: strings.NewReader("n\n"), out: &out, err: &errOut}
	before := vaulttest.BytesRead(t)
	code := run(context.Background(), []string{"--vault", dir, "trust", "note.md"}, s)
	read := vaulttest.BytesRead(t) - before
	if code != exitError || strings.Count(errOut.String(), "    b.bin (sha256:") != n {
		t.Fatalf("zk trust answered n: exit %d, %s; want exit 2 and b.bin listed %d times", code, errOut.String(), n)
	}
	if read > 2*size {
		t.Errorf("%d commands naming a %d-byte file read %d bytes, want it read once", n, size, read)
	}
}
