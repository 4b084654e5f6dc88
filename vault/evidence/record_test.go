package evidence

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/vaulttest"
)

const recordNote = "# N\n\n## Claim\n\nA claim.\n\n## Evidence\n\n## Tests / falsifiers\n\n- One.\n"

// A result neither the note nor .zk/runs can take is printed with the
// error, so it still reaches the terminal.
func TestSaveBlockLastResort(t *testing.T) {
	dir := vaulttest.Dir(t, map[string]string{"note.md": recordNote})
	os.MkdirAll(filepath.Join(dir, ".zk"), 0o755)
	os.WriteFile(filepath.Join(dir, ".zk", "runs"), nil, 0o644) // a file where the folder would go
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	r := Run{ID: "20261203T000000Z-abcd", Started: time.Now(), Verdict: VerdictSupports, Command: "true"}
	err = SaveBlock(v, "note.md", r, syscall.ENOSPC)
	if err == nil || !strings.Contains(err.Error(), "<!-- zk:run id=20261203T000000Z-abcd") {
		t.Errorf("err = %v, want the block in it", err)
	}
}

// Partial logs of zk processes that died are swept by the next run; a
// live run's, and finished logs, are kept.
func TestSweepRunLogs(t *testing.T) {
	dir := vaulttest.Dir(t, map[string]string{"note.md": recordNote})
	runs := filepath.Join(dir, ".zk", "runs")
	os.MkdirAll(runs, 0o755)
	dead := "20261203T000000Z-0001.log.999999999.partial"
	live := "20261203T000000Z-0002.log." + strconv.Itoa(os.Getppid()) + ".partial"
	done := "20261203T000000Z-0003.log"
	for _, n := range []string{dead, live, done} {
		os.WriteFile(filepath.Join(runs, n), []byte("x"), 0o644)
	}
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	SweepLogs(v, time.Now())
	for n, keep := range map[string]bool{dead: false, live: true, done: true} {
		if _, err := os.Stat(filepath.Join(runs, n)); (err == nil) != keep {
			t.Errorf("%s kept = %v, want %v", n, err == nil, keep)
		}
	}
	SweepLogs(v, time.Now().Add(PartialMaxAge+time.Hour))
	if _, err := os.Stat(filepath.Join(runs, live)); err == nil {
		t.Error("a partial log older than PartialMaxAge was kept")
	}
}
