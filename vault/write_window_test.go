package vault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// editorSave returns an editor's save of text over the note at p: in
// place (truncate, then write) or, with rename, into a file beside it
// renamed over it.
func editorSave(p, text string, rename bool) func() error {
	return func() error {
		if !rename {
			return os.WriteFile(p, []byte(text), 0o644)
		}
		tmp := p + ".editor~"
		if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, p)
	}
}

// withHook sets testOnlyBeforeWrite for one test, run once.
func withHook(t *testing.T, hook func()) {
	done := false
	testOnlyBeforeWrite = func() {
		if !done {
			done = true
			hook()
		}
	}
	t.Cleanup(func() { testOnlyBeforeWrite = nil })
}

// backups lists the files kept for the note, by name, with their text.
func backups(t *testing.T, dir, note string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, _ := os.ReadDir(filepath.Join(dir, ".zk", "backups", note))
	for _, e := range ents {
		out[e.Name()] = readString(t, filepath.Join(dir, ".zk", "backups", note, e.Name()))
	}
	return out
}

func keptAs(files map[string]string, suffix string) (string, bool) {
	for name, text := range files {
		if strings.HasSuffix(name, suffix) {
			return text, true
		}
	}
	return "", false
}

const windowNote = "# A\n\nThe claim.\n\n## Maintenance\n- Last tended: 2026-01-01\n"

// The two worlds the write-window tests run in: with zk's write lease
// (Linux, where the file system grants one), an editor's save that
// starts in zk's window waits for zk, and zk sees the lease broken; with
// none (other systems and file systems, testOnlyNoLease here), the save
// lands inside the window and zk finds it when it looks at what it
// replaced or reads back what it wrote.
var windowLeases = []struct {
	name  string
	lease bool
}{{"under zk's lease", true}, {"no lease", false}}

// windowLease sets the world up for one test of the note at p: the
// lease where the system grants one (else the test is skipped), or none.
func windowLease(t *testing.T, p string, lease bool) {
	t.Helper()
	if lease {
		leasesHere(t, p)
		return
	}
	testOnlyNoLease = true
	t.Cleanup(func() { testOnlyNoLease = false })
}

// editorDuring returns a hook, for zk's write window, that starts save
// (an editor saving the note at p) in its own goroutine and returns once
// the save is under way: waiting on zk's write lease on the note (its
// open broke the lease, which /proc/locks shows), or over (zk holds no
// lease on the note, so the save landed in zk's window). saved returns
// the save's error once it is over. Nothing here is timed: on a loaded
// machine the hook only polls longer.
func editorDuring(t *testing.T, p string, save func() error) (hook func(), saved func() error) {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	dev, ino := fileID(info)
	done := make(chan error, 1)
	started := false
	hook = func() {
		started = true
		go func() { done <- save() }()
		for !leaseBreaking(dev, ino) {
			select {
			case err := <-done:
				done <- err
				return
			default:
			}
			time.Sleep(time.Millisecond)
		}
	}
	saved = func() error {
		if !started {
			return errors.New("zk never reached its write window")
		}
		err := <-done
		done <- err
		return err
	}
	return hook, saved
}

// leaseBreaking reports a lease on the file dev, ino that a program's
// open is breaking: the kernel lists it in /proc/locks as
// "LEASE  BREAKING", with the file as major:minor:inode (major and minor
// in hex), until its holder releases it. Where there is no /proc/locks
// there are no leases to break.
func leaseBreaking(dev, ino uint64) bool {
	b, err := os.ReadFile("/proc/locks")
	if err != nil || ino == 0 {
		return false
	}
	// The split of a Linux dev_t into its major and minor numbers.
	major := dev>>8&0xfff | dev>>32&^uint64(0xfff)
	minor := dev&0xff | dev>>12&^uint64(0xff)
	file := fmt.Sprintf("%02x:%02x:%d", major, minor, ino)
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) >= 6 && f[1] == "LEASE" && f[2] == "BREAKING" && f[5] == file {
			return true
		}
	}
	return false
}

// wroteNothing checks that zk, seeing its lease broken before its write,
// refused the note as open elsewhere and kept nothing it would have
// written (suffix: "-zk", "-found").
func wroteNothing(t *testing.T, err error, kept map[string]string, suffix string) {
	t.Helper()
	if !errors.Is(err, ErrMidWrite) || !strings.Contains(err.Error(), "another program has it open") {
		t.Fatalf("err = %v, want ErrMidWrite: another program has it open", err)
	}
	if _, ok := keptAs(kept, suffix); ok {
		t.Errorf("zk kept a version it did not write: %v", kept)
	}
}

// An editor's save that starts between zk's last check and its write is
// never lost in silence. Under zk's lease a truncating save waits for zk,
// which, seeing its lease broken, writes nothing: the save then lands
// whole. A renaming save, or any save with no lease, lands first;
// replaced by a rename, the editor's version is put back in the note and
// zk keeps its own. Either way zk says so, and the backup holds the
// version it read. (Before, zk renamed over the editor's save and reported
// success.)
func TestEditNoteWindowReplace(t *testing.T) {
	editor := "# A\n\nThe claim, as the editor saved it.\n\n## Maintenance\n- Last tended: 2026-01-01\n"
	for _, world := range windowLeases {
		for _, tc := range []struct {
			name               string
			rename, noExchange bool
		}{
			{"truncating editor", false, false},
			{"renaming editor", true, false},
			{"truncating editor, no exchange", false, true},
		} {
			t.Run(world.name+"/"+tc.name, func(t *testing.T) {
				testOnlyNoExchange = tc.noExchange
				t.Cleanup(func() { testOnlyNoExchange = false })
				v, dir := writeVault(t, map[string]string{"n.md": windowNote})
				p := filepath.Join(dir, "n.md")
				windowLease(t, p, world.lease)
				if tc.rename && !canExchange(t) {
					t.Skip("no RENAME_EXCHANGE here: a rename save in the window is caught only before the hook")
				}
				hook, saved := editorDuring(t, p, editorSave(p, editor, tc.rename))
				withHook(t, hook)
				res, err := v.EditNote("n.md", replaceEdit("The claim.\n", "The claim.\nMore.\n"), WriteOptions{Quiet: -1})
				if serr := saved(); serr != nil {
					t.Fatalf("the editor's save: %v", serr)
				}
				if got := readString(t, p); got != editor {
					t.Errorf("note = %q, want the editor's version", got)
				}
				kept := backups(t, dir, "n.md")
				if got := kept[filepath.Base(res.Backup)]; got != windowNote {
					t.Errorf("backup %s = %q, want the version zk read", res.Backup, got)
				}
				if world.lease && !tc.rename {
					// The save waited on zk's lease, opened on the note
					// zk was about to replace.
					wroteNothing(t, err, kept, "-zk")
					return
				}
				mine, ok := keptAs(kept, "-zk")
				if !errors.Is(err, ErrConcurrent) {
					t.Fatalf("err = %v, want ErrConcurrent", err)
				}
				if !ok || !strings.Contains(mine, "More.") {
					t.Errorf("zk's version not kept: %v", kept)
				}
				if !strings.Contains(err.Error(), "back in place") {
					t.Errorf("the error does not say the editor's version is back: %v", err)
				}
			})
		}
	}
}

// canExchange reports whether the test folder's file system can swap two
// files in one step.
func canExchange(t *testing.T) bool {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), nil, 0o600)
	os.WriteFile(filepath.Join(dir, "b"), nil, 0o600)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return false
	}
	defer root.Close()
	ok, _ := exchange(root, "a", "b")
	return ok
}

// A truncating editor's save that starts between zk's check and its
// in-place write. Under zk's lease the save waits for zk, which, seeing
// its lease broken, writes nothing: the save then lands whole, and zk
// says the note is open elsewhere. With no lease zk's bytes land at the
// old offset inside the editor's new text: zk says so and where (the
// line), keeps the note as found, and the backup holds the version before
// both writes. (Before, the error said only that the note read back was
// not what zk wrote.)
func TestEditNoteWindowInPlace(t *testing.T) {
	editor := "# A\n\nThe claim\n\n## Maintenance\n- Last tended: 2026-01-01\n"
	for _, world := range windowLeases {
		t.Run(world.name, func(t *testing.T) {
			v, dir := writeVault(t, map[string]string{"n.md": windowNote})
			p := filepath.Join(dir, "n.md")
			windowLease(t, p, world.lease)
			hook, saved := editorDuring(t, p, editorSave(p, editor, false))
			withHook(t, hook)
			res, err := v.EditNote("n.md", replaceEdit("2026-01-01", "2026-12-02"), WriteOptions{Quiet: -1})
			if serr := saved(); serr != nil {
				t.Fatalf("the editor's save: %v", serr)
			}
			if !res.InPlace {
				t.Fatal("the edit was not in place")
			}
			kept := backups(t, dir, "n.md")
			if got := kept[filepath.Base(res.Backup)]; got != windowNote {
				t.Errorf("backup = %q, want the version zk read", got)
			}
			if world.lease {
				wroteNothing(t, err, kept, "-found")
				if got := readString(t, p); got != editor {
					t.Errorf("note = %q, want the editor's save whole", got)
				}
				return
			}
			found, ok := keptAs(kept, "-found")
			if !errors.Is(err, ErrConcurrent) {
				t.Fatalf("err = %v, want ErrConcurrent", err)
			}
			if !strings.Contains(err.Error(), "line 6") {
				t.Errorf("the error does not name the line zk's bytes went to: %v", err)
			}
			if now := readString(t, p); !ok || found != now {
				t.Errorf("the note as found after the write is not kept: %v", kept)
			}
		})
	}
}

// A read-only note is never written, in place or by a rename (before, a
// rename replaced a 0444 note, and zk running as root wrote it in place).
func TestEditNoteReadOnly(t *testing.T) {
	for _, edit := range []func([]byte) ([]byte, error){
		replaceEdit("2026-01-01", "2026-12-02"),
		replaceEdit("The claim.\n", "The claim.\nMore.\n"),
	} {
		v, dir := writeVault(t, map[string]string{"n.md": windowNote})
		p := filepath.Join(dir, "n.md")
		if err := os.Chmod(p, 0o444); err != nil {
			t.Fatal(err)
		}
		_, err := v.EditNote("n.md", edit, WriteOptions{Quiet: -1})
		if !errors.Is(err, ErrReadOnly) {
			t.Errorf("err = %v, want ErrReadOnly", err)
		}
		if got := readString(t, p); got != windowNote {
			t.Errorf("a read-only note was written: %q", got)
		}
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o444 {
			t.Errorf("mode now %v", st.Mode().Perm())
		}
	}
}

// zk's own last write is not an editor's save: the next edit, at once,
// passes the quiet window; a change by anyone else within it does not.
func TestEditNoteOwnWrite(t *testing.T) {
	v, dir := writeVault(t, map[string]string{"n.md": windowNote})
	p := filepath.Join(dir, "n.md")
	for i, edit := range []func([]byte) ([]byte, error){
		replaceEdit("2026-01-01", "2026-12-02"),            // in place, past the window
		replaceEdit("The claim.\n", "The claim.\nMore.\n"), // at once: zk's own write
		replaceEdit("2026-12-02", "2026-12-03"),            // at once again
	} {
		if _, err := v.EditNote("n.md", edit, WriteOptions{}); err != nil {
			t.Fatalf("edit %d: %v", i, err)
		}
	}
	if err := os.WriteFile(p, []byte(readString(t, p)+"typed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := v.EditNote("n.md", replaceEdit("2026-12-03", "2026-12-04"), WriteOptions{}); !errors.Is(err, ErrMidWrite) {
		t.Errorf("after another program's write, err = %v, want ErrMidWrite", err)
	}
}
