package vault

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const ownerChildEnv = "ZK_TEST_OWNER_CHILD"

// TestEditNoteGroupNotTheUsers writes, as an unprivileged user, a note
// that user owns and may write but whose group is one the user is not in:
// a vault unpacked by root and handed over with `chown -R me`, which leaves
// the group root. Tending it writes the date in place, leaving the owner
// and group alone, so it must succeed; the backup under .zk/backups/ cannot
// be given the group root and is kept with the user's own (the folder is
// the user's, mode 0700). An insertion replaces the file, which would
// change the note's group: that is still refused, the note untouched.
// It needs root to set the scene and runs the writes in a child process
// as nobody.
func TestEditNoteGroupNotTheUsers(t *testing.T) {
	if dir := os.Getenv(ownerChildEnv); dir != "" {
		ownerChild(t, dir)
		return
	}
	if os.Getuid() != 0 {
		t.Skip("needs root to give a note a group its owner is not in")
	}
	const nobody = 65534
	dir, err := os.MkdirTemp("", "zk-owner-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	src := "# N\n\n## Evidence\n\nText.\n\n## Maintenance\n- Last tended: 2026-01-01\n"
	for _, n := range []string{"tend.md", "insert.md"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{dir, filepath.Join(dir, "tend.md"), filepath.Join(dir, "insert.md")} {
		if err := os.Chown(p, nobody, 0); err != nil {
			t.Fatal(err)
		}
		// An hour old: past the quiet window that takes a fresh file
		// for one being saved.
		if err := os.Chtimes(p, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The test binary's own folder is root's alone: nobody runs a copy.
	bin := filepath.Join(dir, ".zk-test-bin")
	if err := copyFile(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestEditNoteGroupNotTheUsers$", "-test.v")
	cmd.Env = append(os.Environ(), ownerChildEnv+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	info, err := os.Stat(filepath.Join(dir, "tend.md"))
	if err != nil {
		t.Fatal(err)
	}
	if st := info.Sys().(*syscall.Stat_t); st.Uid != nobody || st.Gid != 0 {
		t.Errorf("tend.md is %d:%d now, want %d:0 as before", st.Uid, st.Gid, nobody)
	}
}

func ownerChild(t *testing.T, dir string) {
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	old, err := os.ReadFile(filepath.Join(dir, "tend.md"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.EditNote("tend.md", replaceEdit("2026-01-01", "2026-12-06"), WriteOptions{})
	if err != nil {
		t.Fatalf("tend: %v", err)
	}
	if got, want := readString(t, filepath.Join(dir, "tend.md")), strings.Replace(string(old), "2026-01-01", "2026-12-06", 1); got != want {
		t.Errorf("tend.md = %q, want %q", got, want)
	}
	if got := readString(t, filepath.Join(dir, filepath.FromSlash(res.Backup))); got != string(old) {
		t.Errorf("backup = %q, want the old note", got)
	}
	_, err = v.EditNote("insert.md", replaceEdit("Text.\n", "Text.\nMore.\n"), WriteOptions{})
	if err == nil || !strings.Contains(err.Error(), "group") {
		t.Errorf("insertion: err = %v, want a refusal naming the group", err)
	}
	if got := readString(t, filepath.Join(dir, "insert.md")); got != string(old) {
		t.Errorf("insert.md = %q, want it untouched", got)
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, tempPrefix+"*")); len(tmps) > 0 {
		t.Errorf("temp files left: %v", tmps)
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
