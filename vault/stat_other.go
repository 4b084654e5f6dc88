//go:build !linux && !darwin

package vault

import "io/fs"

// fileStat gives no status change time, device or inode here (Windows
// keeps no ctime or inode its stat gives; the other systems name their
// stat's fields each its own way): a file is stamped by its size and
// modification time alone, as zk did everywhere before.
func fileStat(fs.FileInfo) (change int64, dev, ino uint64) { return 0, 0, 0 }
