//go:build !unix && !windows

package ownfile

import (
	"context"
	"os"
	"time"
)

// Lock has no advisory lock to take here: zk processes are kept apart
// only by the checks each makes before it acts.
func Lock(*os.Root, string, time.Duration) (func(), error) { return func() {}, nil }

// LockContext is Lock: there is nothing to wait for.
func LockContext(context.Context, *os.Root, string, time.Duration) (func(), error) {
	return func() {}, nil
}
