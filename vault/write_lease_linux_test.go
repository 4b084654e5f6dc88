//go:build linux

package vault

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestEditNoteRefusesAStalledSave: an editor that truncated the note and
// wrote half of it, then stalled past the quiet window (its write(2)
// descheduled on a loaded machine, a sync client waiting on the network),
// leaves a file whose size and mtime look settled. zk must not take that
// half for the note: while the editor has it open for writing, EditNote
// refuses it and writes nothing; once the save ends, the tend goes
// through on the whole note.
func TestEditNoteRefusesAStalledSave(t *testing.T) {
	src := "# Note\n## Claim\n" + strings.Repeat("A claim, stated at length, with its scope.\n", 3500) +
		"## Maintenance\n- Last tended: 2026-01-01\n"
	v, dir := writeVault(t, map[string]string{"n.md": src})
	path := filepath.Join(dir, "n.md")
	leasesHere(t, path)

	ed, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ed.Close()
	half := len(src) / 2
	if _, err := ed.Write([]byte(src[:half])); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-3 * DefaultQuiet)
	if err := os.Chtimes(path, past, past); err != nil { // the stall, outlasting the window
		t.Fatal(err)
	}
	tend := func(src []byte) ([]byte, error) { return setLastTended("n.md", src, "2026-02-02", nil) }
	_, err = v.EditNote("n.md", tend, WriteOptions{})
	if !errors.Is(err, ErrMidWrite) || !strings.Contains(err.Error(), "open for writing") {
		t.Fatalf("EditNote on a note another program is writing: %v, want ErrMidWrite (open for writing)", err)
	}
	if got, _ := os.ReadFile(path); string(got) != src[:half] {
		t.Fatalf("zk wrote to a note mid-save: %d bytes, want the editor's %d", len(got), half)
	}

	if _, err := ed.Write([]byte(src[half:])); err != nil {
		t.Fatal(err)
	}
	if err := ed.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, past, past); err != nil {
		t.Fatal(err)
	}
	if _, err := v.EditNote("n.md", tend, WriteOptions{}); err != nil {
		t.Fatalf("EditNote once the save ended: %v", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(src, "2026-01-01", "2026-02-02", 1); !bytes.Equal(got, []byte(want)) {
		t.Errorf("after the tend the note is %d bytes, want the whole note tended (%d)", len(got), len(want))
	}
}

// leasesHere skips the test where the file system grants no read lease
// on path (zk then relies on the quiet window alone, as on other systems).
func leasesHere(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := unix.FcntlInt(f.Fd(), unix.F_SETLEASE, unix.F_RDLCK); err != nil {
		t.Skipf("no read lease on this file system (%v): zk relies on the quiet window alone here", err)
	}
	unix.FcntlInt(f.Fd(), unix.F_SETLEASE, unix.F_UNLCK)
}

// TestLeaseHoldsASaveStartedDuringTheRead: a program that opens the note
// for writing while zk holds its read lease waits until zk releases it
// (the kernel breaks the lease, and zk sees the break pending); the
// SIGIO the kernel sends zk on the break does not end zk.
func TestLeaseHoldsASaveStartedDuringTheRead(t *testing.T) {
	_, dir := writeVault(t, map[string]string{"n.md": "# Note\n"})
	path := filepath.Join(dir, "n.md")
	leasesHere(t, path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	release, writing := leaseRead(f)
	if writing {
		t.Fatal("a note nobody writes reported as open for writing")
	}
	opened := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err == nil {
			w.Close()
		}
		opened <- err
	}()
	// The writer's open breaks the lease; until zk releases it, the
	// lease shows the break pending (F_UNLCK) and the open has not
	// returned.
	for {
		kind, err := unix.FcntlInt(f.Fd(), unix.F_GETLEASE, 0)
		if err != nil {
			t.Fatal(err)
		}
		if kind == unix.F_UNLCK {
			break
		}
		select {
		case err := <-opened:
			t.Fatalf("the writer's open returned (%v) while zk held its lease", err)
		default:
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case err := <-opened:
		t.Fatalf("the writer's open returned (%v) before zk released its lease", err)
	default:
	}
	release()
	if err := <-opened; err != nil {
		t.Fatalf("the writer's open after the release: %v", err)
	}
}

// TestSaveDuringWriteWaitsForIt: an editor that starts a save (truncate,
// then write) after zk's last check and before zk's write must neither be
// written into nor lose its text. In place, zk's pwrite of the date once
// landed past the end of the editor's shorter text and left zero bytes
// between (the torn note TestEditNoteRace/rename read); by replace, the
// editor's open resolved to the file zk then replaced and deleted, so its
// save went nowhere. Under zk's write lease the save waits for zk, then
// lands whole on the note: zk, seeing its lease broken, writes nothing.
func TestSaveDuringWriteWaitsForIt(t *testing.T) {
	long := "# Note\n## Claim\n" + strings.Repeat("A claim, stated at length, with its scope.\n", 200)
	for _, tc := range []struct {
		name, src string
		want      error
	}{
		{"in place", long + "## Maintenance\n- Last tended: 2026-01-01\n", ErrMidWrite},
		{"replace", long, ErrMidWrite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, dir := writeVault(t, map[string]string{"n.md": tc.src})
			path := filepath.Join(dir, "n.md")
			leasesHere(t, path)
			editor := "# Note\nthe editor's shorter text\n"
			hook, saved := editorDuring(t, path, editorSave(path, editor, false))
			withHook(t, hook)
			past := time.Now().Add(-3 * DefaultQuiet)
			if err := os.Chtimes(path, past, past); err != nil {
				t.Fatal(err)
			}
			_, err := v.EditNote("n.md", func(src []byte) ([]byte, error) {
				return setLastTended("n.md", src, "2026-02-02", nil)
			}, WriteOptions{})
			if !errors.Is(err, tc.want) {
				t.Fatalf("EditNote: %v, want %v", err, tc.want)
			}
			if err := saved(); err != nil {
				t.Fatalf("the editor's save: %v", err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != editor {
				t.Errorf("after the editor's save the note is %q (%d bytes), want the editor's text whole", got[:min(len(got), 60)], len(got))
			}
		})
	}
}

// TestEditNoteOpenedAtTheExchange: a program that opens the note in the
// instant after zk's last look at its lease and before the exchange
// waits on the lease, its open resolved to the file zk then replaces. zk,
// seeing the lease broken after the exchange, puts that file back where
// the open lands and reports the conflict, and the save lands whole. The
// editor is another process, as a real one is: the kernel's SIGIO on the
// break goes to zk's process, and in zk's own it could restart the
// editor's open, which would then resolve the name afresh.
func TestEditNoteOpenedAtTheExchange(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	v, dir := writeVault(t, map[string]string{"n.md": windowNote})
	p := filepath.Join(dir, "n.md")
	leasesHere(t, p)
	if !canExchange(t) {
		t.Skip("no RENAME_EXCHANGE here")
	}
	editor := "# A\n\nThe claim, as the editor saved it.\n"
	hook, saved := editorDuring(t, p, func() error {
		return exec.Command(sh, "-c", `printf '%s' "$1" > "$2"`, "sh", editor, p).Run()
	})
	testOnlyBeforeExchange = hook
	t.Cleanup(func() { testOnlyBeforeExchange = nil })
	res, err := v.EditNote("n.md", replaceEdit("The claim.\n", "The claim.\nMore.\n"), WriteOptions{Quiet: -1})
	if serr := saved(); serr != nil {
		t.Fatalf("the editor's save: %v", serr)
	}
	if !errors.Is(err, ErrConcurrent) || !strings.Contains(err.Error(), "back in place") {
		t.Fatalf("err = %v, want ErrConcurrent: the note back in place", err)
	}
	if got := readString(t, p); got != editor {
		t.Errorf("note = %q, want the editor's save whole", got)
	}
	kept := backups(t, dir, "n.md")
	if got := kept[filepath.Base(res.Backup)]; got != windowNote {
		t.Errorf("backup = %q, want the version zk read", got)
	}
	if mine, ok := keptAs(kept, "-zk"); !ok || !strings.Contains(mine, "More.") {
		t.Errorf("zk's version not kept: %v", kept)
	}
}
