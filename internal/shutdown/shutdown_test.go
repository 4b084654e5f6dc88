package shutdown

import (
	"context"
	"testing"
	"time"
)

// Wait waits for a hold to be released, and returns at once when none
// is held; a hold outside WithHolds holds nothing.
func TestWaitWaitsForTheHold(t *testing.T) {
	ctx, h := WithHolds(context.Background())
	h.Wait(time.Hour) // nothing held: returns at once

	release := Hold(ctx)
	released := make(chan struct{})
	go func() {
		release()
		release() // a second release is a no-op
		close(released)
	}()
	h.Wait(time.Hour)
	<-released

	Hold(context.Background())() // no Holds: nothing to count
	h.Wait(time.Hour)
}
