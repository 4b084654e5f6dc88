// Package atomicfile replaces files so that a reader or a crash sees the
// old bytes or the new ones, never a mix: the data goes to a temporary
// file in the same folder, is synced, renamed over the file, and the
// folder is synced. It is zk's one such writer, used for notes (through
// the vault's os.Root, keeping the note's mode, owner and extended
// attributes) and for zk's own state files (caches, approvals, index
// stamps). It works on every platform Go does, which renameio.WriteFile
// does not (it exports nothing on Windows), and inside an os.Root, which
// no library offers.
package atomicfile

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// TempPrefix names temporary files. Short and fixed, not derived from the
// file's name: a name near NAME_MAX would make a derived name too long.
// The writer's pid follows, so that Sweep can tell a temporary file of a
// killed writer from one in use.
const TempPrefix = ".zk-tmp-"

// Options tune a write.
type Options struct {
	// Perm is the new file's mode, set exactly (not filtered by the
	// umask); 0 means a new file's usual mode, 0666 less the umask.
	// Ignored when Like is set.
	Perm fs.FileMode
	// Like, when set, is the file being replaced: the new file gets its
	// mode and, where the system has owners, its owner and group (a rename
	// would otherwise hand the file to whoever ran zk). A failure to keep
	// the owner fails the write.
	Like fs.FileInfo
	// OwnerIfAllowed, with Like, keeps Like's owner and group only where
	// this process may set them, and otherwise leaves the new file the
	// process's: for zk's own copies of a note (backups) in its private
	// folder, which must not stop the note's edit when the user owns a
	// note whose group they are not in (a vault handed over with
	// chown -R, its group left root).
	OwnerIfAllowed bool
	// Attrs, when set, is the open file whose extended attributes the new
	// file gets (macOS Finder tags live there).
	Attrs *os.File
	// NoSync skips the file's and the folder's fsync, for a file whose
	// loss in a crash costs nothing (a hint): the rename still keeps a
	// reader from seeing it half-written.
	NoSync bool
	// Check runs after the temporary file is written and synced, just
	// before the rename; an error from it aborts the write, the file
	// untouched.
	Check func() error
}

// Write replaces the file at name with data (see the package comment).
// The folder must exist.
func Write(name string, data []byte, perm fs.FileMode) error {
	return WriteFrom(name, perm, bytesOf(data))
}

// WriteFrom replaces the file at name with what fill writes, as Write
// does: for a file written piece by piece rather than built whole in
// memory beside what it is made from (a cache of every note). An error
// from fill aborts the write, the file untouched.
func WriteFrom(name string, perm fs.FileMode, fill func(io.Writer) error) error {
	root, err := os.OpenRoot(filepath.Dir(name))
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer root.Close()
	if err := WriteInFrom(root, filepath.Base(name), fill, Options{Perm: perm}); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// WriteIn replaces the file name, relative to root, with data: a
// temporary file in its folder, synced, checked by o.Check, renamed over
// name, and the folder synced. On any error the temporary file is removed
// and name is untouched.
func WriteIn(root *os.Root, name string, data []byte, o Options) error {
	return WriteInFrom(root, name, bytesOf(data), o)
}

// WriteInFrom is WriteIn of what fill writes.
func WriteInFrom(root *os.Root, name string, fill func(io.Writer) error, o Options) error {
	dir := filepath.Dir(name)
	tmp, err := TempFrom(root, dir, fill, o)
	if err != nil {
		return err
	}
	if o.Check != nil {
		err = o.Check()
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
		return err
	}
	if !o.NoSync {
		SyncDir(root, dir)
	}
	return nil
}

// Temp writes data to a new temporary file in dir (relative to root) with
// the mode, owner and attributes o asks for, syncs and closes it, and
// returns its name relative to root. The caller renames or removes it.
func Temp(root *os.Root, dir string, data []byte, o Options) (string, error) {
	return TempFrom(root, dir, bytesOf(data), o)
}

// bytesOf is a fill that writes data.
func bytesOf(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// TempFrom is Temp of what fill writes, buffered.
func TempFrom(root *os.Root, dir string, fill func(io.Writer) error, o Options) (string, error) {
	mode, exact := o.Perm, o.Perm != 0
	if o.Like != nil {
		mode, exact = o.Like.Mode().Perm(), true
	}
	if !exact {
		mode = 0o666
	}
	var r [6]byte
	rand.Read(r[:])
	name := filepath.Join(dir, TempPrefix+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(r[:]))
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return "", err
	}
	// A write as large as the buffer goes to the file as it is, uncopied.
	bw := bufio.NewWriterSize(f, 64<<10)
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && exact {
		// OpenFile's mode is filtered by the umask; the one asked for is not.
		err = f.Chmod(mode)
	}
	if err == nil && o.Like != nil {
		err = keepOwner(f, o.Like, o.OwnerIfAllowed)
	}
	if err == nil && o.Attrs != nil {
		err = copyXattrs(f, o.Attrs)
	}
	if err == nil && !o.NoSync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		root.Remove(name)
		return "", err
	}
	return name, nil
}

// SyncDir makes a rename in dir durable. A folder that cannot be synced
// (some file systems refuse; Windows has no such call) is no reason to
// fail a write that has already happened.
func SyncDir(root *os.Root, dir string) {
	if d, err := root.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Sweep removes the temporary files that writers killed mid-write left in
// dir: those whose process is gone, or that are older than maxAge (a
// reused pid, or a system where zk cannot ask).
func Sweep(root *os.Root, dir string, now time.Time, maxAge time.Duration) {
	SweepOrphans(root, dir, now, maxAge, func(name string) (int, bool) {
		rest, ok := strings.CutPrefix(name, TempPrefix)
		if !ok {
			return 0, false
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil {
			return -1, true
		}
		return pid, true
	})
}

// SweepOrphans removes the files of dir that a process left behind when it
// was killed: owner names the pid a file belongs to (-1: unknown) and
// whether it is such a file at all. A file goes when its process is gone,
// is this process, or when it is older than maxAge.
func SweepOrphans(root *os.Root, dir string, now time.Time, maxAge time.Duration, owner func(name string) (pid int, ok bool)) {
	d, err := root.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, name := range names {
		pid, ok := owner(name)
		if !ok {
			continue
		}
		p := filepath.Join(dir, name)
		stale := pid < 0 || !ProcessAlive(pid)
		if !stale {
			if info, err := root.Lstat(p); err == nil && now.Sub(info.ModTime()) > maxAge {
				stale = true
			}
		}
		if stale {
			root.Remove(p)
		}
	}
}
