package index

import (
	"context"
	"errors"
	"strconv"
	"testing"
)

// TestUpdateStoppedMidBuild: a build whose context is cancelled while
// notes are still coming (a signal) ends with the context's error, every
// time. Its batch loop went on after the cancel, and the next batch was
// sent on the closed hand-over: zk index panicked "send on closed
// channel" when interrupted; a cancel just before the last batch waited
// for the writer's answer a second time, forever.
func TestUpdateStoppedMidBuild(t *testing.T) {
	notes := map[string]string{}
	for i := range 200 {
		notes["n"+strconv.Itoa(i)+".md"] = "# Note " + strconv.Itoa(i) + "\n\nsome words to index, and more of them\n"
	}
	v := testVault(t, notes)
	for round := range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		at := 1 + round*9 // the cancel comes at another note each round
		_, err := Update(ctx, v, Options{Dir: t.TempDir(), BatchBytes: 1, Progress: func(done, total int) {
			if done == at {
				cancel()
			}
		}}, false)
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("round %d, cancelled at note %d: %v, want the context's error", round, at, err)
		}
	}
}
