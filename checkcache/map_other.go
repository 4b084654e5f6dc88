//go:build !unix

package checkcache

import (
	"errors"
	"os"
)

// mapFile maps nothing where zk has no mmap (Windows): the model file is
// read, as on a file system that cannot map it.
func mapFile(*os.File, int) ([]byte, error) {
	return nil, errors.New("checkcache: no mapping on this system")
}

// unmapFile has nothing to undo.
func unmapFile([]byte) {}
