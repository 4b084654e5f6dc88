package base

import (
	"path"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zk-claims/zk/vault"
)

// birthTimes sets each file's CTime to its birth time, which Obsidian's
// file.ctime is, where the file system keeps one (statx's STATX_BTIME:
// ext4, btrfs, xfs, tmpfs); elsewhere CTime stays the modification time.
// Read asks it for symlinks only, the link's own time (the walk gives
// every other file's). Each folder is opened through the vault's root,
// and its files are stat-ed relative to it, so no path leaves the vault.
func birthTimes(v *vault.Vault, files []*File, loc *time.Location) {
	if len(files) == 0 {
		return
	}
	byDir := map[string][]*File{}
	var dirs []string
	for _, f := range files {
		d := path.Dir(f.Path)
		if _, ok := byDir[d]; !ok {
			dirs = append(dirs, d)
		}
		byDir[d] = append(byDir[d], f)
	}
	vault.Parallel(len(dirs), func(i int) {
		dir, err := v.Root().Open(dirs[i])
		if err != nil {
			return
		}
		defer dir.Close()
		fd := int(dir.Fd())
		for _, f := range byDir[dirs[i]] {
			var st unix.Statx_t
			if unix.Statx(fd, path.Base(f.Path), unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &st) != nil || st.Mask&unix.STATX_BTIME == 0 {
				continue
			}
			f.CTime, f.noBirth = time.Unix(st.Btime.Sec, int64(st.Btime.Nsec)).In(loc), false
		}
	})
}
