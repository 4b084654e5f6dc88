package vault

import "io/fs"

// statFile is the File of vault path p as info, its stat, describes it:
// size and modification time, and the status change time, device and
// inode where the system gives them (fileStat). symlink says p is a
// symbolic link, info its target's stat.
func statFile(p string, info fs.FileInfo, symlink bool) File {
	f := File{Path: p, Size: info.Size(), ModTime: info.ModTime(), Symlink: symlink}
	f.ChangeTime, f.Dev, f.Ino = fileStat(info)
	return f
}
