package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// The progress bar shows no rate until it has run long enough for one to
// mean something: its first frame once said 417885 notes/s.
func TestProgressRate(t *testing.T) {
	var out bytes.Buffer
	clock := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	p := &progress{tty: true, w: &out, now: func() time.Time { return clock }}
	for done := 1; done <= 500; done++ {
		clock = clock.Add(time.Microsecond)
		p.update(done, 10_000)
	}
	if strings.Contains(out.String(), "/s") {
		t.Errorf("a rate after 500 µs: %q", out.String())
	}
	clock = clock.Add(2 * time.Second)
	p.update(5_000, 10_000)
	if !strings.Contains(out.String(), "indexing, 2499 notes/s") {
		t.Errorf("after 2 s: %q, want the rate of 5000 notes in 2 s", out.String())
	}
}

func TestNotesCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 notes", 1: "1 note", 2: "2 notes"} {
		if got := notesCount(n); got != want {
			t.Errorf("notesCount(%d) = %q, want %q", n, got, want)
		}
	}
}
