//go:build !linux

package vault

// sysWalk is the Linux reader's state; elsewhere folders are read
// through the os.Root's fs.FS.
type sysWalk struct{}

// folderSys is how the Linux reader opens a folder.
type folderSys struct{}

func (w *walk) open()  {}
func (w *walk) close() {}

func (w *walk) read(l *folderList) error { return w.readFS(l) }

func (w *walk) inherit(*folderList, *folderList) {}
