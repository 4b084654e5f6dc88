package move

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// manyLinks is a vault of Old.md and n notes linking to it, L00.md…;
// Old.md's H1 is not its name, so a move edits only the n notes.
func manyLinks(n int) map[string]string {
	files := map[string]string{"Old.md": "# The old note\n"}
	for i := range n {
		files[fmt.Sprintf("L%02d.md", i)] = fmt.Sprintf("# L%d\n\n[[Old]]\n", i)
	}
	return files
}

// A file edited by another program while a parallel apply is under way
// undoes the whole move: every file written is put back, including those
// written after the failing one's place in the plan (files are written
// 16 at once), and the other program's edit stands.
func TestApplyParallelUndoesOnChange(t *testing.T) {
	files := manyLinks(60)
	// A long note takes a while to find changed, while the other workers
	// write the files after it: what is written is then no prefix of the
	// plan.
	long := "# L30\n\n" + strings.Repeat("A line of a long note.\n", 3<<20/23) + "\n[[Old]]\n"
	files["L30.md"] = long
	dir := vaulttest.Dir(t, files)
	v, fs := open(t, dir)
	p, err := Move(context.Background(), v, fs, "Old.md", "New.md", Format{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Files) != 60 {
		t.Fatalf("%d files planned", len(p.Files))
	}
	// At the first file done at most 16 have started (no file starts
	// while AfterFile runs), so the 31st, L30.md, has not.
	edited := long + "edited\n"
	err = Apply(context.Background(), v, p, ApplyOptions{Key: testKey, Workers: 16, Write: vault.WriteOptions{Quiet: -1}, AfterFile: func(i int) {
		if i == 1 {
			if err := os.WriteFile(dir+"/L30.md", []byte(edited), 0o644); err != nil {
				t.Error(err)
			}
		}
	}})
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("err = %v, want ErrChanged", err)
	}
	for name, text := range files {
		want := text
		if name == "L30.md" {
			want = edited
		}
		if got := read(t, dir, name); got != want {
			t.Errorf("%s = %.40q, want %.40q", name, got, want)
		}
	}
	if exists(dir, "New.md") || len(journals(t, dir)) != 0 {
		t.Errorf("New.md or the journal left")
	}
}

// A move killed (SIGKILL) while several files are being written at once
// is finished by Recover, the vault ending exactly as an uninterrupted
// move leaves it. The kill is real: the test runs itself as a child
// process that kills itself after the n-th file.
func TestRecoverAfterParallelKill(t *testing.T) {
	if dir := os.Getenv("ZK_TEST_MOVE_KILL_DIR"); dir != "" {
		n, _ := strconv.Atoi(os.Getenv("ZK_TEST_MOVE_KILL_AFTER"))
		v, fs := open(t, dir)
		p, err := Move(context.Background(), v, fs, "Old.md", "Sub/New.md", Format{})
		if err != nil {
			t.Fatal(err)
		}
		Apply(context.Background(), v, p, ApplyOptions{Key: testKey, Workers: 4, AfterFile: func(i int) {
			if i == n {
				if self, err := os.FindProcess(os.Getpid()); err == nil {
					self.Kill()
				}
				select {}
			}
		}})
		t.Fatalf("not killed after file %d", n)
	}
	files := manyLinks(40)
	want := vaulttest.Dir(t, files)
	v, fs := open(t, want)
	p, err := Move(context.Background(), v, fs, "Old.md", "Sub/New.md", Format{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(context.Background(), v, p, ApplyOptions{Key: testKey}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 17, 40} {
		t.Run(fmt.Sprint("after=", n), func(t *testing.T) {
			dir := vaulttest.Dir(t, files)
			cmd := exec.Command(os.Args[0], "-test.run=^TestRecoverAfterParallelKill$")
			cmd.Env = append(os.Environ(), "ZK_TEST_MOVE_KILL_DIR="+dir, "ZK_TEST_MOVE_KILL_AFTER="+strconv.Itoa(n))
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.Exited() {
				t.Fatalf("child not killed: %v\n%s", err, out)
			}
			if got := journals(t, dir); len(got) != 1 {
				t.Fatalf("journals %v", got)
			}
			written := 0
			for name := range files {
				if name != "Old.md" && read(t, dir, name) == read(t, want, name) {
					written++
				}
			}
			if written < n {
				t.Errorf("%d files written at the kill, want at least %d", written, n)
			}
			v, _ := open(t, dir)
			recs, err := Recover(context.Background(), v, vault.WriteOptions{}, testKey)
			if err != nil || len(recs) != 1 || len(recs[0].Conflicts) != 0 {
				t.Fatalf("%+v, %v", recs, err)
			}
			if recs[0].Files != 40-written || recs[0].Renames != 1 {
				t.Errorf("recovered %d files, %d renames; want %d, 1", recs[0].Files, recs[0].Renames, 40-written)
			}
			for name := range files {
				if name == "Old.md" {
					continue
				}
				if got := read(t, dir, name); got != read(t, want, name) {
					t.Errorf("%s = %q, want %q", name, got, read(t, want, name))
				}
			}
			if exists(dir, "Old.md") || read(t, dir, "Sub/New.md") != read(t, want, "Sub/New.md") {
				t.Errorf("the rename not done")
			}
		})
	}
}
