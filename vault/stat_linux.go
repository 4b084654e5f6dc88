package vault

import (
	"io/fs"
	"syscall"
)

// fileStat is a stat's status change time (Unix nanoseconds), device and
// inode, as File keeps them; zero when info is no system stat.
func fileStat(info fs.FileInfo) (change int64, dev, ino uint64) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano(), uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0, 0
}
