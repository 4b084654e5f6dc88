//go:build !unix

package vault

import (
	"io/fs"
	"os"
	"time"
)

// processAlive cannot tell here; temporary files are then swept by age
// alone.
func processAlive(int) bool { return true }

// lockWrites has no advisory lock to take here: zk writers are kept apart
// only by the re-read before each write.
func lockWrites(*os.Root, time.Duration) (func(), error) { return func() {}, nil }

// hardLinked cannot tell here.
func hardLinked(fs.FileInfo) bool { return false }

// keepOwner has nothing to keep here: a replaced file takes its folder's
// permissions.
func keepOwner(*os.File, fs.FileInfo) error { return nil }
