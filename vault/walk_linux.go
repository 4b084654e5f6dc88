package vault

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The walk on Linux. fs.ReadDir in an os.Root opens each folder one path
// element at a time, makes a DirEntry and a FileInfo for every entry, dot
// files and ignored ones too, and sorts every folder; all of that was a
// quarter of an unchanged zk check's CPU. Here a folder is opened by its
// name in its parent folder, still open (openat, no symlink followed: a
// name from the parent's listing has no "/" and is no ".."), read with
// getdents into a reused buffer, and only the entries kept are stat-ed
// (statx, by their name in that buffer, relative to the folder): one
// string made per entry, its path. Opened from the vault's root by its
// path, as it was, a folder d deep cost d path elements: 4,000 nested
// folders (past PATH_MAX, each then opened through the os.Root an element
// at a time) had zk check take 30 s of CPU, 8,000 142 s.

// sysWalk is the Linux reader's state for one walk.
type sysWalk struct {
	root *os.File // the vault's root folder
	// rootDir is the root folder as the base a folder is opened from,
	// its one reference the walk's own.
	rootDir *heldDir
	// held counts the folders kept open for their subfolders to open
	// from: at most heldMax, so that a vault of thousands of folders
	// waiting to be read does not hold a descriptor for each.
	held atomic.Int64
	// fallback is set once openat2 is refused (a kernel before 5.6, a
	// sandbox that filters it): from then on a folder not opened by its
	// name in its parent is read through the os.Root.
	fallback atomic.Bool
}

// heldMax is how many folders a walk keeps open for their subfolders.
// Past it, a folder's subfolders open by their path from its nearest
// folder kept open (the vault's root at worst).
const heldMax = 256

// heldDir is an open folder that subfolders open from, closed when the
// last of them (and its own reader) lets it go.
type heldDir struct {
	fd   int
	refs atomic.Int32
	w    *sysWalk // nil for the vault's root, which the walk closes
}

func (h *heldDir) release() {
	if h.refs.Add(-1) == 0 && h.w != nil {
		unix.Close(h.fd)
		h.w.held.Add(-1)
	}
}

// folderSys is how the Linux reader opens a folder: by rel, a path from
// base's folder (nil: the vault's root, by the folder's path). base is
// referenced for it until it is opened.
type folderSys struct {
	base *heldDir
	rel  string
	// kids and kidsRel are what its subfolders open from: its own
	// descriptor (kidsRel ""), or past heldMax its own base, kidsRel its
	// path from there; nil when it was read through the os.Root.
	kids    *heldDir
	kidsRel string
}

// open opens the vault's root folder for the walk; if it cannot be
// opened, the walk reads through the os.Root, which reports why.
func (w *walk) open() {
	if w.portable {
		return
	}
	f, err := w.v.root.Open(".")
	if err != nil {
		w.portable = true
		return
	}
	w.sys.root = f
	w.sys.rootDir = &heldDir{fd: int(f.Fd())}
	w.sys.rootDir.refs.Store(1)
}

func (w *walk) close() {
	if w.sys.root != nil {
		w.sys.root.Close()
	}
}

// inherit sets how sub, a subfolder of l found in its listing, is opened:
// from what l lends its subfolders, which it keeps open for it.
func (w *walk) inherit(l, sub *folderList) {
	k := l.sys.kids
	if k == nil {
		return // from the vault's root, by its path
	}
	k.refs.Add(1)
	sub.sys.base, sub.sys.rel = k, path.Base(sub.path)
	if l.sys.kidsRel != "" {
		sub.sys.rel = l.sys.kidsRel + "/" + sub.sys.rel
	}
}

// direntBufs holds getdents buffers: one folder's read at a time each.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// read reads folder p (a clean vault path) and keeps its entries.
func (w *walk) read(l *folderList) error {
	p := l.path
	if w.portable {
		return w.readFS(l)
	}
	base, rel := l.sys.base, l.sys.rel
	if base == nil {
		base, rel = w.sys.rootDir, p
		base.refs.Add(1)
	}
	// base is let go once the folder is read: past heldMax its
	// subfolders open from it too, each holding it for itself.
	defer base.release()
	if w.sys.fallback.Load() && base == w.sys.rootDir {
		return w.readFS(l)
	}
	w.sem <- struct{}{}
	fd, err := w.openFrom(base, rel, p)
	if err != nil {
		<-w.sem
		switch {
		case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM), errors.Is(err, unix.E2BIG):
			w.sys.fallback.Store(true)
			return w.readFS(l)
		case errors.Is(err, unix.ENAMETOOLONG):
			// A path longer than the system takes in one call: os.Root
			// opens it a folder at a time.
			return w.readFS(l)
		}
		return &fs.PathError{Op: "open", Path: p, Err: err}
	}
	defer func() { <-w.sem }()
	// Its subfolders open from it while fewer than heldMax folders are
	// kept open; else from its base, by their path from there.
	if w.sys.held.Add(1) <= heldMax {
		h := &heldDir{fd: fd, w: &w.sys}
		h.refs.Store(1)
		l.sys.kids = h
		defer h.release()
	} else {
		w.sys.held.Add(-1)
		defer unix.Close(fd)
		l.sys.kids, l.sys.kidsRel = base, rel
		if base == w.sys.rootDir {
			l.sys.kids, l.sys.kidsRel = nil, "" // from the root by path, as inherit does
		}
	}
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var skips []Skip
	var st unix.Statx_t
	seen := 0
	// statEach: every entry is stat-ed (Files). A listing of paths alone
	// (FilePaths) stats entries until one stat succeeds (a probe); once
	// one fails (a folder readable but not searchable), every entry is,
	// for the skips Files gives there.
	statEach, probed := !w.names, false
	for w.ctx.Err() == nil {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "readdirent", Path: p, Err: err}
		}
		if n <= 0 {
			break
		}
		if l.files == nil {
			// Room for every entry of the first read (most folders are
			// read in one): the list made once, not grown by doubling,
			// which copied it and faulted in twice its memory.
			l.files = make([]File, 0, direntCount(buf[:n]))
		}
		for off := 0; off < n; {
			// struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name.
			const nameOff = 19
			if off+nameOff >= n {
				return &fs.PathError{Op: "readdirent", Path: p, Err: unix.EIO}
			}
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen <= nameOff || off+reclen > n {
				return &fs.PathError{Op: "readdirent", Path: p, Err: unix.EIO}
			}
			rec := buf[off : off+reclen]
			off += reclen
			if seen++; seen%64 == 0 && w.ctx.Err() != nil {
				break
			}
			name := rec[nameOff:]
			end := 0
			for end < len(name) && name[end] != 0 {
				end++
			}
			if end == 0 || end == len(name) || name[0] == '.' {
				continue // "." and "..", dot files, a name with no end
			}
			path := joinBytes(p, name[:end])
			if w.v.Ignore != nil && w.v.Ignore(path) {
				continue
			}
			typ := direntMode(rec[18])
			var f File
			var err error
			if typ == unknownType || (typ.IsDir() || typ.IsRegular()) && (statEach || !probed) {
				if err = statxAt(fd, &name[0], &st); err == nil {
					typ = statxMode(st.Mode)
					probed = true
					if !w.names {
						f = statxFile(&st)
					}
				} else if err == unix.ENOENT {
					continue // gone since the folder was read
				} else {
					statEach = true
					err = &fs.PathError{Op: "lstat", Path: path, Err: err}
				}
			}
			skips = w.keep(l, skips, path, typ, f, err)
		}
	}
	w.done(l, skips)
	return nil
}

// direntCount is how many records a getdents buffer holds (each entry of
// the folder, "." and ".." among them); a record cut short ends it.
func direntCount(buf []byte) int {
	k := 0
	for off := 0; off+18 <= len(buf); k++ {
		reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
		if reclen == 0 {
			break
		}
		off += reclen
	}
	return k
}

// openFrom opens folder p of the vault by rel, its path from base's
// folder: one name by openat, following no symlink (a name from the
// parent's listing holds no "/" and is no ".."; a folder swapped for a
// symlink since is refused); a path by openat2 beneath base's folder.
func (w *walk) openFrom(base *heldDir, rel, p string) (int, error) {
	if w.v.walkOpened != nil {
		w.v.walkOpened(p, strings.Count(rel, "/")+1)
	}
	if strings.Contains(rel, "/") || rel == "." || base == w.sys.rootDir {
		return openBeneath(base.fd, rel)
	}
	for {
		fd, err := unix.Openat(base.fd, rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// openBeneath opens folder p of the folder open as dirFD (the vault's
// root, or a folder of it), refusing any path that leads out of it.
func openBeneath(dirFD int, p string) (int, error) {
	how := unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	for {
		fd, err := unix.Openat2(dirFD, p, &how)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// statxAt stats the entry of folder fd whose name starts at name (a NUL
// ends it, as in a getdents buffer) without following it: no string is
// made for the call. The birth time is asked too (Bases' file.ctime), and
// the status change time and inode (File.ChangeTime, Ino: the cache's
// stamps): the file system returns them from the inode it reads anyway,
// or leaves the birth time out of the answer's mask.
func statxAt(fd int, name *byte, st *unix.Statx_t) error {
	for {
		_, _, e := unix.Syscall6(unix.SYS_STATX, uintptr(fd), uintptr(unsafe.Pointer(name)),
			unix.AT_SYMLINK_NOFOLLOW|unix.AT_NO_AUTOMOUNT, statxMask, uintptr(unsafe.Pointer(st)), 0)
		switch e {
		case 0:
			return nil
		case unix.EINTR:
			continue
		}
		return e
	}
}

// statxMask is what the walk asks of each file's statx.
const statxMask = unix.STATX_TYPE | unix.STATX_SIZE | unix.STATX_MTIME | unix.STATX_CTIME | unix.STATX_INO | unix.STATX_BTIME

// statxFile is the File (its Path unset) of a statx answer: what
// statFile makes of the same file's fs.FileInfo, where the walk reads
// through the os.Root (the two are mixed in one walk, and must stamp a
// file alike), with its birth time where the answer gives one. The
// device is st_dev's, made of its major and minor numbers as the kernel
// makes it for stat(2).
func statxFile(st *unix.Statx_t) File {
	f := File{Size: int64(st.Size), ModTime: time.Unix(st.Mtime.Sec, int64(st.Mtime.Nsec)),
		ChangeTime: st.Ctime.Sec*1e9 + int64(st.Ctime.Nsec), Dev: unix.Mkdev(st.Dev_major, st.Dev_minor), Ino: st.Ino}
	if st.Mask&unix.STATX_BTIME != 0 {
		f.Birth = st.Btime.Sec*1e9 + int64(st.Btime.Nsec)
	}
	return f
}

// unknownType marks an entry whose type the folder listing does not give
// (DT_UNKNOWN, on some file systems): a stat says.
const unknownType = fs.ModeIrregular | fs.ModeType

// direntMode is statxMode of the type a folder listing gives: Linux's
// DT_ values are the S_IF ones shifted down by 12 (its DTTOIF), four bits
// wide; any other, DT_UNKNOWN among them, asks for a stat.
func direntMode(t byte) fs.FileMode {
	if t > 0xf {
		return unknownType
	}
	if m := statxMode(uint16(t) << 12); m != fs.ModeIrregular {
		return m
	}
	return unknownType
}

func statxMode(m uint16) fs.FileMode {
	switch uint32(m) & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}
