// Package ownfile opens zk's own files inside a vault (everything under
// .zk/: config, templates, journals, backups, run logs, the ledger) as
// what they are: files that arrived with the vault from whoever sent it.
// Nothing is reached through a symlink, at any level of its path; only a
// regular file is read or written (a FIFO would hang the reader, a device
// or a folder is not zk's); and a read is capped before it allocates.
//
// os.Root keeps every access inside the vault, but it follows symlinks
// that stay inside: .zk/backups/NOTE as a link to notes/ would have zk
// prune the notes as old backups. This package closes that. It guards
// against files a vault ships with, not against a process racing zk on
// the same machine: the checks and the open are separate steps.
package ownfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrSymlink: a component of the path is a symbolic link.
var ErrSymlink = errors.New("is a symbolic link, which zk does not follow in its own files")

// ErrNotRegular: the path names something other than a regular file (or,
// for a folder on the way, other than a folder).
var ErrNotRegular = errors.New("is not a regular file")

// ErrTooLarge: the file is larger than the reader's cap.
var ErrTooLarge = errors.New("is larger than zk reads")

// ErrBusy: another process holds the lock (Lock).
var ErrBusy = errors.New("held by another process")

// PathError says which path, and which of its components, is refused.
type PathError struct {
	Path string // the path asked for, slash-separated
	At   string // the component refused: Path or one of its folders
	Err  error
}

func (e *PathError) Error() string {
	if e.At != e.Path {
		return fmt.Sprintf("%s: %s %v", e.Path, e.At, e.Err)
	}
	return fmt.Sprintf("%s %v", e.Path, e.Err)
}

func (e *PathError) Unwrap() error { return e.Err }

// CheckDirs checks that every folder on the way to rel (not rel itself)
// is a real folder, or is absent. rel is slash-separated and relative to
// root.
func CheckDirs(root *os.Root, rel string) error {
	rel = filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		info, err := root.Lstat(filepath.FromSlash(dir))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := kind(info, true); err != nil {
			return &PathError{Path: rel, At: dir, Err: err}
		}
	}
	return nil
}

// kind refuses a symlink, and anything but a folder (dir) or a regular
// file (!dir).
func kind(info fs.FileInfo, dir bool) error { return Kind(info.Mode(), dir) }

// Kind is the check OpenFile makes of what it opens, by a file's mode
// type alone: it refuses a symlink (ErrSymlink), and anything but a
// folder (dir) or a regular file (!dir, ErrNotRegular). It is for a
// folder's listing (fs.DirEntry.Type), checked without a stat of each
// entry.
func Kind(mode fs.FileMode, dir bool) error {
	switch {
	case mode&fs.ModeSymlink != 0:
		return ErrSymlink
	case dir && !mode.IsDir():
		return errors.New("is not a folder")
	case !dir && !mode.IsRegular():
		return ErrNotRegular
	}
	return nil
}

// Stat returns the file info of rel, refusing a symlink anywhere on its
// path and anything but a regular file.
func Stat(root *os.Root, rel string) (fs.FileInfo, error) {
	if err := CheckDirs(root, rel); err != nil {
		return nil, err
	}
	info, err := root.Lstat(filepath.FromSlash(rel))
	if err != nil {
		return nil, err
	}
	if err := kind(info, false); err != nil {
		return nil, &PathError{Path: filepath.ToSlash(rel), At: filepath.ToSlash(rel), Err: err}
	}
	return info, nil
}

// MkdirAll makes the folder rel and those on the way to it, refusing to
// go through a symlink or a file.
func MkdirAll(root *os.Root, rel string, perm fs.FileMode) error {
	rel = filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
	parts := strings.Split(rel, "/")
	for i := 1; i <= len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		info, err := root.Lstat(filepath.FromSlash(dir))
		if errors.Is(err, fs.ErrNotExist) {
			if err := root.Mkdir(filepath.FromSlash(dir), perm); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			if info, err = root.Lstat(filepath.FromSlash(dir)); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		if err := kind(info, true); err != nil {
			return &PathError{Path: rel, At: dir, Err: err}
		}
	}
	return nil
}

// OpenFile opens rel with flag (os.O_RDONLY, os.O_WRONLY|os.O_APPEND|
// os.O_CREATE, ...), following no symlink, and returns it only when it is
// a regular file. A FIFO is opened without blocking, then refused.
func OpenFile(root *os.Root, rel string, flag int, perm fs.FileMode) (*os.File, error) {
	if err := CheckDirs(root, rel); err != nil {
		return nil, err
	}
	name := filepath.FromSlash(rel)
	if info, err := root.Lstat(name); err == nil {
		// Where the system has no O_NOFOLLOW this is the only guard.
		if err := kind(info, false); err != nil {
			return nil, &PathError{Path: filepath.ToSlash(rel), At: filepath.ToSlash(rel), Err: err}
		}
	}
	f, err := root.OpenFile(name, flag|noFollow, perm)
	if err != nil {
		if isLoop(err) {
			return nil, &PathError{Path: filepath.ToSlash(rel), At: filepath.ToSlash(rel), Err: ErrSymlink}
		}
		return nil, err
	}
	info, err := f.Stat()
	if err == nil {
		err = kind(info, false)
	}
	if err != nil {
		f.Close()
		return nil, &PathError{Path: filepath.ToSlash(rel), At: filepath.ToSlash(rel), Err: err}
	}
	if err := clearNonblock(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// OpenRegular opens name in root for reading as os.Root does, following
// symlinks that stay inside it (a note may be one), but without blocking
// on a FIFO, and returns it, with the stat that found it one, only when
// it is a regular file: a vault file named a note can be a FIFO, and
// opening one would wait for a writer forever. The file is left
// O_NONBLOCK, which changes nothing for a regular file: it is for a
// reader that reads it and closes it, and a cold check of 6,600 notes
// spent two fcntl and a second fstat a note taking the flag off and
// asking the size again.
func OpenRegular(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = &PathError{Path: filepath.ToSlash(name), At: filepath.ToSlash(name), Err: ErrNotRegular}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// Read reads the regular file rel whole, refusing one larger than max
// bytes (max > 0) before reading it.
func Read(root *os.Root, rel string, max int64) ([]byte, error) {
	f, err := OpenFile(root, rel, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCapped(f, rel, max)
}

// ReadCapped reads an open file whole, refusing one larger than max.
func ReadCapped(f *os.File, rel string, max int64) ([]byte, error) {
	if max > 0 {
		if info, err := f.Stat(); err == nil && info.Size() > max {
			return nil, &PathError{Path: rel, At: rel, Err: fmt.Errorf("%w (%d bytes, at most %d)", ErrTooLarge, info.Size(), max)}
		}
		b, err := io.ReadAll(io.LimitReader(f, max+1))
		if err != nil {
			return nil, err
		}
		if int64(len(b)) > max {
			return nil, &PathError{Path: rel, At: rel, Err: fmt.Errorf("%w (over %d bytes)", ErrTooLarge, max)}
		}
		return b, nil
	}
	return io.ReadAll(f)
}
