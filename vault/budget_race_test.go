package vault

import (
	"strings"
	"testing"
	"time"
)

// TestParseWithBudgetTimeout gives goldmark a budget it cannot meet, again
// and again on one parser: each note comes back from the fallback scanner,
// and the parser still reads the next one. The abandoned parse must not
// share the parser's fields with the swap that replaces them (run with
// -race: it once read p.md while ParseWithBudget overwrote *p).
func TestParseWithBudgetTimeout(t *testing.T) {
	// The tab past the indent keeps the note off the fast path, which
	// needs no budget (it reads escapes since cdaeb10).
	src := []byte("# Slow\n\n" + strings.Repeat("`code` [[Target]] *em* <b>x</b>\t\\*\n", 1000))
	if len(src) < unguardedSize {
		t.Fatalf("the note is %d bytes, under the %d that get a deadline", len(src), unguardedSize)
	}
	p := NewParser()
	fellBack := 0
	for range 20 {
		abandoned := p.wiki.stop
		n := p.ParseWithBudget("slow.md", src, time.Nanosecond)
		if n.Fallback {
			fellBack++
			if !abandoned.Load() || p.wiki.stop.Load() {
				t.Fatalf("after a fallback: the abandoned parse's stop %v, the new parser's %v; want true, false", abandoned.Load(), p.wiki.stop.Load())
			}
		}
		if len(n.Links) != 1000 || len(n.Headings) != 1 {
			t.Fatalf("read %d links and %d headings, want 1000 and 1", len(n.Links), len(n.Headings))
		}
	}
	if fellBack == 0 {
		t.Error("a 1 ns budget never fell back")
	}
	// The parser still parses in full once given the time.
	if n := p.ParseWithBudget("slow.md", src, time.Minute); n.Fallback || len(n.Links) != 1000 {
		t.Errorf("after the timeouts: fallback %v, %d links", n.Fallback, len(n.Links))
	}
}

// TestBudgetCountsTheParsesOwnTime: a parse that waits (a machine too
// busy to run it) spends none of its budget where the system counts a
// thread's CPU time, and gives its note; one that computes past its
// budget is abandoned either way. The wait is the note's shape under
// load: the same note must not fall back on a busy machine alone.
func TestBudgetCountsTheParsesOwnTime(t *testing.T) {
	want := &Note{Path: "waits.md"}
	n, ok := budgeted(20*time.Millisecond, nil, func() *Note {
		time.Sleep(200 * time.Millisecond)
		return want
	})
	if threadClocks && (!ok || n != want) {
		t.Errorf("a parse that waited 200 ms on a 20 ms budget of CPU fell back")
	}
	if !threadClocks && ok {
		t.Errorf("a parse that waited 200 ms on a 20 ms budget of wall time was kept")
	}
	stop := make(chan struct{})
	defer close(stop)
	if _, ok := budgeted(20*time.Millisecond, nil, func() *Note {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
			select {
			case <-stop:
				return want
			default:
			}
		}
		return want
	}); ok {
		t.Error("a parse computing for 10 s on a 20 ms budget was kept")
	}
}
