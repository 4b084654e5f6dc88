//go:build !linux

package vault

import "os"

// leaseRead has no lease to take here: the quiet window and the checks
// before the write guard alone.
func leaseRead(*os.File) (release func(), writing bool) { return func() {}, false }

// writeLease is a no-op here, as leaseRead is.
type writeLease struct{}

func leaseWrite(*os.File) (writeLease, bool) { return writeLease{}, false }
func (writeLease) broken() bool              { return false }
func (writeLease) release()                  {}
