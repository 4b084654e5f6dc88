package vault

import (
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Reading a note on Linux. Through os.Root each note became an *os.File:
// a finalizer, the poller's descriptor (an epoll_ctl it refuses for a
// regular file), its locks on every read and the close, and a second
// read to be told of the end. Here a note is opened by its name in its
// folder, open as a descriptor (openBeneath: the kernel keeps it inside
// the vault), with the flags OpenRegular uses (O_NONBLOCK: a FIFO never
// blocks) and O_NOFOLLOW, stat-ed and read into a buffer of its size.
// Anything else (a symlink, which os.Root follows while it stays inside
// the vault, a file that is not regular, one over the cap, any error) is
// left to the os.Root path, which reads it or says why as it always did.

// sysDirs holds the vault's folders open as descriptors.
type sysDirs struct {
	root *os.File // the vault's root folder, nil until the first read
	off  bool     // folders cannot be opened so (no openat2): os.Root reads
	fds  map[string]int
}

// readSys reads note base of folder dir (a vault path ending in '/', or
// "" for the root) whole, under the cap max as readIn does; ok is false
// when the os.Root path must read it.
func (d *dirRoots) readSys(dir, base string, max int64) (b []byte, ok bool) {
	if d.v.portableWalk {
		return nil, false
	}
	d.mu.Lock()
	fd, open := d.sys.fds[dir]
	if !open {
		fd = d.sys.openDir(d.v, dir)
	}
	d.mu.Unlock()
	if fd < 0 {
		return nil, false
	}
	return readAt(fd, base, max)
}

// openDir opens folder dir beneath the vault's root and keeps it, or
// returns -1.
func (s *sysDirs) openDir(v *Vault, dir string) int {
	if s.off {
		return -1
	}
	if s.root == nil {
		f, err := v.root.Open(".")
		if err != nil {
			s.off = true
			return -1
		}
		s.root, s.fds = f, map[string]int{}
	}
	if dir != "" {
		// By its name in its parent, the parent opened first the same way:
		// a folder nested d deep opened by its path from the root cost d
		// steps, and a vault of folders nested thousands deep with a note
		// in each was quadratic (4,000: 31 s). A name of one element
		// opened with O_NOFOLLOW cannot leave its parent; a folder that is
		// a symlink is left to openBeneath, as before.
		parent, name := splitDir(dir)
		pfd, open := s.fds[parent]
		if !open {
			pfd = s.openDir(v, parent)
		}
		if pfd >= 0 && name != ".." && name != "." {
			if fd, err := openChild(pfd, name); err == nil {
				if v.walkOpened != nil {
					v.walkOpened(dir, 1)
				}
				s.fds[dir] = fd
				return fd
			}
		}
	}
	p := "."
	if dir != "" {
		p = dir[:len(dir)-1]
	}
	if v.walkOpened != nil {
		v.walkOpened(dir, strings.Count(p, "/")+1)
	}
	fd, err := openBeneath(int(s.root.Fd()), p)
	if err != nil {
		if err == unix.ENOSYS || err == unix.EPERM {
			s.off = true // no openat2 here, or a sandbox refusing it
		}
		fd = -1 // and the os.Root path says why, for each of its notes
	}
	s.fds[dir] = fd
	return fd
}

// splitDir splits a folder's vault path ending in '/' into its parent's
// ("" for the root) and its name.
func splitDir(dir string) (parent, name string) {
	d := dir[:len(dir)-1]
	i := strings.LastIndexByte(d, '/')
	return dir[:i+1], d[i+1:]
}

// openChild opens the folder name of folder fd, no symlink followed.
func openChild(fd int, name string) (int, error) {
	for {
		cfd, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return cfd, err
		}
	}
}

func (s *sysDirs) close() {
	for _, fd := range s.fds {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
	if s.root != nil {
		s.root.Close()
	}
}

// readAt reads the regular file name of folder dirFD whole, reading at
// most max+1 bytes (max > 0; else its size at the stat plus one), as
// readIn does (readSized); ok is false for anything readIn must look at
// itself.
func readAt(dirFD int, name string, max int64) (b []byte, ok bool) {
	var fd int
	var err error
	for {
		fd, err = unix.Openat(dirFD, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || max > 0 && st.Size > max {
		return nil, false
	}
	b, err = readSized(fdReader(fd), st.Size, max)
	if err != nil || max > 0 && int64(len(b)) > max {
		return nil, false
	}
	return b, true
}

// fdReader reads a descriptor as an io.Reader: io.EOF at a read of
// nothing, a read cut short by a signal made again.
type fdReader int

func (fd fdReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(fd), p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}
