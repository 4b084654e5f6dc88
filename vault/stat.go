package vault

import "io/fs"

// FileOf is the File of vault path p as info, its own stat (not
// followed), describes it: as the walk would list it, for a file zk
// stamps outside the walk (a run's log in a cache key).
func FileOf(p string, info fs.FileInfo) File { return statFile(p, info, false) }

// statFile is the File of vault path p as info, its stat, describes it:
// size and modification time, and the status change time, device and
// inode where the system gives them (fileStat). symlink says p is a
// symbolic link, info its target's stat.
func statFile(p string, info fs.FileInfo, symlink bool) File {
	f := File{Path: p, Size: info.Size(), ModTime: info.ModTime(), Symlink: symlink}
	f.ChangeTime, f.Dev, f.Ino = fileStat(info)
	return f
}
